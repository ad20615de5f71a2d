// samebits/libm/mma/sm90.hpp — a bit-accurate model of one tensor-core dot-add
// of the H200 (sm_90): what `wgmma.mma_async.m64nNk16.f32.{bf16,f16}` and
// `mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}.{bf16,f16}.f32` write into
// one fp32 element of D, as a function of the k = 16 products feeding it and
// the accumulator C:
//
//     D = C + sum_{i<k} a_i * b_i          (scale-d = 1: dot_add)
//     D =     sum_{i<k} a_i * b_i          (scale-d = 0: dot)
//
// Host and device (one header, integers only: no floating-point operation is
// executed, so compiler flags and FP modes cannot change the bits).
// Namespace samebits::mma::sm90. Derivation and evidence: docs/kernels/mma.md.
//
// WHAT IS MEASURED AND WHAT IS NOT (keep in sync with docs/kernels/mma.md):
// - mma.sync m16n8k16 bf16 on the H200 (../shared/FACTS.md, 2026-12-04,
//   33.5M dot products, 0 mismatches): the fused dot-add below with F = 25,
//   one group of 16, C fused, products aligned by ea + eb, truncation toward
//   zero at the end, NaN result 0x7fffffff, inf/NaN by the IEEE sum's class.
//   That probe is not in this repository; its description does not say how
//   zero terms entered the maximum exponent, which sign an exact zero got, or
//   what an overflowing sum gave.
// - Two short probe runs on an H100 (2026-12-06, docs/kernels/mma.md §6,
//   61.6M dot products per type, wgmma m64n64k16 / m64n8k16 and mma.sync):
//   wgmma == mma.sync on every one; F = 25, group 16, RZ, C fused with the
//   first group, raw product exponents confirmed against their neighbours;
//   scale-d = 0 equal to a +0 accumulator; the first defaults' zero rules
//   (format_min, ieee) were NOT the hardware's: zero products ignored with
//   every zero result +0 matched every fp16 dot product and every bf16 one
//   but 3,054, all in the subnormal class. Every one of the 1,777 distinct
//   bf16 mismatch records of both runs (their inputs and the hardware's
//   bits, docs/kernels/mma.md §6.3, tests/device/mma/analyze_records.py)
//   is matched by one more rule: the alignment exponent never falls
//   below -133 (emax_floor; -132 misses 1 record, -134 misses 6, and a zero
//   C at -126 misses 121), so sums of products below 2^-133 are truncated on
//   the 2^-158 grid; and a sum that truncates to zero is +0 (keeping its
//   sign misses 26). The defaults below are that reading.
// - The full probe run on an H100 (2026-12-06, mma.md §6.4): 1.26e9 dot
//   products per type (wgmma m64n64k16 and m64n8k16, each tile also through
//   mma.sync; bf16 and fp16; scale-d 1 and 0): 0 mismatches for the
//   defaults; F = 24 / 26, no floor, floor -132 and the other neighbours
//   mismatch millions. fp16 cannot tell the floor, fixed_m126 or a
//   saturating overflow from the defaults (its products and sums never get
//   there).
//
// ---------------------------------------------------------------------------
// The model (one fused step; Params names every choice that is not measured)
// ---------------------------------------------------------------------------
// Operands. A bf16 or fp16 encoding h decodes to sign s, integer significand
// M and exponent e with |h| = M * 2^(e - f), f = 7 (bf16) or 10 (fp16):
//   exponent field E != 0:  M = 2^f + fraction, e = E - bias
//   exponent field E == 0:  M = fraction,       e = 1 - bias (= emin)
// so a subnormal keeps the exponent of the smallest normal and a zero has
// M = 0 and e = emin (bf16: -126, fp16: -14). C (fp32) decodes the same way
// with f = 23, emin = -126.
//
// Terms. Product i: P_i = Ma*Mb (exact, < 2^16 for bf16, < 2^22 for fp16),
// value P_i * 2^(ea + eb - 2f), sign sa ^ sb. Its alignment exponent is
// ea + eb (ProductExponent::raw: the significand P_i / 2^2f lies in [1, 4)
// for normal operands and is NOT renormalized) or the exponent of its leading
// bit (ProductExponent::normalized). C's alignment exponent is ec.
//
// Alignment. emax = the largest alignment exponent over the terms of the step.
// Zero terms (a zero product, C = +-0) enter emax by ZeroExponent:
//   format_min: with their decoded exponents (a zero product: emin + eb, so
//               bf16 0 * 0x1p100 has exponent -26, fp16 0 * 0x1p15 has 1; a
//               zero C: -126) — what a datapath that does not test for zero does
//   ignored:    not at all (an all-zero step has no emax; its result is +-0)
//   fixed_m126: at -126 (MMA-Sim's current simulator)
// Then emax = max(emax, emax_floor) (measured: -133 for bf16; fp16 products
// never reach it). kNoExponentFloor: no floor.
// Each nonzero term is scaled to units of 2^(emax - F) and truncated toward
// zero (its magnitude floored): t_i = sign * floor(|term| / 2^(emax - F)).
// F = frac_bits (25 measured for mma.sync bf16). The t_i are added exactly
// (sum S, < 2^(F+7) in magnitude).
//
// Result. S * 2^(emax - F) is rounded to fp32 (Rounding: toward_zero measured
// for mma.sync bf16, or nearest_even) with subnormal results on the 2^-149
// grid (no flush). A magnitude that rounds to >= 2^128 gives inf
// (Overflow::infinity) or 0x7f7fffff (saturate, what IEEE RZ would give).
// A zero result follows ZeroSign:
//   ieee:     S == 0 (every term zero, or everything truncated away, or
//             exact cancellation) gives -0 when every term of the step is a
//             negative zero, else +0 (IEEE addition in round-to-nearest);
//             a nonzero S that rounds to zero keeps its sign (-0 for a tiny
//             negative sum, as IEEE RZ gives)
//   positive: +0 always, S == 0 or a nonzero S that rounds to zero
//
// Special operands (checked first, over the whole step): any NaN operand, a
// product inf * 0, or infinities of both signs among the products and C give
// NaN, written as 0x7fffffff (the encoding the hardware writes, whatever the
// payloads); otherwise an infinite product or C gives that infinity.
//
// Chaining. The k products are split into groups of `group` consecutive
// products (k / group steps). CJoin::first_group: step 0 fuses group 0 with C
// (scale-d = 0: C = +0, see dot below), each later step fuses its group with
// the previous step's fp32 result as its C. CJoin::after_products: the groups
// are chained without C, then one more step fuses that fp32 result with C.
// One group of 16 with C fused is the measured mma.sync reading; groups of 8
// (MMA-Sim's reading of Ampere's m16n8k16) or 4 are the candidates for an
// internal split of the instruction's k.
//
// Worked cases (bf16, unused positions +0; all are host tests in
// tests/libm/mma/test_mma_model.cpp):
//   a = {0x3f80 (1.0), 0x3f80}, b = {0x3f80, 0x3f80}, c = 0x00000000
//     -> 2.0 = 0x40000000 under every candidate (exact).
//   a = {0x3f80 (1.0), 0xb300 (-0x1p-25)}, b = {0x3f80, 0x3f80}, c = +0:
//     emax = 0 (zero terms do not count; under format_min the zero products
//     would sit at -252 and C = +0 at -126). -2^-25 is one
//     unit of 2^-25 at F = 25 (two at F = 26, kept) and 0 at F = 24 (dropped).
//     S * 2^-25 = 1 - 2^-25 lies between 0x1.fffffep-1 and 1.0:
//       F = 25, RZ -> 0x3f7fffff;  F = 26, RZ -> 0x3f7fffff;
//       F = 24, RZ -> 0x3f800000 (the term truncated away);
//       F = 25, RN -> 0x3f800000 (a tie; 1.0 has the even significand).
//   a = {0x3f80, 0xb280 (-0x1p-26)}: F = 26 -> 0x3f7fffff, F = 24 and 25 ->
//     0x3f800000: with the case above, each of F = 24, 25, 26 gives a
//     different pair of results.
// ---------------------------------------------------------------------------
#pragma once

#include <cstdint>

#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/platform.hpp"

#if defined(SAMEBITS_HOST_PASS)
#  include <stdexcept>
#  include <string>
#endif

// A loop the device passes must unroll (operand arrays then stay in registers).
// GCC spells it differently; nvcc's host pass (which warns on GCC pragmas) gets none.
#if defined(SAMEBITS_DEVICE_PASS) || defined(__clang__)
#  define SAMEBITS_MMA_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__CUDACC__)
#  define SAMEBITS_MMA_UNROLL _Pragma("GCC unroll 16")
#else
#  define SAMEBITS_MMA_UNROLL
#endif

namespace samebits::mma::sm90 {

enum class Format : std::uint8_t { bf16 = 0, f16 = 1 };
enum class Rounding : std::uint8_t { toward_zero = 0, nearest_even = 1 };
enum class CJoin : std::uint8_t { first_group = 0, after_products = 1 };
enum class ZeroExponent : std::uint8_t { format_min = 0, ignored = 1, fixed_m126 = 2 };
enum class ProductExponent : std::uint8_t { raw = 0, normalized = 1 };
enum class ZeroSign : std::uint8_t { ieee = 0, positive = 1 };
enum class Overflow : std::uint8_t { infinity = 0, saturate = 1 };

// Every choice of the model that a measurement decides. The defaults are the
// hardware's reading (see the header comment for their status); the other
// values are the candidates the probe tells apart from it.
struct Params {
  int frac_bits = 25;  // F: fractional bits kept below the largest exponent
  int group = 16;      // products fused per step (divides k)
  Rounding rounding = Rounding::toward_zero;
  CJoin c_join = CJoin::first_group;
  ZeroExponent zero_exponent = ZeroExponent::ignored;
  ProductExponent product_exponent = ProductExponent::raw;
  ZeroSign zero_sign = ZeroSign::positive;
  Overflow overflow = Overflow::infinity;
  int emax_floor = -133;  // the least alignment exponent a step takes (kNoExponentFloor: none)
};

inline constexpr int kInstructionK = 16;  // k of m64nNk16 and m16n8k16
inline constexpr int kMaxK = 16;          // the model covers one instruction's k
inline constexpr int kMaxFracBits = 40;   // keeps every |t_i| < 2^42, |S| < 2^47
inline constexpr std::uint32_t kNaN = 0x7fffffffu;  // the hardware's NaN result
// emax_floor's "no floor": below every alignment exponent (>= -252 - 2 * 10).
inline constexpr int kNoExponentFloor = -1000;
inline constexpr int kMaxExponentFloor = 127;

// nullptr when (p, k) is a valid model; otherwise a message naming the
// argument. dot_add/dot return kNaN for invalid arguments (device code cannot
// throw); the host wrappers *_or_throw below throw std::invalid_argument.
SAMEBITS_FUNC constexpr const char* invalid_argument(const Params& p, int k) noexcept {
  if (k < 1 || k > kMaxK) return "k: must be in [1, 16] (one instruction's k)";
  if (p.frac_bits < 1 || p.frac_bits > kMaxFracBits) return "frac_bits: must be in [1, 40]";
  if (p.group < 1 || p.group > k || k % p.group != 0) return "group: must be in [1, k] and divide k";
  if (static_cast<unsigned>(p.rounding) > 1u) return "rounding: not a Rounding value";
  if (static_cast<unsigned>(p.c_join) > 1u) return "c_join: not a CJoin value";
  if (static_cast<unsigned>(p.zero_exponent) > 2u) return "zero_exponent: not a ZeroExponent value";
  if (static_cast<unsigned>(p.product_exponent) > 1u) return "product_exponent: not a ProductExponent value";
  if (static_cast<unsigned>(p.zero_sign) > 1u) return "zero_sign: not a ZeroSign value";
  if (static_cast<unsigned>(p.overflow) > 1u) return "overflow: not an Overflow value";
  if (p.emax_floor < kNoExponentFloor || p.emax_floor > kMaxExponentFloor)
    return "emax_floor: must be in [-1000, 127] (-1000: no floor)";
  return nullptr;
}

namespace detail {

SAMEBITS_FUNC int bit_width(std::uint64_t x) noexcept {
  if (x == 0) return 0;
#if defined(SAMEBITS_DEVICE_NVIDIA)
  return 64 - __clzll(static_cast<long long>(x));
#elif defined(__GNUC__) || defined(__clang__)
  return 64 - __builtin_clzll(x);
#else
  int n = 0;
  while (x != 0) { ++n; x >>= 1; }
  return n;
#endif
}

// |h| = mag * 2^(exp - frac); exp is emin for zeros and subnormals.
struct Operand {
  std::uint32_t mag;
  int exp;
  bool neg;
};

SAMEBITS_FUNC constexpr int frac_bits_of(Format f) noexcept { return f == Format::bf16 ? 7 : 10; }

// bf16: 1 + 8 + 7 bits, bias 127;  fp16: 1 + 5 + 10 bits, bias 15.
SAMEBITS_FUNC constexpr Operand decode16(Format f, std::uint16_t h) noexcept {
  const int frac = frac_bits_of(f);
  const int ebits = f == Format::bf16 ? 8 : 5;
  const int bias = (1 << (ebits - 1)) - 1;
  const std::uint32_t field = (static_cast<std::uint32_t>(h) >> frac) & ((1u << ebits) - 1u);
  const std::uint32_t fraction = h & ((1u << frac) - 1u);
  Operand o{fraction, 1 - bias, (h & 0x8000u) != 0};
  if (field != 0) {
    o.mag = fraction | (1u << frac);
    o.exp = static_cast<int>(field) - bias;
  }
  return o;
}

SAMEBITS_FUNC constexpr Operand decode32(std::uint32_t c) noexcept {
  const std::uint32_t field = (c >> 23) & 0xffu;
  Operand o{c & fp::kMantissaMask, -126, (c & fp::kSignMask) != 0};
  if (field != 0) {
    o.mag |= 0x800000u;
    o.exp = static_cast<int>(field) - 127;
  }
  return o;
}

// Special-value classes of 16-bit encodings: the exponent field all ones.
SAMEBITS_FUNC constexpr std::uint32_t inf16(Format f) noexcept { return f == Format::bf16 ? 0x7f80u : 0x7c00u; }
SAMEBITS_FUNC constexpr bool is_nan16(Format f, std::uint16_t h) noexcept { return (h & 0x7fffu) > inf16(f); }
SAMEBITS_FUNC constexpr bool is_inf16(Format f, std::uint16_t h) noexcept { return (h & 0x7fffu) == inf16(f); }
SAMEBITS_FUNC constexpr bool is_zero16(std::uint16_t h) noexcept { return (h & 0x7fffu) == 0; }

// (-1)^neg * mag * 2^exp0 rounded to binary32 (mag > 0). Subnormal results
// on the 2^-149 grid. The encoding is ((q + 149) << 23) + m where 2^q is the
// quantum and m the rounded significand: m = 2^24 after a round-up carries
// into the exponent field by itself, and q = -149 with m < 2^23 is a
// subnormal. >= 0x7f800000 is an overflow.
SAMEBITS_FUNC std::uint32_t round_to_f32(bool neg, std::uint64_t mag, int exp0, const Params& p) noexcept {
  const int etop = exp0 + bit_width(mag) - 1;  // exponent of the leading bit
  const int q = etop - 23 < -149 ? -149 : etop - 23;
  const int sh = q - exp0;
  std::uint64_t m;
  if (sh <= 0) {
    m = mag << -sh;  // exact: -sh <= 23 - (bit_width - 1)
  } else if (sh > 62) {
    m = 0;  // mag < 2^47 < half a quantum: zero in both roundings
  } else {
    m = mag >> sh;
    if (p.rounding == Rounding::nearest_even) {
      const std::uint64_t rem = mag & ((std::uint64_t{1} << sh) - 1u);
      const std::uint64_t half = std::uint64_t{1} << (sh - 1);
      if (rem > half || (rem == half && (m & 1u) != 0)) ++m;
    }
  }
  std::int64_t bits = (static_cast<std::int64_t>(q + 149) << 23) + static_cast<std::int64_t>(m);
  if (bits >= 0x7f800000) bits = p.overflow == Overflow::infinity ? 0x7f800000 : 0x7f7fffff;
  return (neg ? fp::kSignMask : 0u) | static_cast<std::uint32_t>(bits);
}

// One fused step: products a[lo..hi) * b[lo..hi) and n_acc (0..2) fp32 terms.
// The loops run over all kMaxK positions with a mask so that the device
// passes unroll them (operands in registers); positions outside [lo, hi) are
// never read.
SAMEBITS_FUNC std::uint32_t fused_step(Format f, const std::uint16_t* a, const std::uint16_t* b, int lo, int hi,
                                       const std::uint32_t* acc, int n_acc, const Params& p) noexcept {
  const int frac = frac_bits_of(f);
  // 1. Special operands: NaN anywhere, inf * 0, +inf with -inf -> NaN; else inf.
  bool nan = false, pinf = false, ninf = false, all_neg_zero = true;
  SAMEBITS_MMA_UNROLL
  for (int i = 0; i < kMaxK; ++i) {
    if (i < lo || i >= hi) continue;
    const std::uint16_t ha = a[i], hb = b[i];
    const bool neg = ((ha ^ hb) & 0x8000u) != 0;
    if (is_nan16(f, ha) || is_nan16(f, hb)) {
      nan = true;
    } else if (is_inf16(f, ha) || is_inf16(f, hb)) {
      if (is_zero16(ha) || is_zero16(hb)) nan = true;
      else if (neg) ninf = true;
      else pinf = true;
    }
    all_neg_zero = all_neg_zero && neg && (is_zero16(ha) || is_zero16(hb));
  }
  SAMEBITS_MMA_UNROLL
  for (int j = 0; j < 2; ++j) {
    if (j >= n_acc) continue;
    const std::uint32_t c = acc[j];
    if (fp::is_nan_bits(c)) nan = true;
    else if (c == fp::kPosInf) pinf = true;
    else if (c == fp::kNegInf) ninf = true;
    all_neg_zero = all_neg_zero && c == fp::kSignMask;
  }
  if (nan || (pinf && ninf)) return kNaN;
  if (pinf) return fp::kPosInf;
  if (ninf) return fp::kNegInf;

  // 2. emax over the terms that take part (ZeroExponent decides for zeros).
  bool any = false;
  int emax = 0;
  SAMEBITS_MMA_UNROLL
  for (int i = 0; i < kMaxK; ++i) {
    if (i < lo || i >= hi) continue;
    const Operand oa = decode16(f, a[i]), ob = decode16(f, b[i]);
    const std::uint32_t prod = oa.mag * ob.mag;
    int e = oa.exp + ob.exp;
    if (prod == 0) {
      if (p.zero_exponent == ZeroExponent::ignored) continue;
      if (p.zero_exponent == ZeroExponent::fixed_m126) e = -126;
    } else if (p.product_exponent == ProductExponent::normalized) {
      e = e - 2 * frac + bit_width(prod) - 1;
    }
    emax = (!any || e > emax) ? e : emax;
    any = true;
  }
  SAMEBITS_MMA_UNROLL
  for (int j = 0; j < 2; ++j) {
    if (j >= n_acc) continue;
    const Operand oc = decode32(acc[j]);
    if (oc.mag == 0 && p.zero_exponent == ZeroExponent::ignored) continue;
    const int e = oc.mag == 0 ? -126 : oc.exp;  // a zero C is at -126 under both other rules
    emax = (!any || e > emax) ? e : emax;
    any = true;
  }

  if (any && emax < p.emax_floor) emax = p.emax_floor;

  // 3. Align to 2^(emax - F), truncate each term toward zero, add exactly.
  std::int64_t sum = 0;
  if (any) {
    const int unit = emax - p.frac_bits;
    SAMEBITS_MMA_UNROLL
    for (int i = 0; i < kMaxK; ++i) {
      if (i < lo || i >= hi) continue;
      const Operand oa = decode16(f, a[i]), ob = decode16(f, b[i]);
      const std::uint64_t prod = static_cast<std::uint64_t>(oa.mag) * ob.mag;
      if (prod == 0) continue;  // a zero adds nothing (its exponent may exceed emax + 63)
      const int sh = oa.exp + ob.exp - 2 * frac - unit;  // term = prod * 2^sh units, < 2^(F+2)
      const std::uint64_t t = sh >= 0 ? prod << sh : (-sh >= 64 ? 0 : prod >> -sh);
      sum += (oa.neg != ob.neg) ? -static_cast<std::int64_t>(t) : static_cast<std::int64_t>(t);
    }
    SAMEBITS_MMA_UNROLL
    for (int j = 0; j < 2; ++j) {
      if (j >= n_acc) continue;
      const Operand oc = decode32(acc[j]);
      if (oc.mag == 0) continue;
      const int sh = oc.exp - 23 - unit;
      const std::uint64_t t = sh >= 0 ? std::uint64_t{oc.mag} << sh : (-sh >= 64 ? 0 : std::uint64_t{oc.mag} >> -sh);
      sum += oc.neg ? -static_cast<std::int64_t>(t) : static_cast<std::int64_t>(t);
    }
  }

  // 4. Exact zero: ZeroSign. Otherwise round S * 2^(emax - F) to fp32.
  if (sum == 0) return (p.zero_sign == ZeroSign::ieee && all_neg_zero) ? fp::kSignMask : 0u;
  const bool neg = sum < 0;
  const std::uint32_t r = round_to_f32(neg, static_cast<std::uint64_t>(neg ? -sum : sum), emax - p.frac_bits, p);
  return (p.zero_sign == ZeroSign::positive && r == fp::kSignMask) ? 0u : r;  // a tiny negative sum: +0
}

SAMEBITS_FUNC std::uint32_t chain(Format f, const std::uint16_t* a, const std::uint16_t* b, int k, bool has_c,
                                  std::uint32_t c, const Params& p) noexcept {
  if (invalid_argument(p, k) != nullptr) return kNaN;
  std::uint32_t acc[2] = {c, 0u};
  bool have = has_c && p.c_join == CJoin::first_group;
  for (int lo = 0; lo < k; lo += p.group) {
    acc[0] = fused_step(f, a, b, lo, lo + p.group, acc, have ? 1 : 0, p);
    have = true;
  }
  if (has_c && p.c_join == CJoin::after_products) {
    acc[1] = c;
    acc[0] = fused_step(f, a, b, 0, 0, acc, 2, p);
  }
  return acc[0];
}

}  // namespace detail

// D = C + sum_{i<k} a[i] * b[i] (scale-d = 1). a, b: k bf16 or fp16
// encodings; c and the result: fp32 encodings. kNaN for invalid arguments.
SAMEBITS_FUNC std::uint32_t dot_add(Format f, const std::uint16_t* a, const std::uint16_t* b, int k, std::uint32_t c,
                                    const Params& p = Params{}) noexcept {
  return detail::chain(f, a, b, k, true, c, p);
}

// D = sum_{i<k} a[i] * b[i]: wgmma with scale-d = 0 (C not read). Measured
// (mma.md §6): the hardware fuses a +0 accumulator, so this is
// dot_add(f, a, b, k, +0, p). (The other reading, a step with no C term at
// all, is detail::chain(f, a, b, k, false, 0, p); it differs through
// ZeroExponent and ZeroSign, and the probe keeps it as a candidate.)
SAMEBITS_FUNC std::uint32_t dot(Format f, const std::uint16_t* a, const std::uint16_t* b, int k,
                                const Params& p = Params{}) noexcept {
  return detail::chain(f, a, b, k, true, 0u, p);
}

#if defined(SAMEBITS_HOST_PASS)
// Host callers that want a clear error instead of kNaN.
inline std::uint32_t dot_add_or_throw(Format f, const std::uint16_t* a, const std::uint16_t* b, int k,
                                      std::uint32_t c, const Params& p = Params{}) {
  if (const char* why = invalid_argument(p, k)) throw std::invalid_argument(std::string("samebits::mma::sm90: ") + why);
  return dot_add(f, a, b, k, c, p);
}
inline std::uint32_t dot_or_throw(Format f, const std::uint16_t* a, const std::uint16_t* b, int k,
                                  const Params& p = Params{}) {
  if (const char* why = invalid_argument(p, k)) throw std::invalid_argument(std::string("samebits::mma::sm90: ") + why);
  return dot(f, a, b, k, p);
}
#endif

}  // namespace samebits::mma::sm90
