// kernels/src/sm90/attention_tc/bwd_dq_kernel.cuh — the dq pass of the
// sm90-tensor-core backward (docs/kernels/attention-tc.md §5.3, §14): dq for a
// tile of 128 query positions, its key blocks walked in ascending order inside
// one block, so dq's ordered accumulation needs no flags, no other block and
// no global read-modify-write. The dK/dV pass (bwd_kernel.cuh) runs beside it;
// together they recompute S and dP twice (7 GEMMs where a one-pass backward
// has 5) to drop the key blocks' hand-over of dq (about 40 % of the one-pass
// backward's stall samples, attention-tc.md §18). Composed of:
//
//   tile_scheduler.cuh   the forward's tiles (heaviest first)
//   warp_specialized     the forward's shape: consumers 0 and 1 (232 registers),
//                        producer 2 (40) copying K and V into two stages
//                        (producer_kv.cuh)
//   mainloop_bwd_dq.cuh  S, dP, p, ds, dS^ K per half key block; dq_acc
//   epilogue_bwd.cuh     dq = z(mul(dq_acc, scale)) straight to p.dq (+0 for
//                        rows that visit no block)
#pragma once

#include "sm90/attention_tc/config.cuh"
#include "sm90/attention_tc/epilogue_bwd.cuh"
#include "sm90/attention_tc/mainloop_bwd_dq.cuh"
#include "sm90/attention_tc/producer_kv.cuh"
#include "sm90/attention_tc/tile_scheduler.cuh"

namespace samebits::kernels::attention::cuda {

template <int D, class L, DType In>
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kTcFwdThreads, 1) attention_tc_bwd_dq_kernel(
    const BackwardParams p, const SAMEBITS_GRID_CONSTANT TcMaps maps) {
  using Ly = TcDqLayout<D>;
  using Mainloop = TcDqMainloop<D, L, In>;
  extern SAMEBITS_SHARED float4 smem4[];
  char* smem = align_shared_1024(reinterpret_cast<char*>(smem4));

  TcQueryTile w;
  if (!w.schedule(p)) return;
  const TcThread th = tc_thread<true>(gpu::threadIdx.x);
  w.extents(p);

  const typename Ly::Ring ring{smem};
  const TcCopyBarrier q_full = Ly::q_full(smem);
  if (TcDqWarps::split(th, ring, q_full)) {  // the producer: K, V of block b into stage b % 2
    tc_produce_kv<D>(p, maps, w.seq, w.g, w.blocks, smem + Ly::kStage0, Ly::kStageBytes, ring.ring());
    return;
  }

  // This thread's two rows (fragment rows lane/4 and lane/4 + 8 of its warp's 16): list
  // length (0 outside the sequence), lse and delta (0 outside: p and ds stay finite there).
  int n[2];
  float lse[2], delta[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int j = th.row<kTcWgRows>(r);
    const bool ok = j >= w.q_first && j < w.q_end;
    const std::int64_t row = (w.seq.q0 + w.qi0 + j) * p.hq + w.h;
    n[r] = ok ? dense_list_length(w.qi0 + j, w.seq.lq, w.seq.lk, p.causal) : 0;
    lse[r] = ok ? p.lse[row] : 0.0f;
    delta[r] = ok ? p.delta[row] : 0.0f;
  }
  // §25 base 2 (nvcc-fast): c = mul(scale, log2 e) and mul(lse, log2 e), once a row.
  [[maybe_unused]] const float c2 = mul_rn(p.scale, log2e());
  [[maybe_unused]] const float lse2[2] = {mul_rn(lse[0], log2e()), mul_rn(lse[1], log2e())};

  float acc[Mainloop::kDv];
#pragma unroll
  for (int i = 0; i < Mainloop::kDv; ++i) acc[i] = 0.0f;
  if (w.blocks > 0) Mainloop{p, w, th, n, lse, delta, c2, lse2, smem, ring, q_full}.run(acc);
  tc_store_dq<D>(p, w.seq, w.qi0, w.q_first, w.q_end, w.h, th.row<kTcWgRows>(0), th.quad, acc);
}

}  // namespace samebits::kernels::attention::cuda
