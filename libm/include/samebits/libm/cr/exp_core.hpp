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
// < 2^-53.3 (libm/tools/cr_polynomials.sollya). y = fma(T, q, T) = T (1 + q),
// then 2^e is added to the exponent field (exact).
// Error bound (docs/libm/cr.md derives it): |y - 2^(j/32) 2^r_exact| <=
// 3.6 ulp(y); the midpoint test is told 8 ulp, a margin of 2.2x.
#pragma once

#include <cstdint>

#include "samebits/libm/arch/fma.hpp"
#include "samebits/libm/arch/words.hpp"
#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/fp/rounding.hpp"
#include "samebits/libm/cr/tables.hpp"

namespace samebits::cr::detail {

inline constexpr std::uint32_t kExpTolUlps = 8;

// |x| in [2^-27, 160): the callers handle the rest.
SAMEBITS_FUNC fp::Rounded exp_core(std::uint32_t ix, double l_hi, double l_lo) {
  constexpr double kShift = 0x1.8p52;
  // q(r) ~ 2^r - 1 (Sollya fpminimax, absolute error < 2^-53.3 on |r| <= 1/64 + 2^-40).
  constexpr double c1 = 0x1.62e42fefa39efp-1, c2 = 0x1.ebfbdff8098e6p-3, c3 = 0x1.c6b08d704566fp-5,
                   c4 = 0x1.3b2b276d41292p-7, c5 = 0x1.5d884a8b6487cp-10;
  const double x = arch::from_words(fp::normal_binary32_hi_word(ix), fp::normal_binary32_lo_word(ix));
  const double kz = arch::fma(x, l_hi * 32.0, kShift);
  const std::int32_t k = static_cast<std::int32_t>(arch::words(kz).lo);
  const double kd = kz - kShift;  // exact: k as a double
  double r = arch::fma(x, l_hi, kd * -0x1p-5);
  r = arch::fma(x, l_lo, r);
  double p = arch::fma(r, c5, c4);
  p = arch::fma(r, p, c3);
  p = arch::fma(r, p, c2);
  p = arch::fma(r, p, c1);
  const double q = r * p;  // feeds only an fma: nothing to contract
  const double t = tables::exp2_j(k & 31);
  const double y = arch::fma(t, q, t);
  const arch::Words w = arch::words(y);
  return fp::round_scaled_to_binary32(w.hi, w.lo, k >> 5, kExpTolUlps);  // 2^floor(k/32)
}

}  // namespace samebits::cr::detail

namespace samebits::cr::detail {

enum class ExpBase { e, two, ten };

// b^x before the exception lookup. Special inputs give exact results
// (near_midpoint false), built from integers:
//   NaN -> the input, quieted (payload and sign kept, as IEEE recommends);
//   x >= 160 or +inf -> +inf;  x <= -160 or -inf -> +0 (b^x overflows or
//   is below 2^-151 for every b here);  |x| < 2^-27 -> 1 (b^x within
//   2^-25.8 of 1 rounds to 1, and subnormal x never reach the arithmetic).
template <ExpBase B>
SAMEBITS_FUNC fp::Rounded exp_family(std::uint32_t ix) {
  const std::uint32_t ax = ix & 0x7fffffffu;
  if (ax >= 0x43200000u) {  // |x| >= 0x1.4p+7 = 160, inf, NaN
    if (ax > fp::kPosInf) return {ix | fp::kQuietBit, false};
    return {(ix >> 31) ? 0u : fp::kPosInf, false};
  }
  if (ax < 0x32000000u) return {0x3f800000u, false};  // |x| < 0x1p-27
  if constexpr (B == ExpBase::e) return exp_core(ix, tables::kLog2EHi, tables::kLog2ELo);
  else if constexpr (B == ExpBase::two) return exp_core(ix, 1.0, 0.0);
  else return exp_core(ix, tables::kLog2TenHi, tables::kLog2TenLo);
}

}  // namespace samebits::cr::detail
