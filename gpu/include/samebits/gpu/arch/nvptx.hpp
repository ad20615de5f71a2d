// samebits/gpu/arch/nvptx.hpp — NVIDIA thread-level primitives (CUDA
// builtins), used through samebits/gpu/thread.hpp only.
#pragma once

#include <cstdint>

namespace samebits::gpu::arch {

__device__ __forceinline__ unsigned thread_x() { return threadIdx.x; }
__device__ __forceinline__ unsigned block_dim_x() { return blockDim.x; }
__device__ __forceinline__ unsigned block_x() { return blockIdx.x; }
__device__ __forceinline__ unsigned grid_dim_x() { return gridDim.x; }
__device__ __forceinline__ void block_barrier() { __syncthreads(); }
// v of the lane (this lane xor mask), within the 32 lanes of a warp; every
// lane of the warp takes part.
__device__ __forceinline__ std::uint32_t shuffle_xor(std::uint32_t v, unsigned mask) {
  return __shfl_xor_sync(0xffffffffu, v, static_cast<int>(mask));
}

}  // namespace samebits::gpu::arch
