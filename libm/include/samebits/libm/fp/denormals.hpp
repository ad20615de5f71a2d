// samebits/libm/fp/denormals.hpp — the flush-to-zero denormal mode, as the
// GPUs define it for binary32: a subnormal input or result reads as a zero of
// the same sign (PTX `.ftz`; AMD's preserve-sign mode). The host models of
// both vendors' instructions apply it around every operation.
#pragma once

#include <cstdint>

#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/platform.hpp"

namespace samebits::fp {

// A subnormal becomes the zero of its sign; every other value is returned.
SAMEBITS_FUNC constexpr float flush_subnormal(float a) noexcept {
  const std::uint32_t b = to_bits(a);
  return (b & kExponentMask) == 0 ? from_bits(b & kSignMask) : a;
}

// flush_subnormal(a) in the flush-to-zero mode (Flush), a itself otherwise.
template <bool Flush>
SAMEBITS_FUNC constexpr float flush_if(float a) noexcept {
  return Flush ? flush_subnormal(a) : a;
}

}  // namespace samebits::fp
