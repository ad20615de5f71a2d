// samebits/gpu/arch/amdgpu.hpp — AMD thread-level primitives as clang
// builtins (no ROCm headers: device code is built with -nogpuinc), used
// through samebits/gpu/thread.hpp only.
#pragma once

#include <cstdint>

namespace samebits::gpu::arch {

__attribute__((device)) inline __attribute__((always_inline)) unsigned thread_x() {
  return __builtin_amdgcn_workitem_id_x();
}
__attribute__((device)) inline __attribute__((always_inline)) unsigned block_dim_x() {
  return __builtin_amdgcn_workgroup_size_x();
}
__attribute__((device)) inline __attribute__((always_inline)) unsigned block_x() {
  return __builtin_amdgcn_workgroup_id_x();
}
__attribute__((device)) inline __attribute__((always_inline)) unsigned grid_dim_x() {
  return __builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x();
}
// __syncthreads: LDS writes before it are visible to the block after it.
__attribute__((device)) inline __attribute__((always_inline)) void block_barrier() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
// v of the lane (this lane xor mask) through ds_bpermute (byte address of the
// source lane). mask < 32 keeps the exchange inside each 32-lane half of a
// 64-wide wave, which is what makes the groups of reduce.hpp width-free.
__attribute__((device)) inline __attribute__((always_inline)) std::uint32_t shuffle_xor(std::uint32_t v,
                                                                                          unsigned mask) {
  const unsigned lane = __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
  return static_cast<std::uint32_t>(
      __builtin_amdgcn_ds_bpermute(static_cast<int>((lane ^ mask) << 2), static_cast<int>(v)));
}

}  // namespace samebits::gpu::arch
