// samebits/libm/fp/rounding.hpp — rounding a binary64 approximation to
// binary32, and telling when that is unsafe.
//
// Normal results go through the hardware conversion (one instruction).
// Results that may be subnormal are rounded with integer operations, which
// makes them independent of flush-to-zero modes (nvcc -ftz=true turns
// cvt.rn.f32.f64 into its .ftz form, which would lose subnormal results).
#pragma once

#include <cstdint>

#include "samebits/libm/arch/words.hpp"
#include "samebits/libm/platform.hpp"

namespace samebits::fp {

struct Rounded {
  std::uint32_t bits;  // RN(z) as a binary32 encoding (ties to even)
  bool near_midpoint;  // z lies within `tol` units of z's last place of a
                       // binary32 midpoint: RN(z) may differ from RN(exact)
};

// zb: encoding of a finite binary64 z that is 0 or normal. tol: the bound on
// |z - exact| in units in the last place of z. If |z - midpoint| > tol ulps
// for every binary32 midpoint, the exact value lies on the same side of each
// midpoint as z, so RN(exact) == RN(z) == .bits.
SAMEBITS_FUNC constexpr Rounded round_to_binary32(std::uint64_t zb, std::uint64_t tol) {
  const std::uint32_t sign = static_cast<std::uint32_t>(zb >> 32) & 0x80000000u;
  const int be = static_cast<int>((zb >> 52) & 0x7ff);
  if (be == 0) return {sign, false};                    // +-0 (z is never subnormal)
  const int bf = be - 1023 + 127;                       // binary32 biased exponent if normal
  if (bf >= 255) return {sign | 0x7f800000u, false};    // |z| >= 2^128: overflow to inf
  // The significand with its leading bit: 53 bits, of which binary32 keeps
  // 24 (normal result) or fewer (subnormal: shift further right).
  const std::uint64_t mant = (zb & 0x000fffffffffffffull) | 0x0010000000000000ull;
  const int shift = bf >= 1 ? 29 : 29 + (1 - bf);
  if (shift > 55) return {sign, false};                 // |z| < 2^-151: +-0, far from 2^-150
  const std::uint64_t q = mant >> shift;
  const std::uint64_t rem = mant & ((std::uint64_t{1} << shift) - 1);
  const std::uint64_t half = std::uint64_t{1} << (shift - 1);
  const bool up = rem > half || (rem == half && (q & 1));
  // Normal: q has its leading bit at 2^23, which adds one to the exponent
  // field; a carry out of the significand moves to the next binade, and from
  // the largest float to inf (0x7f800000), as IEEE rounding does.
  const std::uint32_t base = bf >= 1 ? (static_cast<std::uint32_t>(bf - 1) << 23) : 0u;
  const std::uint32_t bits = sign | (base + static_cast<std::uint32_t>(q) + (up ? 1u : 0u));
  const std::uint64_t dist = rem >= half ? rem - half : half - rem;
  return {bits, dist <= tol};
}

// RN(y 2^scale) for a normal binary64 y given as words, using 32-bit
// integer operations when the result is a normal binary32 (the common case)
// and round_to_binary32 otherwise. Same contract as round_to_binary32.
SAMEBITS_FUNC constexpr Rounded round_scaled_to_binary32(std::uint32_t hi, std::uint32_t lo, int scale,
                                                         std::uint32_t tol) {
  const int bf = static_cast<int>((hi >> 20) & 0x7ff) - 1023 + 127 + scale;
  if (bf >= 1 && bf <= 254) {
    // binary32 keeps the top 20 significand bits of hi and the top 3 of lo;
    // the remaining 29 bits of lo decide the rounding.
    // Branch-free: which way a result rounds is data, not control flow (a
    // branch here is mispredicted half the time).
    const std::uint32_t q = ((hi & 0x000fffffu) << 3) | (lo >> 29);
    const std::uint32_t rem = lo & 0x1fffffffu;
    constexpr std::uint32_t half = 0x10000000u;
    // Ties to even: up when rem > half, or rem == half and q is odd.
    const std::uint32_t up = (rem + (q & 1u)) > half ? 1u : 0u;
    const std::uint32_t bits = (hi & 0x80000000u) | ((static_cast<std::uint32_t>(bf) << 23) + q + up);
    // |rem - half| <= tol, as one unsigned comparison.
    return {bits, rem - half + tol <= 2 * tol};
  }
  const std::uint64_t zb = ((static_cast<std::uint64_t>(hi) << 32) | lo) +
                           (static_cast<std::uint64_t>(static_cast<std::int64_t>(scale)) << 52);
  return round_to_binary32(zb, tol);
}

// RN(y) for a binary64 y whose rounding to binary32 is a normal number or
// overflows to +-inf: the hardware conversion (cvtsd2ss, cvt.rn.f32.f64),
// which flush-to-zero modes (nvcc -ftz=true gives cvt.rn.ftz.f32.f64, x86
// MXCSR.FTZ) leave alone for such results. Callers send results that may be
// subnormal to round_scaled_to_binary32 instead.
SAMEBITS_FUNC float narrow_normal(double y) { return static_cast<float>(y); }

// 2^e as a binary64, for e in [-1022, 1023], built from its encoding.
SAMEBITS_FUNC double pow2(int e) {
  return arch::from_words(static_cast<std::uint32_t>(e + 1023) << 20, 0u);  // 32-bit work: cheap on GPUs
}

// Words of the exact binary64 value of a normal binary32 (integer operations
// only: no cvt.f64.f32, whose .ftz form would flush).
SAMEBITS_FUNC constexpr std::uint32_t normal_binary32_hi_word(std::uint32_t ix) {
  return (ix & 0x80000000u) | (((ix & 0x7fffffffu) >> 3) + ((1023u - 127u) << 20));
}
SAMEBITS_FUNC constexpr std::uint32_t normal_binary32_lo_word(std::uint32_t ix) { return ix << 29; }

}  // namespace samebits::fp
