// kernels/src/sm90/attention_tc/fwd_kernel.cuh — the forward of the
// sm90-tensor-core policy (docs/kernels/attention-tc.md §3, §4, §11) on
// wgmma: the kernel whose bits the CPU reference reference_tc.hpp gives,
// composed of its parts:
//
//   tile_scheduler.cuh  block -> (sequence, query head, tile of 128 query
//                       positions), heaviest first; rows outside the sequence
//                       are zero rows of Q whose results are never stored.
//                       Every valid row of a position-aligned tile visits the
//                       same key blocks (causal: 0..t; not causal: all), exactly
//                       §3's — no extra all-zero steps enter o (§7 "extra visits").
//   warp_specialized    three warpgroups (384 threads): consumers 0 and 1 (64
//                       rows each, one wgmma m64), producer 2; setmaxnreg gives
//                       the consumers 224 registers and the producer 56. No
//                       block-wide barrier after the set-up.
//   producer_kv.cuh     the producer: K, V of block b into stage b % 3 (TMA for
//                       a whole block, cp.async for the sequence's last: §27).
//   mainloop_fwd.cuh    a consumer: S = Q K^T, the online softmax, O = P^ V per
//                       key block, pipelined and ping-ponged (FlashAttention-3).
//   epilogue_fwd.cuh    o = z(o / l), lse = m + log(l), stored (§4.5-4.6).
//
// Shared memory (TcFwdLayout): Q [128 x D] and three stages of K, V [128 x D],
// 16-bit operands in the 128-byte-swizzled layout (TcSwTile), then the
// mbarriers.
#pragma once

#include "sm90/attention_tc/config.cuh"
#include "sm90/attention_tc/epilogue_fwd.cuh"
#include "sm90/attention_tc/mainloop_fwd.cuh"
#include "sm90/attention_tc/producer_kv.cuh"
#include "sm90/attention_tc/tile_scheduler.cuh"

namespace samebits::kernels::attention::cuda {

template <int D, class L, DType In, DType Out>
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kTcFwdThreads, 1) attention_tc_forward_kernel(
    const ForwardParams p, const SAMEBITS_GRID_CONSTANT TcMaps maps) {
  using Ly = TcFwdLayout<D>;
  using Mainloop = TcFwdMainloop<D, L, In>;
  extern SAMEBITS_SHARED float4 smem4[];
  char* smem = align_shared_1024(reinterpret_cast<char*>(smem4));

  TcQueryTile w;
  if (!w.schedule(p)) return;
  const TcThread th = tc_thread<true>(gpu::threadIdx.x);
  w.extents(p);
  // This thread's two rows (fragment rows lane/4 and + 8 of its warp's 16): outside the sequence
  // (not stored), and list length (0 outside).
  bool outside[2];
  int n[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int j = th.row<kTcWgRows>(r);
    outside[r] = j < w.q_first || j >= w.q_end;
    n[r] = outside[r] ? 0 : dense_list_length(w.qi0 + j, w.seq.lq, w.seq.lk, p.causal);
  }

  const typename Ly::Ring ring{smem};
  const TcCopyBarrier q_full = Ly::q_full(smem);
  if (TcFwdWarps::split(th, ring, q_full)) {  // the producer: K, V of block b into stage b % 3
    tc_produce_kv<D>(p, maps, w.seq, w.g, w.blocks, smem + Ly::kStage0, Ly::kStageBytes, ring.ring());
    return;
  }

  float o[Mainloop::kDv];
#pragma unroll
  for (int i = 0; i < Mainloop::kDv; ++i) o[i] = 0.0f;
  typename Mainloop::Softmax sm;
  if (w.blocks > 0) {
    float s[Mainloop::kS];                      // S of a block, p in place
    std::uint32_t pa[Mainloop::kK16][4];        // P^: the A fragments of P V
    Mainloop{p, w, th, n, smem, ring, q_full}.run(o, sm, s, pa);
  }
  tc_fwd_epilogue<D, L, Out>(p, w, th, outside, o, sm);
}

}  // namespace samebits::kernels::attention::cuda
