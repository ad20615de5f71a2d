// fuzz/special_mutator.hpp — a libFuzzer custom mutator for harnesses whose
// input is a sequence of binary32 encodings (4 little-endian bytes each): it
// replaces an encoding by a special input of some function (signed zeros,
// infinities, NaN payloads, subnormal and normal extremes, overflow and
// underflow thresholds, exact cases: oracle::special_inputs, found by
// bisection), moves one by a few ulps, flips its sign, gives it a NaN
// payload, appends a special input, or leaves the change to libFuzzer.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "samebits/oracle/specials.hpp"

// libFuzzer provides it; the plain replay build never calls the mutator.
extern "C" __attribute__((weak)) std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

namespace samebits::fuzz {

inline const std::vector<std::uint32_t>& specials() {
  static const std::vector<std::uint32_t> v = [] {
    std::vector<std::uint32_t> s;
    for (oracle::Func f : oracle::kAllFuncs)
      for (const auto& sp : oracle::special_inputs(f)) s.push_back(sp.encoding);
    return s;
  }();
  return v;
}

inline std::size_t mutate_toward_specials(std::uint8_t* data, std::size_t size, std::size_t max_size, unsigned seed) {
  std::mt19937 rng(seed);
  if (size < 4 && max_size >= 4) {
    std::memset(data, 0, 4);
    size = 4;
  }
  const std::size_t n = size / 4;
  if (n == 0) return LLVMFuzzerMutate(data, size, max_size);
  const std::size_t i = rng() % n;
  std::uint32_t x;
  std::memcpy(&x, data + 4 * i, 4);
  switch (rng() % 6) {
    case 0:
    case 1: x = specials()[rng() % specials().size()]; break;                          // a special input
    case 2: x += static_cast<std::uint32_t>(static_cast<int>(rng() % 9) - 4); break;   // a few ulps away
    case 3: x ^= 0x80000000u; break;                                                   // the other sign
    case 4: x = (x & 0x80000000u) | 0x7f800000u | (rng() & 0x7fffffu) | 1u; break;     // a NaN payload
    default: return LLVMFuzzerMutate(data, size, max_size);
  }
  std::memcpy(data + 4 * i, &x, 4);
  if (size + 4 <= max_size && rng() % 4 == 0) {  // sometimes grow by a special input
    const std::uint32_t s = specials()[rng() % specials().size()];
    std::memcpy(data + size, &s, 4);
    size += 4;
  }
  return size;
}

}  // namespace samebits::fuzz
