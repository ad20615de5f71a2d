// samebits/libm/nvcc/expf.hpp — the exponentials as nvcc 13 (sm_90) computes
// them: samebits::nvcc::{expf, exp2f, exp10f} (default flags),
// samebits::nvcc::ftz::{...} (-ftz=true), samebits::nvcc::fast::{expf,
// exp10f} (__expf, __exp10f). Read off `nvcc -arch=sm_90 -O3 -ptx
// tests/libm/nvcc/cuda_functions.cu`; derivation in docs/libm/nvcc.md.
//
// expf / exp10f (L = log2(b)):
//   t = sat(fma.rn(x, L/256, 0.5))             x L/256 + 1/2, clamped to [0, 1]
//   j = fma.rm(t, 252, 0x4B400001)             2^23 + 1 + floor(252 t)
//   k = -(j - 0x4B40007F)                      -(floor(252 t) - 126)
//   q = fma.rn(x, L_hi, k); q = fma.rn(x, L_lo, q)
//   y = ex2.approx.ftz(q) * bits(bits(j) << 23)
//
// Status: device path only (CUDA); the host path needs the MUFU model.
#pragma once

#include <cstdint>

#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/nvcc/ptx.hpp"

#if defined(SAMEBITS_DEVICE_NVIDIA)

namespace samebits::nvcc {
namespace detail {

template <bool Ftz>
__device__ __forceinline__ float exp_libdevice(float x, std::uint32_t l_256, std::uint32_t l_hi,
                                               std::uint32_t l_lo) {
  const float t = ptx::sat<Ftz>(ptx::fma_rn<Ftz>(x, fp::from_bits(l_256), 0.5f));
  const float j = ptx::fma_rm<Ftz>(t, 252.0f, fp::from_bits(0x4B400001u));
  const float k = ptx::neg<Ftz>(ptx::add<Ftz>(j, fp::from_bits(0xCB40007Fu)));
  float q = ptx::fma_rn<Ftz>(x, fp::from_bits(l_hi), k);
  q = ptx::fma_rn<Ftz>(x, fp::from_bits(l_lo), q);
  const float scale = fp::from_bits(fp::to_bits(j) << 23);
  return ptx::mul<Ftz>(ptx::ex2_approx_ftz(q), scale);
}

template <bool Ftz>
__device__ __forceinline__ float expf(float x) {
  return exp_libdevice<Ftz>(x, 0x3BBB989Du, 0x3FB8AA3Bu, 0x32A57060u);  // log2(e)
}
template <bool Ftz>
__device__ __forceinline__ float exp10f(float x) {
  return exp_libdevice<Ftz>(x, 0x3C57FA62u, 0x40549A78u, 0x33979A37u);  // log2(10)
}
template <bool Ftz>
__device__ __forceinline__ float exp2f(float x) {
  return ptx::ex2_approx<Ftz>(x);
}

}  // namespace detail

__device__ __forceinline__ float expf(float x) { return detail::expf<false>(x); }
__device__ __forceinline__ float exp10f(float x) { return detail::exp10f<false>(x); }
__device__ __forceinline__ float exp2f(float x) { return detail::exp2f<false>(x); }

namespace ftz {
__device__ __forceinline__ float expf(float x) { return detail::expf<true>(x); }
__device__ __forceinline__ float exp10f(float x) { return detail::exp10f<true>(x); }
__device__ __forceinline__ float exp2f(float x) { return detail::exp2f<true>(x); }
}  // namespace ftz

// The intrinsics: one multiply by log2(b) rounded to binary32, then MUFU.
namespace fast {
__device__ __forceinline__ float expf(float x) {
  return ptx::ex2_approx<false>(ptx::mul<false>(x, fp::from_bits(0x3FB8AA3Bu)));
}
__device__ __forceinline__ float exp10f(float x) {
  return ptx::ex2_approx<false>(ptx::mul<false>(x, fp::from_bits(0x40549A78u)));
}
}  // namespace fast

}  // namespace samebits::nvcc

#endif  // SAMEBITS_DEVICE_NVIDIA
