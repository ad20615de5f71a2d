// kernels/src/sm90/attention_tc/bwd_kernel.cuh — the backward of the
// sm90-tensor-core policy (docs/kernels/attention-tc.md §5, §6, §11) on
// wgmma: one block (two warpgroups) per (key block of 128 keys, query head,
// sequence), taken in ticket order as the fma-chain backward's
// (attention_bwd_kernel.cuh: a block waits only for the block one key block
// earlier, whose ticket is smaller). Warpgroup w owns keys 64 w .. 64 w + 63
// of the block: their dK and dV accumulators (m64nD fragments) stay in
// registers from +0 (or the handed-on values) to the end.
//
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
//   dQ partial = dS^ K           8 wgmma k16 steps over the block's keys,
//                                 fresh (§5.3), dS^ through shared memory,
//                                 each warpgroup D/2 of the columns
//   dq_acc = add(dq_acc, partial) for the rows that visit the block, behind
//                                 the tile's flag: key blocks in ascending order
// The last two steps are the one-pass form (kWithDq). The launcher's default
// is two passes: this kernel with kWithDq = false (dK/dV only; blocks
// independent) and attention_tc_bwd_dq_kernel.cuh for dq (§14). Q, dO, lse and
// delta come in four stages: handed over by mbarriers in the dK/dV pass (which
// is pipelined within the warpgroup), by one block barrier per tile in the
// one-pass form.
// At the end the per-head dK/dV accumulators go to the fp32 workspace; the
// head fold and dq's finish (fma-chain's kernels with kZeroRule) write z(...)
// (§7's zero rule) rounded once.
#pragma once

#include <type_traits>

#include "sm90/attention_tc/fwd_kernel.cuh"

namespace samebits::kernels::attention::cuda {

inline constexpr int kTcBwdRows = 64;  // query positions per tile: 4 row groups of the dK/dV steps
inline constexpr int kTcBwdGroups = kTcBwdRows / tc::kRowGroup;
static_assert(kTcBwdRows % tc::kRowGroup == 0, "a tile is whole 16-row groups (§6)");
static_assert(kTcKeys % kTcBwdRows == 0, "a causal block's first attending position starts a tile");
static_assert(kTcKeys == 2 * kTcWgRows, "two warpgroups of 64 keys make a key block");
static_assert(kTcMapQueryRows == kTcBwdRows, "the Q, dO maps' box is one query tile");

// Shared memory, every operand tile 128-byte swizzled (TcSwTile, as the
// forward's) from a 1024-aligned base (kBytes has the alignment's slack).
template <int D>
struct TcBwdLayout {
  using KTile = TcSwTile<D, kTcKeys>;         // K, V [128 keys x D]
  using QTile = TcSwTile<D, kTcBwdRows>;      // Q, dO [64 rows x D]
  using DsTile = TcSwTile<kTcKeys, kTcBwdRows>;  // dS^ [64 query rows x 128 keys], K-major for dQ's A (K = keys)
  // Query tile u's Q, dO, lse and delta in stage (u - u_first) % kQStages. The dK/dV pass copies
  // tile u + 3 while it finishes u and starts u + 1 (its loop says why 4 stages); the one-pass
  // form copies u + 2, one block barrier per tile ordering every reuse.
  static constexpr int kQStages = 4;
  static constexpr int kK = 0, kV = kK + KTile::kBytes, kQ0 = kV + KTile::kBytes, kQStageBytes = 2 * QTile::kBytes,
                       kDs = kQ0 + kQStages * kQStageBytes, kLse = kDs + DsTile::kBytes,
                       kDelta = kLse + kQStages * kTcBwdRows * 4, kTicket = kDelta + kQStages * kTcBwdRows * 4,
                       // the dK/dV pass's stage mbarriers: full[kQStages], empty[kQStages]
                       kBars = kTicket + 16, kAlign = 1024, kBytes = kBars + 2 * kQStages * 8 + kAlign;
  static_assert(kDs % 1024 == 0 && kQ0 % 1024 == 0 && QTile::kBytes % 1024 == 0, "swizzled tiles start 1024-aligned");
  static_assert(kBytes <= 227 * 1024, "K, V, four Q/dO stages and dS fit an sm_90 block's shared memory");
};

// §21 stored D^S (BackwardParams::ds_workspace): the dK/dV pass writes the D^S of each (key block
// kb, 64-row query tile) it visits as one 16 KiB tile [128 keys x 64 query rows], row-major (a
// 128-byte row per key, the query rows contiguous); the dq pass copies it into the swizzled
// shared-memory tile TcDsTile and reads it as an M-major wgmma A operand. Tile (seq, rank, kb,
// h), rank = the query tile's index from the sequence's first (u - floor(a0 / 64)), at
// ((seq * tiles + rank) * blocks + kb) * hq + h, tiles and blocks from the longest sequences
// (backward_ds_workspace_bytes, which uses the same constants).
using TcDsTile = TcSwTile<kTcBwdRows, kTcKeys>;
static_assert(kTcBwdRows == 64 && kTcKeys == 128 && TcDsTile::kBytes == 16384,
              "backward_ds_workspace_bytes counts 16 KiB tiles of 64 query rows x 128 keys");
SAMEBITS_DEVICE_FUNC std::int64_t tc_ds_tile_index(const BackwardParams& p, int seq_index, int rank, int kb, int h) {
  const std::int64_t tiles = (std::int64_t{p.max_seqlen_q} + kTcBwdRows - 1) / kTcBwdRows + 1,
                     blocks = (std::int64_t{p.max_seqlen_k} + kTcKeys - 1) / kTcKeys;
  return ((seq_index * tiles + rank) * blocks + kb) * p.hq + h;
}
SAMEBITS_DEVICE_FUNC char* tc_ds_tile(const BackwardParams& p, int seq_index, int rank, int kb, int h) {
  return static_cast<char*>(p.ds_workspace) + tc_ds_tile_index(p, seq_index, rank, kb, h) * TcDsTile::kBytes;
}
// The dK/dV pass's warpgroups hand their shared D^S half to the TMA store over named barriers
// 1 + wg (attention-tc.md §28).
inline constexpr int kTcDsBarrier = 1;
static_assert(kTcMapKeyRows / 2 == kTcWgRows, "the ds_half map's box is one warpgroup's 64 keys of a tile");

// The flag of position tile `tile` (counted from the sequence's first) at
// head h: a sequence has at most Lq tiles (each holds a row), so q0 + tile is
// unique in [0, total_q).
SAMEBITS_DEVICE_FUNC int* tc_dq_flag(const BackwardParams& p, std::int64_t q0, int tile, int h) {
  return p.dq_flags + (q0 + tile) * p.hq + h;
}

// kWithDq = false: the dK/dV pass of the two-pass backward (attention_tc_bwd_dq_kernel.cuh computes
// dq): no dS^ to shared memory, no dQ GEMM, no flags; blocks are independent, so the block index
// is the ticket (key block 0 first: causal's heaviest).
template <int D, class L, DType In, bool kWithDq = true>
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kTcThreads, 1) attention_tc_bwd_kernel(
    const BackwardParams p, const SAMEBITS_GRID_CONSTANT TcMaps maps) {
  using Bl = TcBwdLayout<D>;
  constexpr auto kFmt = tc::format_of(In);
  constexpr int kAcc = D / 2;         // dK, dV registers (m64nD)
  constexpr int kSt = kTcBwdRows / 2;  // S^T, dP^T registers (m64n64)
  constexpr int kDqN = D / 2;         // dQ columns per warpgroup
  constexpr int kDq = kDqN / 2;       // their registers
  extern SAMEBITS_SHARED float4 smem4[];
  char* smem = align_shared_1024(reinterpret_cast<char*>(smem4));
  float* sLse = reinterpret_cast<float*>(smem + Bl::kLse);
  float* sDelta = reinterpret_cast<float*>(smem + Bl::kDelta);
  char* sDs = smem + Bl::kDs;
  int* sTicket = reinterpret_cast<int*>(smem + Bl::kTicket);

  const int tid = gpu::threadIdx.x;
  int ticket = static_cast<int>(gpu::blockIdx.x);
  if constexpr (kWithDq) {
    if (tid == 0) *sTicket = gpu::fetch_add_agent(p.dq_flags + p.total_q * p.hq, 1);
    gpu::block_barrier();
    ticket = *sTicket;
  }
  const int per_block = p.hq * p.num_seqs;
  const int kb = ticket / per_block, h = ticket % p.hq, seq_index = (ticket % per_block) / p.hq;
  const Sequence seq = sequence_of(p, seq_index);
  const int key0 = kb * kTcKeys;
  if (key0 >= seq.lk) return;
  const int g = h / (p.hq / p.hkv);
  // Not through warp_uniform, as the other tensor-core kernels take wg: here it cost the pass
  // (backward 1.465 -> 1.50 ms, the stored-D^S one 1.42 -> 1.58, H100): with wg uniform ptxas
  // kept the descriptors in uniform registers but spilled 21 vector registers into the loop
  // (SASS: LDL 3 -> 21), the pass having none to spare (255 a thread).
  const int wg = tid / 128, warp = (tid % 128) / 32, lane = tid % 32, quad = lane % 4;
  const int valid_keys = gpu::min_int(kTcKeys, seq.lk - key0);

  // The dK/dV pass hands the query stages over by mbarriers, not block barriers (the loop says
  // how): full[st] completes when every thread's copies of the stage's tile have landed (K and V
  // with the first), empty[st] when every warp is done reading it.
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(smem + Bl::kBars);
  std::uint64_t* empty = full + Bl::kQStages;
  if constexpr (!kWithDq) {
    if (tid == 0) {
      for (int st = 0; st < Bl::kQStages; ++st) {
        gpu::mbarrier_init(full + st, kTcThreads);
        gpu::mbarrier_init(empty + st, kTcThreads / 32);
      }
      gpu::fence_mbarrier_init();
    }
    gpu::block_barrier();  // the barriers are initialized (the block's only barrier)
  }
  tc_stage_tile_sw<D>(smem + Bl::kK, p.k, p.k_stride, seq.k0 + key0, 0, valid_keys, g);
  tc_stage_tile_sw<D>(smem + Bl::kV, p.v, p.v_stride, seq.k0 + key0, 0, valid_keys, g);
  gpu::copy_async_commit();

  // Accumulator element i: key 64 wg + 16 warp + lane/4 + 8 ((i/2) % 2) of the
  // block (acc_key), column 8 (i/4) + 2 quad + i % 2.
  auto acc_key = [&](int i) { return wg * kTcWgRows + warp * 16 + lane / 4 + 8 * ((i / 2) % 2); };
  // The thread's two key rows (fragment rows r = 0, 1) as row pointers into the
  // [total_k, hq, D] accumulators, plus 2 quad: one 64-bit address per row, not
  // one per element (128 live addresses made ptxas spill).
  const std::int64_t acc_row = static_cast<std::int64_t>(p.hq) * D;
  auto acc_offset = [&](int r) {
    return (seq.k0 + key0 + acc_key(2 * r)) * acc_row + static_cast<std::int64_t>(h) * D + 2 * quad;
  };
  float ak[kAcc], av[kAcc];
#pragma unroll
  for (int i = 0; i < kAcc; ++i) ak[i] = av[i] = 0.0f;
  if (p.accum_k_in != nullptr) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      if (acc_key(2 * r) >= valid_keys) continue;
      const float* kin = p.accum_k_in + acc_offset(r);
      const float* vin = p.accum_v_in + acc_offset(r);
#pragma unroll
      for (int i = 0; i < kAcc; ++i) {
        if ((i / 2) % 2 != r) continue;
        ak[i] = kin[8 * (i / 4) + i % 2];
        av[i] = vin[8 * (i / 4) + i % 2];
      }
    }
  }

  // The tiles and row groups this block visits (§6).
  const int a0 = seq.lk - seq.lq;
  const int a_first = p.causal ? gpu::max_int(a0, key0) : a0;  // the first row with a member here
  const int a_last = a0 + seq.lq - 1;
  const int u_first = floor_div(a_first, kTcBwdRows), u_last = seq.lq > 0 ? floor_div(a_last, kTcBwdRows) : u_first - 1;
  const int u_seq0 = floor_div(a0, kTcBwdRows);

  auto sQ = [&](int buf) { return smem + Bl::kQ0 + buf * Bl::kQStageBytes; };
  auto sDo = [&](int buf) { return smem + Bl::kQ0 + buf * Bl::kQStageBytes + Bl::QTile::kBytes; };
  // Tile u's Q, dO rows into stage buf; rows outside the sequence are zero rows. Every tile
  // issues all four dV, dK row-group steps, where §6 visits only the groups from the block's
  // first attending row's to the sequence's last row's: a group outside that range holds only
  // rows outside the sequence (the first attending row is a0, or key0 — a multiple of 128, which
  // starts a tile), whose p and ds are +0 (tile_full), so its step adds +0 products and leaves
  // the accumulator's bits as they are (the model: zero terms take no part; an accumulator is
  // never -0). No wgmma runs under a run-time condition (§18).
  auto stage_q = [&](int u, int buf) {
    const int qi0 = u * kTcBwdRows - a0;
    const int first = gpu::max_int(0, -qi0), end = gpu::min_int(kTcBwdRows, seq.lq - qi0);
    tc_stage_tile_sw_unrolled<D, kTcBwdRows>(sQ(buf), p.q, p.q_stride, seq.q0 + qi0, first, end, h);
    tc_stage_tile_sw_unrolled<D, kTcBwdRows>(sDo(buf), p.dout, p.dout_stride, seq.q0 + qi0, first, end, h);
  };
  // The dK/dV pass copies lse and delta with Q and dO (4-byte cp.async, +0 outside the sequence);
  // Q and dO of a tile whose 64 rows all lie in the sequence by TMA when the maps exist (§27):
  // thread 0 expects their bytes on the stage's full barrier and issues the boxes, and every
  // thread's arrival on full follows (copy_async_mbarrier_arrive), as for cp.async.
  auto stage_tile = [&](int u, int buf) {
    const int qi0 = u * kTcBwdRows - a0;
    if (maps.q_dout && qi0 >= 0 && qi0 + kTcBwdRows <= seq.lq) {
      if (tid == 0) {
        gpu::fence_proxy_async_shared();  // the stage's earlier cp.async writes before TMA's
        gpu::mbarrier_expect_tx(full + buf, 2 * tc_tma_tile_bytes<D, kTcBwdRows>);
        tc_tma_tile<D, kTcBwdRows>(sQ(buf), maps.q, seq.q0 + qi0, h, full + buf);
        tc_tma_tile<D, kTcBwdRows>(sDo(buf), maps.dout, seq.q0 + qi0, h, full + buf);
      }
    } else {
      stage_q(u, buf);
    }
    if (tid < 2 * kTcBwdRows) {
      const int r = tid % kTcBwdRows, i = qi0 + r;
      const bool ok = i >= 0 && i < seq.lq;
      const float* src = tid < kTcBwdRows ? p.lse : p.delta;
      float* dst = (tid < kTcBwdRows ? sLse : sDelta) + buf * kTcBwdRows + r;
      gpu::copy_async_4_or_zero(dst, ok ? src + (seq.q0 + i) * p.hq + h : src, ok);
    }
  };
  if constexpr (kWithDq) {
    if (u_first <= u_last) stage_q(u_first, 0);
    gpu::copy_async_commit();
    if (u_first + 1 <= u_last) stage_q(u_first + 1, 1);
    gpu::copy_async_commit();
  } else {
    for (int j = 0; j < Bl::kQStages - 1 && u_first + j <= u_last; ++j) {
      stage_tile(u_first + j, j);
      gpu::copy_async_mbarrier_arrive(full + j);
    }
  }

  // Descriptors. K-major operands (k16 step: +256 B): K, V rows of this
  // warpgroup as A; Q, dO as B of S^T, dP^T; dS^ as A of dQ. N-major B
  // (K = rows or keys: +2 row groups a step): dO, Q of dV, dK; K of dQ.
  // (TcSwTile: K-major SBO 1024 B and k16 step k_step(kk); MN-major LBO one panel, SBO 1024 B, a
  // k16 step 16 rows.) K as B of dQ starts at this warpgroup's first column wg * D/2: a panel,
  // or (D = 64) 64 bytes into one — the swizzle applies to the whole address either way.
  using KT = typename Bl::KTile;
  using QT = typename Bl::QTile;
  using DsT = typename Bl::DsTile;
  const std::uint64_t dKa = gpu::smem_descriptor_sw128(smem + Bl::kK + wg * kTcWgRows * 128, KT::kPanelBytes, KT::kAtomBytes);
  const std::uint64_t dVa = gpu::smem_descriptor_sw128(smem + Bl::kV + wg * kTcWgRows * 128, KT::kPanelBytes, KT::kAtomBytes);
  const std::uint64_t dDsA = gpu::smem_descriptor_sw128(sDs, DsT::kPanelBytes, DsT::kAtomBytes);
  const int n0 = wg * kDqN;  // the warpgroup's first dQ column
  const std::uint64_t dKn = gpu::smem_descriptor_sw128(smem + Bl::kK + (n0 / 64) * KT::kPanelBytes + (n0 % 64) * 2,
                                                       KT::kPanelBytes, KT::kAtomBytes);
  constexpr std::uint64_t kStepRows = KT::kKeyStep;  // 16 rows of an MN-major operand (any tile: 16 x 128 B)
  static_assert(KT::kKeyStep == QT::kKeyStep, "one row step for every MN-major tile");

  // §5.2 s and dp of the tile in stage buf: fresh chains over d, each its own commit group.
  float st[kSt], dpt[kSt];
  auto issue_chain = [&](float (&acc)[kSt], std::uint64_t a, char* b_tile) {
    const std::uint64_t b = gpu::smem_descriptor_sw128(b_tile, QT::kPanelBytes, QT::kAtomBytes);
#pragma unroll
    for (int i = 0; i < kSt; ++i) {
      acc[i] = 0.0f;
      gpu::fence_operand(acc[i]);
    }
    gpu::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) gpu::wgmma_ss<kFmt, kTcBwdRows>(acc, a + KT::k_step(kk), b + QT::k_step(kk), kk > 0);
    gpu::wgmma_commit();
  };
  auto issue_s = [&](int buf) { issue_chain(st, dKa, sQ(buf)); };
  auto issue_dp = [&](int buf) { issue_chain(dpt, dVa, sDo(buf)); };

  // p and ds of tile u (S^T in st, dP^T in dpt), packed into the A fragments of the dV, dK steps:
  // register j of row-group step kk is (x[8kk + 2j], x[8kk + 2j + 1]).
  std::uint32_t pa[kTcBwdGroups][4], da[kTcBwdGroups][4];
  // Fragment row = key, fragment column = query row of the tile; +0 for non-members.
  // `masked` as in the forward's softmax: false when the tile's 64 rows all lie in the sequence
  // and each sees the whole key block (its first row does: lists grow with the row), where every
  // element is a member; otherwise a non-member's exp argument is -inf (exp = +0 in both
  // libms, the value §5.2 gives it) and its ds is selected to +0 — branch-free, same bits. A row
  // outside the sequence is a non-member: its p and ds are +0 whatever K and V hold, so its
  // products in the dV, dK steps are +0 (stage_q).
  auto tile_full = [&](int qi0) {
    return qi0 >= 0 && qi0 + kTcBwdRows <= seq.lq &&
           key0 + kTcKeys <= dense_list_length(qi0, seq.lq, seq.lk, p.causal);
  };
  auto member = [&](auto masked, int qi0, int i) {
    if constexpr (decltype(masked)::value) {
      const int col = 8 * (i / 4) + 2 * quad + i % 2, qi = qi0 + col;
      const int n = qi >= 0 && qi < seq.lq ? dense_list_length(qi, seq.lq, seq.lk, p.causal) : 0;
      return key0 + acc_key(i) < n;
    } else {
      return true;
    }
  };
  // §25 base 2 (nvcc-fast): exp2(fma(s, c, -mul(lse, log2 e))), c = mul(scale, log2 e) — one fma and
  // one MUFU.EX2 an element, the lse product once per column.
  [[maybe_unused]] const float c2 = mul_rn(p.scale, log2e());
  auto p_of = [&](int qi0, const float* lse_t) {
    auto body = [&](auto masked) {
      if constexpr (base2_softmax<L>) {
        // Element i = 4 c + 2 r + e is column 8 c + 2 quad + e of row group r: the product
        // -mul(lse, L2E) once per column (16 a thread), for its two elements.
#pragma unroll
        for (int c = 0; c < kSt / 4; ++c)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const float neg_lse2 = -mul_rn(lse_t[8 * c + 2 * quad + e], log2e());
#pragma unroll
            for (int r = 0; r < 2; ++r) {
              const int i = 4 * c + 2 * r + e;
              st[i] = L::exp2(member(masked, qi0, i) ? fma_rn(st[i], c2, neg_lse2) : fp::from_bits(0xff800000u));
            }
          }
      } else {
#pragma unroll
        for (int i = 0; i < kSt; ++i) {
          const int col = 8 * (i / 4) + 2 * quad + i % 2;
          const float t = sub_rn(mul_rn(st[i], p.scale), lse_t[col]);
          st[i] = L::exp(member(masked, qi0, i) ? t : fp::from_bits(0xff800000u));
        }
      }
    };
    if (tile_full(qi0)) body(std::false_type{});
    else body(std::true_type{});
#pragma unroll
    for (int kk = 0; kk < kTcBwdGroups; ++kk)
#pragma unroll
      for (int j = 0; j < 4; ++j) pa[kk][j] = gpu::pack2<kFmt>(st[8 * kk + 2 * j], st[8 * kk + 2 * j + 1]);
  };
  // ds = p (dp - delta) (p = +0 for non-members gives ds = +0 x finite: selected to +0 anyway).
  auto ds_of = [&](int qi0, const float* delta_t) {
    auto body = [&](auto masked) {
#pragma unroll
      for (int i = 0; i < kSt; ++i) {
        const int col = 8 * (i / 4) + 2 * quad + i % 2;
        const float ds = mul_rn(st[i], sub_rn(dpt[i], delta_t[col]));
        dpt[i] = member(masked, qi0, i) ? ds : 0.0f;
      }
    };
    if (tile_full(qi0)) body(std::false_type{});
    else body(std::true_type{});
#pragma unroll
    for (int kk = 0; kk < kTcBwdGroups; ++kk)
#pragma unroll
      for (int j = 0; j < 4; ++j) da[kk][j] = gpu::pack2<kFmt>(dpt[8 * kk + 2 * j], dpt[8 * kk + 2 * j + 1]);
  };
  // §6 dV += P^^T dO, dK += dS^^T Q: one wgmma k16 step per row group, scale-d = 1, one commit
  // group (every tile all four groups: stage_q says why that keeps the bits).
  auto issue_dkdv = [&](int buf) {
    const std::uint64_t dDon = gpu::smem_descriptor_sw128(sDo(buf), QT::kPanelBytes, QT::kAtomBytes);
    const std::uint64_t dQn = gpu::smem_descriptor_sw128(sQ(buf), QT::kPanelBytes, QT::kAtomBytes);
#pragma unroll
    for (int i = 0; i < kAcc; ++i) {
      gpu::fence_operand(av[i]);
      gpu::fence_operand(ak[i]);
    }
    gpu::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kTcBwdGroups; ++kk) gpu::wgmma_rs<kFmt, D, 1>(av, pa[kk], dDon + kk * kStepRows, 1);
#pragma unroll
    for (int kk = 0; kk < kTcBwdGroups; ++kk) gpu::wgmma_rs<kFmt, D, 1>(ak, da[kk], dQn + kk * kStepRows, 1);
    gpu::wgmma_commit();
  };
  auto fence_dkdv = [&] {
#pragma unroll
    for (int i = 0; i < kAcc; ++i) {
      gpu::fence_operand(av[i]);
      gpu::fence_operand(ak[i]);
    }
  };
  auto fence_chain = [&](float (&acc)[kSt]) {
#pragma unroll
    for (int i = 0; i < kSt; ++i) gpu::fence_operand(acc[i]);
  };

  if constexpr (!kWithDq) {
    // The dK/dV pass, pipelined within the warpgroup: tile u + 1's S^T is issued behind tile u's
    // dV, dK steps and its dP^T as soon as they have landed, so the tensor cores go from one
    // tile to the next while the warpgroup waits; p of u + 1 is computed under dP^T of u + 1.
    // Commit groups in issue order: ..., dKdV(u), S(u + 1), dP(u + 1), dKdV(u + 1), ...
    // Stages by mbarriers, not block barriers: tile u waits for full[u % 4] (phase u / 4: every
    // thread's copies of it, and of K and V); once the warp's dV, dK steps of tile u have landed
    // it arrives on empty[u % 4]; each thread then copies tile u + 3 into stage (u + 3) % 4 once
    // every warp has arrived on that stage's empty for tile u - 1, and arrives on its full. Tile
    // u + 1 is waited for at the start of tile(u), so u + 3 is the copy a whole tile ahead of its
    // use (with u + 2, 3 stages, the copies of u + 1 were issued just before it was waited for:
    // 13 % of the stall samples on that wait, H100). The two warpgroups meet only at the empty
    // waits: one may run up to two tiles ahead of the other. The last tile is peeled off (a
    // compile-time `next`: no wgmma under a run-time condition, §18).
    auto wait_full = [&](int j) {
      gpu::mbarrier_wait(full + j % Bl::kQStages, (j / Bl::kQStages) & 1);
      gpu::fence_proxy_async_shared();
    };
    // tile(u): tile u's dV, dK steps (its p and ds in pa, da), then — when there is a tile u + 1
    // (compile-time) — that tile's S^T, dP^T, p and ds. Nothing is in flight from one call to the
    // next (ptxas serializes every wgmma when a loop's back edge carries one, C7514).
    // §21: D^S of tile u to the stored tile (seq, u - u_seq0, kb, h) when the dq pass reads it
    // back. Register j of step kk holds keys acc_key(2 j) and query rows c, c + 1 with c = 16 kk +
    // 8 (j / 2) + 2 quad: one 4-byte word of the key's 128-byte row. Rows outside the sequence and
    // non-members hold +0, as the recomputing pass's dS.
    // The stored tile is not swizzled (the dq pass swizzles as it copies), so all 16 stores take
    // constant offsets from one address: a swizzled store needed 8 addresses, and the stall on
    // reusing their registers took 10 % of the pass's stall samples (H100, §21).
    auto store_ds = [&](int u) {
      char* row = tc_ds_tile(p, seq_index, u - u_seq0, kb, h) + acc_key(0) * 128 + 4 * quad;
#pragma unroll
      for (int kk = 0; kk < kTcBwdGroups; ++kk)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          *reinterpret_cast<std::uint32_t*>(row + 8 * 128 * (j % 2) + ((2 * kk + j / 2) << 4)) = da[kk][j];
    };
    // §28: the same words by TMA when the map exists — each warpgroup writes its 64 key rows of the
    // tile into its half of the (otherwise unused) dS^ region as TcDsTile lays them out (128-byte
    // swizzle: a warp's 4-byte stores of one register fall in 32 distinct banks), and its first
    // thread stores the half with one box. The half is reused a tile later: that thread waits for
    // the previous box to have read it before the warpgroup's first barrier, and the second
    // barrier (after every writer's proxy fence) precedes the issue. The bytes in global memory
    // are the 16 stores' above.
    char* const ds_half = sDs + wg * (TcDsTile::kBytes / 2);
    const bool wg_issuer = tid % 128 == 0;
    auto store_ds_tma = [&](int u) {
      if (wg_issuer) gpu::bulk_wait_group_read<0>();
      gpu::named_barrier_sync(kTcDsBarrier + wg, 128);
      const int key = warp * 16 + lane / 4;  // the register's key row in the half (+ 8 for odd j)
#pragma unroll
      for (int kk = 0; kk < kTcBwdGroups; ++kk)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          *reinterpret_cast<std::uint32_t*>(ds_half + TcDsTile::offset(key + 8 * (j % 2), 2 * kk + j / 2) + 4 * quad) =
              da[kk][j];
      gpu::fence_proxy_async_shared();  // st.shared before the TMA store reads it
      gpu::named_barrier_sync(kTcDsBarrier + wg, 128);
      if (wg_issuer) {
        const std::int64_t tile = tc_ds_tile_index(p, seq_index, u - u_seq0, kb, h);
        gpu::tma_store_3d(&maps.ds_half, 0, 0, static_cast<int>(tile * kTcKeys + wg * kTcWgRows), ds_half);
        gpu::bulk_commit_group();
      }
    };
    auto s_dp_of = [&](int j) {  // S^T, dP^T of tile u_first + j issued; p, ds into pa, da
      const int buf = j % Bl::kQStages, qi0 = (u_first + j) * kTcBwdRows - a0;
      gpu::wgmma_wait<1>();  // S^T has landed
      fence_chain(st);
      p_of(qi0, sLse + buf * kTcBwdRows);
      gpu::wgmma_wait<0>();  // dP^T has landed
      fence_chain(dpt);
      ds_of(qi0, sDelta + buf * kTcBwdRows);
      if (p.ds_workspace != nullptr) {
        if (maps.ds_halves) store_ds_tma(u_first + j);
        else store_ds(u_first + j);
      }
    };
    auto tile = [&](int u, auto next_c) {
      const int j = u - u_first, buf = j % Bl::kQStages;
      if constexpr (decltype(next_c)::value) wait_full(j + 1);
      issue_dkdv(buf);
      if constexpr (decltype(next_c)::value) {
        issue_s((j + 1) % Bl::kQStages);
        gpu::wgmma_wait<1>();  // the dV, dK steps of tile u have landed (S^T of u + 1 may not)
      } else {
        gpu::wgmma_wait<0>();
      }
      fence_dkdv();
#pragma unroll
      for (int kk = 0; kk < kTcBwdGroups; ++kk)
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          gpu::fence_operand(pa[kk][i]);
          gpu::fence_operand(da[kk][i]);
        }
      if (lane == 0) gpu::mbarrier_arrive(empty + buf);  // this warp is done with tile u's stage
      if constexpr (decltype(next_c)::value) {
        issue_dp((j + 1) % Bl::kQStages);
        s_dp_of(j + 1);
      }
      if (u + 3 <= u_last) {
        const int next = (j + 3) % Bl::kQStages;  // tile u - 1's stage
        if (j >= 1) gpu::mbarrier_wait(empty + next, ((j - 1) / Bl::kQStages) & 1);
        stage_tile(u + 3, next);
        gpu::copy_async_mbarrier_arrive(full + next);
      }
    };
    // One region from the first issue to the last wait: every path out of it has no wgmma in flight.
    if (u_first <= u_last) {
      wait_full(0);
      issue_s(0);
      issue_dp(0);
      s_dp_of(0);
      for (int u = u_first; u < u_last; ++u) tile(u, std::true_type{});
      tile(u_last, std::false_type{});
    }
    if (p.ds_workspace != nullptr && maps.ds_halves && wg_issuer) gpu::bulk_wait_group<0>();  // no store outlives the block
  } else {
    // The one-pass form: one block barrier per tile (and its dS^ and flag barriers), after which:
    //   - every thread's copies of tile u and its lse, delta are visible to every thread;
    //   - every thread has finished tile u - 1 (its wgmmas waited for), so stage (u + 2) % 4 —
    //     tile u - 2's — may be refilled, which is why tile u + 2's copies are issued after it;
    //   - lse, delta of tile u were written into slot u % 4 before it, whose last reader, tile
    //     u - 4, every thread finished before the barrier of tile u - 3.
    // cp.async groups: K/V, tile u_first, tile u_first + 1, then one per tile (tile u + 2, maybe
    // empty): at tile u the newest is tile u + 1's, so wait_group 1 has tile u's.
    for (int u = u_first; u <= u_last; ++u) {
      const int j = u - u_first, buf = j % Bl::kQStages;
      float* lse_t = sLse + buf * kTcBwdRows;
      float* delta_t = sDelta + buf * kTcBwdRows;
      const int qi0 = u * kTcBwdRows - a0;  // the sequence row of tile row 0
      if (tid < kTcBwdRows) {
        const int i = qi0 + tid;
        const bool ok = i >= 0 && i < seq.lq;
        lse_t[tid] = ok ? p.lse[(seq.q0 + i) * p.hq + h] : 0.0f;
        delta_t[tid] = ok ? p.delta[(seq.q0 + i) * p.hq + h] : 0.0f;
      }
      gpu::copy_async_wait<1>();  // K, V and this tile's Q, dO have landed for this thread
      gpu::fence_proxy_async_shared();
      gpu::block_barrier();
      if (u + 2 <= u_last) stage_q(u + 2, (buf + 2) % Bl::kQStages);
      gpu::copy_async_commit();

      // S^T and dP^T issued back to back: p is computed from S^T while dP^T is on the tensor cores.
      issue_s(buf);
      issue_dp(buf);
      gpu::wgmma_wait<1>();  // S^T has landed
      fence_chain(st);
      p_of(qi0, lse_t);
      gpu::wgmma_wait<0>();  // dP^T has landed
      fence_chain(dpt);
      ds_of(qi0, delta_t);
      // dS^ to shared memory as [query row][key] (core matrices, K = keys): element
      // 8kk + 2j + e is query row 16kk + 8 (j/2) + 2 quad + e, key acc_key(2j).
#pragma unroll
      for (int kk = 0; kk < kTcBwdGroups; ++kk)
#pragma unroll
        for (int j2 = 0; j2 < 4; ++j2)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int r = 16 * kk + 8 * (j2 / 2) + 2 * quad + e, k = acc_key(2 * j2);
            const int off = DsT::offset(r, k / 8) + (k % 8) * 2;
            *reinterpret_cast<std::uint16_t*>(sDs + off) = static_cast<std::uint16_t>(da[kk][j2] >> (16 * e));
          }
      issue_dkdv(buf);
      gpu::wgmma_wait<0>();
      fence_dkdv();

      // dS^ to the dQ GEMM, the partial handed on (the next tile's barrier orders every reuse).
      gpu::fence_proxy_async_shared();  // dS^ (st.shared) before wgmma reads it
      gpu::block_barrier();             // ... from both warpgroups

      // §5.3 the block's dq partial: a fresh chain over its 8 k16 key groups.
      float dqp[kDq];
#pragma unroll
      for (int i = 0; i < kDq; ++i) {
        dqp[i] = 0.0f;
        gpu::fence_operand(dqp[i]);
      }
      gpu::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kTcKeys / 16; ++kk)
        gpu::wgmma_ss<kFmt, kDqN, 1>(dqp, dDsA + DsT::k_step(kk), dKn + kk * kStepRows, kk > 0);
      gpu::wgmma_commit();
      gpu::wgmma_wait<0>();
#pragma unroll
      for (int i = 0; i < kDq; ++i) gpu::fence_operand(dqp[i]);

      // dq_acc = add(dq_acc, partial) for the rows that visit this block, key blocks in order.
      int* flag = tc_dq_flag(p, seq.q0, u - u_seq0, h);
      if (tid == 0) {
        while (gpu::load_acquire_agent(flag) < kb) {
        }
      }
      gpu::block_barrier();
#pragma unroll
      for (int rr = 0; rr < 2; ++rr) {  // the thread's two query rows of the tile
        const int qi = qi0 + warp * 16 + lane / 4 + 8 * rr;
        if (!(qi >= 0 && qi < seq.lq && dense_list_length(qi, seq.lq, seq.lk, p.causal) > key0)) continue;
        float* row = p.dq_accum + ((seq.q0 + qi) * p.hq + h) * D + wg * kDqN + 2 * quad;
#pragma unroll
        for (int i = 0; i < kDq; i += 2) {
          if ((i / 2) % 2 != rr) continue;
          float x, y;
          gpu::load_coherent2(row + 8 * (i / 4), x, y);
          gpu::store_coherent2(row + 8 * (i / 4), add_rn(x, dqp[i]), add_rn(y, dqp[i + 1]));
        }
      }
      gpu::fence_agent();
      gpu::block_barrier();  // every thread's part is stored and fenced; dS^, Q, dO of this tile are consumed
      if (tid == 0) gpu::store_release_agent(flag, kb + 1);
    }
  }
  gpu::copy_async_wait<0>();  // no copy outlives the block

  // Elements i, i + 1 are adjacent columns: one 8-byte store of the pair when both workspaces are
  // 8-aligned (the launcher's are), half the store instructions of 4-byte ones, whose queue held
  // 13 % of the dK/dV pass's stall samples at its end (ncu, H100, §27).
  const bool pairs = ((reinterpret_cast<std::uintptr_t>(p.accum_k) | reinterpret_cast<std::uintptr_t>(p.accum_v)) & 7u) == 0;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    if (acc_key(2 * r) >= valid_keys) continue;
    float* kout = p.accum_k + acc_offset(r);
    float* vout = p.accum_v + acc_offset(r);
#pragma unroll
    for (int i = 0; i < kAcc; i += 2) {
      if ((i / 2) % 2 != r) continue;
      if (pairs) {
        gpu::store_coherent2(kout + 8 * (i / 4), ak[i], ak[i + 1]);
        gpu::store_coherent2(vout + 8 * (i / 4), av[i], av[i + 1]);
      } else {
        kout[8 * (i / 4)] = ak[i];
        kout[8 * (i / 4) + 1] = ak[i + 1];
        vout[8 * (i / 4)] = av[i];
        vout[8 * (i / 4) + 1] = av[i + 1];
      }
    }
  }
}

}  // namespace samebits::kernels::attention::cuda
