// samebits/libm/nvcc/logf.hpp — the logarithms as nvcc 13 (sm_90) computes
// them: samebits::nvcc::{logf, log2f, log10f} (default flags),
// samebits::nvcc::ftz::{...} (-ftz=true), samebits::nvcc::fast::{logf,
// log2f} (__logf, __log2f) and fast::ftz::{logf, log2f} (-use_fast_math). Read off `nvcc -arch=sm_90 -O3 -ptx
// tests/libm/nvcc/cuda_functions.cu`; derivation in docs/libm/nvcc.md.
//
// logf / log2f: no MUFU, a binary32 FMA polynomial:
//   subnormal x (x < 2^-126) is scaled by 2^23, and -23 added to the exponent;
//   e = (bits(x) - OFF) & 0xFF800000     OFF = 0x3F2AAAAB (logf), 0x3F3504F3 (log2f)
//   m = bits(x) - e;  f = m - 1;  E = fma(e as integer, 2^-23, -23 or 0)
//   logf : y = fma(E, ln2, fma(f * p(f), f, f)),       p of 9 coefficients
//   log2f: y = E + fma(f, log2(e), f * (f * p(f))),    p of 10 coefficients
//   x >= inf or NaN (unsigned encodings): fma(x, inf, inf);  x == +-0: -inf
// log10f = logf's y times log10(e) (0x3EDE5BD9), before the zero test.
//
// Device path: inline PTX (arch/nvptx.hpp). Host path: the same operations in
// IEEE binary32 (nvcc/host_ops.hpp); logf / log2f / log10f involve no MUFU, the
// intrinsics use the model of MUFU lg2 (nvcc/mufu_model.hpp; link
// samebits_mufu_model).
#pragma once

#include <cstdint>

#include "samebits/libm/arch/nvptx.hpp"
#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/nvcc/host_ops.hpp"

namespace samebits::nvcc {
namespace detail {

// The common front end: the (possibly scaled) input xs, its encoding, the
// exponent E and f = m - 1.
struct LogArgs {
  float xs;
  std::int32_t ix;
  float e;
  float f;
};

#if defined(SAMEBITS_DEVICE_NVIDIA)
namespace ops = arch::nvptx;
#else
namespace ops = host;
#endif

template <bool Ftz>
SAMEBITS_FUNC LogArgs log_reduce(float x, std::int32_t off_neg) {
  const float scaled = ops::mul<Ftz>(x, fp::from_bits(0x4B000000u));  // x 2^23
  float xs, e23;
  ops::select_subnormal_scaled<Ftz>(x, scaled, xs, e23);  // x < 2^-126: x 2^23 and -23
  const std::int32_t ix = ops::mov_b32(xs);
  const std::int32_t ie = ops::and_b32_exponent(ops::add_s32(ix, off_neg));
  const std::int32_t im = ops::sub_s32(ix, ie);
  const float m = fp::from_bits(static_cast<std::uint32_t>(im));
  const float e = ops::fma_rn<Ftz>(ops::cvt_rn_f32_s32(ie), fp::from_bits(0x34000000u), e23);  // e 2^-23
  const float f = ops::add<Ftz>(m, fp::from_bits(0xBF800000u));                                // m - 1
  return {xs, ix, e, f};
}

// inf and NaN (encodings >= 0x7f800000 as unsigned): x * inf + inf.
template <bool Ftz>
SAMEBITS_FUNC float log_nonfinite(float y, const LogArgs& a) {
  return ops::fma_inf_inf_unless_below_inf<Ftz>(y, a.ix, a.xs);
}

// x == +-0: -inf.
template <bool Ftz>
SAMEBITS_FUNC float log_zero(float y, const LogArgs& a) {
  return ops::select_neg_inf_if_zero<Ftz>(a.xs, y);
}

template <bool Ftz>
SAMEBITS_FUNC float logf_unfinished(const LogArgs& a) {
  const float f = a.f;
  float p = ops::fma_rn<Ftz>(fp::from_bits(0xBE055027u), f, fp::from_bits(0x3E1039F6u));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0xBDF8CDCCu));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0x3E0F2955u));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0xBE2AD8B9u));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0x3E4CED0Bu));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0xBE7FFF22u));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0x3EAAAA78u));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0xBF000000u));
  const float r = ops::fma_rn<Ftz>(ops::mul<Ftz>(f, p), f, f);
  return log_nonfinite<Ftz>(ops::fma_rn<Ftz>(a.e, fp::from_bits(0x3F317218u), r), a);  // + e ln2
}

template <bool Ftz>
SAMEBITS_FUNC float logf(float x) {
  const LogArgs a = log_reduce<Ftz>(x, -0x3F2AAAAB);
  return log_zero<Ftz>(logf_unfinished<Ftz>(a), a);
}

template <bool Ftz>
SAMEBITS_FUNC float log10f(float x) {
  const LogArgs a = log_reduce<Ftz>(x, -0x3F2AAAAB);
  return log_zero<Ftz>(ops::mul<Ftz>(logf_unfinished<Ftz>(a), fp::from_bits(0x3EDE5BD9u)), a);
}

template <bool Ftz>
SAMEBITS_FUNC float log2f(float x) {
  const LogArgs a = log_reduce<Ftz>(x, -0x3F3504F3);
  const float f = a.f;
  float p = ops::fma_rn<Ftz>(fp::from_bits(0x3DC6B27Fu), f, fp::from_bits(0xBE2C7F30u));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0x3E2FCF2Au));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0xBE374E43u));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0x3E520BF4u));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0xBE763C8Bu));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0x3E93BF99u));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0xBEB8AA49u));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0x3EF6384Au));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0xBF38AA3Bu));
  const float ff = ops::mul<Ftz>(f, ops::mul<Ftz>(f, p));
  const float r = ops::fma_rn<Ftz>(f, fp::from_bits(0x3FB8AA3Bu), ff);  // f log2(e) + f^2 p
  return log_zero<Ftz>(log_nonfinite<Ftz>(ops::add<Ftz>(a.e, r), a), a);
}

}  // namespace detail

SAMEBITS_FUNC float logf(float x) { return detail::logf<false>(x); }
SAMEBITS_FUNC float log2f(float x) { return detail::log2f<false>(x); }
SAMEBITS_FUNC float log10f(float x) { return detail::log10f<false>(x); }

namespace ftz {
SAMEBITS_FUNC float logf(float x) { return detail::logf<true>(x); }
SAMEBITS_FUNC float log2f(float x) { return detail::log2f<true>(x); }
SAMEBITS_FUNC float log10f(float x) { return detail::log10f<true>(x); }
}  // namespace ftz

// The intrinsics: MUFU lg2, then (for __logf) one multiply by ln 2 rounded
// to binary32 (mul.f32, not ftz). Device path: lg2.approx.f32; host path:
// the measured model of the H200's MUFU lg2 (nvcc/mufu_model.hpp).
namespace fast {
SAMEBITS_FUNC float logf(float x) {
  return detail::ops::mul<false>(detail::ops::lg2_approx<false>(x), fp::from_bits(0x3F317218u));
}
SAMEBITS_FUNC float log2f(float x) { return detail::ops::lg2_approx<false>(x); }
// Under -ftz=true (nvcc -use_fast_math's logf, log2f): lg2.approx.ftz.f32, then mul.ftz.f32.
namespace ftz {
SAMEBITS_FUNC float logf(float x) {
  return detail::ops::mul<true>(detail::ops::lg2_approx<true>(x), fp::from_bits(0x3F317218u));
}
SAMEBITS_FUNC float log2f(float x) { return detail::ops::lg2_approx<true>(x); }
}  // namespace ftz
}  // namespace fast

}  // namespace samebits::nvcc

