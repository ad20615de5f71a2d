// samebits/gpu/ieee.hpp — the pinned IEEE binary32 operations kernels use
// (add_rn, sub_rn, mul_rn, div_rn, fma_rn: round to nearest even, never flushed,
// never contracted, whatever -ftz/-use_fast_math/-ffp-contract say). They are
// libm's arch/ieee.hpp (one copy of the raw instructions, in libm); gpu/ re-exports them so
// that kernels depend on gpu/ only.
#pragma once

#include "samebits/libm/arch/ieee.hpp"

namespace samebits::gpu {

using samebits::arch::add_rn;
using samebits::arch::div_rn;
using samebits::arch::fma_rn;
using samebits::arch::mul_rn;
using samebits::arch::sub_rn;

}  // namespace samebits::gpu
