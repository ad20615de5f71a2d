// samebits/libm/cr/exp10f.hpp — samebits::cr::exp10f, correctly rounded
// (round to nearest, ties to even) for every binary32 input, with the same
// bits on every CPU and GPU. Derivation: cr/exp_core.hpp and docs/libm/cr.md;
// proof status: docs/accuracy.md.
#pragma once

#include <cstdint>

#include "samebits/libm/cr/exp_core.hpp"
#include "samebits/libm/cr/exceptions_table.hpp"
#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/fp/guards.hpp"

namespace samebits::cr {

SAMEBITS_FUNC float exp10f(float x) {
  const std::uint32_t ix = fp::to_bits(x);
  const float common = detail::exp_common<detail::ExpBase::ten>(x);
  if (detail::exp_is_rare<detail::ExpBase::ten>(ix) | detail::exceptions_hit_exp10f(ix)) [[unlikely]]
    return detail::exceptions_exp10f(ix, fp::from_bits(detail::exp_family<detail::ExpBase::ten>(ix)));
  return common;
}

}  // namespace samebits::cr
