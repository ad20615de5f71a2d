// samebits/libm/arch/words.hpp — a binary64 value as two 32-bit words.
//
// GPUs hold a double in a pair of 32-bit registers and have no 64-bit
// integer unit: splitting and joining the words is free there (register
// moves), while 64-bit integer arithmetic costs several instructions. So the
// libm does its bit manipulation on the 32-bit words.
#pragma once

#include <cstdint>

#include "samebits/libm/platform.hpp"

namespace samebits::arch {

struct Words {
  std::uint32_t hi;  // sign, 11 exponent bits, top 20 significand bits
  std::uint32_t lo;  // low 32 significand bits
};

#if defined(SAMEBITS_DEVICE_NVIDIA)
SAMEBITS_FUNC Words words(double d) {
  return {static_cast<std::uint32_t>(__double2hiint(d)), static_cast<std::uint32_t>(__double2loint(d))};
}
SAMEBITS_FUNC double from_words(std::uint32_t hi, std::uint32_t lo) {
  return __hiloint2double(static_cast<int>(hi), static_cast<int>(lo));
}
#else
SAMEBITS_FUNC Words words(double d) {
  const std::uint64_t b = __builtin_bit_cast(std::uint64_t, d);
  return {static_cast<std::uint32_t>(b >> 32), static_cast<std::uint32_t>(b)};
}
SAMEBITS_FUNC double from_words(std::uint32_t hi, std::uint32_t lo) {
  return __builtin_bit_cast(double, (static_cast<std::uint64_t>(hi) << 32) | lo);
}
#endif

}  // namespace samebits::arch
