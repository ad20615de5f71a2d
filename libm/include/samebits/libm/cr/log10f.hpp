// samebits/libm/cr/log10f.hpp — samebits::cr::log10f, correctly rounded
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

SAMEBITS_FUNC float log10f(float x) {
  const std::uint32_t ix = fp::to_bits(x);
  const float common = detail::log_common<detail::LogBase::ten>(ix);
  if (detail::log_is_rare(ix) | detail::exceptions_hit_log10f(ix)) [[unlikely]]
    return detail::exceptions_log10f(ix, fp::from_bits(detail::log_family<detail::LogBase::ten>(ix)));
  return common;
}

}  // namespace samebits::cr
