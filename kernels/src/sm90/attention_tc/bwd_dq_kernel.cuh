// kernels/src/sm90/attention_tc/bwd_dq_kernel.cuh — the dq pass of the
// sm90-tensor-core backward (docs/kernels/attention-tc.md §5.3, §14): dq for
// a tile of 128 query positions, its key blocks walked in ascending order
// inside one block, so dq's ordered accumulation needs no flags, no other
// block and no global read-modify-write. The dK/dV pass
// (attention_tc_bwd_kernel<..., kWithDq = false>) runs beside it; together
// they recompute S and dP twice (7 GEMMs where the one-pass backward has 5)
// to drop the key blocks' hand-over of dq (about 40 % of the one-pass
// backward's stall samples, attention-tc.md §18).
//
// One block: the forward's shape (attention_tc_fwd_kernel.cuh): consumer
// warpgroups 0 and 1 hold query positions 128 t + 64 w .. + 63 (one wgmma
// m64), warpgroup 2 (the producer) copies K and V of each key block into one
// of two stages (mbarriers full / empty). Tiles are aligned at positions, so
// every valid row of a tile visits the same key blocks (§3); rows outside the
// sequence are zero rows of Q and dO whose results are never stored.
//
// Per key block b, in two halves of 64 keys (registers: S and dP of one half
// beside dq's accumulator and the block's partial):
//   S^h = Q K_h^T, dP^h = dO V_h^T  D/16 wgmma m64n64k16 over d, fresh (§5.2;
//                                   an element's chain does not depend on N)
//   p = exp(s scale - lse), ds = p (dp - delta) for members, +0 otherwise
//                                   (the one-pass kernel's very operations)
//   dS^ = cvt.rn(ds) in registers   the S fragment's layout is wgmma's A
//                                   fragment's (§11.6), as P^ in the forward
//   partial = dS^ K                 8 wgmma m64nDk16 over the block's k16 key
//                                   groups in order, A from registers, B = K
//                                   N-major (the forward's P V reading); the
//                                   first with scale-d = 0 (§5.3: fresh)
//   dq_acc = add(dq_acc, partial)   for rows whose list reaches block b —
//                                   the one-pass kernel's adds, in the same
//                                   order of key blocks, from +0
// Then every valid row's dq = z(mul(dq_acc, scale)) (§7; +0 for rows that
// visit no block), rounded once to the gradient dtype, straight to p.dq: the
// pass is the one writer of each row's dq, so no fp32 workspace and no finish
// kernel lie between (they cost 63 us and 96 MB of traffic at Qwen3-8B's
// S = 4096, attention-tc.md §26).
#pragma once

#include <type_traits>

#include "sm90/attention_tc/fwd_kernel.cuh"

namespace samebits::kernels::attention::cuda {

// The library's backward is two passes (dK/dV, then this dq pass); the one-pass form (dq handed
// on between key blocks by flags) is the main kernel's kWithDq, exercised by the emulated tests.
inline constexpr bool kTcBwdTwoPass = true;

// Registers: ptxas -v spills at D = 128 (bytes stored / loaded): 232/40 32 / 72, 224/56 88 / 112,
// 240/24 76 / 76; D = 64 none.
inline constexpr int kTcDqConsumerRegs = 232, kTcDqProducerRegs = 40;
static_assert(kTcThreads * kTcDqConsumerRegs + kTcProducerThreads * kTcDqProducerRegs <=
                  tc_block_register_pool(kTcFwdThreads),
              "the split fits the block's registers");
inline constexpr int kTcHalfKeys = kTcKeys / 2;  // keys per S/dP step (N of m64n64k16)

// Q, dO [128 x D] (the consumers copy them, mbarrier q_full) and two stages
// of K, V [128 x D]: swizzled tiles from a 1024-aligned base.
template <int D>
struct TcDqLayout {
  using Tile = TcSwTile<D, kTcKeys>;
  static_assert(kTcRows == kTcKeys, "Q, dO and K/V tiles share one tile shape");
  static constexpr int kStages = 2;
  static constexpr int kQ = 0, kDo = Tile::kBytes, kStage0 = 2 * Tile::kBytes, kStageBytes = 2 * Tile::kBytes;
  static constexpr int kFull = kStage0 + kStages * kStageBytes, kEmpty = kFull + 8 * kStages,
                       kQFull = kEmpty + 8 * kStages;
  static constexpr int kAlign = 1024;
  static constexpr int kBytes = kQFull + 8 + kAlign;
  static_assert(kBytes <= 227 * 1024, "Q, dO and two K/V stages fit an sm_90 block's shared memory");
  static_assert(kFull <= (1 << 18), "stage offsets step a descriptor's 14-bit address field");
};

// dq of a dq-pass thread's two rows (tile rows row0 and row0 + 8, the fragment rows of its m64nD
// accumulator): z(mul(dq_acc, scale)) rounded once to the gradient dtype, for every valid row
// (q_first <= row < q_end) — the finish attention_bwd_dq_finish_kernel applies to the workspace
// (§5.3, §7), here from registers. Element i: column 8 (i/4) + 2 quad + i % 2 of row row0 + 8 ((i/2) % 2).
template <int D>
SAMEBITS_DEVICE_FUNC void tc_store_dq(const BackwardParams& p, const Sequence& seq, int qi0, int q_first, int q_end,
                                      int h, int row0, int quad, const float (&acc)[D / 2]) {
  // Elements i, i + 1 are adjacent columns (2 quad + 8 (i / 4), + 1): one store of the pair when the
  // tensor allows (even strides, base aligned to two elements), half the instructions (§27).
  const bool pairs = p.dq_stride.row % 2 == 0 && p.dq_stride.head % 2 == 0 &&
                     reinterpret_cast<std::uintptr_t>(p.dq) % (p.grad_dtype == DType::f32 ? 8u : 4u) == 0;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int j = row0 + 8 * r;
    if (j < q_first || j >= q_end) continue;
    const std::int64_t row = (seq.q0 + qi0 + j) * p.dq_stride.row + static_cast<std::int64_t>(h) * p.dq_stride.head;
#pragma unroll
    for (int i = 0; i < D / 2; i += 2) {
      if ((i / 2) % 2 != r) continue;
      const std::int64_t e = row + 8 * (i / 4) + 2 * quad;
      const float x = zero_canonical(mul_rn(acc[i], p.scale)), y = zero_canonical(mul_rn(acc[i + 1], p.scale));
      if (pairs) {
        store_pair_from_f32(p.dq, p.grad_dtype, e, x, y);
      } else {
        store_from_f32(p.dq, p.grad_dtype, e, x);
        store_from_f32(p.dq, p.grad_dtype, e + 1, y);
      }
    }
  }
}

template <int D, class L, DType In>
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kTcFwdThreads, 1) attention_tc_bwd_dq_kernel(
    const BackwardParams p, const SAMEBITS_GRID_CONSTANT TcMaps maps) {
  using Ly = TcDqLayout<D>;
  using Tile = typename Ly::Tile;
  constexpr auto kFmt = tc::format_of(In);
  constexpr int kDv = D / 2;             // dq accumulator / partial registers (m64nD)
  constexpr int kSh = kTcHalfKeys / 2;   // S, dP registers of one half (m64n64)
  constexpr int kKk = kTcHalfKeys / 16;  // k16 key groups per half
  extern SAMEBITS_SHARED float4 smem4[];
  char* smem = align_shared_1024(reinterpret_cast<char*>(smem4));

  const Sequence seq = sequence_of(p, gpu::blockIdx.z);
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

  char* sQ = smem + Ly::kQ;
  char* sDo = smem + Ly::kDo;
  auto sK = [&](int st) { return smem + Ly::kStage0 + st * Ly::kStageBytes; };
  auto sV = [&](int st) { return smem + Ly::kStage0 + st * Ly::kStageBytes + Tile::kBytes; };
  auto bar = [&](int offset, int st) { return reinterpret_cast<std::uint64_t*>(smem + offset + 8 * st); };
  if (tid == 0) tc_init_stage_barriers<Ly::kStages>(bar(Ly::kFull, 0), bar(Ly::kEmpty, 0), bar(Ly::kQFull, 0));
  gpu::block_barrier();  // the last block-wide barrier: the roles part here

  // The producer: K, V of block b into stage b % 2 (the forward's tc_produce_kv).
  if (wg == kTcWarpgroups) {
    gpu::setmaxnreg_dec<kTcDqProducerRegs>();
    tc_produce_kv<D, Ly::kStages>(p, maps, seq, g, blocks, smem + Ly::kStage0, Ly::kStageBytes, bar(Ly::kFull, 0),
                                  bar(Ly::kEmpty, 0));
    return;
  }
  gpu::setmaxnreg_inc<kTcDqConsumerRegs>();

  // This thread's two rows (fragment rows lane/4 and lane/4 + 8 of its warp's 16): list
  // length (0 outside the sequence), lse and delta (0 outside: p and ds stay finite there).
  auto tile_row = [&](int r) { return wg * kTcWgRows + warp * 16 + lane / 4 + 8 * r; };
  int n[2];
  float lse[2], delta[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int j = tile_row(r);
    const bool ok = j >= q_first && j < q_end;
    const std::int64_t row = (seq.q0 + qi0 + j) * p.hq + h;
    n[r] = ok ? dense_list_length(qi0 + j, seq.lq, seq.lk, p.causal) : 0;
    lse[r] = ok ? p.lse[row] : 0.0f;
    delta[r] = ok ? p.delta[row] : 0.0f;
  }
  // §25 base 2 (nvcc-fast): c = mul(scale, log2 e) and mul(lse, log2 e), once a row.
  [[maybe_unused]] const float c2 = mul_rn(p.scale, log2e());
  [[maybe_unused]] const float lse2[2] = {mul_rn(lse[0], log2e()), mul_rn(lse[1], log2e())};

  float acc[kDv];
#pragma unroll
  for (int i = 0; i < kDv; ++i) acc[i] = 0.0f;

  if (blocks > 0) {
    tc_stage_tile_sw<D>(sQ, p.q, p.q_stride, seq.q0 + qi0, q_first, q_end, h);
    tc_stage_tile_sw<D>(sDo, p.dout, p.dout_stride, seq.q0 + qi0, q_first, q_end, h);
    gpu::copy_async_mbarrier_arrive(bar(Ly::kQFull, 0));
    gpu::mbarrier_wait(bar(Ly::kQFull, 0), 0);

    // Descriptors (TcSwTile): Q, dO as A and K, V rows of one half as B, K-major over d (k16 step
    // Tile::k_step); K as B of the partial, N-major (N = d, K = keys: the forward's V reading,
    // k16 step kKeyStep) — the same descriptor as K's K-major one (LBO one panel, SBO 1024 B),
    // the wgmma's transpose flag choosing the reading. Stage st adds st * kStageBytes, half hf
    // 64 rows (8 KiB: whole swizzle atoms) to the start address field (>> 4).
    const std::uint64_t dQa = gpu::smem_descriptor_sw128(sQ + wg * kTcWgRows * 128, Tile::kPanelBytes, Tile::kAtomBytes);
    const std::uint64_t dDoa = gpu::smem_descriptor_sw128(sDo + wg * kTcWgRows * 128, Tile::kPanelBytes, Tile::kAtomBytes);
    const std::uint64_t dKb = gpu::smem_descriptor_sw128(sK(0), Tile::kPanelBytes, Tile::kAtomBytes);
    const std::uint64_t dVb = gpu::smem_descriptor_sw128(sV(0), Tile::kPanelBytes, Tile::kAtomBytes);
    constexpr std::uint64_t kStepStage = Ly::kStageBytes >> 4, kStepHalf = (kTcHalfKeys * 128) >> 4;
    const int n_first = dense_list_length(qi0 + q_first, seq.lq, seq.lk, p.causal);

    for (int b = 0; b < blocks; ++b) {
      const int st = b % Ly::kStages;
      gpu::mbarrier_wait(bar(Ly::kFull, st), (b / Ly::kStages) & 1);
      gpu::fence_proxy_async_shared();
      const std::uint64_t stage = static_cast<std::uint64_t>(st) * kStepStage;
      // Block b is whole for every valid row when its last key is in the first valid row's list.
      const bool whole = (b + 1) * kTcKeys <= n_first;
      float part[kDv];
#pragma unroll
      for (int i = 0; i < kDv; ++i) part[i] = 0.0f;
#pragma unroll
      for (int hf = 0; hf < 2; ++hf) {
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
#pragma unroll
        for (int i = 0; i < kSh; ++i) gpu::fence_operand(s[i]);
        // Element i: row (i/2) % 2 of the thread, key b*128 + 64 hf + 8 (i/4) + 2 quad + i % 2.
        // Non-members (masked form): exp(-inf) = +0 and ds selected to +0, branch-free, the
        // values §5.2 gives them (the one-pass kernel's form).
        auto member = [&](auto masked, int i) {
          if constexpr (decltype(masked)::value)
            return b * kTcKeys + hf * kTcHalfKeys + 8 * (i / 4) + 2 * quad + i % 2 < n[(i / 2) % 2];
          else
            return true;
        };
        auto p_of = [&](auto masked) {
#pragma unroll
          for (int i = 0; i < kSh; ++i) {
            if constexpr (base2_softmax<L>) {  // §25: exp2(fma(s, c, -mul(lse, log2 e)))
              const float t_ = fma_rn(s[i], c2, -lse2[(i / 2) % 2]);
              s[i] = L::exp2(member(masked, i) ? t_ : fp::from_bits(0xff800000u));
            } else {
              const float t_ = sub_rn(mul_rn(s[i], p.scale), lse[(i / 2) % 2]);
              s[i] = L::exp(member(masked, i) ? t_ : fp::from_bits(0xff800000u));
            }
          }
        };
        if (whole) p_of(std::false_type{});
        else p_of(std::true_type{});
        gpu::wgmma_wait<0>();  // dP of this half has landed
#pragma unroll
        for (int i = 0; i < kSh; ++i) gpu::fence_operand(dp[i]);
        auto ds_of = [&](auto masked) {
#pragma unroll
          for (int i = 0; i < kSh; ++i) {
            const float ds = mul_rn(s[i], sub_rn(dp[i], delta[(i / 2) % 2]));
            dp[i] = member(masked, i) ? ds : 0.0f;
          }
        };
        if (whole) ds_of(std::false_type{});
        else ds_of(std::true_type{});
        // dS^: register j of k16 step kk is (ds[8kk + 2j], ds[8kk + 2j + 1]) — wgmma's A fragment.
        std::uint32_t da[kKk][4];
#pragma unroll
        for (int kk = 0; kk < kKk; ++kk)
#pragma unroll
          for (int j = 0; j < 4; ++j) da[kk][j] = gpu::pack2<kFmt>(dp[8 * kk + 2 * j], dp[8 * kk + 2 * j + 1]);
        // §5.3 the partial: the block's k16 key groups 4 hf .. 4 hf + 3 of its one chain.
#pragma unroll
        for (int i = 0; i < kDv; ++i) gpu::fence_operand(part[i]);
        gpu::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < kKk; ++kk)
          gpu::wgmma_rs<kFmt, D, 1>(part, da[kk], dKb + stage + (hf * kKk + kk) * Tile::kKeyStep, (hf > 0 || kk > 0) ? 1 : 0);
        gpu::wgmma_commit();
        // The next half's S and dP are issued behind this; its wait<1> retires this group first,
        // and its wait<0> (before its dS^ is packed into da) every group that reads da.
      }
      gpu::wgmma_wait<0>();  // the partial has landed: this warp is done with block b's stage
      if (lane == 0) gpu::mbarrier_arrive(bar(Ly::kEmpty, st));
#pragma unroll
      for (int i = 0; i < kDv; ++i) gpu::fence_operand(part[i]);
#pragma unroll
      for (int i = 0; i < kDv; ++i)
        acc[i] = b * kTcKeys < n[(i / 2) % 2] ? add_rn(acc[i], part[i]) : acc[i];
    }
  }

  tc_store_dq<D>(p, seq, qi0, q_first, q_end, h, tile_row(0), quad, acc);
}

}  // namespace samebits::kernels::attention::cuda
