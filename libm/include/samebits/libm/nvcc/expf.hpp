// samebits/libm/nvcc/expf.hpp — the exponentials as nvcc 13 (sm_90) computes
// them: samebits::nvcc::{expf, exp2f, exp10f} (default flags),
// samebits::nvcc::ftz::{...} (-ftz=true), samebits::nvcc::fast::{expf,
// exp10f} (__expf, __exp10f) and fast::ftz::{expf, exp10f} (the same under
// -ftz=true: nvcc -use_fast_math's expf, exp10f). Read off `nvcc -arch=sm_90 -O3 -ptx
// tests/libm/nvcc/cuda_functions.cu`; derivation in docs/libm/nvcc.md.
//
// expf / exp10f (L = log2(b)):
//   t = sat(fma.rn(x, L/256, 0.5))             x L/256 + 1/2, clamped to [0, 1]
//   j = fma.rm(t, 252, 0x4B400001)             2^23 + 1 + floor(252 t)
//   k = -(j - 0x4B40007F)                      -(floor(252 t) - 126)
//   q = fma.rn(x, L_hi, k); q = fma.rn(x, L_lo, q)
//   y = ex2.approx.ftz(q) * bits(bits(j) << 23)
//
// Device path: inline PTX (arch/nvptx.hpp). Host path: the same operations in
// IEEE binary32 (nvcc/host_ops.hpp) with MUFU.EX2 from the measured model of
// the H200 (nvcc/mufu_model.hpp; link samebits_mufu_model).
#pragma once

#include <cstdint>

#include "samebits/libm/arch/nvptx.hpp"
#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/nvcc/host_ops.hpp"

namespace samebits::nvcc {
namespace detail {

#if defined(SAMEBITS_DEVICE_NVIDIA)
namespace exp_ops = arch::nvptx;
#else
namespace exp_ops = host;
#endif

template <bool Ftz>
SAMEBITS_FUNC float exp_libdevice(float x, std::uint32_t l_256, std::uint32_t l_hi, std::uint32_t l_lo) {
  const float t = exp_ops::sat<Ftz>(exp_ops::fma_rn<Ftz>(x, fp::from_bits(l_256), 0.5f));
  const float j = exp_ops::fma_rm<Ftz>(t, 252.0f, fp::from_bits(0x4B400001u));
  const float k = exp_ops::neg<Ftz>(exp_ops::add<Ftz>(j, fp::from_bits(0xCB40007Fu)));
  float q = exp_ops::fma_rn<Ftz>(x, fp::from_bits(l_hi), k);
  q = exp_ops::fma_rn<Ftz>(x, fp::from_bits(l_lo), q);
  const float scale = fp::from_bits(fp::to_bits(j) << 23);
  return exp_ops::mul<Ftz>(exp_ops::ex2_approx_ftz(q), scale);
}

template <bool Ftz>
SAMEBITS_FUNC float expf(float x) {
  return exp_libdevice<Ftz>(x, 0x3BBB989Du, 0x3FB8AA3Bu, 0x32A57060u);  // log2(e)
}
template <bool Ftz>
SAMEBITS_FUNC float exp10f(float x) {
  return exp_libdevice<Ftz>(x, 0x3C57FA62u, 0x40549A78u, 0x33979A37u);  // log2(10)
}
template <bool Ftz>
SAMEBITS_FUNC float exp2f(float x) {
  return exp_ops::ex2_approx<Ftz>(x);
}

}  // namespace detail

SAMEBITS_FUNC float expf(float x) { return detail::expf<false>(x); }
SAMEBITS_FUNC float exp10f(float x) { return detail::exp10f<false>(x); }
SAMEBITS_FUNC float exp2f(float x) { return detail::exp2f<false>(x); }

namespace ftz {
SAMEBITS_FUNC float expf(float x) { return detail::expf<true>(x); }
SAMEBITS_FUNC float exp10f(float x) { return detail::exp10f<true>(x); }
SAMEBITS_FUNC float exp2f(float x) { return detail::exp2f<true>(x); }
}  // namespace ftz

// The intrinsics: one multiply by log2(b) rounded to binary32, then MUFU.
namespace fast {
SAMEBITS_FUNC float expf(float x) {
  return detail::exp_ops::ex2_approx<false>(detail::exp_ops::mul<false>(x, fp::from_bits(0x3FB8AA3Bu)));
}
SAMEBITS_FUNC float exp10f(float x) {
  return detail::exp_ops::ex2_approx<false>(detail::exp_ops::mul<false>(x, fp::from_bits(0x40549A78u)));
}
// The intrinsics under -ftz=true, which is what nvcc -use_fast_math makes of expf and exp10f:
// mul.ftz.f32 by log2(b), then ex2.approx.ftz.f32 (one FMUL and one MUFU.EX2; __expf without ftz
// adds the subnormal-result scaling around the MUFU).
namespace ftz {
SAMEBITS_FUNC float expf(float x) {
  return detail::exp_ops::ex2_approx_ftz(detail::exp_ops::mul<true>(x, fp::from_bits(0x3FB8AA3Bu)));
}
SAMEBITS_FUNC float exp10f(float x) {
  return detail::exp_ops::ex2_approx_ftz(detail::exp_ops::mul<true>(x, fp::from_bits(0x40549A78u)));
}
}  // namespace ftz

}  // namespace fast

}  // namespace samebits::nvcc
