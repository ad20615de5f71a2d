// libm/src/nvcc_mufu_lg2.cpp — a bit-exact software model of the H200's
// (sm_90) MUFU lg2 instruction (lg2.approx.f32, lg2.approx.ftz.f32), for the
// host path of samebits::nvcc (__logf, __log2f; declared in
// samebits/libm/nvcc/mufu_model.hpp; library samebits_mufu_model).
//
// Measured on the H200 (tests/device/lg2_rule_probe.cu, all 2^32 inputs of
// both forms, 0 mismatches; docs/libm/results/h200/mufu/lg2_rule.jsonl). The
// instruction is two tables of 2^23 entries, its own outputs on the binades
// [1, 2) and [1/2, 1):
//   T0[m]  = lg2.approx(1.m)        in [0, 1), T0[0] = 0
//   Tm1[m] = lg2.approx(0.5 * 1.m)  in [-1, 0) (Tm1[0] is not -1)
// and, for a positive normal x = 2^e 1.m, the integer part is added and the
// sum (exact in binary64) rounded toward zero to binary32:
//   e == 0: T0[m]     e >= 1:  RZ(e + T0[m])
//   e == -1: Tm1[m]   e <= -2: -RZ((-e - 1) + |Tm1[m]|)
// A positive subnormal x (non-ftz form) gives RN(rule(x 2^24) - 24), the
// difference exact in binary64 and rounded to nearest-even binary32.
// Specials: +-0 -> -inf; +inf -> +inf; negative non-zero (-inf included) and
// NaN -> 0x7fffffff. The ftz form reads subnormals of either sign as zero
// (-inf); on normal inputs it is the non-ftz form (same tables, measured).
// T0 and Tm1 are measured data (libm/src/nvcc_mufu_lg2_tables.hpp, stored as encoding
// distances from the correctly rounded values that samebits::cr::log2f
// computes), not a fitted approximation.
//
// Validation: tests/device/mufu_model_check.cu compares the model with the
// instruction on all 2^32 inputs; a user re-validates it on their own GPU
// with the same program.
#include <cstdint>

#include "base64.hpp"
#include "nvcc_mufu_lg2_tables.hpp"
#include "samebits/libm/cr/log2f.hpp"
#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/nvcc/mufu_model.hpp"

namespace samebits::nvcc::model {
namespace detail {

// The w-bit field (w <= 48, and p % 6 + w <= 48) at bit p of a base64 string
// whose character k holds bits 6k .. 6k + 5. Reads only the characters that
// hold the field.
static std::uint64_t lg2_field(const char* s, std::uint32_t p, std::uint32_t w) {
  const std::uint32_t c0 = p / 6, c1 = (p + w + 5) / 6;
  std::uint64_t acc = 0;
  for (std::uint32_t c = c0; c < c1; ++c) acc |= static_cast<std::uint64_t>(base64_value(s[c])) << (6 * (c - c0));
  return (acc >> (p % 6)) & ((std::uint64_t{1} << w) - 1u);
}

// Entry m of a table: its block's header gives the sum S of the previous
// blocks' widths, the width w and the minimum; the field is at bit
// kLg2Block S + (m % kLg2Block) w of the stream.
static std::uint32_t lg2_residual(const char* headers, const char* stream, std::uint32_t m) {
  const std::uint64_t h = lg2_field(headers, 48u * (m / kLg2Block), 48u);
  const std::uint32_t s = static_cast<std::uint32_t>(h & ((1u << kLg2SBits) - 1u));
  const std::uint32_t w = static_cast<std::uint32_t>((h >> kLg2SBits) & ((1u << kLg2WBits) - 1u));
  const std::int64_t base = static_cast<std::int64_t>(h >> (kLg2SBits + kLg2WBits)) - kLg2BaseBias;
  const std::uint64_t f = lg2_field(stream, kLg2Block * s + (m % kLg2Block) * w, w);
  return static_cast<std::uint32_t>(base + static_cast<std::int64_t>(f));  // modulo 2^32
}

// The encodings of T0[m] and Tm1[m].
static std::uint32_t lg2_t0(std::uint32_t m) {
  const std::uint32_t cr = fp::to_bits(cr::log2f(fp::from_bits(0x3f800000u | m)));
  return cr + lg2_residual(lg2_e0_headers(), lg2_e0_stream(), m);
}
static std::uint32_t lg2_tm1(std::uint32_t m) {
  const std::uint32_t cr = fp::to_bits(cr::log2f(fp::from_bits(0x3f000000u | m)));
  return cr + lg2_residual(lg2_em1_headers(), lg2_em1_stream(), m);
}

// A positive binary64 d rounded toward zero to binary32 (d well inside the
// binary32 normal range): round to nearest, step down if that went up.
static float lg2_rz(double d) {
  const float f = static_cast<float>(d);
  return static_cast<double>(f) > d ? fp::from_bits(fp::to_bits(f) - 1u) : f;
}

// The rule for a positive normal encoding ax. The sums are exact in binary64:
// |e| <= 127 < 2^7 and every nonzero table value has its last significand bit
// at or above 2^-36 (checked on the data), 43 bits in all.
static float lg2_normal(std::uint32_t ax) {
  const int e = static_cast<int>(ax >> 23) - 127;
  const std::uint32_t m = ax & 0x007fffffu;
  if (e == 0) return fp::from_bits(lg2_t0(m));
  if (e == -1) return fp::from_bits(lg2_tm1(m));
  if (e >= 1) return lg2_rz(static_cast<double>(e) + static_cast<double>(fp::from_bits(lg2_t0(m))));
  const float mag = fp::from_bits(lg2_tm1(m) & 0x7fffffffu);  // |Tm1[m]|
  return -lg2_rz(static_cast<double>(-e - 1) + static_cast<double>(mag));
}

}  // namespace detail

// lg2.approx.f32 (no ftz).
float lg2_approx(float a) noexcept {
  const std::uint32_t ia = fp::to_bits(a);
  if (ia == 0u || ia == 0x80000000u) return fp::from_bits(fp::kNegInf);  // +-0
  if (ia > fp::kPosInf) return fp::from_bits(0x7fffffffu);               // negative or NaN
  if (ia == fp::kPosInf) return a;
  if (ia >= fp::kMinNormal) return detail::lg2_normal(ia);
  // Positive subnormal: x 2^24 = ia 2^-125, normalized exactly through the
  // integer-to-float conversion (ia < 2^23), then 24 subtracted, RN.
  const std::uint32_t xs = fp::to_bits(static_cast<float>(ia)) - (125u << 23);
  return static_cast<float>(static_cast<double>(detail::lg2_normal(xs)) - 24.0);
}

// lg2.approx.ftz.f32: subnormal inputs of either sign read as zero.
float lg2_approx_ftz(float a) noexcept {
  const std::uint32_t ax = fp::to_bits(a) & 0x7fffffffu;
  if (ax < fp::kMinNormal) return fp::from_bits(fp::kNegInf);
  return lg2_approx(a);
}

}  // namespace samebits::nvcc::model
