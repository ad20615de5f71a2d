// libm/src/base64.hpp — decoding of the base64 text in which the generated
// MUFU tables store their fields (private to samebits_mufu_model).
#pragma once

#include <cstdint>

namespace samebits::nvcc::model::detail {

// The standard base64 alphabet, decoded by arithmetic (no table).
constexpr std::uint32_t base64_value(char c) {
  return c >= 'a' ? static_cast<std::uint32_t>(c - 'a' + 26)
         : c >= 'A' ? static_cast<std::uint32_t>(c - 'A')
         : c >= '0' ? static_cast<std::uint32_t>(c - '0' + 52)
         : c == '+' ? 62u : 63u;
}

}  // namespace samebits::nvcc::model::detail
