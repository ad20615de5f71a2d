// tests/kernels/bitwise.hpp — the kernels tests' equality: binary32 encodings
// (+0 != -0, NaN bits count), never ==.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace samebits::tests {

inline std::uint32_t bits(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}

// Number of elements whose encodings differ.
inline std::size_t mismatches(const float* a, const float* b, std::size_t n) {
  std::size_t c = 0;
  for (std::size_t i = 0; i < n; ++i) c += bits(a[i]) != bits(b[i]);
  return c;
}

}  // namespace samebits::tests
