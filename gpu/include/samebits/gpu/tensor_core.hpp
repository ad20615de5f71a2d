// samebits/gpu/tensor_core.hpp — Hopper's warpgroup tensor-core operations
// for the sm90-tensor-core kernels (kernels/src/cuda/attention_tc_*), by
// operand format and N, over the raw instructions of arch/nvptx_sm90.hpp.
// NVIDIA sm_90a only (CUDA translation units compiled with
// -gencode arch=compute_90a,code=sm_90a), or the fiber emulator
// (SAMEBITS_GPU_EMULATOR: arch/emulator_sm90.hpp, the model in place of the
// hardware); including it elsewhere is an error.
//
//   shared_address(p)                  p in the shared window (descriptors' and swizzles' addresses)
//   smem_descriptor(p, lbo, sbo)       a no-swizzle matrix descriptor
//   smem_descriptor_sw128(p, lbo, sbo) one of the 128-byte swizzle (1024-aligned tiles)
//   wgmma_ss<F, N, TransB, TransA>(d, da, db, scale_d)
//                                      D = A B (+ D), A (K-major, or M-major with TransA = 1)
//                                      and B from shared memory
//   wgmma_rs<F, N, TransB>(d, a, db, scale_d)
//                                      the same with A from registers
//   pack2<F>(lo, hi)                   two fp32 values rounded to one .b32 of operands
//   wgmma_fence / wgmma_commit / wgmma_wait<N> / fence_proxy_async_shared /
//   fence_operand, warp_uniform(v) (lane 0's v: a warp index the compiler may keep uniform),
//   warp_all(pred)                     pred in every lane of the warp (a uniform branch)
//   copy_async_16_or_zero, copy_async_4_or_zero, copy_async_wait<N>,
//   load_coherent2 / store_coherent2   two fp32 at L2 (other blocks' data)
//   mbarrier_init / fence_mbarrier_init / mbarrier_arrive / mbarrier_wait(bar, parity),
//   copy_async_mbarrier_arrive(bar)    hand shared-memory stages from a producer to consumers
//   mbarrier_expect_tx(bar, bytes), tma_load_3d(dst, map, c0, c1, c2, bar)
//                                      a TMA box (tensor_map.hpp's maps) completing on bar's bytes
//   tma_store_3d(map, c0, c1, c2, src), bulk_commit_group, bulk_wait_group_read<N> / bulk_wait_group<N>
//                                      a TMA box stored from shared memory, its bulk group waited for
//   setmaxnreg_inc<N> / _dec<N>        move registers between warpgroups
//   named_barrier_sync / _arrive(id, threads)
//                                      order two warpgroups' tensor-core issue (ids 1..15)
//
// The arithmetic of one wgmma k16 step is what samebits::mma::sm90 models
// (libm/include/samebits/libm/mma/sm90.hpp, docs/kernels/mma.md).
#pragma once

#include <cstdint>

#include "samebits/gpu/backend.hpp"
#include "samebits/gpu/tensor_map.hpp"
#include "samebits/libm/mma/sm90.hpp"

#include "samebits/gpu/arch.hpp"
#if defined(SAMEBITS_GPU_CUDA) && defined(SAMEBITS_LANG_CUDA)
#  include "samebits/gpu/arch/nvptx_sm90.hpp"
#  define SAMEBITS_TC_FUNC __device__ __forceinline__
#elif defined(SAMEBITS_GPU_EMU)
#  include "samebits/gpu/arch/emulator_sm90.hpp"
#  define SAMEBITS_TC_FUNC inline
#else
#  error "samebits/gpu/tensor_core.hpp: wgmma exists only in CUDA device code for sm_90a (or the fiber emulator)"
#endif

namespace samebits::gpu {

using mma::sm90::Format;
using arch::sm90::copy_async_16_or_zero;
using arch::sm90::copy_async_4_or_zero;
using arch::sm90::copy_async_wait;
using arch::sm90::fence_operand;
using arch::sm90::warp_uniform;
using arch::sm90::warp_all;
using arch::sm90::fence_proxy_async_shared;
using arch::sm90::copy_async_mbarrier_arrive;
using arch::sm90::fence_mbarrier_init;
using arch::sm90::load_coherent2;
using arch::sm90::mbarrier_arrive;
using arch::sm90::mbarrier_init;
using arch::sm90::mbarrier_wait;
using arch::sm90::mbarrier_expect_tx;
using arch::sm90::tma_load_3d;
using arch::sm90::tma_store_3d;
using arch::sm90::bulk_commit_group;
using arch::sm90::bulk_wait_group_read;
using arch::sm90::bulk_wait_group;
using arch::sm90::setmaxnreg_dec;
using arch::sm90::setmaxnreg_inc;
using arch::sm90::named_barrier_arrive;
using arch::sm90::named_barrier_sync;
using arch::sm90::store_coherent2;
using arch::sm90::shared_address;
using arch::sm90::smem_descriptor;
using arch::sm90::smem_descriptor_sw128;
using arch::sm90::wgmma_commit;
using arch::sm90::wgmma_fence;
using arch::sm90::wgmma_wait;

template <Format F, int N, int TransB = 0, int TransA = 0>
SAMEBITS_TC_FUNC void wgmma_ss(float (&d)[N / 2], std::uint64_t da, std::uint64_t db, int scale_d) {
  static_assert(N == 32 || N == 64 || N == 128, "wgmma_ss: N = 32, 64 or 128");
  static_assert(TransB == 0 || TransB == 1, "wgmma_ss: TransB is 0 (K-major B) or 1 (N-major B)");
  static_assert(TransA == 0 || TransA == 1, "wgmma_ss: TransA is 0 (K-major A) or 1 (M-major A)");
#if defined(SAMEBITS_GPU_EMU)
  arch::sm90::wgmma_ss<N>(F, d, da, db, scale_d, TransB == 1, TransA == 1);
#else
  if constexpr (F == Format::bf16 && N == 32) arch::sm90::wgmma_ss_bf16_n32<TransB, TransA>(d, da, db, scale_d);
  else if constexpr (F == Format::bf16 && N == 64) arch::sm90::wgmma_ss_bf16_n64<TransB, TransA>(d, da, db, scale_d);
  else if constexpr (F == Format::bf16) arch::sm90::wgmma_ss_bf16_n128<TransB, TransA>(d, da, db, scale_d);
  else if constexpr (N == 32) arch::sm90::wgmma_ss_f16_n32<TransB, TransA>(d, da, db, scale_d);
  else if constexpr (N == 64) arch::sm90::wgmma_ss_f16_n64<TransB, TransA>(d, da, db, scale_d);
  else arch::sm90::wgmma_ss_f16_n128<TransB, TransA>(d, da, db, scale_d);
#endif
}

template <Format F, int N, int TransB>
SAMEBITS_TC_FUNC void wgmma_rs(float (&d)[N / 2], const std::uint32_t (&a)[4], std::uint64_t db,
                                         int scale_d) {
  static_assert(N == 64 || N == 128, "wgmma_rs: N = 64 or 128");
  static_assert(TransB == 0 || TransB == 1, "wgmma_rs: TransB is 0 (K-major B) or 1 (N-major B)");
#if defined(SAMEBITS_GPU_EMU)
  arch::sm90::wgmma_rs<N>(F, d, a, db, scale_d, TransB == 1);
#else
  if constexpr (F == Format::bf16 && N == 64) arch::sm90::wgmma_rs_bf16_n64<TransB>(d, a, db, scale_d);
  else if constexpr (F == Format::bf16) arch::sm90::wgmma_rs_bf16_n128<TransB>(d, a, db, scale_d);
  else if constexpr (N == 64) arch::sm90::wgmma_rs_f16_n64<TransB>(d, a, db, scale_d);
  else arch::sm90::wgmma_rs_f16_n128<TransB>(d, a, db, scale_d);
#endif
}

template <Format F>
SAMEBITS_TC_FUNC std::uint32_t pack2(float lo, float hi) {
  if constexpr (F == Format::bf16) return arch::sm90::pack_bf16x2(lo, hi);
  else return arch::sm90::pack_f16x2(lo, hi);
}

}  // namespace samebits::gpu
