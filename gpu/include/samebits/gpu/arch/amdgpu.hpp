// samebits/gpu/arch/amdgpu.hpp — AMD thread-level primitives as clang
// builtins (no ROCm headers: device code is built with -nogpuinc), used
// through samebits/gpu/thread.hpp and samebits/gpu/memory.hpp only.
// arch/nvptx.hpp has the same names; what differs is said at each.
#pragma once

#include <cstdint>

#include "samebits/libm/platform.hpp"

namespace samebits::gpu::arch {

// ---- where a thread is -------------------------------------------------------
SAMEBITS_DEVICE_FUNC unsigned thread_x() { return __builtin_amdgcn_workitem_id_x(); }
SAMEBITS_DEVICE_FUNC unsigned thread_y() { return __builtin_amdgcn_workitem_id_y(); }
SAMEBITS_DEVICE_FUNC unsigned thread_z() { return __builtin_amdgcn_workitem_id_z(); }
SAMEBITS_DEVICE_FUNC unsigned block_dim_x() { return __builtin_amdgcn_workgroup_size_x(); }
SAMEBITS_DEVICE_FUNC unsigned block_dim_y() { return __builtin_amdgcn_workgroup_size_y(); }
SAMEBITS_DEVICE_FUNC unsigned block_dim_z() { return __builtin_amdgcn_workgroup_size_z(); }
SAMEBITS_DEVICE_FUNC unsigned block_x() { return __builtin_amdgcn_workgroup_id_x(); }
SAMEBITS_DEVICE_FUNC unsigned block_y() { return __builtin_amdgcn_workgroup_id_y(); }
SAMEBITS_DEVICE_FUNC unsigned block_z() { return __builtin_amdgcn_workgroup_id_z(); }
// The grid size in work items divided by the block size: the number of blocks
// (grids made by launch.hpp / <<< >>> are whole multiples of the block).
SAMEBITS_DEVICE_FUNC unsigned grid_dim_x() {
  return __builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x();
}
SAMEBITS_DEVICE_FUNC unsigned grid_dim_y() {
  return __builtin_amdgcn_grid_size_y() / __builtin_amdgcn_workgroup_size_y();
}
SAMEBITS_DEVICE_FUNC unsigned grid_dim_z() {
  return __builtin_amdgcn_grid_size_z() / __builtin_amdgcn_workgroup_size_z();
}
// threadIdx, blockIdx, blockDim, gridDim as in CUDA: objects whose x, y, z
// read the functions above (clang's __declspec(property), as HIP's own
// headers do).
#define SAMEBITS_GPU_INDEX3(Type, var, fx, fy, fz)                  \
  struct Type {                                                     \
    static SAMEBITS_DEVICE_FUNC unsigned get_x() { return fx(); }   \
    static SAMEBITS_DEVICE_FUNC unsigned get_y() { return fy(); }   \
    static SAMEBITS_DEVICE_FUNC unsigned get_z() { return fz(); }   \
    __declspec(property(get = get_x)) unsigned x;                   \
    __declspec(property(get = get_y)) unsigned y;                   \
    __declspec(property(get = get_z)) unsigned z;                   \
  };                                                                \
  inline constexpr Type var {}
SAMEBITS_GPU_INDEX3(ThreadIdx, threadIdx, thread_x, thread_y, thread_z);
SAMEBITS_GPU_INDEX3(BlockIdx, blockIdx, block_x, block_y, block_z);
SAMEBITS_GPU_INDEX3(BlockDim, blockDim, block_dim_x, block_dim_y, block_dim_z);
SAMEBITS_GPU_INDEX3(GridDim, gridDim, grid_dim_x, grid_dim_y, grid_dim_z);
#undef SAMEBITS_GPU_INDEX3

// __syncthreads: LDS writes before it are visible to the block after it.
SAMEBITS_DEVICE_FUNC void block_barrier() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

// ---- lane exchange -------------------------------------------------------------
// v of the lane (this lane xor mask) through ds_bpermute (byte address of the
// source lane). mask < 32 keeps the exchange inside each 32-lane half of a
// 64-wide wave, which is what makes the groups of reduce.hpp width-free (and
// mask < 16 keeps it inside the same 16 lanes as on NVIDIA).
SAMEBITS_DEVICE_FUNC unsigned lane_id() { return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u)); }
SAMEBITS_DEVICE_FUNC std::uint32_t shuffle_xor(std::uint32_t v, unsigned mask) {
  return static_cast<std::uint32_t>(
      __builtin_amdgcn_ds_bpermute(static_cast<int>((lane_id() ^ mask) << 2), static_cast<int>(v)));
}
SAMEBITS_DEVICE_FUNC float shuffle_xor(float v, unsigned mask) {
  return __builtin_bit_cast(float, shuffle_xor(__builtin_bit_cast(std::uint32_t, v), mask));
}
// v of lane `src` (0..31) of this thread's 32-lane group: the half of the
// 64-wide wave this lane is in (on NVIDIA: the warp).
SAMEBITS_DEVICE_FUNC float shuffle_in_group(float v, unsigned src) {
  const unsigned lane = (lane_id() & ~31u) | (src & 31u);
  return __builtin_bit_cast(float, __builtin_amdgcn_ds_bpermute(static_cast<int>(lane << 2),
                                                                  __builtin_bit_cast(int, v)));
}

// ---- integer min / max ------------------------------------------------------------
SAMEBITS_DEVICE_FUNC int min_int(int a, int b) { return a < b ? a : b; }
SAMEBITS_DEVICE_FUNC int max_int(int a, int b) { return a > b ? a : b; }

// ---- IEEE maxNum, subnormals kept ------------------------------------------------
// llvm.maxnum.f32: v_max_f32, with the operands quieted (v_max_f32 x, x) where
// LLVM cannot prove them canonical, since the kernels run in IEEE mode
// (.amdhsa_ieee_mode 1). v_max_f32 flushes subnormals only under a flushing
// f32 denormal mode; the kernels keep .amdhsa_float_denorm_mode_32 3 (no
// flush: clang's HIP default without -fgpu-flush-denormals-to-zero; checked by
// tests/kernels/check_hip_attention.py). The non-NaN operand when one is NaN;
// when both are, a quiet NaN whose payload may differ from PTX's 0x7fffffff.
SAMEBITS_DEVICE_FUNC float max_num(float a, float b) { return __builtin_fmaxf(a, b); }

// ---- 16-byte vectors ---------------------------------------------------------------
struct alignas(16) float4 {
  float x, y, z, w;
};
struct alignas(16) uint4 {
  unsigned x, y, z, w;
};
SAMEBITS_DEVICE_FUNC float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }

// ---- global memory ------------------------------------------------------------------
// A 16-byte load of data no thread writes during the kernel: a plain load
// (AMD has no separate read-only path; the data cannot be stale).
SAMEBITS_DEVICE_FUNC uint4 load_readonly(const uint4* p) { return *p; }
// Flags between blocks: acquire load, release store at agent (device) scope.
// The memory model lowers them to global_load sc1 + buffer_inv sc1 and
// buffer_wbl2 sc1 + global_store sc1 (gfx942/gfx950).
SAMEBITS_DEVICE_FUNC int load_acquire_agent(const int* p) {
  return __hip_atomic_load(p, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);
}
SAMEBITS_DEVICE_FUNC void store_release_agent(int* p, int v) {
  __hip_atomic_store(p, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
}
// 16 bytes coherent at agent scope: the per-CU vector L1 is not coherent with
// other CUs' stores (as the SM's L1 on NVIDIA), so each float is a relaxed
// atomic load / store at agent scope (global_load_dword / global_store_dword
// with sc1: served by L2, the agent's coherence point). Four dword accesses
// instead of one 16-byte one: LLVM has no 128-bit atomic load. Not
// __builtin_nontemporal_load/store: nontemporal is a cache-retention hint
// (nt), not coherence. The values are moved, never combined: these are
// loads and stores, not floating-point atomic arithmetic.
SAMEBITS_DEVICE_FUNC float4 load_coherent(const float* p) {
  float4 v;
  v.x = __hip_atomic_load(p + 0, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  v.y = __hip_atomic_load(p + 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  v.z = __hip_atomic_load(p + 2, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  v.w = __hip_atomic_load(p + 3, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  return v;
}
SAMEBITS_DEVICE_FUNC void store_coherent(float* p, float4 v) {
  __hip_atomic_store(p + 0, v.x, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_store(p + 1, v.y, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_store(p + 2, v.z, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_store(p + 3, v.w, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
// Integer fetch-and-add at agent scope, relaxed (global_atomic_add: integer).
SAMEBITS_DEVICE_FUNC int fetch_add_agent(int* p, int v) {
  return __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
// __threadfence: a sequentially consistent fence at agent scope.
SAMEBITS_DEVICE_FUNC void fence_agent() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }

// ---- global -> shared copies ------------------------------------------------------
// NOT asynchronous here: a 16-byte global load into registers and a 16-byte
// LDS store, complete when copy_async_16 returns; commit and wait are empty.
// The kernels' order of operations is unchanged (a staged tile is read only
// after copy_async_wait_all() and a barrier, as on NVIDIA); only the overlap
// of the copy with the previous tile's arithmetic is lost.
SAMEBITS_DEVICE_FUNC void copy_async_16(void* smem_dst, const void* gmem_src) {
  *static_cast<uint4*>(smem_dst) = *static_cast<const uint4*>(gmem_src);
}
SAMEBITS_DEVICE_FUNC void copy_async_commit() {}
SAMEBITS_DEVICE_FUNC void copy_async_wait_all() {}

}  // namespace samebits::gpu::arch

