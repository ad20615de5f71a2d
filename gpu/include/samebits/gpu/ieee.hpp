// samebits/gpu/ieee.hpp — the pinned IEEE binary32 operations kernels use
// (add_rn, sub_rn, mul_rn, fma_rn: round to nearest even, never flushed,
// never contracted, whatever -ftz/-use_fast_math/-ffp-contract say). They are
// libm's (one copy of the raw instructions, in libm); gpu/ re-exports them so
// that kernels depend on gpu/ only.
#pragma once

#include "samebits/libm/hipcc/ieee_ops.hpp"  // TODO(libm-light): samebits/libm/arch/ieee.hpp

namespace samebits::gpu {

using samebits::hipcc::ieee::add_rn;
using samebits::hipcc::ieee::fma_rn;
using samebits::hipcc::ieee::mul_rn;
using samebits::hipcc::ieee::sub_rn;

}  // namespace samebits::gpu
