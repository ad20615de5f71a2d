// kernels/src/portable/sparse_mla/fwd_streamed_kernel.cuh — the sparse MLA
// forward for 16-bit inputs, streamed: the same operations in the same order
// as sparse_mla_forward_kernel (sparse_mla.md §3 = attention.md §4 on slot
// lists; the bits are that kernel's), scheduled for the fp32 units:
//
//   one block per (token, group of 64 heads); q[t, h0 .. h0 + 63, :] widened
//   once into shared memory. Per 64-slot block (blocks without a member are
//   skipped, §2):
//   scores   chains over d in order, as 4 heads x 4 slots a thread; kv is
//            streamed in chunks of 32 columns (one 16-byte word of the
//            gathered rows a thread), the next chunk's global load in flight
//            while the current one is multiplied: no gather pass, no idle SM
//   softmax  the block max per head over members, p = exp(t - m_new), the
//            rescale alpha, exactly as the 32-head kernel
//   p.v      o[h][d] = fma(p, kv[d], o) over the block's members in slot
//            order, 8 heads x D/32 columns a thread, kv streamed in chunks
//            of 8 slots (the next chunk in flight); l = add(l, p) over the
//            same members in the same loop (no serial owner loop)
//
// Why (per 4-column step of a warp): the scores read 4 + 4 float4 for 64
// fma (the 32-head kernel: 2 + 4 for 32, with twice the shared-memory
// wavefronts per fma); p.v reads 2 + D/128 float4 for 8 * D/32 fma. The kv
// rows come from L2 (the whole kv of the issue's shape, 8 MiB, stays there);
// 2 blocks per token instead of 4 halve the gather traffic.
#pragma once

#include "portable/sparse_mla/fwd_kernel.cuh"

namespace samebits::kernels::sparse_mla::cuda {

inline constexpr int kStreamHeads = 64;                // heads per block
inline constexpr int kStreamRm = kStreamHeads / 16;    // heads a thread in the scores' layout (ty + 16 r)
// kv columns per scores step: 32 (one 16-byte word of the gathered rows a
// thread; 64, two words, measured no faster: docs/kernels/sparse_mla-results.md).
// The bits do not depend on it.
inline constexpr int kScoreChunk = 32;
inline constexpr int kPvChunk = 8;                     // kv rows (slots) per p.v step
inline constexpr int kStreamPvHeads = 8;               // heads a thread in the p.v layout (8 hg + i)
static_assert(kThreads / 32 * kStreamPvHeads == kStreamHeads, "8 groups (warps) of 8 heads");
inline constexpr int kScoreWords = kTileKeys * kScoreChunk / 8 / kThreads;  // 16-byte words a thread per scores chunk
static_assert(kScoreWords >= 1 && kTileKeys * kScoreChunk / 8 == kScoreWords * kThreads,
              "whole 16-byte words (8 bf16) of kv a thread per scores chunk");
static_assert(kTileKeys % kPvChunk == 0, "whole p.v chunks per block");

// Column j (0 .. D/32 - 1) of p.v thread column cg: float4 groups of a
// warp's 32 lanes are contiguous (pv_col of the 32-head kernel).
template <int D>
struct StreamedSmem {
  static constexpr int kLdQ = D + 4;            // q [64][D + 4], fp32
  static constexpr int kLdB = kScoreChunk + 4;  // a scores chunk [64 slots][32 + 4], fp32 (x2)
  static constexpr int kLdV = D + 4;            // a p.v chunk [8 slots][D + 4], fp32 (x2)
  static constexpr int kLdP = kStreamHeads + 4; // p [64 slots][64 heads + 4]
  static constexpr int kPvCols = D / 32;
  static constexpr int kScoreChunks = D / kScoreChunk;
  static_assert(kPvCols % 4 == 0 && D % kScoreChunk == 0, "D: 128 or 512");
  static constexpr int kQ = 0, kB = kQ + kStreamHeads * kLdQ, kV = kB + 2 * kTileKeys * kLdB,
                       kP = kV + 2 * kPvChunk * kLdV, kAlpha = kP + kTileKeys * kLdP, kL = kAlpha + kStreamHeads,
                       kFinL = kL + kStreamHeads, kFinA = kFinL + kStreamHeads, kIdx = kFinA + kStreamHeads,
                       kFloats = kIdx + 2 * kTileKeys;
  static constexpr int kBytes = kFloats * 4;
  static_assert(kBytes <= 227 * 1024, "streamed forward fits an H100/H200 block's shared memory");
};

// The first block of slots at or after slot0 with a member (its rows land in
// idx, seen by every thread), or topk when none is left. Every thread calls
// it (it holds barriers); idx's previous rows must be consumed.
SAMEBITS_DEVICE_FUNC int next_member_block(const ProblemParams& p, std::int64_t t, int slot0, int* idx) {
  for (bool first = true; slot0 < p.topk; slot0 += kTileKeys, first = false) {
    if (!first) gpu::block_barrier();  // the previous candidate is read by every thread
    if (gpu::threadIdx.x < kTileKeys) idx[gpu::threadIdx.x] = member_row(p, t, slot0 + gpu::threadIdx.x);
    gpu::block_barrier();
    if (block_has_member(idx)) return slot0;
  }
  return p.topk;
}

// One 16-byte word of the gathered kv rows: slot k's row idx[k] (a hole reads
// nothing: +0) at column col. kv's base and row stride are 16-byte aligned
// (the launcher's condition for this kernel).
SAMEBITS_DEVICE_FUNC ac::uint4 load_kv_word(const void* kv, std::int64_t row_stride, const int* idx, int k, int col) {
  const int i = idx[k];
  if (i < 0) return ac::uint4{0u, 0u, 0u, 0u};
  return gpu::load_readonly(reinterpret_cast<const ac::uint4*>(static_cast<const char*>(kv) +
                                                               (static_cast<std::int64_t>(i) * row_stride + col) * 2));
}

// The word's 8 elements widened to binary32 (exactly) at dst (16-byte aligned).
template <DType T>
SAMEBITS_DEVICE_FUNC void store_widened(float* dst, const ac::uint4& raw) {
  float x[8];
  ac::widen16<T>(raw, x);
  *reinterpret_cast<ac::float4*>(dst) = ac::make_float4(x[0], x[1], x[2], x[3]);
  *reinterpret_cast<ac::float4*>(dst + 4) = ac::make_float4(x[4], x[5], x[6], x[7]);
}

// This thread's words of scores chunk ch (columns ch * kScoreChunk ...) of
// the block's gathered rows, and where they land in the chunk's tile.
SAMEBITS_DEVICE_FUNC void load_score_words(ac::uint4 (&w)[kScoreWords], const void* kv, std::int64_t row_stride,
                                           const int* idx, int ch) {
#pragma unroll
  for (int i = 0; i < kScoreWords; ++i) {
    const int e = gpu::threadIdx.x + i * kThreads;
    w[i] = load_kv_word(kv, row_stride, idx, e / (kScoreChunk / 8), ch * kScoreChunk + (e % (kScoreChunk / 8)) * 8);
  }
}
template <DType T>
SAMEBITS_DEVICE_FUNC void store_score_words(float* b, const ac::uint4 (&w)[kScoreWords]) {
#pragma unroll
  for (int i = 0; i < kScoreWords; ++i) {
    const int e = gpu::threadIdx.x + i * kThreads;
    store_widened<T>(b + (e / (kScoreChunk / 8)) * (kScoreChunk + 4) + (e % (kScoreChunk / 8)) * 8, w[i]);
  }
}

// A p.v (dq) chunk: slots g * kPvChunk .. + kPvChunk - 1 of the block, all D
// columns, as 16-byte words spread over the threads.
template <int D>
inline constexpr int kPvWords = kPvChunk * D / 8;
template <int D>
inline constexpr int kPvWordsPerThread = (kPvWords<D> + kThreads - 1) / kThreads;
template <int D>
SAMEBITS_DEVICE_FUNC void load_pv_words(ac::uint4 (&w)[kPvWordsPerThread<D>], const void* kv, std::int64_t row_stride,
                                        const int* idx, int g) {
#pragma unroll
  for (int i = 0; i < kPvWordsPerThread<D>; ++i) {
    const int e = gpu::threadIdx.x + i * kThreads;
    w[i] = e < kPvWords<D> ? load_kv_word(kv, row_stride, idx, g * kPvChunk + e / (D / 8), (e % (D / 8)) * 8)
                           : ac::uint4{0u, 0u, 0u, 0u};
  }
}
template <int D, DType T>
SAMEBITS_DEVICE_FUNC void store_pv_words(float* v, const ac::uint4 (&w)[kPvWordsPerThread<D>]) {
#pragma unroll
  for (int i = 0; i < kPvWordsPerThread<D>; ++i) {
    const int e = gpu::threadIdx.x + i * kThreads;
    if (e < kPvWords<D>) store_widened<T>(v + (e / (D / 8)) * (D + 4) + (e % (D / 8)) * 8, w[i]);
  }
}

// Continues the chains s[r][c] (rows ty + 16 r of a, rows tx + 16 c of b)
// over kCols columns in order: a at column a0 of rows of stride kLdA, b at
// column 0 of rows of stride kLdB. Each step is tile_dots's: fma(a, b, s).
template <int kLdA, int kLdB, int kCols, int RM>
SAMEBITS_DEVICE_FUNC void continue_dots(const float* a, int a0, const float* b, int ty, int tx, float (&s)[RM][4]) {
#pragma unroll 2
  for (int d = 0; d < kCols; d += 4) {
    ac::float4 av[RM], bv[4];
#pragma unroll
    for (int r = 0; r < RM; ++r) av[r] = ld4(a + (ty + 16 * r) * kLdA + a0 + d);
#pragma unroll
    for (int c = 0; c < 4; ++c) bv[c] = ld4(b + (tx + 16 * c) * kLdB + d);
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int r = 0; r < RM; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) s[r][c] = fma_rn(ac::comp(av[r], i), ac::comp(bv[c], i), s[r][c]);
  }
}

template <int D, class L, DType In, DType Out>
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kThreads, 1) sparse_mla_forward_streamed_kernel(const ForwardParams p) {
  static_assert(In != DType::f32, "16-bit inputs: one word holds 8 elements");
  using Sm = StreamedSmem<D>;
  constexpr int kLdQ = Sm::kLdQ, kLdB = Sm::kLdB, kLdV = Sm::kLdV, kLdP = Sm::kLdP, kPvCols = Sm::kPvCols;
  extern SAMEBITS_SHARED ac::float4 smem4[];
  float* smem = reinterpret_cast<float*>(smem4);
  float* sQ = smem + Sm::kQ;
  float* sB = smem + Sm::kB;          // [2][64][kLdB]
  float* sV = smem + Sm::kV;          // [2][8][kLdV]
  float* sPt = smem + Sm::kP;         // p [slot][head]
  float* sAlpha = smem + Sm::kAlpha;  // the block's rescale per head
  float* sL = smem + Sm::kL;          // l per head, handed from the p.v layout to the scores' layout
  float* sFinL = smem + Sm::kFinL;
  float* sFinA = smem + Sm::kFinA;
  int* sIdx = reinterpret_cast<int*>(smem + Sm::kIdx);  // [2][64]: this block's rows, the next block's

  const std::int64_t t = gpu::blockIdx.x;
  const int h0 = gpu::blockIdx.y * kStreamHeads;
  const int tid = gpu::threadIdx.x, ty = tid / 16, tx = tid % 16;  // the scores' layout
  const int hg = tid / 32, cg = tid % 32;                           // the p.v layout
  const int valid_heads = gpu::min_int(kStreamHeads, p.heads - h0);

  ac::load_tile<D, In, kStreamHeads>(sQ, static_cast<const char*>(p.q) + t * p.q_stride.row * dtype_size(In),
                                     Strides{p.q_stride.head, 0}, h0, valid_heads, 0);

  float m[kStreamRm];
  float l[kStreamPvHeads];
  float o[kStreamPvHeads][kPvCols];  // heads 8 hg + i, columns pv_col(cg, j)
#pragma unroll
  for (int r = 0; r < kStreamRm; ++r) m[r] = 0.0f;
#pragma unroll
  for (int i = 0; i < kStreamPvHeads; ++i) {
    l[i] = 0.0f;
#pragma unroll
    for (int j = 0; j < kPvCols; ++j) o[i][j] = 0.0f;
  }

  int cur = 0;
  int slot0 = next_member_block(p, t, 0, sIdx);
  const bool any = slot0 < p.topk;
  ac::uint4 word_b[kScoreWords];                      // the next scores chunk, in flight
  ac::uint4 word_v[kPvWordsPerThread<D>];            // the next p.v chunk, in flight
  if (any) load_score_words(word_b, p.kv, p.kv_row_stride, sIdx, 0);
  bool started = false;

  while (slot0 < p.topk) {
    const int* idx = sIdx + cur * kTileKeys;
    int* idx_next = sIdx + (cur ^ 1) * kTileKeys;

    // ---- scores: chains over d, chunk by chunk ----------------------------
    float s[kStreamRm][4];
#pragma unroll
    for (int r = 0; r < kStreamRm; ++r)
#pragma unroll
      for (int c = 0; c < 4; ++c) s[r][c] = 0.0f;
#pragma unroll 1
    for (int ch = 0; ch < Sm::kScoreChunks; ++ch) {
      float* b = sB + (ch & 1) * kTileKeys * kLdB;
      store_score_words<In>(b, word_b);
      gpu::block_barrier();  // chunk ch is in; chunk ch - 1's readers are done with the other buffer
      if (ch + 1 < Sm::kScoreChunks) {
        load_score_words(word_b, p.kv, p.kv_row_stride, idx, ch + 1);
      } else {
        load_pv_words<D>(word_v, p.kv, p.kv_row_stride, idx, 0);
      }
      continue_dots<kLdQ, kLdB, kScoreChunk>(sQ, ch * kScoreChunk, b, ty, tx, s);
    }

    // ---- softmax (as sparse_mla_forward_kernel) ---------------------------
    bool member[4];
#pragma unroll
    for (int c = 0; c < 4; ++c) member[c] = idx[tx + 16 * c] >= 0;
#pragma unroll
    for (int r = 0; r < kStreamRm; ++r) {
      const int hl = ty + 16 * r;
      float mb = max_identity();
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        s[r][c] = mul_rn(s[r][c], p.scale);  // t = mul(s, scale)
        mb = member[c] ? max_num(mb, s[r][c]) : mb;
      }
#pragma unroll
      for (int off = 1; off < 16; off <<= 1) mb = max_num(mb, gpu::shuffle_xor(mb, off));
      const float m_new = started ? max_num(m[r], mb) : mb;
#pragma unroll
      for (int c = 0; c < 4; ++c) sPt[(tx + 16 * c) * kLdP + hl] = member[c] ? L::exp(sub_rn(s[r][c], m_new)) : 0.0f;
      if (started && tx == 0) sAlpha[hl] = L::exp(sub_rn(m[r], m_new));
      m[r] = m_new;
    }
    // The next block's rows (its barriers also publish p and alpha).
    const int next0 = next_member_block(p, t, slot0 + kTileKeys, idx_next);

    // ---- p.v and l over the block's members in slot order -----------------
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
      if (g == 0 && started) {  // o = mul(o, alpha), l = mul(l, alpha) at the block boundary
#pragma unroll
        for (int i = 0; i < kStreamPvHeads; ++i) {
          const float alpha = sAlpha[kStreamPvHeads * hg + i];
          l[i] = mul_rn(l[i], alpha);
#pragma unroll
          for (int j = 0; j < kPvCols; ++j) o[i][j] = mul_rn(o[i][j], alpha);
        }
      }
#pragma unroll 2
      for (int kk = 0; kk < kPvChunk; ++kk) {
        const int k = g * kPvChunk + kk;
        if (idx[k] < 0) continue;  // uniform across the block
        const ac::float4 pa = ld4(sPt + k * kLdP + kStreamPvHeads * hg);
        const ac::float4 pb = ld4(sPt + k * kLdP + kStreamPvHeads * hg + 4);
        float vv[kPvCols];
#pragma unroll
        for (int j = 0; j < kPvCols; j += 4) {
          const ac::float4 x = ld4(v + kk * kLdV + pv_col(cg, j));
          vv[j] = x.x; vv[j + 1] = x.y; vv[j + 2] = x.z; vv[j + 3] = x.w;
        }
#pragma unroll
        for (int i = 0; i < kStreamPvHeads; ++i) {
          const float pk = i < 4 ? ac::comp(pa, i) : ac::comp(pb, i - 4);
          l[i] = add_rn(l[i], pk);
#pragma unroll
          for (int j = 0; j < kPvCols; ++j) o[i][j] = fma_rn(pk, vv[j], o[i][j]);
        }
      }
    }
    started = true;
    cur ^= 1;
    slot0 = next0;
  }

  // ---- finish (attention.md §4.5-4.6), as sparse_mla_forward_kernel -------
  if (cg == 0) {
#pragma unroll
    for (int i = 0; i < kStreamPvHeads; ++i) sL[kStreamPvHeads * hg + i] = l[i];
  }
  gpu::block_barrier();
#pragma unroll
  for (int r = 0; r < kStreamRm; ++r) {
    const int hl = ty + 16 * r, h = h0 + hl;
    const bool head_ok = h < p.heads;
    const HeadFinish f =
        finish_head<L>(started, m[r], sL[hl], p.sink != nullptr, p.sink && head_ok ? p.sink[h] : 0.0f);
    if (tx == 0) {
      sFinL[hl] = f.l;
      sFinA[hl] = f.alpha;
      if (head_ok) {
        p.lse[t * p.heads + h] = canonical(f.lse);
        if (p.lse_excl) p.lse_excl[t * p.heads + h] = canonical(f.lse_excl);
      }
    }
  }
  gpu::block_barrier();
#pragma unroll
  for (int i = 0; i < kStreamPvHeads; ++i) {
    const int hl = kStreamPvHeads * hg + i, h = h0 + hl;
    if (h < p.heads) finish_store_o<Out>(p, t, h, cg, started, sFinL[hl], sFinA[hl], o[i]);
  }
}

}  // namespace samebits::kernels::sparse_mla::cuda
