// kernels/src/portable/sparse_mla/fwd_kernel.cuh — the sparse MLA forward
// (sparse_mla.md §3 = attention.md §4 on slot lists): one block per (token,
// group of 32 heads). Every head of a token shares its list, so a block
// gathers each 64-slot block of kv rows once for its 32 heads. Per slot block:
// scores as 2 x 4 micro-tiles of chains over d = 0..D-1 (K == V == kv: the
// same shared tile serves q.k and p.v), the block max per row over members,
// p = exp(t - m_new), the rescale, l summed by one owner thread per row in
// slot order, o += p v as 2 x D/16 micro-tiles over the slots in order. A
// hole (-1) is not a member: no load, no arithmetic. The sink folds in after
// the last block (§4.6).
#pragma once

#include "portable/common/attention_common.cuh"
#include "samebits/kernels/sparse_mla/params.hpp"

namespace samebits::kernels::sparse_mla::cuda {

namespace ac = attention::cuda;
using ac::add_rn;
using ac::div_rn;
using ac::fma_rn;
using ac::kThreads;
using ac::kTileKeys;
using ac::ld4;
using ac::max_identity;
using ac::max_num;
using ac::mul_rn;
using ac::sub_rn;


inline constexpr int kHeadsPerBlock = 32;  // 16 thread rows x 2
inline constexpr int kRm = kHeadsPerBlock / 16;
static_assert(kHeadsPerBlock == 16 * kRm && kTileKeys == 64, "tile = 16 x 16 threads of 2 heads x 4 slots");

// The p.v phase works in another layout than the scores: thread (hg, cg) =
// (tid / 32, tid % 32) holds 4 heads (4 hg + i) x D/32 columns (pv_col), so
// that one 16-byte load of p serves 4 heads and a warp reads whole kv rows.
inline constexpr int kPvHeads = 4;
inline constexpr int kLdPt = kHeadsPerBlock + 4;  // p as [slot][head]
static_assert(kThreads / 32 * kPvHeads == kHeadsPerBlock, "8 groups of 4 heads");
SAMEBITS_DEVICE_FUNC constexpr int pv_col(int cg, int j) { return (j / 4) * 128 + cg * 4 + j % 4; }

template <int D>
struct ForwardSmem {
  static constexpr int kLd = ac::TileConfig<D>::kLd;
  static constexpr int kPvCols = D / 32;  // columns per thread in the p.v layout
  static_assert(kPvCols % 4 == 0, "p.v columns read as float4");
  static constexpr int kQ = 0, kKv = kQ + kHeadsPerBlock * kLd, kP = kKv + kTileKeys * kLd,
                       kAlpha = kP + kTileKeys * kLdPt, kFinL = kAlpha + kHeadsPerBlock,
                       kFinA = kFinL + kHeadsPerBlock, kIdx = kFinA + kHeadsPerBlock, kFloats = kIdx + kTileKeys;
  static constexpr int kBytes = kFloats * 4;
  static_assert(kBytes <= 227 * 1024, "sparse forward tile fits an H100/H200 block's shared memory");
};

// Rows idx[0..63] of kv (a hole, idx < 0, reads nothing: +0) widened to
// binary32 into [64][kLd].
template <int D, DType T>
SAMEBITS_DEVICE_FUNC void gather_rows(float* dst, const void* kv, std::int64_t row_stride, const int* idx) {
  constexpr int kLd = ac::TileConfig<D>::kLd;
  constexpr int kEs = dtype_size(T), kVec = 16 / kEs, kChunks = D / kVec;
  const bool vector = reinterpret_cast<std::uintptr_t>(kv) % 16 == 0 && row_stride % kVec == 0;
  if (vector) {
    // All of a batch's 16-byte loads are issued before any is widened and
    // stored, so that their latencies overlap (the rows are scattered).
    constexpr int kIters = kTileKeys * kChunks / kThreads, kBatch = kIters < 16 ? kIters : 16;
    static_assert(kTileKeys * kChunks % kThreads == 0 && kIters % kBatch == 0, "whole batches of 16-byte words");
    const int tid = gpu::threadIdx.x;
#pragma unroll 1
    for (int b0 = 0; b0 < kIters; b0 += kBatch) {
      ac::uint4 raw[kBatch];
#pragma unroll
      for (int b = 0; b < kBatch; ++b) {
        const int e = tid + (b0 + b) * kThreads, r = e / kChunks, c = (e % kChunks) * kVec, i = idx[r];
        raw[b] = i >= 0 ? gpu::load_readonly(reinterpret_cast<const ac::uint4*>(
                              static_cast<const char*>(kv) + (static_cast<std::int64_t>(i) * row_stride + c) * kEs))
                        : ac::uint4{0u, 0u, 0u, 0u};
      }
#pragma unroll
      for (int b = 0; b < kBatch; ++b) {
        const int e = tid + (b0 + b) * kThreads, r = e / kChunks, c = (e % kChunks) * kVec;
        float x[kVec];
        ac::widen16<T>(raw[b], x);  // a hole's zero word widens to +0
#pragma unroll
        for (int k = 0; k < kVec; k += 4)
          *reinterpret_cast<ac::float4*>(dst + r * kLd + c + k) = ac::make_float4(x[k], x[k + 1], x[k + 2], x[k + 3]);
      }
    }
    return;
  }
  for (int e = gpu::threadIdx.x; e < kTileKeys * D; e += kThreads) {
    const int r = e / D, c = e % D, i = idx[r];
    dst[r * kLd + c] = i >= 0 ? load_as_f32(kv, T, static_cast<std::int64_t>(i) * row_stride + c) : 0.0f;
  }
}

// Slot s of token t: a member's kv row, or -1 (a hole, or an out-of-range
// index: flagged, and nothing computed from it).
SAMEBITS_DEVICE_FUNC int member_row(const ProblemParams& p, std::int64_t t, int s) {
  int i = s < p.topk ? p.indices[t * p.indices_row_stride + s] : -1;
  if (i < -1 || i >= p.num_kv) {
    if (p.error_flag) gpu::fetch_add_agent(p.error_flag, 1);  // an integer count: any nonzero is an error
    i = -1;
  }
  return i;
}

// Whether a 64-slot block has a member (idx: its rows in shared memory; every
// thread reads all 64, so the answer is the block's).
SAMEBITS_DEVICE_FUNC bool block_has_member(const int* idx) {
  bool any = false;
#pragma unroll 8
  for (int k = 0; k < kTileKeys; ++k) any = any || idx[k] >= 0;
  return any;
}

// Finish of one head (attention.md §4.5-4.6), shared by the forward kernels:
// lse (sink-inclusive), lse_excl, and the l and rescale alpha o is finished
// with. `started`: the list had a member; m, l: the running max and sum.
struct HeadFinish {
  float lse, lse_excl, l, alpha;
};
template <class L>
SAMEBITS_DEVICE_FUNC HeadFinish finish_head(bool started, float m, float l, bool has_sink, float sigma) {
  HeadFinish f{0.0f, 0.0f, l, 0.0f};
  if (!started) {
    f.lse_excl = fp::from_bits(0xff800000u);               // -inf: the list has no member
    f.lse = has_sink ? sigma : fp::from_bits(0xff800000u);  // with a sink: o = +0, lse = sigma
    return f;
  }
  f.lse_excl = add_rn(m, L::log(l));
  if (!has_sink) {
    f.lse = f.lse_excl;
    return f;
  }
  const float m_f = max_num(m, sigma);
  f.alpha = L::exp(sub_rn(m, m_f));
  f.l = add_rn(mul_rn(l, f.alpha), L::exp(sub_rn(sigma, m_f)));
  f.lse = add_rn(m_f, L::log(f.l));
  return f;
}

// o of head h (its kCols columns pv_col(cg, j)): +0 without a member, else
// mul(o, alpha) with a sink, then div(o, l); each element rounded once.
template <DType Out, int kCols>
SAMEBITS_DEVICE_FUNC void finish_store_o(const ForwardParams& p, std::int64_t t, int h, int cg, bool started, float l,
                                         float alpha, float (&o)[kCols]) {
#pragma unroll
  for (int j = 0; j < kCols; ++j) {
    float x = 0.0f;
    if (started) {
      x = p.sink ? mul_rn(o[j], alpha) : o[j];
      x = div_rn(x, l);
    }
    store_from_f32(p.o, Out, t * p.o_stride.row + static_cast<std::int64_t>(h) * p.o_stride.head + pv_col(cg, j), x);
  }
}

template <int D, class L, DType In, DType Out>
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kThreads, 1) sparse_mla_forward_kernel(const ForwardParams p) {
  using Sm = ForwardSmem<D>;
  constexpr int kLd = Sm::kLd, kPvCols = Sm::kPvCols;
  extern SAMEBITS_SHARED ac::float4 smem4[];
  float* smem = reinterpret_cast<float*>(smem4);
  float* sQ = smem + Sm::kQ;
  float* sKv = smem + Sm::kKv;
  float* sPt = smem + Sm::kP;         // p [slot][head]
  float* sAlpha = smem + Sm::kAlpha;  // the block's rescale per head
  float* sFinL = smem + Sm::kFinL;    // the final l per head (after the sink)
  float* sFinA = smem + Sm::kFinA;    // the sink's rescale per head
  int* sIdx = reinterpret_cast<int*>(smem + Sm::kIdx);

  const std::int64_t t = gpu::blockIdx.x;
  const int h0 = gpu::blockIdx.y * kHeadsPerBlock;
  const int tid = gpu::threadIdx.x, ty = tid / 16, tx = tid % 16;  // the scores' layout
  const int hg = tid / 32, cg = tid % 32;                           // the p.v layout
  const int valid_heads = gpu::min_int(kHeadsPerBlock, p.heads - h0);

  // q[t, h0 .. h0 + 31, :] as a [32][D] tile (heads are its rows).
  ac::load_tile<D, In, kHeadsPerBlock>(sQ, static_cast<const char*>(p.q) + t * p.q_stride.row * dtype_size(In),
                                       Strides{p.q_stride.head, 0}, h0, valid_heads, 0);

  float l_own = 0.0f;  // l of row ty + 16 * tx, held by its owner (tx < kRm)
  float m[kRm];
  float o[kPvHeads][kPvCols];  // heads 4 hg + i, columns pv_col(cg, j)
  bool started = false;        // one list for every head: the rows start together
#pragma unroll
  for (int r = 0; r < kRm; ++r) m[r] = 0.0f;
#pragma unroll
  for (int i = 0; i < kPvHeads; ++i)
#pragma unroll
    for (int j = 0; j < kPvCols; ++j) o[i][j] = 0.0f;

  for (int slot0 = 0; slot0 < p.topk; slot0 += kTileKeys) {
    gpu::block_barrier();  // the previous block's sKv, sPt, sAlpha, sIdx are consumed
    if (tid < kTileKeys) sIdx[tid] = member_row(p, t, slot0 + tid);
    gpu::block_barrier();
    if (!block_has_member(sIdx)) continue;  // a block of holes is skipped (§2)
    gather_rows<D, In>(sKv, p.kv, p.kv_row_stride, sIdx);
    gpu::block_barrier();

    float s[kRm][4];
    ac::tile_dots<D, true>(sQ, sKv, ty, tx, s);
    bool member[4];
#pragma unroll
    for (int c = 0; c < 4; ++c) member[c] = sIdx[tx + 16 * c] >= 0;

    float m_new[kRm];
#pragma unroll
    for (int r = 0; r < kRm; ++r) {
      const int hl = ty + 16 * r;
      float mb = max_identity();
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        s[r][c] = mul_rn(s[r][c], p.scale);  // t = mul(s, scale)
        mb = member[c] ? max_num(mb, s[r][c]) : mb;
      }
#pragma unroll
      for (int off = 1; off < 16; off <<= 1) mb = max_num(mb, gpu::shuffle_xor(mb, off));
      m_new[r] = started ? max_num(m[r], mb) : mb;
#pragma unroll
      for (int c = 0; c < 4; ++c)
        sPt[(tx + 16 * c) * kLdPt + hl] = member[c] ? L::exp(sub_rn(s[r][c], m_new[r])) : 0.0f;
      if (started) {
        const float alpha = L::exp(sub_rn(m[r], m_new[r]));
        if (tx == r) l_own = mul_rn(l_own, alpha);
        if (tx == 0) sAlpha[hl] = alpha;
      } else if (tx == r) {
        l_own = 0.0f;
      }
    }
    gpu::block_barrier();

    // l = add(l, p) over the block's members in slot order: the owners only.
    if (tx < kRm) {
      const int hl = ty + 16 * tx;
      for (int k = 0; k < kTileKeys; ++k) l_own = sIdx[k] >= 0 ? add_rn(l_own, sPt[k * kLdPt + hl]) : l_own;
    }
    // o = mul(o, alpha) at the block boundary, then o[d] = fma(p, kv[d], o[d])
    // over the block's members in slot order.
    if (started) {
#pragma unroll
      for (int i = 0; i < kPvHeads; ++i) {
        const float alpha = sAlpha[kPvHeads * hg + i];
#pragma unroll
        for (int j = 0; j < kPvCols; ++j) o[i][j] = mul_rn(o[i][j], alpha);
      }
    }
    for (int k = 0; k < kTileKeys; ++k) {
      if (sIdx[k] < 0) continue;  // uniform across the block
      const ac::float4 pv = ld4(sPt + k * kLdPt + kPvHeads * hg);
      float vv[kPvCols];
#pragma unroll
      for (int j = 0; j < kPvCols; j += 4) {
        const ac::float4 x = ld4(sKv + k * kLd + pv_col(cg, j));
        vv[j] = x.x; vv[j + 1] = x.y; vv[j + 2] = x.z; vv[j + 3] = x.w;
      }
#pragma unroll
      for (int i = 0; i < kPvHeads; ++i) {
        const float pk = ac::comp(pv, i);
#pragma unroll
        for (int j = 0; j < kPvCols; ++j) o[i][j] = fma_rn(pk, vv[j], o[i][j]);
      }
    }
#pragma unroll
    for (int r = 0; r < kRm; ++r) m[r] = m_new[r];
    started = true;
  }

  // Finish (attention.md §4.5-4.6): lse and the final l and sink rescale per
  // head in the scores' layout, then o in the p.v layout, each element
  // rounded once.
  float l[kRm];
#pragma unroll
  for (int r = 0; r < kRm; ++r) l[r] = gpu::shuffle_in_group(l_own, (tid & 16) + r);
#pragma unroll
  for (int r = 0; r < kRm; ++r) {
    const int hl = ty + 16 * r, h = h0 + hl;
    const bool head_ok = h < p.heads;
    const HeadFinish f = finish_head<L>(started, m[r], l[r], p.sink != nullptr, p.sink && head_ok ? p.sink[h] : 0.0f);
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
  for (int i = 0; i < kPvHeads; ++i) {
    const int hl = kPvHeads * hg + i, h = h0 + hl;
    if (h < p.heads) finish_store_o<Out>(p, t, h, cg, started, sFinL[hl], sFinA[hl], o[i]);
  }
}

}  // namespace samebits::kernels::sparse_mla::cuda
