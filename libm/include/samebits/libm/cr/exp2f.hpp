// samebits/libm/cr/exp2f.hpp — samebits::cr::exp2f, correctly rounded
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

SAMEBITS_FUNC float exp2f(float x) {
  const std::uint32_t ix = fp::to_bits(x);
  const float common = detail::exp_common<detail::ExpBase::two>(x);
  if (detail::exp_is_rare<detail::ExpBase::two>(ix) | detail::exceptions_hit_exp2f(ix)) [[unlikely]]
    return detail::exceptions_exp2f(ix, fp::from_bits(detail::exp_family<detail::ExpBase::two>(ix)));
  return common;
}

}  // namespace samebits::cr
