// samebits/gpu/thread.hpp — where a thread is (index in its block, block
// size, block index, grid size; x, y, z), the block barrier and the lane
// exchanges, the same on NVIDIA and AMD. Device code only.
#pragma once

#include "samebits/gpu/arch.hpp"

namespace samebits::gpu {

// Lanes of a logical group: the reductions exchange values inside groups of
// this many consecutive threads, on every vendor (a 64-wide AMD wave holds
// two groups). Not the hardware warp width.
inline constexpr unsigned kGroupWidth = 32;

#if defined(SAMEBITS_GPU_ARCH)
// threadIdx, blockIdx, blockDim, gridDim (.x, .y, .z): CUDA's own variables on
// NVIDIA, objects reading the AMDGPU builtins on AMD.
using arch::blockDim;
using arch::blockIdx;
using arch::gridDim;
using arch::threadIdx;
// The same as functions.
using arch::block_barrier;
using arch::block_dim_x;
using arch::block_dim_y;
using arch::block_dim_z;
using arch::block_x;
using arch::block_y;
using arch::block_z;
using arch::grid_dim_x;
using arch::grid_dim_y;
using arch::grid_dim_z;
using arch::shuffle_in_group;  // v of lane src (0..31) of this thread's group of kGroupWidth lanes
using arch::shuffle_xor;       // v of lane (this lane ^ mask), mask < kGroupWidth: inside the group
using arch::thread_x;
using arch::thread_y;
using arch::thread_z;
#endif

}  // namespace samebits::gpu
