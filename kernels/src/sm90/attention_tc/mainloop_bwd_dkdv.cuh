// kernels/src/sm90/attention_tc/mainloop_bwd_dkdv.cuh — the dK/dV pass's
// mainloop (docs/kernels/attention-tc.md §5, §6, §11, §14, §20): one block
// (two warpgroups) per key block of 128 keys; warpgroup w owns keys 64 w ..
// 64 w + 63, whose dK and dV accumulators (m64nD fragments) stay in registers.
// The block walks query tiles of 64 POSITIONS [64 u, 64 u + 63] in ascending
// order, from the tile holding the first row whose list has a member in the
// block; rows outside the sequence are zero rows (Q, dO zero-filled). Per tile:
//   S^T = K Q^T, dP^T = V dO^T   D/16 wgmma m64n64k16 over d, fresh (§5.2:
//                                 the model is symmetric in its operands, so
//                                 S^T has S's bits)
//   p = exp(s scale - lse), ds = p (dp - delta) for members, +0 otherwise
//   P^, dS^ = cvt.rn of the fragments (the A fragments of the next steps)
//   dV += P^^T dO, dK += dS^^T Q  one wgmma m64nDk16 per 16-row group, all
//                                 four (§6 visits fewer; the others add +0
//                                 products, stage_q says why), scale-d = 1
// and, with a ds_workspace (§21), D^S of each tile to the workspace for the dq
// pass (stored_ds.cuh). Q, dO, lse and delta come in four stages handed over
// by mbarriers (pipeline.cuh: every thread both copies and reads them).
#pragma once

#include <type_traits>

#include "sm90/attention_tc/config.cuh"
#include "sm90/attention_tc/epilogue_bwd.cuh"
#include "sm90/attention_tc/stored_ds.cuh"
#include "sm90/attention_tc/tile_scheduler.cuh"

namespace samebits::kernels::attention::cuda {

// Shared memory, every operand tile 128-byte swizzled (TcSwTile, as the forward's) from a
// 1024-aligned base (kBytes has the alignment's slack).
template <int D>
struct TcBwdLayout {
  using KTile = TcSwTile<D, kTcKeys>;            // K, V [128 keys x D]
  using QTile = TcSwTile<D, kTcBwdRows>;         // Q, dO [64 rows x D]
  using DsTile = TcSwTile<kTcKeys, kTcBwdRows>;  // dS^ [64 query rows x 128 keys]: the TMA store's halves
  // Query tile u's Q, dO, lse and delta in stage (u - u_first) % kQStages. The pass copies tile
  // u + 3 while it finishes u and starts u + 1 (TcDkDvMainloop::tile says why 4 stages).
  static constexpr int kQStages = 4;
  // (kReserved: 16 bytes the one-pass form's ticket used; kept, so that the barriers' offsets —
  // and the measured code — stay as they were.)
  static constexpr int kK = 0, kV = kK + KTile::kBytes, kQ0 = kV + KTile::kBytes, kQStageBytes = 2 * QTile::kBytes,
                       kDs = kQ0 + kQStages * kQStageBytes, kLse = kDs + DsTile::kBytes,
                       kDelta = kLse + kQStages * kTcBwdRows * 4, kReserved = kDelta + kQStages * kTcBwdRows * 4,
                       // the stage mbarriers: full[kQStages], empty[kQStages]
                       kBars = kReserved + 16, kAlign = 1024, kBytes = kBars + 2 * kQStages * 8 + kAlign;
  static_assert(kDs % 1024 == 0 && kQ0 % 1024 == 0 && QTile::kBytes % 1024 == 0, "swizzled tiles start 1024-aligned");
  static_assert(kBytes <= 227 * 1024, "K, V, four Q/dO stages and dS fit an sm_90 block's shared memory");
  using Ring = TcStageRing<kQStages>;
  SAMEBITS_DEVICE_FUNC static Ring ring(char* smem) {
    std::uint64_t* full = reinterpret_cast<std::uint64_t*>(smem + kBars);
    return {full, full + kQStages};
  }
};

template <int D, class L, DType In>
struct TcDkDvMainloop {
  using Bl = TcBwdLayout<D>;
  using KT = typename Bl::KTile;
  using QT = typename Bl::QTile;
  using Acc = TcDkDvAccumulators<D>;
  static constexpr auto kFmt = tc::format_of(In);
  static constexpr int kAcc = D / 2;           // dK, dV registers (m64nD)
  static constexpr int kSt = kTcBwdRows / 2;   // S^T, dP^T registers (m64n64)
  static constexpr std::uint64_t kStepRows = KT::kKeyStep;  // 16 rows of an MN-major operand (any tile: 16 x 128 B)
  static_assert(KT::kKeyStep == QT::kKeyStep, "one row step for every MN-major tile");
  // The tile's fragments: S^T, dP^T (fp32, fragment row = key, column = query row of the tile),
  // then p and ds packed into the A fragments of the dV, dK steps (P^, dS^).
  struct Frags {
    float (&st)[kSt];
    float (&dpt)[kSt];
    std::uint32_t (&pa)[kTcBwdGroups][4];
    std::uint32_t (&da)[kTcBwdGroups][4];
  };

  const BackwardParams& p;
  const TcMaps& maps;
  const TcKeyBlock& w;
  const TcThread& th;
  const Acc& acc;
  char* smem;
  const typename Bl::Ring& ring;
  float* sLse;
  float* sDelta;
  // The tiles this block visits (§6): u_first (the tile of the first row with a member here) ..
  // u_last (the sequence's last row's); u_seq0: the sequence's first tile (D^S tiles' rank 0).
  int a0 = 0, u_first = 0, u_last = 0, u_seq0 = 0;
  std::uint64_t dKa = 0, dVa = 0;
  float c2 = 0.0f;  // §25 (base 2 only): mul(scale, log2 e)

  SAMEBITS_DEVICE_FUNC char* sQ(int buf) const { return smem + Bl::kQ0 + buf * Bl::kQStageBytes; }
  SAMEBITS_DEVICE_FUNC char* sDo(int buf) const { return smem + Bl::kQ0 + buf * Bl::kQStageBytes + Bl::QTile::kBytes; }

  // Tile u's Q, dO rows into stage buf by cp.async; rows outside the sequence are zero rows.
  // Every tile issues all four dV, dK row-group steps, where §6 visits only the groups from the
  // block's first attending row's to the sequence's last row's: a group outside that range holds
  // only rows outside the sequence (the first attending row is a0, or key0 — a multiple of 128,
  // which starts a tile), whose p and ds are +0 (tile_full), so its step adds +0 products and
  // leaves the accumulator's bits as they are (the model: zero terms take no part; an
  // accumulator is never -0). No wgmma runs under a run-time condition (§18).
  SAMEBITS_DEVICE_FUNC void stage_q(int u, int buf) const {
    const int qi0 = u * kTcBwdRows - a0;
    const int first = gpu::max_int(0, -qi0), end = gpu::min_int(kTcBwdRows, w.seq.lq - qi0);
    tc_stage_tile_sw_unrolled<D, kTcBwdRows, kTcThreads>(sQ(buf), p.q, p.q_stride, w.seq.q0 + qi0, first, end, w.h);
    tc_stage_tile_sw_unrolled<D, kTcBwdRows, kTcThreads>(sDo(buf), p.dout, p.dout_stride, w.seq.q0 + qi0, first, end, w.h);
  }
  // Tile u's stage: lse and delta by 4-byte cp.async (+0 outside the sequence) with Q and dO; Q
  // and dO of a tile whose 64 rows all lie in the sequence by TMA when the maps exist (§27):
  // thread 0 expects their bytes on the stage's full barrier and issues the boxes, and every
  // thread's arrival on full follows (the caller's arrive_full), as for cp.async.
  SAMEBITS_DEVICE_FUNC void stage_tile(int u, int buf) const {
    const int qi0 = u * kTcBwdRows - a0;
    if (maps.q_dout && qi0 >= 0 && qi0 + kTcBwdRows <= w.seq.lq) {
      if (th.tid == 0) {
        ring.expect_tma(buf, 2 * tc_tma_tile_bytes<D, kTcBwdRows>);
        tc_tma_tile<D, kTcBwdRows>(sQ(buf), maps.q, w.seq.q0 + qi0, w.h, ring.full(buf));
        tc_tma_tile<D, kTcBwdRows>(sDo(buf), maps.dout, w.seq.q0 + qi0, w.h, ring.full(buf));
      }
    } else {
      stage_q(u, buf);
    }
    if (th.tid < 2 * kTcBwdRows) {
      const int r = th.tid % kTcBwdRows, i = qi0 + r;
      const bool ok = i >= 0 && i < w.seq.lq;
      const float* src = th.tid < kTcBwdRows ? p.lse : p.delta;
      float* dst = (th.tid < kTcBwdRows ? sLse : sDelta) + buf * kTcBwdRows + r;
      gpu::copy_async_4_or_zero(dst, ok ? src + (w.seq.q0 + i) * p.hq + w.h : src, ok);
    }
  }

  // §5.2 s or dp of the tile in stage buf: a fresh chain over d (A = this warpgroup's K or V
  // rows, B = the stage's Q or dO), its own commit group.
  SAMEBITS_DEVICE_FUNC void issue_chain(float (&acc_)[kSt], std::uint64_t a, char* b_tile) const {
    const std::uint64_t b = gpu::smem_descriptor_sw128(b_tile, QT::kPanelBytes, QT::kAtomBytes);
    hopper::tc_zero_fenced(acc_);
    gpu::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) gpu::wgmma_ss<kFmt, kTcBwdRows>(acc_, a + KT::k_step(kk), b + QT::k_step(kk), kk > 0);
    gpu::wgmma_commit();
  }

  // `masked` as in the forward's softmax: false when the tile's 64 rows all lie in the sequence
  // and each sees the whole key block (its first row does: lists grow with the row), where every
  // element is a member; otherwise a non-member's exp argument is -inf (exp = +0 in both libms,
  // the value §5.2 gives it) and its ds is selected to +0 — branch-free, same bits. A row outside
  // the sequence is a non-member: its p and ds are +0 whatever K and V hold, so its products in
  // the dV, dK steps are +0 (stage_q).
  SAMEBITS_DEVICE_FUNC bool tile_full(int qi0) const {
    return qi0 >= 0 && qi0 + kTcBwdRows <= w.seq.lq &&
           w.key0 + kTcKeys <= dense_list_length(qi0, w.seq.lq, w.seq.lk, p.causal);
  }
  template <class Masked>
  SAMEBITS_DEVICE_FUNC bool member(Masked, int qi0, int i) const {
    if constexpr (Masked::value) {
      const int col = 8 * (i / 4) + 2 * th.quad + i % 2, qi = qi0 + col;
      const int n = qi >= 0 && qi < w.seq.lq ? dense_list_length(qi, w.seq.lq, w.seq.lk, p.causal) : 0;
      return w.key0 + acc.key(i) < n;
    } else {
      return true;
    }
  }
  // p of the tile (S^T in st) packed into pa. §25 base 2 (nvcc-fast): exp2(fma(s, c,
  // -mul(lse, log2 e))), c = mul(scale, log2 e) — one fma and one MUFU.EX2 an element, the lse
  // product once per column; natural: exp(sub(mul(s, scale), lse)).
  SAMEBITS_DEVICE_FUNC void p_of(int qi0, const float* lse_t, const Frags& f) const {
    auto body = [&](auto masked) {
      if constexpr (base2_softmax<L>) {
        // Element i = 4 c + 2 r + e is column 8 c + 2 quad + e of row group r: the product
        // -mul(lse, L2E) once per column (16 a thread), for its two elements.
#pragma unroll
        for (int c = 0; c < kSt / 4; ++c)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const float neg_lse2 = -mul_rn(lse_t[8 * c + 2 * th.quad + e], log2e());
#pragma unroll
            for (int r = 0; r < 2; ++r) {
              const int i = 4 * c + 2 * r + e;
              f.st[i] = hopper::tc_exp_member<L, true>(member(masked, qi0, i),
                                                       [&] { return fma_rn(f.st[i], c2, neg_lse2); });
            }
          }
      } else {
#pragma unroll
        for (int i = 0; i < kSt; ++i) {
          const int col = 8 * (i / 4) + 2 * th.quad + i % 2;
          const float t = sub_rn(mul_rn(f.st[i], p.scale), lse_t[col]);
          f.st[i] = hopper::tc_exp_member<L, false>(member(masked, qi0, i), t);
        }
      }
    };
    if (tile_full(qi0)) body(std::false_type{});
    else body(std::true_type{});
    hopper::tc_pack_a<kFmt>(f.st, f.pa);
  }
  // ds = p (dp - delta) of the tile (dP^T in dpt) packed into da (p = +0 for non-members gives
  // ds = +0 x finite: selected to +0 anyway).
  SAMEBITS_DEVICE_FUNC void ds_of(int qi0, const float* delta_t, const Frags& f) const {
    auto body = [&](auto masked) {
#pragma unroll
      for (int i = 0; i < kSt; ++i) {
        const int col = 8 * (i / 4) + 2 * th.quad + i % 2;
        const float ds = hopper::tc_ds(f.st[i], f.dpt[i], delta_t[col]);
        f.dpt[i] = member(masked, qi0, i) ? ds : 0.0f;
      }
    };
    if (tile_full(qi0)) body(std::false_type{});
    else body(std::true_type{});
    hopper::tc_pack_a<kFmt>(f.dpt, f.da);
  }
  // §6 dV += P^^T dO, dK += dS^^T Q: one wgmma k16 step per row group, scale-d = 1, one commit
  // group (every tile all four groups: stage_q says why that keeps the bits).
  SAMEBITS_DEVICE_FUNC void issue_dkdv(int buf, float (&ak)[kAcc], float (&av)[kAcc], const Frags& f) const {
    const std::uint64_t dDon = gpu::smem_descriptor_sw128(sDo(buf), QT::kPanelBytes, QT::kAtomBytes);
    const std::uint64_t dQn = gpu::smem_descriptor_sw128(sQ(buf), QT::kPanelBytes, QT::kAtomBytes);
    fence_dkdv(ak, av);
    gpu::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kTcBwdGroups; ++kk) gpu::wgmma_rs<kFmt, D, 1>(av, f.pa[kk], dDon + kk * kStepRows, 1);
#pragma unroll
    for (int kk = 0; kk < kTcBwdGroups; ++kk) gpu::wgmma_rs<kFmt, D, 1>(ak, f.da[kk], dQn + kk * kStepRows, 1);
    gpu::wgmma_commit();
  }
  SAMEBITS_DEVICE_FUNC static void fence_dkdv(float (&ak)[kAcc], float (&av)[kAcc]) {
#pragma unroll
    for (int i = 0; i < kAcc; ++i) {
      gpu::fence_operand(av[i]);
      gpu::fence_operand(ak[i]);
    }
  }

  // S^T, dP^T of tile u_first + j issued; p, ds into pa, da (and D^S to the workspace, §21).
  SAMEBITS_DEVICE_FUNC void s_dp_of(int j, const Frags& f, const TcDsWriter& ds) const {
    const int buf = j % Bl::kQStages, qi0 = (u_first + j) * kTcBwdRows - a0;
    gpu::wgmma_wait<1>();  // S^T has landed
    hopper::tc_fence(f.st);
    p_of(qi0, sLse + buf * kTcBwdRows, f);
    gpu::wgmma_wait<0>();  // dP^T has landed
    hopper::tc_fence(f.dpt);
    ds_of(qi0, sDelta + buf * kTcBwdRows, f);
    if (p.ds_workspace != nullptr) {
      if (maps.ds_halves) ds.store_tma(u_first + j, f.da);
      else ds.store(u_first + j, f.da);
    }
  }

  // Pipelined within the warpgroup: tile u + 1's S^T is issued behind tile u's dV, dK steps and
  // its dP^T as soon as they have landed, so the tensor cores go from one tile to the next while
  // the warpgroup waits; p of u + 1 is computed under dP^T of u + 1. Commit groups in issue
  // order: ..., dKdV(u), S(u + 1), dP(u + 1), dKdV(u + 1), ...
  // Stages by mbarriers, not block barriers: tile u waits for full[u % 4] (phase u / 4: every
  // thread's copies of it, and of K and V); once the warp's dV, dK steps of tile u have landed
  // it arrives on empty[u % 4]; each thread then copies tile u + 3 into stage (u + 3) % 4 once
  // every warp has arrived on that stage's empty for tile u - 1, and arrives on its full. Tile
  // u + 1 is waited for at the start of tile(u), so u + 3 is the copy a whole tile ahead of its
  // use (with u + 2, 3 stages, the copies of u + 1 were issued just before it was waited for:
  // 13 % of the stall samples on that wait, H100). The two warpgroups meet only at the empty
  // waits: one may run up to two tiles ahead of the other.
  //
  // tile(u): tile u's dV, dK steps (its p and ds in pa, da), then — when there is a tile u + 1
  // (compile-time kNext: the last tile is peeled off, no wgmma under a run-time condition, §18)
  // — that tile's S^T, dP^T, p and ds. Nothing is in flight from one call to the next (ptxas
  // serializes every wgmma when a loop's back edge carries one, C7514).
  template <bool kNext>
  SAMEBITS_DEVICE_FUNC void tile(int u, float (&ak)[kAcc], float (&av)[kAcc], const Frags& f,
                                 const TcDsWriter& ds) const {
    const int j = u - u_first, buf = j % Bl::kQStages;
    if constexpr (kNext) ring.wait_full(j + 1);
    issue_dkdv(buf, ak, av, f);
    if constexpr (kNext) {
      issue_chain(f.st, dKa, sQ((j + 1) % Bl::kQStages));
      gpu::wgmma_wait<1>();  // the dV, dK steps of tile u have landed (S^T of u + 1 may not)
    } else {
      gpu::wgmma_wait<0>();
    }
    fence_dkdv(ak, av);
#pragma unroll
    for (int kk = 0; kk < kTcBwdGroups; ++kk)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        gpu::fence_operand(f.pa[kk][i]);
        gpu::fence_operand(f.da[kk][i]);
      }
    ring.release(j, th.lane);  // this warp is done with tile u's stage (j % kQStages = buf)
    if constexpr (kNext) {
      issue_chain(f.dpt, dVa, sDo((j + 1) % Bl::kQStages));
      s_dp_of(j + 1, f, ds);
    }
    if (u + 3 <= u_last) {
      const int next = (j + 3) % Bl::kQStages;  // tile u - 1's stage
      if (j >= 1) ring.wait_empty(next, (j - 1) / Bl::kQStages);
      stage_tile(u + 3, next);
      ring.arrive_full(next);
    }
  }

  // The block's tiles u_first .. u_last (none: the accumulators stay as loaded) into ak, av.
  SAMEBITS_DEVICE_FUNC void run(float (&ak)[kAcc], float (&av)[kAcc]) {
    // (Locals for the loops here, members for the methods.)
    const int a0 = w.seq.lk - w.seq.lq;
    const int a_first = p.causal ? gpu::max_int(a0, w.key0) : a0;  // the first row with a member here
    const int a_last = a0 + w.seq.lq - 1;
    const int u_first = floor_div(a_first, kTcBwdRows),
              u_last = w.seq.lq > 0 ? floor_div(a_last, kTcBwdRows) : u_first - 1;
    const int u_seq0 = floor_div(a0, kTcBwdRows);
    this->a0 = a0;
    this->u_first = u_first;
    this->u_last = u_last;
    this->u_seq0 = u_seq0;
    for (int j = 0; j < Bl::kQStages - 1 && u_first + j <= u_last; ++j) {
      stage_tile(u_first + j, j);
      ring.arrive_full(j);
    }
    // Descriptors. K-major A (k16 step: +256 B): K, V rows of this warpgroup; Q, dO as B of S^T,
    // dP^T (issue_chain). N-major B (K = rows: +2 row groups a step): dO, Q of dV, dK
    // (issue_dkdv). (TcSwTile: K-major SBO 1024 B and k16 step k_step(kk); MN-major LBO one
    // panel, SBO 1024 B, a k16 step 16 rows.)
    dKa = gpu::smem_descriptor_sw128(smem + Bl::kK + th.wg * kTcWgRows * 128, KT::kPanelBytes, KT::kAtomBytes);
    dVa = gpu::smem_descriptor_sw128(smem + Bl::kV + th.wg * kTcWgRows * 128, KT::kPanelBytes, KT::kAtomBytes);
    float st[kSt], dpt[kSt];
    std::uint32_t pa[kTcBwdGroups][4], da[kTcBwdGroups][4];
    const Frags f{st, dpt, pa, da};
    c2 = mul_rn(p.scale, log2e());
    const TcDsWriter ds{p, maps, w, th, u_seq0, smem + Bl::kDs + th.wg * (TcDsTile::kBytes / 2), th.tid % 128 == 0};
    // One region from the first issue to the last wait: every path out of it has no wgmma in flight.
    if (u_first <= u_last) {
      ring.wait_full(0);
      issue_chain(st, dKa, sQ(0));
      issue_chain(dpt, dVa, sDo(0));
      s_dp_of(0, f, ds);
      for (int u = u_first; u < u_last; ++u) tile<true>(u, ak, av, f, ds);
      tile<false>(u_last, ak, av, f, ds);
    }
    if (p.ds_workspace != nullptr && maps.ds_halves && ds.wg_issuer) gpu::bulk_wait_group<0>();  // no store outlives the block
  }
};

}  // namespace samebits::kernels::attention::cuda
