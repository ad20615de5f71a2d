// kernels/src/sm90/attention_tc/mainloop_fwd.cuh — the forward's consumer
// mainloop (docs/kernels/attention-tc.md §4, §11, §13, §18): one consumer
// warpgroup's 64 query rows against the tile's key blocks, the blocks' K and V
// arriving in the stage ring (producer_kv.cuh). Per key block b:
//   S = Q K^T      D/16 wgmma m64n128k16 over d ascending, the first with
//                  scale-d = 0 (§4.1, §11.3); A = Q, B = K from shared memory
//   the online softmax (sm90/common/softmax.cuh, §4.2-4.4): p in place, alpha,
//                  l in fragment order
//   P^ = cvt.rn(p) in registers, the S fragment's layout being the A
//                  fragment's (§11.6)
//   O = P^ V       8 wgmma m64nDk16 over the block's k16 key groups, A from
//                  registers, B = V from shared memory N-major; the first
//                  block's first step with scale-d = 0 (§11.4)
// then l's quad fold (§4.5); the epilogue (epilogue_fwd.cuh) divides and stores.
//
// Pipelining (the order of every rounding and accumulation is the one above;
// only independent work overlaps), as FlashAttention-3 builds it:
//   - within a consumer warpgroup: issue S of block b + 1, issue P V of block
//     b, then the softmax of block b + 1 (once its S has landed) while P V
//     runs, then o's rescale for block b + 1 (once P V has landed);
//   - between the consumers (ping-pong, kTcPingPong): they take turns issuing
//     their GEMMs (two named barriers), so that one's softmax runs under the
//     other's GEMMs.
#pragma once

#include <type_traits>

#include "sm90/attention_tc/config.cuh"
#include "sm90/attention_tc/tile_scheduler.cuh"

namespace samebits::kernels::attention::cuda {

// The forward's shared memory: Q [128 x D] (the consumers copy it, barrier q_full) and three
// K, V stages, swizzled tiles from a 1024-aligned base (kBytes has the alignment's slack), then
// the ring's barriers.
template <int D>
struct TcFwdLayout {
  using Tile = TcSwTile<D, kTcKeys>;
  static_assert(kTcRows == kTcKeys, "Q and K/V tiles share one tile shape");
  static constexpr int kStages = 3;  // block b in stage b % 3: b + 2 loading while b computes (b + 1 waits)
  static constexpr int kQ = 0, kStage0 = Tile::kBytes, kStageBytes = 2 * Tile::kBytes;  // K then V
  using Bars = TcStageBarrierLayout<kStage0 + kStages * kStageBytes, kStages>;
  static constexpr int kAlign = 1024;
  static constexpr int kBytes = Bars::kEnd + kAlign;
  static_assert(kBytes <= 227 * 1024, "Q and three K/V stages fit an sm_90 block's shared memory");
  static_assert(Bars::kFull <= (1 << 18), "stage offsets step a descriptor's 14-bit address field");
  using Ring = TcStagePipeline<kStages, Bars::kFull, Bars::kEmpty>;
  SAMEBITS_DEVICE_FUNC static TcCopyBarrier q_full(char* smem) {
    return {reinterpret_cast<std::uint64_t*>(smem + Bars::kQFull)};
  }
};

template <int D, class L, DType In>
struct TcFwdMainloop {
  using Ly = TcFwdLayout<D>;
  using Tile = typename Ly::Tile;
  using Softmax = hopper::TcOnlineSoftmax<L, kTcKeys>;
  static constexpr auto kFmt = tc::format_of(In);
  static constexpr int kDv = D / 2;             // o accumulator registers (m64nDk16)
  static constexpr int kS = kTcKeys / 2;        // S registers (m64n128)
  static constexpr int kK16 = kTcKeys / 16;     // k16 key groups of P V
  // Descriptor steps (TcSwTile): k16 step kk adds Tile::k_step(kk) (Q, K) or kk * kKeyStep (V)
  // to the start address field, stage st adds st * kStageBytes there (>> 4).
  static constexpr std::uint64_t kStepV = Tile::kKeyStep, kStepStage = Ly::kStageBytes >> 4;

  const ForwardParams& p;
  const TcQueryTile& w;
  const TcThread& th;
  const int (&n)[2];  // the list lengths of the thread's two rows (0 outside the sequence)
  char* smem;
  const typename Ly::Ring& ring;
  const TcCopyBarrier& q_full;
  std::uint64_t dq0 = 0, dk0 = 0, dv0 = 0;
  float c2 = 0.0f;   // §25 (base 2 only): mul(scale, log2 e)
  int n_first = 0;   // the first valid row's list length

  // §4.1 S = Q K^T of block b into acc: D/16 k16 steps over d, the first with scale-d = 0.
  // Issued and committed; the caller waits.
  SAMEBITS_DEVICE_FUNC void issue_s(float (&acc)[kS], int b) const {
    const std::uint64_t dk = dk0 + static_cast<std::uint64_t>(b % Ly::kStages) * kStepStage;
    hopper::tc_fence(acc);
    gpu::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) gpu::wgmma_ss<kFmt, kTcKeys>(acc, dq0 + Tile::k_step(kk), dk + Tile::k_step(kk), kk > 0 ? 1 : 0);
    gpu::wgmma_commit();
  }

  // §4.2-4.4 for block b, its S in sc (Softmax::update). sc[i] is row (i/2) % 2 of the thread,
  // key 128 b + TcFrag::col(i, quad). Masked only where some valid row of the tile does not see
  // the whole block (n_first): elsewhere every element is a member.
  SAMEBITS_DEVICE_FUNC void softmax_of(int b, float (&sc)[kS], Softmax& sm) const {
    if ((b + 1) * kTcKeys <= n_first) {
      sm.update(b, sc, p.scale, c2, [](int) { return true; });
    } else {
      const int key0 = b * kTcKeys;
      sm.update(b, sc, p.scale, c2, [&](int i) { return key0 + 8 * (i / 4) + 2 * th.quad + i % 2 < n[(i / 2) % 2]; });
    }
  }

  // Block b: its P^ in pa (o already rescaled for it). Issued in this order, as
  // FlashAttention-3 overlaps them: S of block b + 1 into sn, then O += P^ V of block b; the
  // softmax of block b + 1 runs once its S has landed, while P V is still on the tensor cores;
  // then (after P V has landed: no instruction writes o or pa while a wgmma that reads them is
  // in flight) o is rescaled for block b + 1 and its P^ packed into pa. o's operations stay in
  // the contract's order: ... P_b V_b added, times alpha_{b+1}, P_{b+1} V_{b+1} added ...
  //
  // kNext (is there a block b + 1) is a compile-time constant: the last block is peeled off
  // the loop. With a run-time `next`, ptxas cannot prove that wait<1> retires S before the
  // softmax reads it and serializes every wgmma (C7514); attention-tc.md §18 measures it.
  template <bool kNext>
  SAMEBITS_DEVICE_FUNC void block(int b, float (&sn)[kS], std::uint32_t (&pa)[kK16][4], float (&o)[kDv],
                                  Softmax& sm) const {
    if constexpr (kNext) ring.wait_full(b + 1);
    // Ping-pong (FlashAttention-3's inter-warpgroup order): warpgroup 0 issues its GEMMs, then
    // warpgroup 1, so that one's softmax runs while the other's GEMMs hold the tensor cores.
    // Each turn barrier completes once per block (warpgroup 1 skips its last hand-over).
    if constexpr (kTcPingPong) gpu::named_barrier_sync(kTcTurnBarrier + th.wg, kTcThreads);
    if constexpr (kNext) issue_s(sn, b + 1);
    // §4.4 o: the block's 8 k16 key groups in order; the very first step with scale-d = 0.
    const std::uint64_t dv = dv0 + static_cast<std::uint64_t>(b % Ly::kStages) * kStepStage;
    hopper::tc_fence(o);
    gpu::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kK16; ++kk) gpu::wgmma_rs<kFmt, D, 1>(o, pa[kk], dv + kk * kStepV, (b > 0 || kk > 0) ? 1 : 0);
    gpu::wgmma_commit();
    if constexpr (kTcPingPong)
      if (th.wg == 0 || kNext) gpu::named_barrier_arrive(kTcTurnBarrier + (th.wg ^ 1), kTcThreads);
    if constexpr (kNext) {
      gpu::wgmma_wait<1>();  // S of block b + 1 (committed before P V)
      hopper::tc_fence(sn);
      softmax_of(b + 1, sn, sm);
    }
    gpu::wgmma_wait<0>();    // P V of block b: this warp is done with block b's stage
    ring.release(b, th.lane);
    hopper::tc_fence(o);
    hopper::tc_fence(pa);
    if constexpr (kNext) {
      sm.rescale(o);
      hopper::tc_pack_a<kFmt>(sn, pa);
    }
  }

  // The tile's key blocks 0 .. w.blocks - 1 (at least one) into o and sm, then l's quad fold.
  // (The caller owns the registers: o, the softmax's rows, S and P^, declared in that order.)
  SAMEBITS_DEVICE_FUNC void run(float (&o)[kDv], Softmax& sm, float (&s)[kS], std::uint32_t (&pa)[kK16][4]) {
    char* sQ = smem + Ly::kQ;
    dq0 = gpu::smem_descriptor_sw128(sQ + th.wg * kTcWgRows * 128, Tile::kPanelBytes, Tile::kAtomBytes);
    dk0 = gpu::smem_descriptor_sw128(smem + Ly::kStage0, Tile::kPanelBytes, Tile::kAtomBytes);
    dv0 = gpu::smem_descriptor_sw128(smem + Ly::kStage0 + Tile::kBytes, Tile::kPanelBytes, Tile::kAtomBytes);
    c2 = mul_rn(p.scale, log2e());
    // Block b is whole for every valid row of the tile when its last key is a member of the first
    // valid row's list (lists grow with the row, §2). Rows outside the sequence compute on zero
    // rows of Q unmasked; their results are never stored.
    n_first = dense_list_length(w.qi0 + w.q_first, w.seq.lq, w.seq.lk, p.causal);

    // Prologue: Q (the consumers' own copies), block 0; S and softmax of block 0.
    tc_stage_tile_sw<D, kTcKeys, kTcThreads>(sQ, p.q, p.q_stride, w.seq.q0 + w.qi0, w.q_first, w.q_end, w.h);
    q_full.arrive_and_wait();
    ring.wait_full(0);
#pragma unroll
    for (int i = 0; i < kS; ++i) s[i] = 0.0f;
    issue_s(s, 0);
    gpu::wgmma_wait<0>();
    hopper::tc_fence(s);
    softmax_of(0, s, sm);
    hopper::tc_pack_a<kFmt>(s, pa);

    if constexpr (kTcPingPong)
      if (th.wg == 1) gpu::named_barrier_arrive(kTcTurnBarrier, kTcThreads);  // warpgroup 0 goes first
    for (int b = 0; b + 1 < w.blocks; ++b) block<true>(b, s, pa, o, sm);
    block<false>(w.blocks - 1, s, pa, o, sm);
    sm.finish();
  }
};

}  // namespace samebits::kernels::attention::cuda
