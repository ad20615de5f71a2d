// host_digest — a digest of every samebits::nvcc and samebits::hipcc host
// function (and the MUFU models) over a strided sample of all 2^32 inputs,
// printed one line per function. Built against two trees, it shows that a
// refactoring kept the bits (docs/libm/build-cost.md):
//   g++ -std=c++20 -O2 -I OLD/libm/include tests/libm/nvcc/host_digest.cpp -o d_old   (tree with the tables in headers)
//   build/tests/libm/nvcc/host_digest [STRIDE]                                        (this tree)
// The digest is FNV-1a over the 32-bit encodings of the outputs, in input order.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <samebits/libm.hpp>
#include <samebits/libm/nvcc/mufu_model.hpp>

namespace {

template <class F>
void digest(const char* name, F f, std::uint32_t stride) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  std::uint64_t n = 0;
  for (std::uint64_t i = 0; i < (std::uint64_t{1} << 32); i += stride, ++n) {
    const std::uint32_t b = samebits::fp::to_bits(f(samebits::fp::from_bits(static_cast<std::uint32_t>(i))));
    for (int k = 0; k < 4; ++k) h = (h ^ ((b >> (8 * k)) & 0xffu)) * 0x100000001b3ull;
  }
  std::printf("%-28s %llu inputs  %016llx\n", name, static_cast<unsigned long long>(n), static_cast<unsigned long long>(h));
}

}  // namespace

int main(int argc, char** argv) {
  // An odd stride visits every exponent and sign with varied low bits.
  const std::uint32_t stride = argc > 1 ? static_cast<std::uint32_t>(std::strtoul(argv[1], nullptr, 0)) : 4099u;
  namespace nv = samebits::nvcc;
  namespace hc = samebits::hipcc;
#define D(F) digest(#F, [](float x) { return F(x); }, stride);
  D(nv::expf) D(nv::exp2f) D(nv::exp10f) D(nv::logf) D(nv::log2f) D(nv::log10f)
  D(nv::ftz::expf) D(nv::ftz::exp2f) D(nv::ftz::exp10f) D(nv::ftz::logf) D(nv::ftz::log2f) D(nv::ftz::log10f)
  D(nv::fast::expf) D(nv::fast::exp10f) D(nv::fast::logf) D(nv::fast::log2f)
  D(nv::triton::expf) D(nv::triton::logf)
  D(nv::model::ex2_approx) D(nv::model::ex2_approx_ftz) D(nv::model::lg2_approx) D(nv::model::lg2_approx_ftz)
  D(hc::expf) D(hc::exp2f) D(hc::exp10f) D(hc::logf) D(hc::log2f) D(hc::log10f)
  D(hc::afn::expf) D(hc::afn::exp2f) D(hc::afn::exp10f) D(hc::afn::logf) D(hc::afn::log2f) D(hc::afn::log10f)
  D(hc::daz::expf) D(hc::daz::exp2f) D(hc::daz::exp10f) D(hc::daz::logf) D(hc::daz::log2f) D(hc::daz::log10f)
  D(hc::clang19::logf) D(hc::clang19::log10f) D(hc::triton::expf) D(hc::triton::logf)
#undef D
  return 0;
}
