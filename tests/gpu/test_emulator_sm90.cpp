// The fiber emulator's sm_90 operations that the tensor-core kernels lean on
// (gpu/arch/emulator_sm90.hpp), each against a hand computation:
//   - mbarriers: a producer warp hands 8 items through a 2-stage ring to a
//     consumer warp (full / empty barriers, phase parities), in every thread
//     order; control: the producer without its empty wait either loses items
//     or leaves a wait no arrival ends (the launch reports it);
//   - named barriers: a warp's bar.arrive releases another warp's bar.sync
//     only when the round's thread count has arrived; control: without the
//     barrier the reader runs first (reverse order) and reads what nobody wrote;
//   - setmaxnreg: a 384-thread block (168 registers a thread at launch) moves
//     registers from its third warpgroup to the other two (24 -> 240, the
//     backward's split; 56 -> 224, the forward's) in every order; control: a
//     split that asks for more than the block holds (32 -> 240: 65,536 >
//     64,512) is reported as a wait that cannot end, as it hangs a GPU;
//   - the 128-byte swizzle: wgmma reads of a K-major A and an MN-major B
//     (two 64-column panels) written with the XOR of the PTX ISA's swizzle
//     mode 1 equal the exact integer product; controls: the descriptor
//     without the swizzle bit, and LBO / SBO swapped, read other elements;
//   - wgmma's asynchrony: results only after wgmma_wait retires their group
//     (chaining across groups in flight gives the same product); controls:
//     reads before the wait see the poison NaN, a write to an accumulator or
//     an A fragment in flight and a thread that never waits are reported;
//   - TMA: boxes landed by tma_load_3d are read by wgmma as the swizzle test's hand-placed
//     operands (the exact product); zeros outside the tensor; controls: swapped panels, fewer
//     bytes expected than land (reported), more (the phase never completes, reported);
//   - TMA stores: a swizzled tile stored by tma_store_3d lands row-major where the box lies inside
//     the tensor, nothing elsewhere; controls: the issue before the tile was written, a write to
//     it before the wait, a thread that never waits (each reported).
// What this cannot check: the hardware (tests/device/kernels/attention_tc_check.cu,
// its layout section).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "samebits/gpu/emulator.hpp"
#include "samebits/gpu/tensor_core.hpp"
#include "samebits/gpu/thread.hpp"

namespace gpu = samebits::gpu;
namespace emu = samebits::gpu::emulator;
namespace emu_sm90 = samebits::gpu::arch::sm90::emu_state;

namespace {

alignas(1024) std::uint32_t smem4[96 * 1024 / 4];  // the emulated shared memory

// ---- mbarriers -----------------------------------------------------------------

constexpr int kItems = 8, kStages = 2, kLanes = 32;
struct Ring {
  std::uint64_t full[kStages], empty[kStages];
  int slot[kStages][kLanes];
};

// Warp 0 produces item i (lane l writes i * 100 + l) into stage i % 2 once the consumer released
// item i - 2 there; warp 1 adds every item's 32 values into its lane's sum.
void ring_kernel(long long* sums, bool producer_waits) {
  auto* r = reinterpret_cast<Ring*>(smem4);
  const unsigned tid = gpu::thread_x(), lane = tid % 32;
  if (tid == 0)
    for (int s = 0; s < kStages; ++s) {
      gpu::mbarrier_init(&r->full[s], kLanes);
      gpu::mbarrier_init(&r->empty[s], kLanes);
    }
  gpu::fence_mbarrier_init();
  gpu::block_barrier();
  if (tid < 32) {
    for (int i = 0; i < kItems; ++i) {
      const int s = i % kStages;
      if (producer_waits && i >= kStages) gpu::mbarrier_wait(&r->empty[s], (i / kStages - 1) & 1);
      r->slot[s][lane] = i * 100 + static_cast<int>(lane);
      gpu::mbarrier_arrive(&r->full[s]);
    }
    return;
  }
  long long sum = 0;
  for (int i = 0; i < kItems; ++i) {
    const int s = i % kStages;
    gpu::mbarrier_wait(&r->full[s], (i / kStages) & 1);
    sum += r->slot[s][lane];
    gpu::mbarrier_arrive(&r->empty[s]);
  }
  sums[lane] = sum;
}

long long want_sum(unsigned lane) {
  long long s = 0;
  for (int i = 0; i < kItems; ++i) s += i * 100 + lane;
  return s;
}

}  // namespace

TEST_CASE("emulator mbarriers: a producer warp hands a 2-stage ring to a consumer warp", "[gpu][emulator]") {
  emu_sm90::shared_base = smem4;
  for (auto order : {emu::Order::forward, emu::Order::reverse, emu::Order::shuffled}) {
    std::vector<long long> sums(32, -1);
    emu::launch({1, 1, 1}, 64, [&] { ring_kernel(sums.data(), true); }, {{smem4, sizeof(Ring)}}, order);
    int bad = 0;
    for (unsigned l = 0; l < 32; ++l) bad += sums[l] != want_sum(l);
    CHECK(bad == 0);
  }
}

namespace {
// Warp 0 writes 32 values and arrives on named barrier 1; warp 1 syncs on it (64 threads) and
// copies them out.
void named_kernel(int* out, bool with_barrier) {
  auto* slot = reinterpret_cast<int*>(smem4);
  const unsigned tid = gpu::thread_x(), lane = tid % 32;
  if (tid < 32) {
    slot[lane] = 1000 + static_cast<int>(lane);
    if (with_barrier) gpu::named_barrier_arrive(1, 64);
    return;
  }
  if (with_barrier) gpu::named_barrier_sync(1, 64);
  out[lane] = slot[lane];
}
}  // namespace

TEST_CASE("emulator named barriers: bar.arrive releases bar.sync at the round's count", "[gpu][emulator]") {
  emu_sm90::shared_base = smem4;
  for (auto order : {emu::Order::forward, emu::Order::reverse, emu::Order::shuffled}) {
    std::vector<int> out(32, -1);
    emu::launch({1, 1, 1}, 64, [&] { named_kernel(out.data(), true); }, {{smem4, 128}}, order);
    int bad = 0;
    for (int l = 0; l < 32; ++l) bad += out[l] != 1000 + l;
    CHECK(bad == 0);
  }
  // Control: without the barrier, the reader warp running first reads the poisoned slots.
  std::vector<int> out(32, -1);
  emu::launch({1, 1, 1}, 64, [&] { named_kernel(out.data(), false); }, {{smem4, 128}}, emu::Order::reverse);
  int bad = 0;
  for (int l = 0; l < 32; ++l) bad += out[l] != 1000 + l;
  CHECK(bad == 32);
}

namespace {
template <int Dec, int Inc>
void regs_kernel(int* out) {
  const unsigned tid = gpu::thread_x();
  if (tid >= 256) {
    gpu::setmaxnreg_dec<Dec>();
    out[tid] = Dec;
    return;
  }
  gpu::setmaxnreg_inc<Inc>();
  out[tid] = Inc;
}
}  // namespace

TEST_CASE("emulator setmaxnreg: registers move within the block's launch pool", "[gpu][emulator]") {
  for (auto order : {emu::Order::forward, emu::Order::reverse, emu::Order::shuffled, emu::Order::starve_last_warpgroup}) {
    std::vector<int> out(384, -1);
    emu::launch({1, 1, 1}, 384, [&] { regs_kernel<24, 240>(out.data()); }, {}, order);
    int bad = 0;
    for (int t = 0; t < 384; ++t) bad += out[t] != (t < 256 ? 240 : 24);
    CHECK(bad == 0);
    std::vector<int> fwd(384, -1);
    emu::launch({1, 1, 1}, 384, [&] { regs_kernel<56, 224>(fwd.data()); }, {}, order);
    bad = 0;
    for (int t = 0; t < 384; ++t) bad += fwd[t] != (t < 256 ? 224 : 56);
    CHECK(bad == 0);
  }
  // Control: 2 x 128 x 240 + 128 x 32 = 65,536 registers, more than the block's 384 x 168.
  bool reported = false;
  std::vector<int> out(384, -1);
  try {
    emu::launch({1, 1, 1}, 384, [&] { regs_kernel<32, 240>(out.data()); }, {}, emu::Order::forward);
  } catch (const std::logic_error& e) {
    reported = std::string(e.what()).find("setmaxnreg") != std::string::npos;
  }
  CHECK(reported);
}

TEST_CASE("emulator mbarriers, control: the producer without its empty wait is caught", "[gpu][emulator]") {
  emu_sm90::shared_base = smem4;
  for (auto order : {emu::Order::forward, emu::Order::reverse, emu::Order::shuffled}) {
    std::vector<long long> sums(32, -1);
    bool reported = false;
    try {
      emu::launch({1, 1, 1}, 64, [&] { ring_kernel(sums.data(), false); }, {{smem4, sizeof(Ring)}}, order);
    } catch (const std::logic_error& e) {
      reported = std::string(e.what()).find("mbarrier") != std::string::npos;
    }
    int bad = 0;
    for (unsigned l = 0; l < 32; ++l) bad += sums[l] != want_sum(l);
    CHECK((reported || bad > 0));
  }
}

// ---- the 128-byte swizzle ---------------------------------------------------------

namespace {

constexpr int kM = 64, kN = 128, kK = 64;  // A [64 x 64] K-major, B [64 k x 128 n] MN-major (two panels)
constexpr std::uint32_t kAtom = 1024, kPanelB = kK * 128;  // B: a panel is 64 k-rows of 128 bytes

std::uint16_t bf16_of_int(int x) {  // small integers are exact in bf16
  float f = static_cast<float>(x);
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<std::uint16_t>(u >> 16);
}
// Byte offset of 16-bit element e of 128-byte row r in a swizzled region (1024-aligned base).
std::uint32_t sw(std::uint32_t row_base, int e) {
  const std::uint32_t a = row_base + static_cast<std::uint32_t>(e) * 2;
  return a ^ (((a >> 7) & 7u) << 4);
}

int a_val(int m, int k) { return (m * 7 + k * 3) % 5 - 2; }
int b_val(int k, int n) { return (k * 5 + n * 11) % 7 - 3; }

// Elements of out (D = A B, [kM x kN] row-major) that differ from the exact integer product.
long product_mismatches(const std::vector<float>& out) {
  long bad = 0;
  for (int m = 0; m < kM; ++m)
    for (int n = 0; n < kN; ++n) {
      long s = 0;
      for (int k = 0; k < kK; ++k) s += long{a_val(m, k)} * b_val(k, n);
      bad += out[m * kN + n] != static_cast<float>(s);
    }
  return bad;
}

// How swizzle_kernel waits for its wgmmas (wgmma is asynchronous in the emulator, as on a GPU).
enum class Waits {
  proper,         // four steps in one commit group, wgmma_wait<0>, then the reads
  chained,        // two groups of two steps, the second chained on the first while it is in flight
  read_early,     // the reads before the wait: they see the poison NaN
  write_early,    // an accumulator written while its group is in flight: reported at the wait
  never,          // no wait: reported when the thread exits
  fragment_early  // an A fragment (register operand) overwritten while its wgmma is in flight
};

// One warpgroup: D = A B over four k16 steps, A K-major (k16 step: +32 B in a row), B MN-major
// (k16 step: +16 rows). Thread t's accumulator element i is D(frag_row, frag_col).
void swizzle_kernel(float* out, std::uint64_t a_desc, std::uint64_t b_desc, std::uint64_t b_step,
                    Waits waits = Waits::proper) {
  float d[kN / 2];
  for (float& x : d) x = 0.0f;
  const unsigned t = gpu::thread_x();
  auto read = [&] {
    for (int i = 0; i < kN / 2; ++i) {
      const int row = 16 * static_cast<int>(t / 32) + static_cast<int>(t % 32) / 4 + 8 * ((i / 2) % 2);
      const int col = 8 * (i / 4) + 2 * static_cast<int>(t % 4) + i % 2;
      out[row * kN + col] = d[i];
    }
  };
  gpu::wgmma_fence();
  for (int kk = 0; kk < kK / 16; ++kk) {
    gpu::wgmma_ss<gpu::Format::bf16, kN, 1>(d, a_desc + ((kk * 32) >> 4), b_desc + kk * b_step, kk > 0);
    if (waits == Waits::chained && kk == 1) gpu::wgmma_commit();
  }
  if (waits == Waits::fragment_early) {
    // A k16 step with A from registers (any values: its result is not read), then its
    // fragment overwritten before the wait.
    std::uint32_t ra[4] = {t, t + 1, t + 2, t + 3};
    gpu::wgmma_rs<gpu::Format::bf16, kN, 1>(d, ra, b_desc, 1);
    gpu::wgmma_commit();
    ra[0] ^= 1u;
    gpu::wgmma_wait<0>();
    return;
  }
  gpu::wgmma_commit();
  if (waits == Waits::read_early) read();
  if (waits == Waits::write_early) d[0] = 1.0f;
  if (waits != Waits::never) gpu::wgmma_wait<0>();
  if (waits != Waits::read_early) read();
}

long run_swizzle(bool swizzled_desc, bool swap_b_offsets, Waits waits = Waits::proper) {
  auto* base = reinterpret_cast<unsigned char*>(smem4);
  std::memset(base, 0, sizeof smem4);
  const std::uint32_t a0 = 0, b0 = kM * 128;  // A: 64 rows of 128 B (8 KiB), then B's two panels
  for (int m = 0; m < kM; ++m)
    for (int k = 0; k < kK; ++k) {
      const std::uint16_t v = bf16_of_int(a_val(m, k));
      std::memcpy(base + sw(a0 + m * 128, k), &v, 2);
    }
  for (int k = 0; k < kK; ++k)
    for (int n = 0; n < kN; ++n) {
      const std::uint16_t v = bf16_of_int(b_val(k, n));
      std::memcpy(base + sw(b0 + (n / 64) * kPanelB + k * 128, n % 64), &v, 2);
    }
  emu_sm90::shared_base = smem4;
  emu_sm90::params = samebits::mma::sm90::Params{};
  auto desc = [&](std::uint32_t off, std::uint32_t lbo, std::uint32_t sbo) {
    return swizzled_desc ? gpu::smem_descriptor_sw128(base + off, lbo, sbo) : gpu::smem_descriptor(base + off, lbo, sbo);
  };
  const std::uint64_t da = desc(a0, kAtom, kAtom);
  const std::uint64_t db = swap_b_offsets ? desc(b0, kAtom, kPanelB) : desc(b0, kPanelB, kAtom);
  std::vector<float> out(kM * kN, -1.0f);
  emu::launch({1, 1, 1}, 128, [&] { swizzle_kernel(out.data(), da, db, (16 * 128) >> 4, waits); }, {}, emu::Order::forward);
  return product_mismatches(out);
}

}  // namespace

TEST_CASE("emulator wgmma: 128-byte-swizzled K-major A and MN-major B equal the exact product", "[gpu][emulator]") {
  CHECK(run_swizzle(true, false) == 0);
  // Controls: the same bytes read without the swizzle bit, or with LBO and SBO swapped.
  CHECK(run_swizzle(false, false) > 0);
  CHECK(run_swizzle(true, true) > 0);
}

TEST_CASE("emulator wgmma: asynchronous, results only after their group is waited for", "[gpu][emulator]") {
  // Two commit groups, the second chained on the first's accumulators in flight: the same product.
  CHECK(run_swizzle(true, false, Waits::chained) == 0);
  // Controls: reads before the wait see the poison (every element wrong); a write to an
  // accumulator in flight, an overwritten A fragment, and a thread that never waits are reported.
  CHECK(run_swizzle(true, false, Waits::read_early) == kM * kN);
  CHECK_THROWS_WITH(run_swizzle(true, false, Waits::write_early), Catch::Contains("accumulator register was written"));
  CHECK_THROWS_WITH(run_swizzle(true, false, Waits::fragment_early), Catch::Contains("A-fragment register was overwritten"));
  CHECK_THROWS_WITH(run_swizzle(true, false, Waits::never), Catch::Contains("never waited for"));
}

// ---- TMA (tma_load_3d, attention-tc.md §27) ------------------------------------------

namespace {

// The swizzle test's operands, but landed by TMA from global tensors in the kernels' [rows, heads,
// d] layout: A [64 rows, 1, 64] (one box), B [64 k, 1, 128 n] (two boxes of 64 n, one a panel).
// `expect` is the bytes expected on the barrier (24 KiB: the boxes'); swap_panels lands B's two
// panels in each other's place (control).
alignas(16) std::uint16_t g_a[kM * kK], g_b[kK * kN];

long run_tma_wgmma(std::uint32_t expect, bool swap_panels) {
  for (int m = 0; m < kM; ++m)
    for (int k = 0; k < kK; ++k) g_a[m * kK + k] = bf16_of_int(a_val(m, k));
  for (int k = 0; k < kK; ++k)
    for (int n = 0; n < kN; ++n) g_b[k * kN + n] = bf16_of_int(b_val(k, n));
  gpu::TensorMapShape sa, sb;
  sa.base = g_a;
  sa.dims[0] = kK, sa.dims[1] = 1, sa.dims[2] = kM;
  sa.strides[0] = sa.strides[1] = kK * 2;
  sa.box[0] = 64, sa.box[1] = 1, sa.box[2] = kM;
  sb = sa;
  sb.base = g_b;
  sb.dims[0] = kN, sb.dims[2] = kK;
  sb.strides[0] = sb.strides[1] = kN * 2;
  sb.box[2] = kK;
  gpu::TensorMap ma, mb;
  REQUIRE(gpu::encode_tensor_map(ma, sa));
  REQUIRE(gpu::encode_tensor_map(mb, sb));
  auto* base = reinterpret_cast<unsigned char*>(smem4);
  std::memset(base, 0xff, sizeof smem4);
  const std::uint32_t a0 = 0, b0 = kM * 128, bar_off = 32768;
  auto* bar = reinterpret_cast<std::uint64_t*>(base + bar_off);
  emu_sm90::shared_base = smem4;
  emu_sm90::params = samebits::mma::sm90::Params{};
  const std::uint64_t da = gpu::smem_descriptor_sw128(base + a0, kAtom, kAtom);
  const std::uint64_t db = gpu::smem_descriptor_sw128(base + b0, kPanelB, kAtom);
  std::vector<float> out(kM * kN, -1.0f);
  emu::launch({1, 1, 1}, 128, [&] {
    if (gpu::thread_x() == 0) gpu::mbarrier_init(bar, 1);
    gpu::block_barrier();
    if (gpu::thread_x() == 0) {
      gpu::mbarrier_expect_tx(bar, expect);
      gpu::tma_load_3d(base + a0, &ma, 0, 0, 0, bar);
      for (int p = 0; p < 2; ++p)
        gpu::tma_load_3d(base + b0 + (swap_panels ? 1 - p : p) * kPanelB, &mb, 64 * p, 0, 0, bar);
      gpu::mbarrier_arrive(bar);
    }
    gpu::mbarrier_wait(bar, 0);
    swizzle_kernel(out.data(), da, db, (16 * 128) >> 4);
  }, {}, emu::Order::reverse);
  return product_mismatches(out);
}

}  // namespace

TEST_CASE("emulator TMA: boxes land in the 128-byte swizzle wgmma reads; their bytes complete the phase",
          "[gpu][emulator][tma]") {
  constexpr std::uint32_t kBoxes = kM * 128 + 2 * kPanelB;  // 24 KiB
  CHECK(run_tma_wgmma(kBoxes, false) == 0);
  // Controls: B's panels swapped; fewer bytes expected than land (reported); more expected than
  // land (the phase never completes: a wait no arrival can end, reported).
  CHECK(run_tma_wgmma(kBoxes, true) > 0);
  CHECK_THROWS_WITH(run_tma_wgmma(kBoxes - 2, false), Catch::Contains("more bytes landed"));
  CHECK_THROWS_AS(run_tma_wgmma(kBoxes + 16, false), std::logic_error);
}

namespace {
// The TMA tests' tensor: [70 rows, 2 heads, 128] with the row stride padded to 320 elements, its
// map's box [64 rows x 1 head x 64].
constexpr int kPadRows = 70, kPadHeads = 2, kPadD = 128, kPadRowStride = 320;
gpu::TensorMap padded_tensor_map(std::vector<std::uint16_t>& g) {
  gpu::TensorMapShape s;
  s.base = g.data();
  s.dims[0] = kPadD, s.dims[1] = kPadHeads, s.dims[2] = kPadRows;
  s.strides[0] = kPadD * 2, s.strides[1] = kPadRowStride * 2;
  s.box[0] = 64, s.box[1] = 1, s.box[2] = 64;
  gpu::TensorMap m;
  REQUIRE(gpu::encode_tensor_map(m, s));
  return m;
}
}  // namespace

TEST_CASE("emulator TMA: zeros outside the tensor, rows and heads from the map's strides", "[gpu][emulator][tma]") {
  constexpr int kRows = kPadRows, kHeads = kPadHeads, kD = kPadD, kRowStride = kPadRowStride;
  std::vector<std::uint16_t> g(kRows * kRowStride + 8);
  for (int r = 0; r < kRows; ++r)
    for (int h = 0; h < kHeads; ++h)
      for (int c = 0; c < kD; ++c) g[r * kRowStride + h * kD + c] = static_cast<std::uint16_t>(1 + r * 1000 + h * 300 + c);
  const gpu::TensorMap m = padded_tensor_map(g);
  auto* base = reinterpret_cast<unsigned char*>(smem4);
  auto* bar = reinterpret_cast<std::uint64_t*>(base + 65536);
  emu_sm90::shared_base = smem4;
  for (const int row0 : {40, -3}) {
    std::memset(base, 0xff, 65536);
    emu::launch({1, 1, 1}, 32, [&] {
      if (gpu::thread_x() == 0) {
        gpu::mbarrier_init(bar, 1);
        gpu::mbarrier_expect_tx(bar, 64 * 128);
        gpu::tma_load_3d(base, &m, 64, 1, row0, bar);  // panel 1 (columns 64..127) of head 1
        gpu::mbarrier_arrive(bar);
      }
      gpu::block_barrier();
      gpu::mbarrier_wait(bar, 0);
    }, {}, emu::Order::forward);
    long bad = 0;
    for (int r = 0; r < 64; ++r)
      for (int c = 0; c < 64; ++c) {
        const int gr = row0 + r;
        const std::uint16_t want = gr >= 0 && gr < kRows ? g[gr * kRowStride + kD + 64 + c] : 0;
        std::uint16_t got;
        std::memcpy(&got, base + sw(static_cast<std::uint32_t>(r) * 128, c), 2);
        bad += got != want;
      }
    INFO("box at row " << row0);
    CHECK(bad == 0);
  }
}

// ---- TMA stores (tma_store_3d, attention-tc.md §28) ----------------------------------

namespace {

enum class StoreFault { none, write_after_issue, overwrite_before_wait, never_wait };

// A [64 rows x 64] tile written into shared memory in the 128-byte swizzle by 64 threads (one row
// each), then stored by thread 0 as one box into panel 1 of head 1 of a [70 rows, 2 heads, 128]
// tensor at row0 (rows outside the tensor not written); the tensor's other elements keep 0xbeef.
std::vector<std::uint16_t> run_tma_store(int row0, StoreFault fault) {
  std::vector<std::uint16_t> g(kPadRows * kPadRowStride + 8, 0xbeef);
  const gpu::TensorMap m = padded_tensor_map(g);
  auto* base = reinterpret_cast<unsigned char*>(smem4);
  std::memset(base, 0xff, 65536);
  emu_sm90::shared_base = smem4;
  emu::launch({1, 1, 1}, 64, [&] {
    const int r = static_cast<int>(gpu::thread_x());
    auto write_row = [&](int bias) {
      for (int c = 0; c < 64; ++c) {
        const auto v = static_cast<std::uint16_t>(1 + r * 100 + c + bias);
        std::memcpy(base + sw(static_cast<std::uint32_t>(r) * 128, c), &v, 2);
      }
    };
    if (fault == StoreFault::write_after_issue) {
      if (r == 0) {
        gpu::tma_store_3d(&m, 64, 1, row0, base);  // before the others have written
        gpu::bulk_commit_group();
      }
      gpu::block_barrier();
      write_row(0);
      gpu::block_barrier();
      if (r == 0) gpu::bulk_wait_group_read<0>();
      return;
    }
    write_row(0);
    gpu::fence_proxy_async_shared();
    gpu::block_barrier();
    if (r == 0) {
      gpu::tma_store_3d(&m, 64, 1, row0, base);
      gpu::bulk_commit_group();
    }
    gpu::block_barrier();
    if (fault == StoreFault::overwrite_before_wait && r == 9) write_row(7);
    gpu::block_barrier();
    if (r == 0 && fault != StoreFault::never_wait) gpu::bulk_wait_group<0>();
  }, {}, emu::Order::reverse);
  return g;
}

}  // namespace

TEST_CASE("emulator TMA store: a swizzled tile lands row-major inside the tensor; a changed source is reported",
          "[gpu][emulator][tma]") {
  constexpr int kRowStride = kPadRowStride, kD = kPadD;
  for (const int row0 : {3, 40, -5}) {
    const std::vector<std::uint16_t> g = run_tma_store(row0, StoreFault::none);
    long bad = 0;
    for (int gr = 0; gr < kPadRows; ++gr)
      for (int e = 0; e < kRowStride; ++e) {
        const int r = gr - row0, c = e - kD - 64;  // box row, column within head 1's panel 1
        const bool in_box = r >= 0 && r < 64 && c >= 0 && c < 64;
        const std::uint16_t want = in_box ? static_cast<std::uint16_t>(1 + r * 100 + c) : 0xbeef;
        bad += g[gr * kRowStride + e] != want;
      }
    INFO("box at row " << row0);
    CHECK(bad == 0);
  }
  // Controls: the issue before the tile was written (a missing barrier), a write to the source
  // between the issue and the wait, and a thread that never waits.
  CHECK_THROWS_WITH(run_tma_store(3, StoreFault::write_after_issue), Catch::Contains("shared source changed"));
  CHECK_THROWS_WITH(run_tma_store(3, StoreFault::overwrite_before_wait), Catch::Contains("shared source changed"));
  CHECK_THROWS_WITH(run_tma_store(3, StoreFault::never_wait), Catch::Contains("TMA stores it never waited for"));
}
