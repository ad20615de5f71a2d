// tests/libm/mma/mma_reference.hpp — a slow, independent evaluation of the
// model of samebits/libm/mma/sm90.hpp, for the host tests only.
//
// Independent in its arithmetic: every operand is turned into its exact value
// (a Boost.Multiprecision integer scaled by 2^kScale) by the IEEE formula; a
// term is truncated by integer DIVISION by the unit 2^(emax - F) (not by
// shifting significands); the sum is exact; the fp32 result is found by a
// binary search over the binary32 encodings, comparing exact values (not by
// normalizing and shifting). What it shares with the fast model is the
// specification (the alignment exponents, the zero and sign rules, the
// chaining), written again here from the text in sm90.hpp.
#pragma once

#include <boost/multiprecision/cpp_int.hpp>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "samebits/libm/mma/sm90.hpp"

namespace samebits::mma::reference {

using sm90::Format;
using sm90::Params;
// Fixed width (no allocation), enough for a product of two scaled operands
// (< 2^(2 * (128 + kScale))); checked: an overflow throws instead of wrapping.
using Big = boost::multiprecision::number<boost::multiprecision::cpp_int_backend<
    1024, 1024, boost::multiprecision::signed_magnitude, boost::multiprecision::checked, void>>;

// Every value is held as value * 2^kScale. The smallest bit of any term is
// 2^-266 (bf16 2^-133 squared); the smallest unit 2^(emax - F) is
// 2^(-266 - 40): kScale = 320 keeps everything an integer.
inline constexpr int kScale = 320;

inline Big pow2(int e) {
  if (e < 0 || e > 1000) throw std::logic_error("reference: power of two out of range (kScale too small)");
  static const auto table = [] {
    std::vector<Big> t(1001);
    for (int i = 0; i <= 1000; ++i) t[static_cast<std::size_t>(i)] = Big(1) << i;
    return t;
  }();
  return table[static_cast<std::size_t>(e)];
}

struct Parts {  // the encoding's fields read by the IEEE formula
  bool neg, zero, inf, nan;
  Big mag;  // |value| * 2^kScale
  int expo; // exponent of the encoding: field - bias, or 1 - bias for zero/subnormal
};

inline Parts parts16(Format f, std::uint16_t h) {
  const int mant_bits = f == Format::bf16 ? 7 : 10;
  const int exp_bits = f == Format::bf16 ? 8 : 5;
  const int bias = f == Format::bf16 ? 127 : 15;
  const unsigned field = (h >> mant_bits) & ((1u << exp_bits) - 1u);
  const unsigned fraction = h & ((1u << mant_bits) - 1u);
  Parts p{(h >> 15) != 0, false, false, false, 0, 0};
  if (field == (1u << exp_bits) - 1u) {
    (fraction == 0 ? p.inf : p.nan) = true;
    return p;
  }
  if (field == 0) {  // (-1)^s * 0.fraction * 2^(1 - bias)
    p.expo = 1 - bias;
    p.mag = Big(fraction) * pow2(1 - bias - mant_bits + kScale);
  } else {  // (-1)^s * 1.fraction * 2^(field - bias)
    p.expo = static_cast<int>(field) - bias;
    p.mag = Big((1u << mant_bits) + fraction) * pow2(static_cast<int>(field) - bias - mant_bits + kScale);
  }
  p.zero = p.mag == 0;
  return p;
}

inline Parts parts32(std::uint32_t c) {
  const unsigned field = (c >> 23) & 0xffu;
  const unsigned fraction = c & 0x7fffffu;
  Parts p{(c >> 31) != 0, false, false, false, 0, 0};
  if (field == 0xff) {
    (fraction == 0 ? p.inf : p.nan) = true;
    return p;
  }
  if (field == 0) {
    p.expo = -126;
    p.mag = Big(fraction) * pow2(-126 - 23 + kScale);
  } else {
    p.expo = static_cast<int>(field) - 127;
    p.mag = Big((1u << 23) + fraction) * pow2(static_cast<int>(field) - 127 - 23 + kScale);
  }
  p.zero = p.mag == 0;
  return p;
}

// Exact |value| * 2^kScale of a finite binary32 encoding (sign ignored); the
// "encoding" 0x7f800000 stands for 2^128, the first value past the range.
inline Big value_of_f32(std::uint32_t e) {
  if ((e & 0x7fffffffu) == 0x7f800000u) return pow2(128 + kScale);
  return parts32(e & 0x7fffffffu).mag;
}

inline int msb_index(const Big& x) { return static_cast<int>(boost::multiprecision::msb(x)); }

// |x| (> 0, scaled) to binary32 by searching the encodings.
inline std::uint32_t round_by_search(bool neg, const Big& x, const Params& p) {
  // Largest positive encoding lo in [0, 0x7f7fffff] with value <= x.
  std::uint32_t lo = 0, hi = 0x7f7fffffu;
  if (value_of_f32(hi) <= x) {
    lo = hi;
  } else {
    while (hi - lo > 1) {  // invariant: value(lo) <= x < value(hi)
      const std::uint32_t mid = lo + (hi - lo) / 2;
      (value_of_f32(mid) <= x ? lo : hi) = mid;
    }
  }
  std::uint32_t r = lo;
  bool overflow = x >= pow2(128 + kScale);
  if (p.rounding == sm90::Rounding::nearest_even && value_of_f32(lo) != x) {
    const Big below = x - value_of_f32(lo), above = value_of_f32(lo + 1) - x;
    if (above < below || (above == below && (lo & 1u) != 0)) r = lo + 1;
    overflow = r == 0x7f800000u;
  }
  if (overflow) r = p.overflow == sm90::Overflow::infinity ? 0x7f800000u : 0x7f7fffffu;
  return (neg ? 0x80000000u : 0u) | r;
}

struct Term {
  bool neg;
  Big mag;    // exact |value| * 2^kScale
  int align;  // alignment exponent
  bool counts;  // takes part in emax
};

inline std::uint32_t step(Format f, const std::uint16_t* a, const std::uint16_t* b, int lo, int hi,
                          const std::uint32_t* acc, int n_acc, const Params& p) {
  Parts pa[16], pb[16];
  for (int i = lo; i < hi; ++i) {
    pa[i] = parts16(f, a[i]);
    pb[i] = parts16(f, b[i]);
  }
  // Special operands first.
  bool nan = false, pinf = false, ninf = false;
  for (int i = lo; i < hi; ++i) {
    const Parts& x = pa[i];
    const Parts& y = pb[i];
    const bool neg = x.neg != y.neg;
    if (x.nan || y.nan) nan = true;
    else if (x.inf || y.inf) {
      if (x.zero || y.zero) nan = true;
      else (neg ? ninf : pinf) = true;
    }
  }
  for (int j = 0; j < n_acc; ++j) {
    const Parts c = parts32(acc[j]);
    if (c.nan) nan = true;
    else if (c.inf) (c.neg ? ninf : pinf) = true;
  }
  if (nan || (pinf && ninf)) return 0x7fffffffu;
  if (pinf) return 0x7f800000u;
  if (ninf) return 0xff800000u;

  Term terms[18];
  int n = 0;
  for (int i = lo; i < hi; ++i) {
    const Parts& x = pa[i];
    const Parts& y = pb[i];
    Term t{x.neg != y.neg, x.mag * y.mag / pow2(kScale), 0, true};
    if (t.mag * pow2(kScale) != x.mag * y.mag) throw std::logic_error("reference: inexact product");
    if (t.mag == 0) {
      if (p.zero_exponent == sm90::ZeroExponent::ignored) t.counts = false;
      else if (p.zero_exponent == sm90::ZeroExponent::fixed_m126) t.align = -126;
      else t.align = x.expo + y.expo;
    } else if (p.product_exponent == sm90::ProductExponent::normalized) {
      t.align = msb_index(t.mag) - kScale;  // floor(log2 |product|)
    } else {
      t.align = x.expo + y.expo;  // significand |product| / 2^(ea + eb) in [1, 4) for normal operands
    }
    terms[n++] = t;
  }
  for (int j = 0; j < n_acc; ++j) {
    const Parts c = parts32(acc[j]);
    Term t{c.neg, c.mag, c.zero ? -126 : c.expo, !(c.zero && p.zero_exponent == sm90::ZeroExponent::ignored)};
    terms[n++] = t;
  }

  bool any = false, all_neg_zero = true;
  int emax = 0;
  for (int i = 0; i < n; ++i) {
    all_neg_zero = all_neg_zero && terms[i].mag == 0 && terms[i].neg;
    if (!terms[i].counts) continue;
    if (!any || terms[i].align > emax) emax = terms[i].align;
    any = true;
  }
  if (any && emax < p.emax_floor) emax = p.emax_floor;  // the alignment exponent's floor
  Big sum = 0;
  if (any) {
    const Big unit = pow2(emax - p.frac_bits + kScale);
    for (int i = 0; i < n; ++i) {
      const Big kept = (terms[i].mag / unit) * unit;  // floor of the magnitude: toward zero
      sum += terms[i].neg ? Big(-kept) : kept;
    }
  }
  if (sum == 0) return (p.zero_sign == sm90::ZeroSign::ieee && all_neg_zero) ? 0x80000000u : 0u;
  const bool neg = sum < 0;
  const std::uint32_t r = round_by_search(neg, neg ? Big(-sum) : sum, p);
  // ZeroSign::positive: a nonzero sum whose magnitude rounds to zero is +0 too.
  return (p.zero_sign == sm90::ZeroSign::positive && (r & 0x7fffffffu) == 0) ? 0u : r;
}

inline std::uint32_t evaluate(Format f, const std::uint16_t* a, const std::uint16_t* b, int k, bool has_c,
                              std::uint32_t c, const Params& p) {
  if (sm90::invalid_argument(p, k) != nullptr) throw std::invalid_argument(sm90::invalid_argument(p, k));
  std::uint32_t acc[2] = {c, 0};
  int n_acc = has_c && p.c_join == sm90::CJoin::first_group ? 1 : 0;
  for (int lo = 0; lo < k; lo += p.group) {
    acc[0] = step(f, a, b, lo, lo + p.group, acc, n_acc, p);
    n_acc = 1;
  }
  if (has_c && p.c_join == sm90::CJoin::after_products) {
    acc[1] = c;
    acc[0] = step(f, a, b, 0, 0, acc, 2, p);
  }
  return acc[0];
}

inline std::uint32_t dot_add(Format f, const std::uint16_t* a, const std::uint16_t* b, int k, std::uint32_t c,
                             const Params& p = Params{}) {
  return evaluate(f, a, b, k, true, c, p);
}
// scale-d = 0 as the header defines it (a +0 accumulator), and the no-C reading the probe keeps.
inline std::uint32_t dot(Format f, const std::uint16_t* a, const std::uint16_t* b, int k, const Params& p = Params{}) {
  return evaluate(f, a, b, k, true, 0, p);
}
inline std::uint32_t dot_no_c(Format f, const std::uint16_t* a, const std::uint16_t* b, int k,
                              const Params& p = Params{}) {
  return evaluate(f, a, b, k, false, 0, p);
}

}  // namespace samebits::mma::reference
