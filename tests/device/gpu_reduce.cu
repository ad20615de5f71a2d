// gpu_reduce — samebits/gpu/reduce.hpp on the GPU gives, bit for bit, the
// host reference of the same tree, for every block size (so for any number
// of warps per block) and array length tried; the data mixes magnitudes so
// that the order of additions matters (a control checks that a sequential
// left-to-right sum differs on it), with +-0, subnormals, infinities and NaN
// in some arrays. A planted one-ulp change in one device result must be the
// only mismatch reported. JSON lines; exit 0 all equal and the controls hold,
// 1 a mismatch or a control failed, 2 a runtime error.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <samebits/gpu/buffer.hpp>
#include <samebits/gpu/launch.hpp>
#include <samebits/gpu/reduce.hpp>

namespace {

namespace sg = samebits::gpu;
namespace fp = samebits::fp;

// out[3*b .. 3*b+2] = block b's block_sum, block_max (one element per thread)
// and group_sum of group 0.
SAMEBITS_KERNEL void per_thread(const float* x, float* out) {
  SAMEBITS_SHARED float scratch[sg::kReduceScratch];
  const unsigned i = sg::arch::block_x() * sg::arch::block_dim_x() + sg::arch::thread_x();
  const float s = sg::block_sum(x[i], scratch);
  const float m = sg::block_max(x[i], scratch);
  const float g = sg::group_sum(x[i]);
  if (sg::arch::thread_x() == 0) {
    out[3 * sg::arch::block_x()] = s;
    out[3 * sg::arch::block_x() + 1] = m;
    out[3 * sg::arch::block_x() + 2] = g;
  }
}

SAMEBITS_KERNEL void whole_array(const float* x, unsigned long long n, float* out) {
  SAMEBITS_SHARED float scratch[sg::kReduceScratch];
  const float s = sg::block_sum_array(x, n, scratch);
  const float m = sg::block_max_array(x, n, scratch);
  if (sg::arch::thread_x() == 0) {
    out[0] = s;
    out[1] = m;
  }
}

std::vector<float> make_data(std::size_t n, int kind, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> mant(1.0f, 2.0f);
  std::uniform_int_distribution<int> ex(-30, 30), sign(0, 1), pick(0, 99);
  std::vector<float> v(n);
  for (auto& e : v) {
    e = std::ldexp(mant(rng), ex(rng)) * (sign(rng) ? -1.0f : 1.0f);
    if (kind == 1) {  // specials sprinkled in (no inf/NaN: those collapse the sum)
      const int p = pick(rng);
      if (p == 0) e = 0.0f;
      else if (p == 1) e = -0.0f;
      else if (p == 2) e = fp::from_bits(0x00000001u + static_cast<std::uint32_t>(pick(rng)));
      else if (p == 3) e = -fp::from_bits(0x007fffffu);
    } else if (kind == 2 && pick(rng) == 0) {  // with infinities and NaN
      const int p = pick(rng) % 3;
      e = p == 0 ? INFINITY : p == 1 ? -INFINITY : fp::from_bits(0x7fa00001u);
    } else if (kind == 3) {  // all zeros, mixed signs: the sign rule
      e = sign(rng) ? 0.0f : -0.0f;
    }
  }
  return v;
}

int failures = 0;
std::uint64_t compared = 0, mismatched = 0;

void expect(const char* what, const std::string& where, float got, float want) {
  ++compared;
  if (fp::to_bits(got) != fp::to_bits(want)) {
    ++mismatched;
    ++failures;
    std::printf("{\"mismatch\": \"%s\", \"case\": \"%s\", \"device\": \"0x%08x\", \"host\": \"0x%08x\"}\n", what,
                where.c_str(), fp::to_bits(got), fp::to_bits(want));
  }
}

float sequential_sum(const std::vector<float>& v) {
  float s = -0.0f;
  for (float e : v) s = s + e;
  return s;
}

}  // namespace

int main() {
  try {
    sg::Stream stream;
    sg::check(sg::Stream::create(stream));
    int order_matters = 0;
    // One element per thread: blocks of 32 .. 1024 threads.
    for (unsigned block : {32u, 64u, 96u, 128u, 256u, 480u, 1024u}) {
      for (int kind = 0; kind < 4; ++kind) {
        const unsigned blocks = 64;
        const std::size_t n = std::size_t{block} * blocks;
        const auto x = make_data(n, kind, block * 7 + kind);
        sg::DeviceBuffer<float> dx, dout;
        sg::PinnedBuffer<float> hout;
        sg::check(sg::DeviceBuffer<float>::create(n, dx));
        sg::check(sg::DeviceBuffer<float>::create(3 * blocks, dout));
        sg::check(sg::PinnedBuffer<float>::create(3 * blocks, hout));
        sg::check(sg::copy_async(dx.data(), x.data(), n, stream));
        sg::check(sg::launch(per_thread, sg::Shape{blocks, block}, stream, dx.data(), dout.data()));
        sg::check(sg::copy_async(hout.data(), dout.data(), 3 * blocks, stream));
        sg::check(stream.synchronize());
        for (unsigned b = 0; b < blocks; ++b) {
          const float* xb = x.data() + std::size_t{b} * block;
          const std::string where = "block " + std::to_string(block) + " kind " + std::to_string(kind);
          expect("block_sum", where, hout[3 * b], sg::reference::sum(xb, block));
          expect("block_max", where, hout[3 * b + 1], sg::reference::max(xb, block));
          expect("group_sum", where, hout[3 * b + 2], sg::reference::sum(xb, 32));
          if (kind == 0)
            order_matters += fp::to_bits(sg::reference::sum(xb, block)) != fp::to_bits(sequential_sum({xb, xb + block}));
        }
      }
    }
    // Whole arrays of any length, one block of each size: the same result for all.
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{33}, std::size_t{1000},
                          std::size_t{1024}, std::size_t{1025}, std::size_t{32769}, std::size_t{1} << 20,
                          std::size_t{3'000'017}}) {
      for (int kind = 0; kind < 3; ++kind) {
        const auto x = make_data(n, kind, static_cast<std::uint32_t>(n) + kind);
        const float want_sum = sg::reference::sum(x.data(), n), want_max = sg::reference::max(x.data(), n);
        if (kind == 0 && n > 1) order_matters += fp::to_bits(want_sum) != fp::to_bits(sequential_sum(x));
        sg::DeviceBuffer<float> dx, dout;
        sg::PinnedBuffer<float> hout;
        sg::check(sg::DeviceBuffer<float>::create(n ? n : 1, dx));
        sg::check(sg::DeviceBuffer<float>::create(2, dout));
        sg::check(sg::PinnedBuffer<float>::create(2, hout));
        if (n) sg::check(sg::copy_async(dx.data(), x.data(), n, stream));
        for (unsigned block : {32u, 96u, 256u, 1024u}) {
          sg::check(sg::launch(whole_array, sg::Shape{1, block}, stream, dx.data(), n, dout.data()));
          sg::check(sg::copy_async(hout.data(), dout.data(), 2, stream));
          sg::check(stream.synchronize());
          const std::string where = "array n " + std::to_string(n) + " block " + std::to_string(block) + " kind " +
                                    std::to_string(kind);
          expect("block_sum_array", where, hout[0], want_sum);
          expect("block_max_array", where, hout[1], want_max);
          // Negative control, once: one planted one-ulp change is reported.
          if (n == 1000 && block == 96 && kind == 0) {
            const std::uint64_t before = mismatched;
            const int f = failures;
            std::printf("{\"negative_control\": \"one planted one-ulp change\", \"case\": \"%s\"}\n", where.c_str());
            expect("planted", where, fp::from_bits(fp::to_bits(hout[0]) + 1), want_sum);
            const bool caught = mismatched == before + 1;
            mismatched = before;
            failures = f + (caught ? 0 : 1);
            --compared;
            std::printf("{\"negative_control\": \"one planted one-ulp change\", \"caught\": %s}\n",
                        caught ? "true" : "false");
          }
        }
      }
    }
    const bool order_ok = order_matters > 0;
    if (!order_ok) ++failures;
    std::printf("{\"test\": \"gpu reduce vs host reference\", \"compared\": %llu, \"mismatches\": %llu, "
                "\"cases_where_sequential_order_differs\": %d, \"order_control_ok\": %s}\n",
                static_cast<unsigned long long>(compared), static_cast<unsigned long long>(mismatched), order_matters,
                order_ok ? "true" : "false");
  } catch (const sg::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return failures ? 1 : 0;
}
