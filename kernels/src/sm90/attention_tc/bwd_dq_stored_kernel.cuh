// kernels/src/sm90/attention_tc/bwd_dq_stored_kernel.cuh — the dq pass of the
// sm90-tensor-core backward from STORED D^S (docs/kernels/attention-tc.md
// §21): when BackwardParams::ds_workspace is given, the dK/dV pass
// (attention_tc_bwd_kernel.cuh) writes each (key block, 64-row query tile)'s
// D^S = rnd(ds) to it, and this pass computes dq's partials from those bits
// instead of recomputing S, dP, p and ds (attention_tc_bwd_dq_kernel.cuh): 1
// GEMM per (key block, query tile) instead of 3, no exp, for O(hq Lq Lk)
// bytes of memory. The bits are the recomputing pass's: D^S is the same
// rnd(ds) (the dK/dV pass's S^T has S's bits, §5.2), and the partial is the
// same chain — the block's 8 k16 key groups in order, the first with
// scale-d = 0 — whether A comes from registers or from shared memory (the
// model does not see where an operand comes from; mma.md measures A from
// registers against shared memory).
//
// One block: the forward's shape. Consumer warpgroups 0 and 1 hold query
// positions 128 t + 64 w .. + 63, i.e. the dK/dV pass's 64-row tile u = 2 t +
// w; warpgroup 2 (the producer) copies, for each key block b in ascending
// order, K [128 x D] and the two D^S tiles (b, 2 t) and (b, 2 t + 1) into one
// of kStages stages (mbarriers full / empty). A D^S tile the dK/dV pass did
// not write (no row of the 64 has a member in block b) is zero-filled: its
// rows' partials are never added. Per block:
//   partial = D^S K    8 wgmma m64nDk16, A = D^S M-major from shared memory
//                      (imm-trans-a 1), B = K N-major (the forward's V reading)
//   dq_acc = add(dq_acc, partial) for rows whose list reaches block b
// then dq = z(mul(dq_acc, scale)) straight to p.dq (tc_store_dq, as the recomputing pass).
#pragma once

#include "sm90/attention_tc/bwd_dq_kernel.cuh"
#include "sm90/attention_tc/bwd_kernel.cuh"

namespace samebits::kernels::attention::cuda {

// Registers: the consumers hold dq_acc and one partial (2 x D/2); ptxas -v at D = 128: no spills.
inline constexpr int kTcDqStoredConsumerRegs = 232, kTcDqStoredProducerRegs = 40;
static_assert(kTcThreads * kTcDqStoredConsumerRegs + kTcProducerThreads * kTcDqStoredProducerRegs <=
                  tc_block_register_pool(kTcFwdThreads),
              "the split fits the block's registers");

// kStages stages of K [128 x D] and two D^S tiles, swizzled, from a 1024-aligned base.
template <int D>
struct TcDqStoredLayout {
  using Tile = TcSwTile<D, kTcKeys>;
  static constexpr int kStages = 3;  // memory-bound: two stages loading while one computes
  static constexpr int kDsBytes = TcDsTile::kBytes;
  static constexpr int kStage0 = 0, kStageBytes = Tile::kBytes + kTcWarpgroups * kDsBytes;
  static constexpr int kFull = kStage0 + kStages * kStageBytes, kEmpty = kFull + 8 * kStages, kQFull = kEmpty + 8 * kStages;
  static constexpr int kAlign = 1024;
  static constexpr int kBytes = kQFull + 8 + kAlign;
  static_assert(kStageBytes % 1024 == 0 && kDsBytes % 1024 == 0, "swizzled tiles start 1024-aligned");
  static_assert(kBytes <= 227 * 1024, "the stages fit an sm_90 block's shared memory");
  static_assert(kFull <= (1 << 18), "stage offsets step a descriptor's 14-bit address field");
  static_assert(kDsBytes == tc_tma_tile_bytes<64, kTcKeys>, "one D^S tile is one TMA box of 128 rows of 128 bytes");
};

template <int D, DType In>
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kTcFwdThreads, 1) attention_tc_bwd_dq_stored_kernel(
    const BackwardParams p, const SAMEBITS_GRID_CONSTANT TcMaps maps) {
  using Ly = TcDqStoredLayout<D>;
  using Tile = typename Ly::Tile;
  constexpr auto kFmt = tc::format_of(In);
  constexpr int kDv = D / 2;  // dq accumulator / partial registers (m64nD)
  extern SAMEBITS_SHARED float4 smem4[];
  char* smem = align_shared_1024(reinterpret_cast<char*>(smem4));

  const int seq_index = gpu::blockIdx.z;
  const Sequence seq = sequence_of(p, seq_index);
  if (seq.lq == 0) return;
  const int a0 = seq.lk - seq.lq;  // position of the sequence's row 0 (§2)
  const int t_first = floor_div(a0, kTcRows), t_last = floor_div(a0 + seq.lq - 1, kTcRows);
  const int t = t_last - static_cast<int>(gpu::blockIdx.x);  // heaviest tiles first
  if (t < t_first) return;
  const int h = gpu::blockIdx.y, g = h / (p.hq / p.hkv);
  const int tid = gpu::threadIdx.x, wg = gpu::warp_uniform(tid / 128), warp = (tid % 128) / 32, lane = tid % 32, quad = lane % 4;

  const int qi0 = t * kTcRows - a0;  // tile row j holds sequence row qi0 + j
  const int q_first = gpu::max_int(0, -qi0), q_end = gpu::min_int(kTcRows, seq.lq - qi0);
  const int n_last = dense_list_length(qi0 + q_end - 1, seq.lq, seq.lk, p.causal);
  const int blocks = (n_last + kTcKeys - 1) / kTcKeys;

  auto bar = [&](int offset, int st) { return reinterpret_cast<std::uint64_t*>(smem + offset + 8 * st); };
  if (tid == 0) tc_init_stage_barriers<Ly::kStages>(bar(Ly::kFull, 0), bar(Ly::kEmpty, 0), bar(Ly::kQFull, 0));
  gpu::block_barrier();  // the last block-wide barrier: the roles part here

  if (wg == kTcWarpgroups) {
    // The producer: K of block b and the D^S tiles (b, 2t), (b, 2t + 1) into stage b % kStages
    // once every consumer warp is done with block b - kStages there.
    gpu::setmaxnreg_dec<kTcDqStoredProducerRegs>();
    // By TMA (§27), issued by the producer's first thread after expecting their bytes: K when the
    // block is whole (128 keys of the sequence), a D^S tile when it was written; the rest by
    // cp.async (zero rows, zero tiles). Every thread arrives on full either way.
    const int u_seq0 = floor_div(a0, kTcBwdRows), u_last = floor_div(a0 + seq.lq - 1, kTcBwdRows);
    const bool issuer = tid % kTcProducerThreads == 0;
    for (int b = 0; b < blocks; ++b) {
      const int st = b % Ly::kStages, end = gpu::min_int(kTcKeys, seq.lk - b * kTcKeys);
      if (b >= Ly::kStages) gpu::mbarrier_wait(bar(Ly::kEmpty, st), (b / Ly::kStages - 1) & 1);
      char* dst = smem + Ly::kStage0 + st * Ly::kStageBytes;
      const std::int64_t row0 = seq.k0 + std::int64_t{b} * kTcKeys;
      // The dK/dV pass of block b wrote tiles u_first(b) .. u_last (its a_first, §6).
      const int u_first = floor_div(p.causal ? gpu::max_int(a0, b * kTcKeys) : a0, kTcBwdRows);
      auto written = [&](int w) { return 2 * t + w >= u_first && 2 * t + w <= u_last; };
      const bool k_tma = maps.kv && end == kTcKeys;
      bool ds_tma[kTcWarpgroups];
      std::uint32_t tx = k_tma ? tc_tma_tile_bytes<D, kTcKeys> : 0u;
#pragma unroll
      for (int w = 0; w < kTcWarpgroups; ++w) {
        ds_tma[w] = maps.ds_tiles && written(w);
        if (ds_tma[w]) tx += Ly::kDsBytes;
      }
      if (issuer && tx > 0) {
        gpu::fence_proxy_async_shared();  // the stage's earlier cp.async writes before TMA's
        gpu::mbarrier_expect_tx(bar(Ly::kFull, st), tx);
        if (k_tma) tc_tma_tile<D, kTcKeys>(dst, maps.k, row0, g, bar(Ly::kFull, st));
#pragma unroll
        for (int w = 0; w < kTcWarpgroups; ++w)
          if (ds_tma[w]) {
            const std::int64_t tile = tc_ds_tile_index(p, seq_index, 2 * t + w - u_seq0, b, h);
            tc_tma_tile<64, kTcKeys>(dst + Tile::kBytes + w * Ly::kDsBytes, maps.ds, tile * kTcKeys, 0, bar(Ly::kFull, st));
          }
      }
      if (!k_tma) tc_stage_tile_sw_unrolled<D, kTcKeys, kTcProducerThreads>(dst, p.k, p.k_stride, row0, 0, end, g);
#pragma unroll
      for (int w = 0; w < kTcWarpgroups; ++w) {
        if (ds_tma[w]) continue;
        const int u = 2 * t + w;
        const bool written = u >= u_first && u <= u_last;
        const char* src = written ? tc_ds_tile(p, seq_index, u - u_seq0, b, h) : static_cast<const char*>(p.ds_workspace);
        // 16-byte chunk e is chunk e % 8 of key row e / 8, into the swizzled tile (8 lanes a row).
        // A thread's chunks e0 + 128 i sit 16 rows apart, so their row % 8 and swizzle are e0's:
        // one address each side plus a constant step (the producer has 40 registers).
        static_assert((kTcProducerThreads / 8) % 8 == 0, "a thread's rows share their row % 8");
        constexpr int kStep = kTcProducerThreads * 16;
        const int e0 = tid % kTcProducerThreads;
        char* d = dst + Tile::kBytes + w * Ly::kDsBytes + TcDsTile::offset(e0 / 8, e0 % 8);
        const char* s0 = written ? src + 16 * e0 : src;
#pragma unroll
        for (int i = 0; i < Ly::kDsBytes / kStep; ++i)
          gpu::copy_async_16_or_zero(d + i * kStep, written ? s0 + i * kStep : s0, written);
      }
      gpu::copy_async_mbarrier_arrive(bar(Ly::kFull, st));
    }
    gpu::copy_async_wait<0>();  // no copy outlives the thread
    return;
  }
  gpu::setmaxnreg_inc<kTcDqStoredConsumerRegs>();

  // This thread's two rows (fragment rows lane/4 and lane/4 + 8 of its warp's 16): list length,
  // 0 outside the sequence.
  auto tile_row = [&](int r) { return wg * kTcWgRows + warp * 16 + lane / 4 + 8 * r; };
  int n[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int j = tile_row(r);
    n[r] = j >= q_first && j < q_end ? dense_list_length(qi0 + j, seq.lq, seq.lk, p.causal) : 0;
  }

  float acc[kDv];
#pragma unroll
  for (int i = 0; i < kDv; ++i) acc[i] = 0.0f;

  if (blocks > 0) {
    // Descriptors: D^S of this warpgroup as A, M-major (TcDsTile: LBO one panel, SBO 1024 B, a k16
    // step 16 key rows); K as B, N-major (N = d, K = keys), as the recomputing pass's.
    const std::uint64_t dDs = gpu::smem_descriptor_sw128(smem + Ly::kStage0 + Tile::kBytes + wg * Ly::kDsBytes,
                                                         TcDsTile::kPanelBytes, TcDsTile::kAtomBytes);
    const std::uint64_t dKb = gpu::smem_descriptor_sw128(smem + Ly::kStage0, Tile::kPanelBytes, Tile::kAtomBytes);
    constexpr std::uint64_t kStepStage = Ly::kStageBytes >> 4;
    static_assert(TcDsTile::kKeyStep == Tile::kKeyStep, "one 16-row step for both operands");
    for (int b = 0; b < blocks; ++b) {
      const int st = b % Ly::kStages;
      gpu::mbarrier_wait(bar(Ly::kFull, st), (b / Ly::kStages) & 1);
      gpu::fence_proxy_async_shared();
      const std::uint64_t stage = static_cast<std::uint64_t>(st) * kStepStage;
      float part[kDv];
#pragma unroll
      for (int i = 0; i < kDv; ++i) {
        part[i] = 0.0f;
        gpu::fence_operand(part[i]);
      }
      gpu::wgmma_fence();
      // §5.3 the partial: the block's 8 k16 key groups of one fresh chain.
#pragma unroll
      for (int kk = 0; kk < kTcKeys / 16; ++kk)
        gpu::wgmma_ss<kFmt, D, 1, 1>(part, dDs + stage + kk * TcDsTile::kKeyStep, dKb + stage + kk * Tile::kKeyStep,
                                     kk > 0);
      gpu::wgmma_commit();
      gpu::wgmma_wait<0>();
      if (lane == 0) gpu::mbarrier_arrive(bar(Ly::kEmpty, st));  // this warp is done with block b's stage
#pragma unroll
      for (int i = 0; i < kDv; ++i) gpu::fence_operand(part[i]);
#pragma unroll
      for (int i = 0; i < kDv; ++i) acc[i] = b * kTcKeys < n[(i / 2) % 2] ? add_rn(acc[i], part[i]) : acc[i];
    }
  }

  tc_store_dq<D>(p, seq, qi0, q_first, q_end, h, tile_row(0), quad, acc);
}

}  // namespace samebits::kernels::attention::cuda
