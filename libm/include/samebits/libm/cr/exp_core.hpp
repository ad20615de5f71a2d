// samebits/libm/cr/exp_core.hpp — b^x for b in {e, 2, 10}, before rounding.
//
// Reduction. With log2(b) = L = L_hi + L_lo (L_lo = 0 for b = 2), b^x =
// 2^(x L). Let k = round(32 x L_hi), j = k mod 32, e = floor(k / 32) and
//   r = x L_hi - k/32 + x L_lo,   |r| <= 1/64 + 2^-46,
// so that b^x = 2^e * 2^(j/32) * 2^r (up to the x (L - L_hi - L_lo) term,
// below 2^-97 relative for |x| < 160).
//   - k: fma(x, 32 L_hi, 0x1.8p52) rounds x 32 L_hi (exact product) once, to
//     an integer, which lands in the low bits of the sum's encoding.
//   - r: fma(x, L_hi, -k/32) rounds the exact x L_hi - k/32 once (|.| <= 1/64),
//     then fma(x, L_lo, .) adds the tail: two roundings of at most 2^-53 |r|.
//     For b = 2, x - k/32 is exact and the tail is 0.
// Evaluation. 2^(j/32) = T[j] is a table entry (tables.hpp, RN of the exact
// value); q(r) ~ 2^r - 1 is a degree-5 polynomial with double coefficients
// from Sollya's fpminimax on [-1/64 - 2^-40, 1/64 + 2^-40], absolute error
// < 2^-53.3 (libm/tools/cr_polynomials.sollya), evaluated as r p(r) with p by
// Estrin's scheme. With t = T[j] 2^e (exact), y = fma(t r, p, t) = t (1 + q).
// Error bound (docs/libm/cr.md derives it): |y - 2^(j/32) 2^r_exact| <=
// 3.6 ulp(y); the rounding test (exp_near_midpoint, run over every input by
// libm/tools/cr_exceptions, not at run time) is told 8 ulp, a margin of 2.2x.
#pragma once

#include <cstdint>

#include "samebits/libm/arch/fma.hpp"
#include "samebits/libm/arch/words.hpp"
#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/fp/rounding.hpp"
#include "samebits/libm/cr/tables.hpp"

namespace samebits::cr::detail {

inline constexpr std::uint32_t kExpTolUlps = 8;

// b^x before rounding to binary32, as a normal binary64 (b^x >= 2^-232 here).
// x: a normal binary32 with |x| in [2^-27, 160), exactly as a double;
// l_lo is 0 for b = 2 (Tail = false) and the tail step is skipped.
template <bool Tail>
SAMEBITS_FUNC double exp_core(double x, double l_hi, double l_lo) {
  constexpr double kShift = 0x1.8p52;
  // q(r) ~ 2^r - 1 = r (c1 + c2 r + c3 r^2 + c4 r^3 + c5 r^4) (Sollya fpminimax,
  // absolute error < 2^-53.3 on |r| <= 1/64 + 2^-40).
  constexpr double c1 = 0x1.62e42fefa39efp-1, c2 = 0x1.ebfbdff8098e6p-3, c3 = 0x1.c6b08d704566fp-5,
                   c4 = 0x1.3b2b276d41292p-7, c5 = 0x1.5d884a8b6487cp-10;
  const double kz = arch::fma(x, l_hi * 32.0, kShift);
  const std::int32_t k = static_cast<std::int32_t>(arch::words(kz).lo);
  // -k/32 = shift/32 - kz/32: both terms and the difference are exact.
  const double neg_k_32 = arch::fma(kz, -0x1p-5, kShift * 0x1p-5);
  double r = arch::fma(x, l_hi, neg_k_32);
  if constexpr (Tail) r = arch::fma(x, l_lo, r);
  // q = r (c1 + c2 r) + r^3 (c3 + c4 r + c5 r^2): Estrin's scheme split at
  // r^2, three levels of operations after r instead of Horner's five. Faster
  // on the host (latency) and on the H200 (16%: the GPU is short of
  // independent work too), though it costs two operations more
  // (bench/gpu/cr_variants.cu, docs/libm/cr.md).
  const double r2 = r * r;
  const double lo = arch::fma(r, c2, c1), hi = arch::fma(r, c4, c3);
  const double q = arch::fma(r * r2, arch::fma(r2, c5, hi), r * lo);  // products feed only an fma
  // t = 2^(j/32) 2^e, exact (a table entry times a power of two built from
  // integers; the product is normal), ready before q.
  const double t = tables::exp2_j(k & 31) * fp::pow2(k >> 5);
  return arch::fma(t, q, t);  // t (1 + q)
}

}  // namespace samebits::cr::detail

namespace samebits::cr::detail {

enum class ExpBase { e, two, ten };

template <ExpBase B>
SAMEBITS_FUNC double exp_core_for(float x) {
  // x is normal on every path whose result is used: the conversion is exact,
  // also under flush-to-zero (which may zero a subnormal x on the common path,
  // whose result is then discarded).
  const double xd = static_cast<double>(x);
  if constexpr (B == ExpBase::e) return exp_core<true>(xd, tables::kLog2EHi, tables::kLog2ELo);
  else if constexpr (B == ExpBase::two) return exp_core<false>(xd, 1.0, 0.0);
  else return exp_core<true>(xd, tables::kLog2TenHi, tables::kLog2TenLo);
}

// Inputs below which b^x is below 2^-126 (binary32 subnormal or zero), as
// encodings of negative floats (larger encoding = more negative):
// e^-87 = 0x1.666d0dp-126 (still normal), 2^-126, 10^-37.5 = 0x1.58576fp-125.
template <ExpBase B>
inline constexpr std::uint32_t kExpSubnormalFrom =
    B == ExpBase::e ? 0xc2ae0000u : B == ExpBase::two ? 0xc2fc0000u : 0xc2160000u;  // -87, -126, -37.5

// b^x rounded to nearest, before the exception fix-up.
// Special inputs give exact results built from integers:
//   NaN -> the input, quieted (payload and sign kept, as IEEE recommends);
//   x >= 160 or +inf -> +inf;  x <= -160 or -inf -> +0 (b^x overflows or
//   is below 2^-151 for every b here);  |x| < 2^-27 -> 1 (b^x within
//   2^-25.8 of 1 rounds to 1, and subnormal x never reach the arithmetic).
// Results that are normal binary32 or overflow (the common case) are rounded
// by the hardware conversion, exact in every mode here because the result is
// normal; subnormal results by integer rounding (fp/rounding.hpp), which a
// flush-to-zero mode cannot touch.
template <ExpBase B>
SAMEBITS_FUNC std::uint32_t exp_family(std::uint32_t ix) {
  const std::uint32_t ax = ix & 0x7fffffffu;
  if (ax < 0x32000000u) return 0x3f800000u;  // |x| < 0x1p-27
  if (ax >= 0x43200000u) {                   // |x| >= 0x1.4p+7 = 160, inf, NaN
    if (ax > fp::kPosInf) return ix | fp::kQuietBit;
    return (ix >> 31) ? 0u : fp::kPosInf;
  }
  const double y = exp_core_for<B>(fp::from_bits(ix));
  if (ix > kExpSubnormalFrom<B>) {
    const arch::Words w = arch::words(y);
    return fp::round_scaled_to_binary32(w.hi, w.lo, 0, kExpTolUlps).bits;
  }
  return fp::to_bits(fp::narrow_normal(y));
}

// The common path, branch-free: b^x rounded by the hardware conversion,
// computed for every input but meaningful only where exp_is_rare<B>(ix) is
// false (2^-27 <= |x| < 160 and b^x a normal binary32); the caller then takes
// exp_family. One rarely taken branch per call instead of several keeps the
// common path straight-line code, which lets GPUs overlap consecutive
// evaluations. For other inputs the arithmetic runs on meaningless values
// (possibly inf or NaN) without undefined behaviour.
template <ExpBase B>
SAMEBITS_FUNC float exp_common(float x) {
  return fp::narrow_normal(exp_core_for<B>(x));
}
template <ExpBase B>
SAMEBITS_FUNC constexpr bool exp_is_rare(std::uint32_t ix) {
  const std::uint32_t ax = ix & 0x7fffffffu;
  return (ax - 0x32000000u >= 0x43200000u - 0x32000000u) | (ix > kExpSubnormalFrom<B>);
}

// For libm/tools/cr_exceptions: whether b^x's binary64 approximation lies
// within kExpTolUlps of a binary32 midpoint, so that its rounding may differ
// from the correctly rounded result. Elsewhere the error bound proves
// exp_family(ix) correctly rounded.
template <ExpBase B>
SAMEBITS_FUNC bool exp_near_midpoint(std::uint32_t ix) {
  const std::uint32_t ax = ix & 0x7fffffffu;
  if (ax < 0x32000000u || ax >= 0x43200000u) return false;
  const arch::Words w = arch::words(exp_core_for<B>(fp::from_bits(ix)));
  return fp::round_scaled_to_binary32(w.hi, w.lo, 0, kExpTolUlps).near_midpoint;
}

}  // namespace samebits::cr::detail
