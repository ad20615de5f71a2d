// samebits/oracle/specials.hpp — the special inputs every score reports:
// signed zeros, infinities, NaNs (quiet, signalling, with payload, negative),
// subnormal and normal extremes, and each function's own thresholds
// (overflow, underflow, the first subnormal result; exact cases), found by
// bisection on the correctly rounded reference so they are exact, not quoted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "samebits/oracle/functions.hpp"

namespace samebits::oracle {

struct SpecialInput {
  std::string label;
  std::uint32_t encoding;
};

std::vector<SpecialInput> special_inputs(Func f);

}  // namespace samebits::oracle
