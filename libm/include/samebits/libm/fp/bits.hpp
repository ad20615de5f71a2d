// samebits/libm/fp/bits.hpp — binary32 encodings: the only way the library
// looks at or builds a float's bits.
//
// Comparisons in samebits are of encodings, never of values: +0 and -0 differ,
// and a NaN equals only the NaN with the same bits.
#pragma once

#include <cstdint>

#include "samebits/libm/platform.hpp"

namespace samebits::fp {

// __builtin_bit_cast is constexpr in GCC >= 11, clang >= 9 and nvcc >= 11.
SAMEBITS_FUNC constexpr std::uint32_t to_bits(float x) noexcept {
  return __builtin_bit_cast(std::uint32_t, x);
}
SAMEBITS_FUNC constexpr float from_bits(std::uint32_t b) noexcept {
  return __builtin_bit_cast(float, b);
}
SAMEBITS_FUNC constexpr std::uint64_t to_bits(double x) noexcept {
  return __builtin_bit_cast(std::uint64_t, x);
}
SAMEBITS_FUNC constexpr double from_bits64(std::uint64_t b) noexcept {
  return __builtin_bit_cast(double, b);
}

// binary32 field layout.
inline constexpr std::uint32_t kSignMask     = 0x80000000u;
inline constexpr std::uint32_t kExponentMask = 0x7f800000u;
inline constexpr std::uint32_t kMantissaMask = 0x007fffffu;
inline constexpr std::uint32_t kQuietBit     = 0x00400000u;
inline constexpr int kMantissaBits = 23;
inline constexpr int kExponentBias = 127;

// Named encodings (hexfloat in the comment).
inline constexpr std::uint32_t kPosInf        = 0x7f800000u;  // +inf
inline constexpr std::uint32_t kNegInf        = 0xff800000u;  // -inf
inline constexpr std::uint32_t kCanonicalNaN  = 0x7fc00000u;  // +qNaN, payload 0
inline constexpr std::uint32_t kMaxFinite     = 0x7f7fffffu;  // 0x1.fffffep+127
inline constexpr std::uint32_t kMinNormal     = 0x00800000u;  // 0x1p-126
inline constexpr std::uint32_t kMaxSubnormal  = 0x007fffffu;  // 0x1.fffffcp-127
inline constexpr std::uint32_t kMinSubnormal  = 0x00000001u;  // 0x1p-149

SAMEBITS_FUNC constexpr bool is_nan_bits(std::uint32_t b) noexcept {
  return (b & ~kSignMask) > kPosInf;
}
SAMEBITS_FUNC constexpr bool is_inf_bits(std::uint32_t b) noexcept {
  return (b & ~kSignMask) == kPosInf;
}
SAMEBITS_FUNC constexpr bool is_zero_bits(std::uint32_t b) noexcept {
  return (b & ~kSignMask) == 0;
}
SAMEBITS_FUNC constexpr bool is_subnormal_bits(std::uint32_t b) noexcept {
  return (b & kExponentMask) == 0 && (b & kMantissaMask) != 0;
}
SAMEBITS_FUNC constexpr bool sign_bit(std::uint32_t b) noexcept {
  return (b & kSignMask) != 0;
}

// Position of an encoding on the number line: monotone in the value for all
// non-NaN encodings, with -0 one step below +0 so that they stay distinct.
// ordinal(next float up) == ordinal(x) + 1.
SAMEBITS_FUNC constexpr std::int64_t ordinal(std::uint32_t b) noexcept {
  return (b & kSignMask) ? -static_cast<std::int64_t>(b & ~kSignMask) - 1
                         : static_cast<std::int64_t>(b);
}

}  // namespace samebits::fp
