// samebits/libm/arch/barrier.hpp — a value barrier: returns its argument, but
// the compiler cannot see through it, so it can neither fuse the product that
// produced the value into a later add (-ffp-contract=fast, HIP's default
// contraction) nor fold or reorder across it. Empty inline asm that claims to
// modify a register holding the value; it emits no instruction.
#pragma once

#include <cstdint>

#include "samebits/libm/platform.hpp"

namespace samebits::arch {

SAMEBITS_FUNC float opaque(float x) {
#if defined(SAMEBITS_DEVICE_AMDGPU)
  __asm__ volatile("" : "+v"(x));
#elif defined(SAMEBITS_DEVICE_NVIDIA)
  __asm__ volatile("" : "+f"(x));
#elif defined(SAMEBITS_HOST_X86) && !defined(SAMEBITS_COMPILER_MSVC)
  __asm__ volatile("" : "+x"(x));
#elif defined(SAMEBITS_HOST_AARCH64) && !defined(SAMEBITS_COMPILER_MSVC)
  __asm__ volatile("" : "+w"(x));
#else
  volatile float v = x;  // a store and a load: slower, same effect
  x = v;
#endif
  return x;
}

// The same for an integer (a shift count, an exponent): stops the compiler
// from specialising the instruction that consumes it on a known value.
SAMEBITS_FUNC std::int32_t opaque(std::int32_t x) {
#if defined(SAMEBITS_DEVICE_AMDGPU)
  __asm__ volatile("" : "+v"(x));
#elif defined(SAMEBITS_DEVICE_NVIDIA)
  __asm__ volatile("" : "+r"(x));
#elif !defined(SAMEBITS_COMPILER_MSVC)
  __asm__ volatile("" : "+r"(x));
#else
  volatile std::int32_t v = x;
  x = v;
#endif
  return x;
}

}  // namespace samebits::arch
