// samebits/libm/nvcc/expf.hpp — samebits::nvcc::expf, the function CUDA 13's
// expf() computes for sm_90 with default flags (no -ftz, no fast math), as
// libdevice inlines it (read off `nvcc -arch=sm_90 -ptx`; docs/libm/nvcc.md):
//
//   t = sat(fma.rn(x, 0x3BBB989D, 0.5))        t ~ x log2(e)/256 + 1/2, clamped to [0, 1]
//   j = fma.rm(t, 252, 0x4B400001)             2^23 + 1 + floor(252 t): the integer part
//   k = -(j - 0x4B40007F)                      -(floor(252 t) - 126): -round(x log2 e), clamped
//   q = fma.rn(x, 0x3FB8AA3B, k)               x log2(e) - round(.), in two steps:
//   q = fma.rn(x, 0x32A57060, q)               log2(e) = 0x3FB8AA3B + 0x32A57060 (+ 2^-?)
//   y = ex2.approx.ftz(q) * bits(j << 23)      2^q (MUFU) times 2^(round-126+...) built from j
//
// Status: device path only (CUDA). The host path needs a bit-exact model of
// ex2.approx.ftz.f32 (issue: nvcc personality); until it lands,
// samebits::nvcc::expf exists in device code only.
#pragma once

#include <cstdint>

#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/nvcc/ptx.hpp"

#if defined(SAMEBITS_DEVICE_NVIDIA)

namespace samebits::nvcc {

__device__ __forceinline__ float expf(float x) {
  const float t = ptx::sat(ptx::fma_rn(x, fp::from_bits(0x3BBB989Du), 0.5f));
  const float j = ptx::fma_rm(t, 252.0f, fp::from_bits(0x4B400001u));
  const float k = ptx::neg(ptx::add(j, fp::from_bits(0xCB40007Fu)));
  float q = ptx::fma_rn(x, fp::from_bits(0x3FB8AA3Bu), k);
  q = ptx::fma_rn(x, fp::from_bits(0x32A57060u), q);
  const float scale = fp::from_bits(fp::to_bits(j) << 23);
  return ptx::mul(ptx::ex2_approx_ftz(q), scale);
}

}  // namespace samebits::nvcc

#endif  // SAMEBITS_DEVICE_NVIDIA
