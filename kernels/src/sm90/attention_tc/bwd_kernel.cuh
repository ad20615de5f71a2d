// kernels/src/sm90/attention_tc/bwd_kernel.cuh — the dK/dV pass of the
// sm90-tensor-core backward (docs/kernels/attention-tc.md §5, §6, §11, §14,
// §20), composed of its parts:
//
//   tile_scheduler.cuh      block -> (key block of 128 keys, query head,
//                           sequence), key block 0 first; blocks independent.
//   epilogue_bwd.cuh        the per-head dK/dV accumulators (m64nD fragments
//                           of two warpgroups, 64 keys each): loaded (+0 or
//                           handed on), kept in registers, stored to the fp32
//                           workspace; the head fold and the zero rule finish them.
//   mainloop_bwd_dkdv.cuh   the query tiles of 64 positions in ascending order:
//                           S^T, dP^T, p, ds, dV += P^^T dO, dK += dS^^T Q,
//                           pipelined within the warpgroup, Q/dO/lse/delta in
//                           four mbarrier stages; D^S to the workspace when the
//                           dq pass reads it back (stored_ds.cuh).
// dq comes from the dq pass (bwd_dq_kernel.cuh, or bwd_dq_stored_kernel.cuh),
// run after this one: the library's backward is two passes (§14, §19).
#pragma once

#include "sm90/attention_tc/config.cuh"
#include "sm90/attention_tc/epilogue_bwd.cuh"
#include "sm90/attention_tc/mainloop_bwd_dkdv.cuh"
#include "sm90/attention_tc/stored_ds.cuh"
#include "sm90/attention_tc/tile_scheduler.cuh"

namespace samebits::kernels::attention::cuda {

template <int D, class L, DType In>
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kTcThreads, 1) attention_tc_bwd_kernel(
    const BackwardParams p, const SAMEBITS_GRID_CONSTANT TcMaps maps) {
  using Bl = TcBwdLayout<D>;
  using Mainloop = TcDkDvMainloop<D, L, In>;
  extern SAMEBITS_SHARED float4 smem4[];
  char* smem = align_shared_1024(reinterpret_cast<char*>(smem4));
  float* sLse = reinterpret_cast<float*>(smem + Bl::kLse);
  float* sDelta = reinterpret_cast<float*>(smem + Bl::kDelta);

  const int tid = gpu::threadIdx.x;
  TcKeyBlock w;
  if (!w.schedule(p)) return;
  // Not through warp_uniform, as the other tensor-core kernels take wg: here it cost the pass
  // (backward 1.465 -> 1.50 ms, the stored-D^S one 1.42 -> 1.58, H100): with wg uniform ptxas
  // kept the descriptors in uniform registers but spilled 21 vector registers into the loop
  // (SASS: LDL 3 -> 21), the pass having none to spare (255 a thread).
  const TcThread th = tc_thread<false>(tid);
  w.valid_keys = gpu::min_int(kTcKeys, w.seq.lk - w.key0);

  // The query stages are handed over by mbarriers, not block barriers (TcDkDvMainloop::tile):
  // full[st] completes when every thread's copies of the stage's tile have landed (K and V with
  // the first), empty[st] when every warp is done reading it.
  const typename Bl::Ring ring = Bl::ring(smem);
  if (tid == 0) {
    ring.init(kTcThreads, kTcThreads / 32);
    gpu::fence_mbarrier_init();
  }
  gpu::block_barrier();  // the barriers are initialized (the block's only barrier)
  tc_stage_tile_sw<D, kTcKeys, kTcThreads>(smem + Bl::kK, p.k, p.k_stride, w.seq.k0 + w.key0, 0, w.valid_keys, w.g);
  tc_stage_tile_sw<D, kTcKeys, kTcThreads>(smem + Bl::kV, p.v, p.v_stride, w.seq.k0 + w.key0, 0, w.valid_keys, w.g);
  gpu::copy_async_commit();

  const TcDkDvAccumulators<D> acc{p, w, th, static_cast<std::int64_t>(p.hq) * D};
  float ak[Mainloop::kAcc], av[Mainloop::kAcc];  // dK, dV
  acc.load(ak, av);
  Mainloop{p, maps, w, th, acc, smem, ring, sLse, sDelta}.run(ak, av);
  gpu::copy_async_wait<0>();  // no copy outlives the block
  acc.store(ak, av);
}

}  // namespace samebits::kernels::attention::cuda
