// kernels/src/portable/sparse_mla/bwd_streamed_kernel.cuh — the sparse MLA
// backward's token kernel for 16-bit inputs, streamed: the same operations in
// the same order as sparse_mla_bwd_token_kernel (sparse_mla.md §4; the bits
// are that kernel's), scheduled as the streamed forward is
// (sparse_mla_fwd_streamed_kernel.cuh):
//
//   one block per (token, group of 32 heads); q and dO of the token's heads
//   widened once into shared memory. Per 64-slot block with a member:
//   s, dp    chains over d in order (s = q.kv, dp = dO.kv: K == V), 2 heads x
//            4 slots x 2 a thread, kv streamed in chunks of 32 columns (the
//            next chunk's global load in flight)
//   p, ds    p = exp(t - lse), ds = p (dp - delta), to the chunk's workspace
//   dq       acc[d] = fma(ds, kv[d], acc) over the block's members in slot
//            order, 8 heads x D/64 columns a thread, kv streamed in chunks of
//            8 slots
//
// Why: per 4-column step a warp reads 2 + 2 + 4 float4 for 64 fma (the
// 16-head kernel: 1 + 1 + 4 for 32, with more shared-memory wavefronts per
// fma); dq reads 2 + D/256 float4 for 8 * D/64 fma; 4 blocks per token
// instead of 8 halve the gather traffic, and no block waits for a gather.
#pragma once

#include "portable/sparse_mla/bwd_kernel.cuh"
#include "portable/sparse_mla/fwd_streamed_kernel.cuh"

namespace samebits::kernels::sparse_mla::cuda {

inline constexpr int kStreamBwdHeads = 32;                  // heads per token block
inline constexpr int kStreamBwdRm = kStreamBwdHeads / 16;   // heads a thread in the scores' layout
inline constexpr int kStreamDqHeads = 8;                    // heads a thread in dq's layout (8 hg + i)
static_assert(kThreads / 64 * kStreamDqHeads == kStreamBwdHeads, "4 groups of 8 heads x 64 column threads");

template <int D>
struct StreamedTokenSmem {
  static constexpr int kLdQ = D + 4;
  static constexpr int kLdB = kScoreChunk + 4;
  static constexpr int kLdV = D + 4;
  static constexpr int kLdDs = kStreamBwdHeads + 4;  // ds [slot][head]
  static constexpr int kDqCols = D / 64;
  static constexpr int kScoreChunks = D / kScoreChunk;
  static_assert(kDqCols == 2 || kDqCols % 4 == 0, "dq columns: a pair (D = 128) or float4 groups");
  static constexpr int kQ = 0, kDo = kQ + kStreamBwdHeads * kLdQ, kB = kDo + kStreamBwdHeads * kLdQ,
                       kV = kB + 2 * kTileKeys * kLdB, kDs = kV + 2 * kPvChunk * kLdV, kIdx = kDs + kTileKeys * kLdDs,
                       kFloats = kIdx + 2 * kTileKeys;
  static constexpr int kBytes = kFloats * 4;
  static_assert(kBytes <= 227 * 1024, "streamed token block fits an H100/H200 block's shared memory");
};

// tile_dots_pair's chains continued over kCols columns (see continue_dots).
template <int kLdA, int kLdB, int kCols, int RM>
SAMEBITS_DEVICE_FUNC void continue_dots_pair(const float* a1, const float* a2, int a0, const float* b, int ty, int tx,
                                             float (&s1)[RM][4], float (&s2)[RM][4]) {
#pragma unroll 2
  for (int d = 0; d < kCols; d += 4) {
    ac::float4 av1[RM], av2[RM], bv[4];
#pragma unroll
    for (int r = 0; r < RM; ++r) {
      av1[r] = ld4(a1 + (ty + 16 * r) * kLdA + a0 + d);
      av2[r] = ld4(a2 + (ty + 16 * r) * kLdA + a0 + d);
    }
#pragma unroll
    for (int c = 0; c < 4; ++c) bv[c] = ld4(b + (tx + 16 * c) * kLdB + d);
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int r = 0; r < RM; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          s1[r][c] = fma_rn(ac::comp(av1[r], i), ac::comp(bv[c], i), s1[r][c]);
          s2[r][c] = fma_rn(ac::comp(av2[r], i), ac::comp(bv[c], i), s2[r][c]);
        }
  }
}

template <int D, class L, DType In, DType Grad>
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kThreads, 1)
    sparse_mla_bwd_token_streamed_kernel(const BackwardParams p, const ChunkWorkspace w) {
  static_assert(In != DType::f32, "16-bit inputs: one word holds 8 elements");
  using Sm = StreamedTokenSmem<D>;
  constexpr int kLdQ = Sm::kLdQ, kLdB = Sm::kLdB, kLdV = Sm::kLdV, kLdDs = Sm::kLdDs, kDqCols = Sm::kDqCols;
  constexpr int kRm = kStreamBwdRm;
  extern SAMEBITS_SHARED ac::float4 smem4[];
  float* smem = reinterpret_cast<float*>(smem4);
  float* sQ = smem + Sm::kQ;
  float* sDo = smem + Sm::kDo;
  float* sB = smem + Sm::kB;   // [2][64][kLdB]
  float* sV = smem + Sm::kV;   // [2][8][kLdV]
  float* sDs = smem + Sm::kDs; // ds [slot][head]
  int* sIdx = reinterpret_cast<int*>(smem + Sm::kIdx);

  const int tl = gpu::blockIdx.x;  // token within the chunk
  const std::int64_t t = w.t0 + tl;
  const int h0 = gpu::blockIdx.y * kStreamBwdHeads;
  const int tid = gpu::threadIdx.x, ty = tid / 16, tx = tid % 16;  // the scores' layout: heads ty + 16 r
  const int hg = tid / 64, cg = tid % 64;                           // dq's layout
  const int valid_heads = gpu::min_int(kStreamBwdHeads, p.heads - h0);

  const std::int64_t es = dtype_size(In);
  ac::load_tile<D, In, kStreamBwdHeads>(sQ, static_cast<const char*>(p.q) + t * p.q_stride.row * es,
                                        Strides{p.q_stride.head, 0}, h0, valid_heads, 0);
  ac::load_tile<D, In, kStreamBwdHeads>(sDo, static_cast<const char*>(p.dout) + t * p.dout_stride.row * es,
                                        Strides{p.dout_stride.head, 0}, h0, valid_heads, 0);
  float lse[kRm], delta[kRm];
  float* p_row[kRm];
  float* ds_row[kRm];
  bool head_ok[kRm];
#pragma unroll
  for (int r = 0; r < kRm; ++r) {
    const int hl = ty + 16 * r, h = h0 + hl;
    head_ok[r] = hl < valid_heads;
    lse[r] = head_ok[r] ? p.lse[t * p.heads + h] : 0.0f;
    delta[r] = head_ok[r] ? w.delta[t * p.heads + h] : 0.0f;
    p_row[r] = w.p + (static_cast<std::int64_t>(tl) * p.heads + h) * p.topk;
    ds_row[r] = w.ds + (static_cast<std::int64_t>(tl) * p.heads + h) * p.topk;
  }
  // p and ds of the slots of blocks without a member: +0 (never read as members).
  auto clear_blocks = [&](int from, int to) {
    for (int s0 = from; s0 < to; s0 += kTileKeys)
#pragma unroll
      for (int r = 0; r < kRm; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          const int s = s0 + tx + 16 * c;
          if (head_ok[r] && s < p.topk) p_row[r][s] = ds_row[r][s] = 0.0f;
        }
  };

  float acc[kStreamDqHeads][kDqCols];  // dq of heads 8 hg + i, columns dq_col(cg, j)
#pragma unroll
  for (int i = 0; i < kStreamDqHeads; ++i)
#pragma unroll
    for (int j = 0; j < kDqCols; ++j) acc[i][j] = 0.0f;

  int cur = 0;
  int slot0 = next_member_block(p, t, 0, sIdx);
  clear_blocks(0, slot0);
  ac::uint4 word_b[kScoreWords];
  ac::uint4 word_v[kPvWordsPerThread<D>];
  if (slot0 < p.topk) load_score_words(word_b, p.kv, p.kv_row_stride, sIdx, 0);

  while (slot0 < p.topk) {
    const int* idx = sIdx + cur * kTileKeys;
    int* idx_next = sIdx + (cur ^ 1) * kTileKeys;

    // ---- s and dp: chains over d, chunk by chunk --------------------------
    float s[kRm][4], dp[kRm][4];
#pragma unroll
    for (int r = 0; r < kRm; ++r)
#pragma unroll
      for (int c = 0; c < 4; ++c) s[r][c] = dp[r][c] = 0.0f;
#pragma unroll 1
    for (int ch = 0; ch < Sm::kScoreChunks; ++ch) {
      float* b = sB + (ch & 1) * kTileKeys * kLdB;
      store_score_words<In>(b, word_b);
      gpu::block_barrier();
      if (ch + 1 < Sm::kScoreChunks) {
        load_score_words(word_b, p.kv, p.kv_row_stride, idx, ch + 1);
      } else {
        load_pv_words<D>(word_v, p.kv, p.kv_row_stride, idx, 0);
      }
      continue_dots_pair<kLdQ, kLdB, kScoreChunk>(sQ, sDo, ch * kScoreChunk, b, ty, tx, s, dp);
    }

    // ---- p, ds (as sparse_mla_bwd_token_kernel) ---------------------------
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const int k = tx + 16 * c, slot = slot0 + k;
      const bool member = idx[k] >= 0;
#pragma unroll
      for (int r = 0; r < kRm; ++r) {
        float pr = 0.0f, dsr = 0.0f;
        if (member) {
          pr = L::exp(sub_rn(mul_rn(s[r][c], p.scale), lse[r]));
          dsr = mul_rn(pr, sub_rn(dp[r][c], delta[r]));
        }
        sDs[k * kLdDs + ty + 16 * r] = dsr;
        if (head_ok[r] && slot < p.topk) {
          p_row[r][slot] = pr;
          ds_row[r][slot] = dsr;
        }
      }
    }
    const int next0 = next_member_block(p, t, slot0 + kTileKeys, idx_next);  // its barriers publish ds
    clear_blocks(slot0 + kTileKeys, next0);

    // ---- dq over the block's members in slot order ------------------------
#pragma unroll 1
    for (int g = 0; g < kTileKeys / kPvChunk; ++g) {
      float* v = sV + (g & 1) * kPvChunk * kLdV;
      store_pv_words<D, In>(v, word_v);
      gpu::block_barrier();
      if (g + 1 < kTileKeys / kPvChunk) {
        load_pv_words<D>(word_v, p.kv, p.kv_row_stride, idx, g + 1);
      } else if (next0 < p.topk) {
        load_score_words(word_b, p.kv, p.kv_row_stride, idx_next, 0);
      }
#pragma unroll 2
      for (int kk = 0; kk < kPvChunk; ++kk) {
        const int k = g * kPvChunk + kk;
        if (idx[k] < 0) continue;  // uniform across the block
        const ac::float4 da = ld4(sDs + k * kLdDs + kStreamDqHeads * hg);
        const ac::float4 db = ld4(sDs + k * kLdDs + kStreamDqHeads * hg + 4);
        float kv[kDqCols];
        if constexpr (kDqCols % 4 == 0) {
#pragma unroll
          for (int j = 0; j < kDqCols; j += 4) {
            const ac::float4 x = ld4(v + kk * kLdV + dq_col<D>(cg, j));
            kv[j] = x.x; kv[j + 1] = x.y; kv[j + 2] = x.z; kv[j + 3] = x.w;
          }
        } else {
#pragma unroll
          for (int j = 0; j < kDqCols; ++j) kv[j] = v[kk * kLdV + dq_col<D>(cg, j)];
        }
#pragma unroll
        for (int i = 0; i < kStreamDqHeads; ++i) {
          const float dsk = i < 4 ? ac::comp(da, i) : ac::comp(db, i - 4);
#pragma unroll
          for (int j = 0; j < kDqCols; ++j) acc[i][j] = fma_rn(dsk, kv[j], acc[i][j]);
        }
      }
    }
    cur ^= 1;
    slot0 = next0;
  }
#pragma unroll
  for (int i = 0; i < kStreamDqHeads; ++i) {
    const int hq = h0 + kStreamDqHeads * hg + i;
    if (hq >= p.heads) continue;
    const std::int64_t base = t * p.dq_stride.row + static_cast<std::int64_t>(hq) * p.dq_stride.head;
#pragma unroll
    for (int j = 0; j < kDqCols; ++j) store_from_f32(p.dq, Grad, base + dq_col<D>(cg, j), mul_rn(acc[i][j], p.scale));
  }
}

}  // namespace samebits::kernels::sparse_mla::cuda
