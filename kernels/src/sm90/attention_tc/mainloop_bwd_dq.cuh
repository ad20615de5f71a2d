// kernels/src/sm90/attention_tc/mainloop_bwd_dq.cuh — the dq pass's consumer
// mainloops (docs/kernels/attention-tc.md §5.3, §14, §21): one consumer
// warpgroup's 64 query rows against the tile's key blocks, in ascending order
// inside the block, so dq's ordered accumulation needs no flags, no other block
// and no global read-modify-write.
//
// TcDqMainloop (recomputing; K, V from producer_kv.cuh): per key block b, in two
// halves of 64 keys (registers: S and dP of one half beside dq's accumulator and
// the block's partial):
//   S^h = Q K_h^T, dP^h = dO V_h^T  D/16 wgmma m64n64k16 over d, fresh (§5.2;
//                                   an element's chain does not depend on N)
//   p = exp(s scale - lse), ds = p (dp - delta) for members, +0 otherwise
//                                   (softmax.cuh's element forms)
//   dS^ = cvt.rn(ds) in registers   the S fragment's layout is wgmma's A
//                                   fragment's (§11.6), as P^ in the forward
//   partial = dS^ K                 8 wgmma m64nDk16 over the block's k16 key
//                                   groups in order, A from registers, B = K
//                                   N-major (the forward's P V reading); the
//                                   first with scale-d = 0 (§5.3: fresh)
//   dq_acc = add(dq_acc, partial)   for rows whose list reaches block b, in
//                                   the order of key blocks, from +0
// TcDqStoredMainloop (from stored D^S, stored_ds.cuh's producer): per block,
//   partial = D^S K    8 wgmma m64nDk16, A = D^S M-major from shared memory
//                      (imm-trans-a 1), B = K N-major; the same chain as above
//                      (the model does not see where an operand comes from)
//   dq_acc = add(dq_acc, partial) for rows whose list reaches block b.
// Then epilogue_bwd.cuh's tc_store_dq writes dq = z(mul(dq_acc, scale)).
#pragma once

#include <type_traits>

#include "sm90/attention_tc/config.cuh"
#include "sm90/attention_tc/stored_ds.cuh"
#include "sm90/attention_tc/tile_scheduler.cuh"

namespace samebits::kernels::attention::cuda {

// Q, dO [128 x D] (the consumers copy them, barrier q_full) and two stages of K, V [128 x D]:
// swizzled tiles from a 1024-aligned base, then the ring's barriers.
template <int D>
struct TcDqLayout {
  using Tile = TcSwTile<D, kTcKeys>;
  static_assert(kTcRows == kTcKeys, "Q, dO and K/V tiles share one tile shape");
  static constexpr int kStages = 2;
  static constexpr int kQ = 0, kDo = Tile::kBytes, kStage0 = 2 * Tile::kBytes, kStageBytes = 2 * Tile::kBytes;
  using Bars = TcStageBarrierLayout<kStage0 + kStages * kStageBytes, kStages>;
  static constexpr int kAlign = 1024;
  static constexpr int kBytes = Bars::kEnd + kAlign;
  static_assert(kBytes <= 227 * 1024, "Q, dO and two K/V stages fit an sm_90 block's shared memory");
  static_assert(Bars::kFull <= (1 << 18), "stage offsets step a descriptor's 14-bit address field");
  using Ring = TcStagePipeline<kStages, Bars::kFull, Bars::kEmpty>;
  SAMEBITS_DEVICE_FUNC static TcCopyBarrier q_full(char* smem) {
    return {reinterpret_cast<std::uint64_t*>(smem + Bars::kQFull)};
  }
};

// kStages stages of K [128 x D] and two D^S tiles, swizzled, from a 1024-aligned base.
template <int D>
struct TcDqStoredLayout {
  using Tile = TcSwTile<D, kTcKeys>;
  static constexpr int kStages = 3;  // memory-bound: two stages loading while one computes
  static constexpr int kDsBytes = TcDsTile::kBytes;
  static constexpr int kStage0 = 0, kStageBytes = Tile::kBytes + kTcWarpgroups * kDsBytes;
  using Bars = TcStageBarrierLayout<kStage0 + kStages * kStageBytes, kStages>;
  static constexpr int kAlign = 1024;
  static constexpr int kBytes = Bars::kEnd + kAlign;
  static_assert(kStageBytes % 1024 == 0 && kDsBytes % 1024 == 0, "swizzled tiles start 1024-aligned");
  static_assert(kBytes <= 227 * 1024, "the stages fit an sm_90 block's shared memory");
  static_assert(Bars::kFull <= (1 << 18), "stage offsets step a descriptor's 14-bit address field");
  static_assert(kDsBytes == tc_tma_tile_bytes<64, kTcKeys>, "one D^S tile is one TMA box of 128 rows of 128 bytes");
  using Ring = TcStagePipeline<kStages, Bars::kFull, Bars::kEmpty>;
  SAMEBITS_DEVICE_FUNC static TcCopyBarrier q_full(char* smem) {  // set up, unused: no consumer copies
    return {reinterpret_cast<std::uint64_t*>(smem + Bars::kQFull)};
  }
};

template <int D, class L, DType In>
struct TcDqMainloop {
  using Ly = TcDqLayout<D>;
  using Tile = typename Ly::Tile;
  static constexpr auto kFmt = tc::format_of(In);
  static constexpr bool kBase2 = base2_softmax<L>;
  static constexpr int kDv = D / 2;             // dq accumulator / partial registers (m64nD)
  static constexpr int kSh = kTcHalfKeys / 2;   // S, dP registers of one half (m64n64)
  static constexpr int kKk = kTcHalfKeys / 16;  // k16 key groups per half
  // Stage st adds st * kStageBytes, half hf 64 rows (8 KiB: whole swizzle atoms) to a
  // descriptor's start address field (>> 4).
  static constexpr std::uint64_t kStepStage = Ly::kStageBytes >> 4, kStepHalf = (kTcHalfKeys * 128) >> 4;

  const BackwardParams& p;
  const TcQueryTile& w;
  const TcThread& th;
  const int (&n)[2];
  const float (&lse)[2];
  const float (&delta)[2];
  const float& c2;          // §25 (base 2): mul(scale, log2 e)
  const float (&lse2)[2];   // §25 (base 2): mul(lse, log2 e), once a row
  char* smem;
  const typename Ly::Ring& ring;
  const TcCopyBarrier& q_full;
  // Descriptors (TcSwTile): Q, dO as A and K, V rows of one half as B, K-major over d (k16 step
  // Tile::k_step); K as B of the partial, N-major (N = d, K = keys: the forward's V reading, k16
  // step kKeyStep) — the same descriptor as K's K-major one, the wgmma's transpose flag choosing
  // the reading.
  std::uint64_t dQa = 0, dDoa = 0, dKb = 0, dVb = 0;
  int n_first = 0;  // the first valid row's list length: block b is whole for every valid row
                    // when its last key is in it

  // One half of block b (stage offset `stage`): S, dP, p, ds, dS^ and the partial's 4 k16 steps.
  SAMEBITS_DEVICE_FUNC void half(const int& b, const int& hf, const std::uint64_t& stage, const bool& whole,
                                 float (&part)[kDv]) const {
    float s[kSh], dp[kSh];
#pragma unroll
    for (int i = 0; i < kSh; ++i) {
      s[i] = dp[i] = 0.0f;
      gpu::fence_operand(s[i]);
      gpu::fence_operand(dp[i]);
    }
    const std::uint64_t half = stage + hf * kStepHalf;
    gpu::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk)
      gpu::wgmma_ss<kFmt, kTcHalfKeys>(s, dQa + Tile::k_step(kk), dKb + half + Tile::k_step(kk), kk > 0);
    gpu::wgmma_commit();
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk)
      gpu::wgmma_ss<kFmt, kTcHalfKeys>(dp, dDoa + Tile::k_step(kk), dVb + half + Tile::k_step(kk), kk > 0);
    gpu::wgmma_commit();
    gpu::wgmma_wait<1>();  // S of this half (and the partial's first half) has landed
    hopper::tc_fence(s);
    // Element i: row (i/2) % 2 of the thread, key b*128 + 64 hf + 8 (i/4) + 2 quad + i % 2.
    // Non-members (masked form): exp(-inf) = +0 and ds selected to +0, branch-free, the values
    // §5.2 gives them.
    auto member = [&](auto masked, int i) {
      if constexpr (decltype(masked)::value)
        return b * kTcKeys + hf * kTcHalfKeys + 8 * (i / 4) + 2 * th.quad + i % 2 < n[(i / 2) % 2];
      else
        return true;
    };
    auto p_of = [&](auto masked) {
#pragma unroll
      for (int i = 0; i < kSh; ++i) {
        if constexpr (kBase2) {  // §25: exp2(fma(s, c, -mul(lse, log2 e)))
          const float t_ = fma_rn(s[i], c2, -lse2[(i / 2) % 2]);
          s[i] = hopper::tc_exp_member<L, true>(member(masked, i), t_);
        } else {
          const float t_ = sub_rn(mul_rn(s[i], p.scale), lse[(i / 2) % 2]);
          s[i] = hopper::tc_exp_member<L, false>(member(masked, i), t_);
        }
      }
    };
    if (whole) p_of(std::false_type{});
    else p_of(std::true_type{});
    gpu::wgmma_wait<0>();  // dP of this half has landed
    hopper::tc_fence(dp);
    auto ds_of = [&](auto masked) {
#pragma unroll
      for (int i = 0; i < kSh; ++i) {
        const float ds = hopper::tc_ds(s[i], dp[i], delta[(i / 2) % 2]);
        dp[i] = member(masked, i) ? ds : 0.0f;
      }
    };
    if (whole) ds_of(std::false_type{});
    else ds_of(std::true_type{});
    std::uint32_t da[kKk][4];
    hopper::tc_pack_a<kFmt>(dp, da);
    // §5.3 the partial: the block's k16 key groups 4 hf .. 4 hf + 3 of its one chain.
    hopper::tc_fence(part);
    gpu::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kKk; ++kk)
      gpu::wgmma_rs<kFmt, D, 1>(part, da[kk], dKb + stage + (hf * kKk + kk) * Tile::kKeyStep, (hf > 0 || kk > 0) ? 1 : 0);
    gpu::wgmma_commit();
    // The next half's S and dP are issued behind this; its wait<1> retires this group first, and
    // its wait<0> (before its dS^ is packed into da) every group that reads da.
  }

  SAMEBITS_DEVICE_FUNC void run(float (&acc)[kDv]) {
    char* sQ = smem + Ly::kQ;
    char* sDo = smem + Ly::kDo;
    tc_stage_tile_sw<D, kTcKeys, kTcThreads>(sQ, p.q, p.q_stride, w.seq.q0 + w.qi0, w.q_first, w.q_end, w.h);
    tc_stage_tile_sw<D, kTcKeys, kTcThreads>(sDo, p.dout, p.dout_stride, w.seq.q0 + w.qi0, w.q_first, w.q_end, w.h);
    q_full.arrive_and_wait();
    dQa = gpu::smem_descriptor_sw128(sQ + th.wg * kTcWgRows * 128, Tile::kPanelBytes, Tile::kAtomBytes);
    dDoa = gpu::smem_descriptor_sw128(sDo + th.wg * kTcWgRows * 128, Tile::kPanelBytes, Tile::kAtomBytes);
    dKb = gpu::smem_descriptor_sw128(smem + Ly::kStage0, Tile::kPanelBytes, Tile::kAtomBytes);
    dVb = gpu::smem_descriptor_sw128(smem + Ly::kStage0 + Tile::kBytes, Tile::kPanelBytes, Tile::kAtomBytes);
    n_first = dense_list_length(w.qi0 + w.q_first, w.seq.lq, w.seq.lk, p.causal);

    for (int b = 0; b < w.blocks; ++b) {
      const int st = b % Ly::kStages;
      ring.wait_full(b);
      const std::uint64_t stage = static_cast<std::uint64_t>(st) * kStepStage;
      const bool whole = (b + 1) * kTcKeys <= n_first;
      float part[kDv];
#pragma unroll
      for (int i = 0; i < kDv; ++i) part[i] = 0.0f;
#pragma unroll
      for (int hf = 0; hf < 2; ++hf) half(b, hf, stage, whole, part);
      gpu::wgmma_wait<0>();  // the partial has landed: this warp is done with block b's stage
      ring.release(b, th.lane);
      hopper::tc_fence(part);
#pragma unroll
      for (int i = 0; i < kDv; ++i) acc[i] = b * kTcKeys < n[(i / 2) % 2] ? add_rn(acc[i], part[i]) : acc[i];
    }
  }
};

template <int D, DType In>
struct TcDqStoredMainloop {
  using Ly = TcDqStoredLayout<D>;
  using Tile = typename Ly::Tile;
  static constexpr auto kFmt = tc::format_of(In);
  static constexpr int kDv = D / 2;
  static constexpr std::uint64_t kStepStage = Ly::kStageBytes >> 4;
  static_assert(TcDsTile::kKeyStep == Tile::kKeyStep, "one 16-row step for both operands");

  const TcQueryTile& w;
  const TcThread& th;
  const int (&n)[2];
  char* smem;
  const typename Ly::Ring& ring;

  SAMEBITS_DEVICE_FUNC void run(float (&acc)[kDv]) const {
    // Descriptors: D^S of this warpgroup as A, M-major (TcDsTile: LBO one panel, SBO 1024 B, a k16
    // step 16 key rows); K as B, N-major (N = d, K = keys), as the recomputing pass's.
    const std::uint64_t dDs = gpu::smem_descriptor_sw128(smem + Ly::kStage0 + Tile::kBytes + th.wg * Ly::kDsBytes, TcDsTile::kPanelBytes, TcDsTile::kAtomBytes);
    const std::uint64_t dKb = gpu::smem_descriptor_sw128(smem + Ly::kStage0, Tile::kPanelBytes, Tile::kAtomBytes);
    for (int b = 0; b < w.blocks; ++b) {
      const int st = b % Ly::kStages;
      ring.wait_full(b);
      const std::uint64_t stage = static_cast<std::uint64_t>(st) * kStepStage;
      float part[kDv];
      hopper::tc_zero_fenced(part);
      gpu::wgmma_fence();
      // §5.3 the partial: the block's 8 k16 key groups of one fresh chain.
#pragma unroll
      for (int kk = 0; kk < kTcKeys / 16; ++kk)
        gpu::wgmma_ss<kFmt, D, 1, 1>(part, dDs + stage + kk * TcDsTile::kKeyStep, dKb + stage + kk * Tile::kKeyStep,
                                     kk > 0);
      gpu::wgmma_commit();
      gpu::wgmma_wait<0>();
      ring.release(b, th.lane);  // this warp is done with block b's stage
      hopper::tc_fence(part);
#pragma unroll
      for (int i = 0; i < kDv; ++i) acc[i] = b * kTcKeys < n[(i / 2) % 2] ? add_rn(acc[i], part[i]) : acc[i];
    }
  }
};

}  // namespace samebits::kernels::attention::cuda
