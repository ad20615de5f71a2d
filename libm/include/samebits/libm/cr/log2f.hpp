// samebits/libm/cr/log2f.hpp — samebits::cr::log2f, correctly rounded
// (round to nearest, ties to even) for every binary32 input, with the same
// bits on every CPU and GPU. Derivation: cr/log_core.hpp and docs/libm/cr.md;
// proof status: docs/accuracy.md.
#pragma once

#include <cstdint>

#include "samebits/libm/cr/log_core.hpp"
#include "samebits/libm/cr/exceptions_table.hpp"
#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/fp/guards.hpp"

namespace samebits::cr {

SAMEBITS_FUNC float log2f(float x) {
  const std::uint32_t ix = fp::to_bits(x);
  const float common = detail::log_common<detail::LogBase::two>(ix);
  if (detail::log_is_rare(ix) | detail::exceptions_hit_log2f(ix)) [[unlikely]]
    return detail::exceptions_log2f(ix, fp::from_bits(detail::log_family<detail::LogBase::two>(ix)));
  return common;
}

}  // namespace samebits::cr
