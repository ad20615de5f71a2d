// samebits/libm/cr/log_core.hpp — log_b(x) for b in {e, 2, 10}, before rounding.
//
// Reduction. x > 0 finite is taken exactly to binary64 (subnormals by an
// integer-to-double conversion, never by cvt.f32 which -ftz would flush).
// With OFF = 0x1.61p-1, write x = 2^e z with z in [OFF, 2 OFF) by integer
// operations on the encoding, and let i be the index of z's subinterval
// (128 of them, each 2^45 encodings wide; tables.hpp). Then
//   log_b(x) = e log_b(2) + (-log_b(c_i)) + log_b(1 + r),  r = z c_i - 1,
// where c_i ~ 1/centre has 29 significant bits, so z c_i (24 + 29 bits) is
// exact in an fma and r = fma(z, c_i, -1) is exact; |r| <= 2^-8. The
// subinterval centred on 1 has c = 1, so for x in [1 - 2^-9, 1 + 2^-8) the
// result is the polynomial alone and keeps its relative accuracy near 1.
// Because z < 2 OFF < 1.38 and z >= OFF > 0.68, e log b(2) and -log_b(c)
// never cancel badly: |result| >= 0.31 |e log_b(2)|.
// Evaluation. P_b(r) ~ log_b(1 + r), degree 6 with double coefficients
// (Sollya fpminimax, relative error < 2^-54.7 on |r| <= 0.004;
// libm/tools/cr_polynomials.sollya), evaluated by Estrin's scheme in fma,
// with hi = fma(e, log_b(2), -log_b(c_i)) added in the second level.
// Error bound (docs/libm/cr.md): |y - exact| <= 5.4 ulp(y); the rounding test
// (log_near_midpoint, run over every input by libm/tools/cr_exceptions, not at
// run time) is told 16 ulp, a margin of 3x.
#pragma once

#include <cstdint>

#include "samebits/libm/arch/fma.hpp"
#include "samebits/libm/arch/words.hpp"
#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/fp/rounding.hpp"
#include "samebits/libm/cr/tables.hpp"

namespace samebits::cr::detail {

inline constexpr std::uint32_t kLogTolUlps = 16;

enum class LogBase { e, two, ten };

// log_b(x) before rounding, for x a positive finite nonzero binary64 given by
// its words (xhi, xlo) (any other words give a meaningless value, without
// undefined behaviour: the common path computes it before it knows).
template <LogBase B>
SAMEBITS_FUNC double log_core_words(std::uint32_t xhi, std::uint32_t xlo) {
  // log_b(2) rounded to double (1 for b = 2), and P_b(r) = r (a0 + r (a1 + ... + r a5)).
  double log_b_2, a0, a1, a2, a3, a4, a5;
  if constexpr (B == LogBase::e) {
    log_b_2 = tables::kLn2;
    a0 = 0x1p0, a1 = -0x1p-1, a2 = 0x1.555555550ef6ap-2, a3 = -0x1.ffffffff7646bp-3;
    a4 = 0x1.999b471a3e634p-3, a5 = -0x1.5556dd090112bp-3;
  } else if constexpr (B == LogBase::two) {
    log_b_2 = 0x1p0;
    a0 = 0x1.71547652b82fep0, a1 = -0x1.71547652b82fep-1, a2 = 0x1.ec709dc3511b9p-2;
    a3 = -0x1.7154765261fd2p-2, a4 = 0x1.2777e9cdd53e2p-2, a5 = -0x1.ec72bd86e5045p-3;
  } else {
    log_b_2 = tables::kLog10Of2;
    a0 = 0x1.bcb7b1526e50ep-2, a1 = -0x1.bcb7b1526e50ep-3, a2 = 0x1.287a7636cf3d8p-3;
    a3 = -0x1.bcb7b1521311cp-4, a4 = 0x1.63c777aa62bb9p-4, a5 = -0x1.287bb368c6e25p-4;
  }
  // OFF's low word is 0, so x - OFF and the z below only touch the high word.
  static_assert((tables::kLogOff & 0xffffffffu) == 0);
  const std::int32_t tmp = static_cast<std::int32_t>(xhi - static_cast<std::uint32_t>(tables::kLogOff >> 32));
  const int i = (tmp >> 13) & 127;                     // encoding bits 45..51
  const std::int32_t e = tmp >> 20;                    // arithmetic shift: floor
  const double z = arch::from_words(xhi - (static_cast<std::uint32_t>(e) << 20), xlo);
  const double r = arch::fma(z, tables::log_c(i), -1.0);  // exact
  double neg_log_c;
  if constexpr (B == LogBase::e) neg_log_c = tables::log_neg_ln_c(i);
  else if constexpr (B == LogBase::two) neg_log_c = tables::log_neg_log2_c(i);
  else neg_log_c = tables::log_neg_log10_c(i);
  const double hi = arch::fma(static_cast<double>(e), log_b_2, neg_log_c);
  // y = hi + r (a0 + a1 r) + r^3 (a2 + a3 r + r^2 (a4 + a5 r)): Estrin's
  // scheme split at r^2, three levels of operations after r instead of six;
  // faster on the host and on the H200 (docs/libm/cr.md).
  const double r2 = r * r;
  const double p01 = arch::fma(r, a1, a0), p23 = arch::fma(r, a3, a2), p45 = arch::fma(r, a5, a4);
  return arch::fma(r * r2, arch::fma(r2, p45, p23), arch::fma(r, p01, hi));  // r * r2 feeds only an fma
}

// log_b(x) before rounding, for ix a positive finite nonzero binary32 encoding.
template <LogBase B>
SAMEBITS_FUNC double log_core(std::uint32_t ix) {
  if (ix < 0x00800000u) {
    // Subnormal: ix * 2^-149, exact (an integer below 2^23, then a power of two).
    const arch::Words w = arch::words(static_cast<double>(ix) * 0x1p-149);
    return log_core_words<B>(w.hi, w.lo);
  }
  return log_core_words<B>(fp::normal_binary32_hi_word(ix), fp::normal_binary32_lo_word(ix));
}

}  // namespace samebits::cr::detail

namespace samebits::cr::detail {

// log_b(x) rounded to nearest, before the exception fix-up. Special inputs
// give exact results built from integers: NaN -> the input, quieted; +-0 ->
// -inf (pole); x < 0 or -inf -> the canonical NaN 0x7fc00000 (invalid);
// +inf -> +inf. Every other result is normal (|log_b(x)| >= log10(1 + 2^-23)
// > 2^-26, and < 2^8), so the hardware conversion rounds it.
template <LogBase B>
SAMEBITS_FUNC std::uint32_t log_family(std::uint32_t ix) {
  if (ix - 1u >= 0x7f7fffffu) {  // +0, or >= +inf (inf, NaN, every negative)
    const std::uint32_t ax = ix & 0x7fffffffu;
    if (ax > fp::kPosInf) return ix | fp::kQuietBit;
    if (ax == 0) return fp::kNegInf;
    if (ix == fp::kPosInf) return fp::kPosInf;
    return fp::kCanonicalNaN;
  }
  return fp::to_bits(fp::narrow_normal(log_core<B>(ix)));
}

// The common path, branch-free: log_b(x) rounded by the hardware conversion,
// computed for every input but meaningful only where log_is_rare(ix) is
// false (x positive, normal, finite); the caller then takes log_family.
// One rarely taken branch per call instead of several keeps the common path
// straight-line code, which lets GPUs overlap consecutive evaluations.
template <LogBase B>
SAMEBITS_FUNC float log_common(std::uint32_t ix) {
  return fp::narrow_normal(log_core_words<B>(fp::normal_binary32_hi_word(ix), fp::normal_binary32_lo_word(ix)));
}
SAMEBITS_FUNC constexpr bool log_is_rare(std::uint32_t ix) {
  return ix - 0x00800000u >= 0x7f800000u - 0x00800000u;  // +0, subnormal, inf, NaN, negative
}

// For libm/tools/cr_exceptions: whether log_b(x)'s binary64 approximation
// lies within kLogTolUlps of a binary32 midpoint. Elsewhere the error bound
// proves log_family(ix) correctly rounded.
template <LogBase B>
SAMEBITS_FUNC bool log_near_midpoint(std::uint32_t ix) {
  if (ix - 1u >= 0x7f7fffffu) return false;
  const arch::Words w = arch::words(log_core<B>(ix));
  return fp::round_scaled_to_binary32(w.hi, w.lo, 0, kLogTolUlps).near_midpoint;
}

}  // namespace samebits::cr::detail
