// libm/src/nvcc_mufu_ex2.cpp — a bit-exact software model of the H200's
// (sm_90) MUFU.EX2 instruction, for the host path of samebits::nvcc
// (declared in samebits/libm/nvcc/mufu_model.hpp; library samebits_mufu_model).
//
// Measured on the H200 (tests/device/mufu_probe.cu, 0 exceptions over every
// input of (-126, 128); docs/libm/results/h200/mufu/mufu_rules.jsonl):
// ex2.approx.ftz.f32 truncates |a| to a fixed-point number with 23 fraction
// bits, |a| 2^23 -> n 2^23 + j (sign-magnitude truncation: toward zero), and
// returns P[j] 2^n for a >= 0 and N[j] 2^-n for a < 0, with P[j], N[j] its
// own results at +-j 2^-23 — the negative side is a table of its own, not
// 1/P. P and N are measured data (libm/src/nvcc_mufu_ex2_tables.hpp, 2^23 entries
// each, stored as ulp distances from the correctly rounded values that
// samebits::cr::exp2f computes), not a fitted interpolator.
//
// Validation: tests/device/mufu_model_check.cu compares the model with the
// instruction on all 2^32 inputs (docs/libm/nvcc.md); a user re-validates it
// on their own GPU with the same program.
#include <cstdint>

#include "nvcc_mufu_ex2_tables.hpp"
#include "samebits/libm/cr/exp2f.hpp"
#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/nvcc/mufu_model.hpp"

namespace samebits::nvcc::model {

// ex2.approx.ftz.f32: subnormal inputs read as zero, subnormal results
// flushed to +0; NaN in, canonical NaN 0x7fffffff out.
float ex2_approx_ftz(float a) noexcept {
  const std::uint32_t ia = fp::to_bits(a);
  const std::uint32_t ax = ia & 0x7fffffffu;
  const bool neg = (ia >> 31) != 0;
  if (ax > fp::kPosInf) return fp::from_bits(0x7fffffffu);
  if (ax < fp::kMinNormal) return 1.0f;                            // +-0, subnormal (read as 0)
  if (ax >= 0x43000000u) return fp::from_bits(neg ? 0u : fp::kPosInf);  // |a| >= 128, inf
  // |a| = m 2^(e - 23) with the leading bit in m; q = floor(|a| 2^23).
  const std::uint32_t m = (ax & 0x007fffffu) | 0x00800000u;
  const int e = static_cast<int>(ax >> 23) - 127;  // in [-126, 6]
  const std::uint32_t q = e >= 0 ? m << e : (e > -24 ? m >> -e : 0u);
  const std::uint32_t n = q >> 23, j = q & 0x007fffffu;
  const float f = static_cast<float>(j) * 0x1p-23f;  // exact
  const std::uint32_t bb = fp::to_bits(cr::exp2f(neg ? -f : f));
  const std::uint32_t code = neg ? detail::ex2_neg_code(j) : detail::ex2_pos_code(j);
  const std::uint32_t hw = neg ? bb + code - 2u : bb + code - 1u;  // P in [1, 2), N in (1/2, 1]
  // Times 2^(+-n) in the exponent field; a result below 2^-126 is flushed.
  const std::int32_t be = static_cast<std::int32_t>(hw >> 23) + (neg ? -static_cast<std::int32_t>(n) : static_cast<std::int32_t>(n));
  if (be <= 0) return 0.0f;
  if (be >= 255) return fp::from_bits(fp::kPosInf);
  return fp::from_bits((hw & 0x007fffffu) | (static_cast<std::uint32_t>(be) << 23));
}

// ex2.approx.f32 (no ftz). Identical to the ftz form on (-126, 128)
// (measured: 0 differences). Below -126 the result is subnormal; the
// instruction is lowered as MUFU.EX2 of a/2, squared (an IEEE multiply that
// keeps subnormal results). Validated on all inputs by
// tests/device/mufu_model_check.cu.
float ex2_approx(float a) noexcept {
  const std::uint32_t ia = fp::to_bits(a);
  if (ia > 0xc2fc0000u && ia < 0xff800000u) {  // a < -126, not -inf or NaN
    const float h = ex2_approx_ftz(a * 0.5f);   // exact halving (a is normal and large)
    return h * h;                               // ends the expression: nothing to contract
  }
  return ex2_approx_ftz(a);
}

}  // namespace samebits::nvcc::model
