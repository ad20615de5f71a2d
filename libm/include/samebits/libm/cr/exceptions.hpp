// samebits/libm/cr/exceptions.hpp — lookup of the inputs whose fast result
// could not be proven correctly rounded.
//
// Each function flags the inputs where its binary64 result lies within its
// error bound of a binary32 midpoint (fp::round_to_binary32). Those inputs
// are known in advance: libm/tools/cr_exceptions.cpp runs the fast path over
// all 2^32 inputs, and for every flagged one stores the correctly rounded
// result computed by MPFR (cr/exceptions_table.hpp, generated). Everywhere
// else the error bound proves the fast result correct.
#pragma once

#include <cstdint>

#include "samebits/libm/platform.hpp"

namespace samebits::cr::detail {

struct Exception {
  std::uint32_t x;  // input encoding
  std::uint32_t y;  // correctly rounded result encoding
};

// Binary search in a table sorted by x whose last entry is the sentinel
// {0xffffffff, 0} (a NaN input, which never reaches a lookup).
template <std::size_t N>
SAMEBITS_FUNC constexpr std::uint32_t find_exception(const Exception (&tab)[N], std::uint32_t ix,
                                                     std::uint32_t fallback) {
  std::size_t lo = 0, hi = N;  // answer in [lo, hi)
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (tab[mid].x <= ix) lo = mid; else hi = mid;
  }
  return tab[lo].x == ix ? tab[lo].y : fallback;
}

}  // namespace samebits::cr::detail
