// kernels/src/sm90/attention_tc/bwd_dq_stored_kernel.cuh — the dq pass of the
// sm90-tensor-core backward from STORED D^S (docs/kernels/attention-tc.md
// §21): when BackwardParams::ds_workspace is given, the dK/dV pass
// (bwd_kernel.cuh) writes each (key block, 64-row query tile)'s D^S = rnd(ds)
// to it, and this pass computes dq's partials from those bits instead of
// recomputing S, dP, p and ds (bwd_dq_kernel.cuh): 1 GEMM per (key block,
// query tile) instead of 3, no exp, for O(hq Lq Lk) bytes of memory. The bits
// are the recomputing pass's: D^S is the same rnd(ds) (the dK/dV pass's S^T
// has S's bits, §5.2), and the partial is the same chain — the block's 8 k16
// key groups in order, the first with scale-d = 0 — whether A comes from
// registers or from shared memory (the model does not see where an operand
// comes from; mma.md measures A from registers against shared memory).
// Composed of:
//
//   tile_scheduler.cuh   the forward's tiles; consumer warpgroup w's 64 rows
//                        are the dK/dV pass's tile u = 2 t + w
//   warp_specialized     consumers 0 and 1 (232 registers), producer 2 (40)
//   stored_ds.cuh        the producer: K of block b and the D^S tiles (b, 2t),
//                        (b, 2t + 1) into one of three stages
//   mainloop_bwd_dq.cuh  partial = D^S K per key block; dq_acc
//   epilogue_bwd.cuh     dq = z(mul(dq_acc, scale)) straight to p.dq
#pragma once

#include "sm90/attention_tc/config.cuh"
#include "sm90/attention_tc/epilogue_bwd.cuh"
#include "sm90/attention_tc/mainloop_bwd_dq.cuh"
#include "sm90/attention_tc/stored_ds.cuh"
#include "sm90/attention_tc/tile_scheduler.cuh"

namespace samebits::kernels::attention::cuda {

template <int D, DType In>
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kTcFwdThreads, 1) attention_tc_bwd_dq_stored_kernel(
    const BackwardParams p, const SAMEBITS_GRID_CONSTANT TcMaps maps) {
  using Ly = TcDqStoredLayout<D>;
  using Mainloop = TcDqStoredMainloop<D, In>;
  extern SAMEBITS_SHARED float4 smem4[];
  char* smem = align_shared_1024(reinterpret_cast<char*>(smem4));

  TcQueryTile w;
  if (!w.schedule(p)) return;
  const TcThread th = tc_thread<true>(gpu::threadIdx.x);
  w.extents(p);

  const typename Ly::Ring ring{smem};
  if (TcDqStoredWarps::split(th, ring, Ly::q_full(smem))) {  // the producer: K and two D^S tiles a stage
    tc_produce_k_ds<D>(p, maps, w, th, smem + Ly::kStage0, Ly::kStageBytes, ring);
    return;
  }

  // This thread's two rows' list lengths (0 outside the sequence).
  int n[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int j = th.row<kTcWgRows>(r);
    n[r] = j >= w.q_first && j < w.q_end ? dense_list_length(w.qi0 + j, w.seq.lq, w.seq.lk, p.causal) : 0;
  }
  float acc[Mainloop::kDv];
#pragma unroll
  for (int i = 0; i < Mainloop::kDv; ++i) acc[i] = 0.0f;
  if (w.blocks > 0) Mainloop{w, th, n, smem, ring}.run(acc);
  tc_store_dq<D>(p, w.seq, w.qi0, w.q_first, w.q_end, w.h, th.row<kTcWgRows>(0), th.quad, acc);
}

}  // namespace samebits::kernels::attention::cuda
