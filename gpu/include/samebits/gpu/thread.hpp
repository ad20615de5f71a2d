// samebits/gpu/thread.hpp — where a thread is (index in its block, block
// size, block index), the block barrier and the lane exchange, the same on
// NVIDIA and AMD. Device code only.
#pragma once

#include "samebits/gpu/backend.hpp"

#if defined(SAMEBITS_DEVICE_AMDGPU)
#  include "samebits/gpu/arch/amdgpu.hpp"
#elif defined(SAMEBITS_DEVICE_NVIDIA) || defined(SAMEBITS_LANG_CUDA)
#  include "samebits/gpu/arch/nvptx.hpp"  // nvcc parses device bodies in the host pass too
#endif

namespace samebits::gpu {

// Lanes of a logical group: the reductions exchange values inside groups of
// this many consecutive threads, on every vendor (a 64-wide AMD wave holds
// two groups). Not the hardware warp width.
inline constexpr unsigned kGroupWidth = 32;

}  // namespace samebits::gpu
