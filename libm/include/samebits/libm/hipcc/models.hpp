// samebits/libm/hipcc/models.hpp — stand-ins for AMD's v_exp_f32 and
// v_log_f32 on the paths that do not have them (host, NVIDIA).
//
// No bit-exact model of these instructions is known, and no AMD GPU was
// available to measure one. AMD documents them only to 1 ulp. The default
// model is the correctly rounded exp2 / log2 (samebits::cr); the perturbed
// models move every inexact result one ulp up or down, and the accuracy of
// samebits::hipcc under them bounds what a user can rely on
// (docs/libm/hipcc.md). Results computed through any model are
// "structure-exact, not bit-verified against AMD hardware".
//
// Semantics modelled (IEEE f32 mode; Daz: subnormal inputs and results are
// sign-preserving zeros, as in the preserve-sign denormal mode):
//   v_exp: NaN -> the input quieted; 2^a otherwise (+inf -> +inf, -inf -> +0).
//   v_log: NaN -> the input quieted; +-0 -> -inf; negative -> 0x7fc00000;
//          +inf -> +inf; log2(a) otherwise.
#pragma once

#include <cstdint>

#include "samebits/libm/cr/exp2f.hpp"
#include "samebits/libm/cr/log2f.hpp"
#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/fp/denormals.hpp"
#include "samebits/libm/platform.hpp"

namespace samebits::hipcc {

namespace detail {

// One ulp toward +inf (Dir > 0) or -inf (Dir < 0) for finite non-zero y.
template <int Dir>
SAMEBITS_FUNC float step(float y) {
  const std::uint32_t b = fp::to_bits(y);
  if ((b & 0x7fffffffu) == 0 || (b & fp::kExponentMask) == fp::kExponentMask || Dir == 0) return y;
  const bool up_in_magnitude = (Dir > 0) == ((b >> 31) == 0);
  return fp::from_bits(up_in_magnitude ? b + 1u : b - 1u);  // +-FLT_MAX may step to +-inf: still 1 ulp
}

}  // namespace detail

// Dir = 0: correctly rounded; +1 / -1: every inexact result one ulp toward +inf / -inf.
template <int Dir = 0>
struct CrModel {
  static constexpr int kDirection = Dir;
  template <bool Daz>
  static SAMEBITS_FUNC float v_exp(float a) {
    a = fp::flush_if<Daz>(a);
    const float y = cr::exp2f(a);  // NaN: the input quieted
    // Exact: 2^a for integer a (every binary32 of magnitude >= 2^23 is an
    // integer; infinities included), and NaN passes through.
    const std::uint32_t ax = fp::to_bits(a) & 0x7fffffffu;
    const bool exact = ax >= 0x4b000000u || a == static_cast<float>(static_cast<std::int32_t>(a));
    return fp::flush_if<Daz>(exact ? y : detail::step<Dir>(y));
  }
  template <bool Daz>
  static SAMEBITS_FUNC float v_log(float a) {
    a = fp::flush_if<Daz>(a);
    const std::uint32_t b = fp::to_bits(a);
    if ((b & 0x7fffffffu) > fp::kExponentMask) return fp::from_bits(b | fp::kQuietBit);
    if ((b & 0x7fffffffu) == 0) return fp::from_bits(0xff800000u);
    if (b >> 31) return fp::from_bits(0x7fc00000u);
    const float y = cr::log2f(a);
    // Exact: powers of two (a normal binary32 with a zero fraction; subnormal
    // powers of two too, which only reach here in IEEE mode).
    const bool pow2 = (b & fp::kMantissaMask) == 0 || ((b & fp::kExponentMask) == 0 && (b & (b - 1u)) == 0);
    return pow2 ? y : detail::step<Dir>(y);
  }
};

}  // namespace samebits::hipcc
