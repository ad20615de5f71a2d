// cr_variants — design experiment: GPU cost of evaluation orders for the
// samebits::cr kernels, to choose the one the library uses (the library has
// one order, the same on every target, so a faster order for one target is a
// trade against the others; docs/libm/cr.md records the choice).
//
// Variants (timed, not proven):
//   cr::expf / cr::logf   the library as it is
//   estrin                the library's arithmetic (reduction, tables, Estrin's scheme,
//                         which the library adopted after this experiment) with every rare
//                         input returned unchanged: the cost of the common path alone
//   identity              the harness alone (input generation and folding)
//   nvcc -O3 -std=c++20 -arch=sm_90 --extended-lambda -I libm/include bench/gpu/cr_variants.cu -o cr_variants
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

#include <samebits/libm.hpp>

#include "throughput_harness.cuh"

using namespace samebits;
using namespace samebits::bench;

namespace {

__device__ __forceinline__ float expf_estrin(float xf) {
  const std::uint32_t ix = fp::to_bits(xf), ax = ix & 0x7fffffffu;
  if (ax < 0x32000000u || ax >= 0x43200000u || ix > 0xc2ae0000u) return xf;  // not timed: rare
  constexpr double kShift = 0x1.8p52, l_hi = cr::tables::kLog2EHi, l_lo = cr::tables::kLog2ELo;
  constexpr double c1 = 0x1.62e42fefa39efp-1, c2 = 0x1.ebfbdff8098e6p-3, c3 = 0x1.c6b08d704566fp-5,
                   c4 = 0x1.3b2b276d41292p-7, c5 = 0x1.5d884a8b6487cp-10;
  const double x = xf;
  const double kz = arch::fma(x, l_hi * 32.0, kShift);
  const std::int32_t k = static_cast<std::int32_t>(arch::words(kz).lo);
  double r = arch::fma(x, l_hi, arch::fma(kz, -0x1p-5, kShift * 0x1p-5));
  r = arch::fma(x, l_lo, r);
  const double r2 = r * r;
  const double lo = arch::fma(r, c2, c1), hi = arch::fma(r, c4, c3);
  const double q = arch::fma(r * r2, arch::fma(r2, c5, hi), r * lo);
  const double t = cr::tables::exp2_j(k & 31) * fp::pow2(k >> 5);
  return fp::narrow_normal(arch::fma(t, q, t));
}

__device__ __forceinline__ float logf_estrin(float xf) {
  const std::uint32_t ix = fp::to_bits(xf);
  if (ix - 1u >= 0x7f7fffffu || ix < 0x00800000u) return xf;  // not timed: rare
  const double a0 = 0x1p0, a1 = -0x1p-1, a2 = 0x1.555555550ef6ap-2, a3 = -0x1.ffffffff7646bp-3,
               a4 = 0x1.999b471a3e634p-3, a5 = -0x1.5556dd090112bp-3;
  const std::uint32_t xhi = fp::normal_binary32_hi_word(ix), xlo = fp::normal_binary32_lo_word(ix);
  const std::int32_t tmp = static_cast<std::int32_t>(xhi - static_cast<std::uint32_t>(cr::tables::kLogOff >> 32));
  const int i = (tmp >> 13) & 127;
  const std::int32_t e = tmp >> 20;
  const double z = arch::from_words(xhi - (static_cast<std::uint32_t>(e) << 20), xlo);
  const double r = arch::fma(z, cr::tables::log_c(i), -1.0);
  const double hi = arch::fma(static_cast<double>(e), cr::tables::kLn2, cr::tables::log_neg_ln_c(i));
  const double r2 = r * r;
  const double p01 = arch::fma(r, a1, a0), p23 = arch::fma(r, a3, a2), p45 = arch::fma(r, a5, a4);
  return fp::narrow_normal(arch::fma(r * r2, arch::fma(r2, p45, p23), arch::fma(r, p01, hi)));
}

}  // namespace

int main() {
  int sms = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int blocks = sms * 8;
  std::uint32_t* sink;
  CHECK_CUDA(cudaMalloc(&sink, std::size_t(blocks) * 256 * 4));
  auto row = [&](const char* name, Range r, auto f) {
    std::printf("{\"variant\": \"%s\", \"ms\": %.4f}\n", name, time_ms(f, r, blocks, sink));
  };
  row("identity(exp range)", Range::exp, [] __device__(float x) { return x; });
  row("cuda expf", Range::exp, [] __device__(float x) { return expf(x); });
  row("cr::expf", Range::exp, [] __device__(float x) { return cr::expf(x); });
  row("expf estrin", Range::exp, [] __device__(float x) { return expf_estrin(x); });
  row("identity(log range)", Range::log, [] __device__(float x) { return x; });
  row("cuda logf", Range::log, [] __device__(float x) { return logf(x); });
  row("cr::logf", Range::log, [] __device__(float x) { return cr::logf(x); });
  row("logf estrin", Range::log, [] __device__(float x) { return logf_estrin(x); });
  CHECK_CUDA(cudaFree(sink));
  return 0;
}
