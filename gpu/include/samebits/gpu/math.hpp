// samebits/gpu/math.hpp — device arithmetic beside ieee.hpp's pinned
// operations: max_num (IEEE 754-2008 maxNum, subnormals never flushed: max.f32
// without .ftz on NVIDIA, llvm.maxnum in IEEE mode with IEEE f32 denormals on
// AMD) and integer min_int / max_int. Device code only.
#pragma once

#include "samebits/gpu/arch.hpp"

namespace samebits::gpu {

#if defined(SAMEBITS_GPU_ARCH)
using arch::max_int;
using arch::max_num;
using arch::min_int;
#endif

}  // namespace samebits::gpu
