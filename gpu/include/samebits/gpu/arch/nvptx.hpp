// samebits/gpu/arch/nvptx.hpp — NVIDIA thread-level primitives (CUDA
// builtins and inline PTX), used through samebits/gpu/thread.hpp and
// samebits/gpu/memory.hpp only. arch/amdgpu.hpp has the same names.
#pragma once

#include <cstdint>

namespace samebits::gpu::arch {

// ---- where a thread is -------------------------------------------------------
// CUDA's own index variables (threadIdx.x ...), the same entities: kernels
// that must keep their PTX bit for bit use these (a wrapper function, inlined,
// changed the instruction order of the attention backward kernel).
using ::blockDim;
using ::blockIdx;
using ::gridDim;
using ::threadIdx;
// The same as functions.
__device__ __forceinline__ unsigned thread_x() { return threadIdx.x; }
__device__ __forceinline__ unsigned thread_y() { return threadIdx.y; }
__device__ __forceinline__ unsigned thread_z() { return threadIdx.z; }
__device__ __forceinline__ unsigned block_dim_x() { return blockDim.x; }
__device__ __forceinline__ unsigned block_dim_y() { return blockDim.y; }
__device__ __forceinline__ unsigned block_dim_z() { return blockDim.z; }
__device__ __forceinline__ unsigned block_x() { return blockIdx.x; }
__device__ __forceinline__ unsigned block_y() { return blockIdx.y; }
__device__ __forceinline__ unsigned block_z() { return blockIdx.z; }
__device__ __forceinline__ unsigned grid_dim_x() { return gridDim.x; }
__device__ __forceinline__ unsigned grid_dim_y() { return gridDim.y; }
__device__ __forceinline__ unsigned grid_dim_z() { return gridDim.z; }
__device__ __forceinline__ void block_barrier() { __syncthreads(); }

// ---- lane exchange -------------------------------------------------------------
// v of the lane (this lane xor mask), within the 32 lanes of a warp; every
// lane of the warp takes part.
__device__ __forceinline__ std::uint32_t shuffle_xor(std::uint32_t v, unsigned mask) {
  return __shfl_xor_sync(0xffffffffu, v, static_cast<int>(mask));
}
__device__ __forceinline__ float shuffle_xor(float v, unsigned mask) {
  return __shfl_xor_sync(0xffffffffu, v, static_cast<int>(mask));
}
// v of lane `src` (0..31) of this thread's 32-lane group (the warp).
__device__ __forceinline__ float shuffle_in_group(float v, unsigned src) {
  return __shfl_sync(0xffffffffu, v, static_cast<int>(src));
}

// ---- integer min / max (min.s32 / max.s32) ------------------------------------
__device__ __forceinline__ int min_int(int a, int b) { return ::min(a, b); }
__device__ __forceinline__ int max_int(int a, int b) { return ::max(a, b); }

// ---- IEEE maxNum without .ftz ---------------------------------------------------
// The non-NaN operand when one is NaN, NaN only when both are. fmaxf may
// become max.ftz.f32 under -ftz=true, which would flush a subnormal operand.
__device__ __forceinline__ float max_num(float a, float b) {
  float d;
  asm("max.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
  return d;
}

// ---- 16-byte vectors -------------------------------------------------------------
using float4 = ::float4;
using uint4 = ::uint4;
__device__ __forceinline__ float4 make_float4(float x, float y, float z, float w) { return ::make_float4(x, y, z, w); }

// ---- global memory ----------------------------------------------------------------
// A 16-byte load of data no thread writes during the kernel (the read-only
// data path: ld.global.nc).
__device__ __forceinline__ uint4 load_readonly(const uint4* p) { return __ldg(p); }
// Flags between blocks: acquire load, release store at GPU scope.
__device__ __forceinline__ int load_acquire_agent(const int* p) {
  int v;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void store_release_agent(int* p, int v) {
  asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
// 16-byte load and store at L2 (.cg: the SM's L1 is not coherent with other
// blocks' stores).
__device__ __forceinline__ float4 load_coherent(const float* p) {
  float4 v;
  asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(p)
               : "memory");
  return v;
}
__device__ __forceinline__ void store_coherent(float* p, float4 v) {
  asm volatile("st.global.cg.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
               : "memory");
}
// Integer fetch-and-add at GPU scope, relaxed (a ticket: scheduling, not arithmetic).
__device__ __forceinline__ int fetch_add_agent(int* p, int v) { return atomicAdd(p, v); }
// Orders this thread's earlier global stores before its later ones, for every thread of the GPU.
__device__ __forceinline__ void fence_agent() { __threadfence(); }

// ---- global -> shared copies (cp.async, sm_80+) -----------------------------
// 16 bytes from global to shared without registers; committed as a group and
// waited for before the shared data are read.
__device__ __forceinline__ void copy_async_16(void* smem_dst, const void* gmem_src) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem_dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem_src) : "memory");
}
__device__ __forceinline__ void copy_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void copy_async_wait_all() { asm volatile("cp.async.wait_group 0;" ::: "memory"); }

}  // namespace samebits::gpu::arch
