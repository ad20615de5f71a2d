// kernels/src/portable/sparse_mla/bwd_kernel.cuh — the sparse MLA backward
// (sparse_mla.md §4-5), in chunks of query rows (tokens):
//   delta      delta[t,h] = dO . o, a chain over d from +0 (the stored o)
//   token      one block per (token, 16 heads): per slot block, s = q.kv and
//              dp = dO.kv as chains over d, p = exp(t - lse), ds = p (dp - delta);
//              p and ds to the chunk's workspace; dq's chain over the members
//              in slot order; dq = mul(acc, scale), rounded once
//   contrib    one block per (token, 64-slot block, 128 columns), numbered
//              columns fastest: per member
//              slot, gK = sum over heads in order of ds q, gV of p dO, each a
//              chain from +0; c = add(mul(gK, scale), gV) to the chunk's
//              contributor vectors
//   pairs, sort, offsets
//              the chunk's (kv row, slot position) pairs, radix-sorted by kv
//              row (stable: within a row, (t, slot) order stays), and each
//              kv row's range in the sorted list: the inversion of the map
//   dkv accum  A[r] = add(A[r], c) over r's contributors in (t, slot) order,
//              continuing from the previous chunk
//   dkv finish dkv = A, rounded once;  dsink: acc over t in order of
//              mul(exp(sigma - lse), delta), d_sink = -acc
// Holes (-1) and out-of-range indices (flagged) are not members: no load, no
// arithmetic reaches an accumulator. No floating-point atomics anywhere.
#pragma once

#include "portable/sparse_mla/fwd_kernel.cuh"

namespace samebits::kernels::sparse_mla::cuda {

inline constexpr int kBwdHeads = 16;     // heads per token block (one per thread row)
inline constexpr int kContribCols = 128;  // columns per contrib block
inline constexpr int kContribHeads = 64;  // heads per shared-memory batch of the contrib block

// The chunk's workspace, as the launcher carves it.
struct ChunkWorkspace {
  float* p = nullptr;   // [chunk, heads, topk]
  float* ds = nullptr;  // [chunk, heads, topk]
  float* c = nullptr;   // [chunk, topk, D]
  std::int32_t* keys = nullptr;    // [chunk * topk] kv row (num_kv for a hole)
  std::int32_t* values = nullptr;  // [chunk * topk] t_local * topk + slot
  std::int32_t* sorted_keys = nullptr;
  std::int32_t* sorted_values = nullptr;
  std::int32_t* offsets = nullptr;  // [num_kv + 1]
  float* delta = nullptr;           // [tokens, heads]
  float* accum = nullptr;           // [num_kv, D]
  std::int64_t t0 = 0;              // the chunk's first token
  int tokens = 0;                   // tokens in the chunk
};

// Elements i .. i + 7 of a tensor of type T (i a multiple of 8 from a 16-byte
// aligned base), widened exactly: one 16-byte word (16-bit types) or two (f32).
template <DType T>
SAMEBITS_DEVICE_FUNC void load8(const void* base, std::int64_t i, float (&x)[8]) {
  const char* p = static_cast<const char*>(base) + i * dtype_size(T);
  if constexpr (T == DType::f32) {
    float a[4], b[4];
    ac::widen16<T>(gpu::load_readonly(reinterpret_cast<const ac::uint4*>(p)), a);
    ac::widen16<T>(gpu::load_readonly(reinterpret_cast<const ac::uint4*>(p + 16)), b);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      x[k] = a[k];
      x[4 + k] = b[k];
    }
  } else {
    ac::widen16<T>(gpu::load_readonly(reinterpret_cast<const ac::uint4*>(p)), x);
  }
}

template <int D, DType In, DType OutO>
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kThreads, 4) sparse_mla_bwd_delta_kernel(const BackwardParams p, float* delta) {
  const std::int64_t task = static_cast<std::int64_t>(gpu::blockIdx.x) * kThreads + gpu::threadIdx.x;
  if (task >= p.tokens * p.heads) return;
  const std::int64_t t = task / p.heads;
  const int h = static_cast<int>(task % p.heads);
  const std::int64_t od = t * p.o_stride.row + static_cast<std::int64_t>(h) * p.o_stride.head;
  const std::int64_t dd = t * p.dout_stride.row + static_cast<std::int64_t>(h) * p.dout_stride.head;
  float acc = 0.0f;
  if (ac::vector_readable<In>(p.dout, p.dout_stride) && ac::vector_readable<OutO>(p.o, p.o_stride)) {
    // 8 elements of each row a step, read as 16-byte words (one row per thread:
    // the chain is the thread's), the same chain over d in order.
#pragma unroll 2
    for (int d = 0; d < D; d += 8) {
      float x[8], y[8];
      load8<In>(p.dout, dd + d, x);
      load8<OutO>(p.o, od + d, y);
#pragma unroll
      for (int k = 0; k < 8; ++k) acc = fma_rn(x[k], y[k], acc);
    }
  } else {
#pragma unroll 8
    for (int d = 0; d < D; ++d) acc = fma_rn(load_as_f32(p.dout, In, dd + d), load_as_f32(p.o, OutO, od + d), acc);
  }
  delta[task] = acc;
}

// dq in its own thread layout: thread (hg, cg) = (tid / 64, tid % 64) holds 4
// heads (4 hg + i) x D/64 columns (dq_col), so that one 16-byte load of ds
// serves 4 heads (ds kept as [slot][head]).
inline constexpr int kDqHeads = 4;
inline constexpr int kLdDsT = kBwdHeads + 4;
static_assert(kThreads / 64 * kDqHeads == kBwdHeads, "4 groups of 4 heads");
template <int D>
SAMEBITS_DEVICE_FUNC constexpr int dq_col(int cg, int j) {
  return D / 64 >= 4 ? (j / 4) * 256 + cg * 4 + j % 4 : cg * (D / 64) + j;
}

template <int D>
struct TokenSmem {
  static constexpr int kLd = ac::TileConfig<D>::kLd;
  static constexpr int kDqCols = D / 64;
  static_assert(kDqCols == 2 || kDqCols % 4 == 0, "dq columns: a pair (D = 128) or float4 groups");
  static constexpr int kQ = 0, kDo = kQ + kBwdHeads * kLd, kKv = kDo + kBwdHeads * kLd, kDsT = kKv + kTileKeys * kLd,
                       kIdx = kDsT + kTileKeys * kLdDsT, kFloats = kIdx + kTileKeys;
  static constexpr int kBytes = kFloats * 4;
  static_assert(kBytes <= 227 * 1024, "sparse backward token tile fits a block's shared memory");
};

template <int D, class L, DType In, DType Grad>
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kThreads, 1)
    sparse_mla_bwd_token_kernel(const BackwardParams p, const ChunkWorkspace w) {
  using Sm = TokenSmem<D>;
  constexpr int kLd = Sm::kLd, kDqCols = Sm::kDqCols;
  extern SAMEBITS_SHARED ac::float4 smem4[];
  float* smem = reinterpret_cast<float*>(smem4);
  float* sQ = smem + Sm::kQ;
  float* sDo = smem + Sm::kDo;
  float* sKv = smem + Sm::kKv;
  float* sDsT = smem + Sm::kDsT;  // ds [slot][head]
  int* sIdx = reinterpret_cast<int*>(smem + Sm::kIdx);

  const int tl = gpu::blockIdx.x;  // token within the chunk
  const std::int64_t t = w.t0 + tl;
  const int h0 = gpu::blockIdx.y * kBwdHeads;
  const int tid = gpu::threadIdx.x, ty = tid / 16, tx = tid % 16;  // the scores' layout: head ty
  const int hg = tid / 64, cg = tid % 64;                           // dq's layout
  const int valid_heads = gpu::min_int(kBwdHeads, p.heads - h0);
  const int h = h0 + ty;
  const bool head_ok = ty < valid_heads;

  const std::int64_t es = dtype_size(In);
  ac::load_tile<D, In, kBwdHeads>(sQ, static_cast<const char*>(p.q) + t * p.q_stride.row * es,
                                  Strides{p.q_stride.head, 0}, h0, valid_heads, 0);
  ac::load_tile<D, In, kBwdHeads>(sDo, static_cast<const char*>(p.dout) + t * p.dout_stride.row * es,
                                  Strides{p.dout_stride.head, 0}, h0, valid_heads, 0);
  const float lse = head_ok ? p.lse[t * p.heads + h] : 0.0f;
  const float delta = head_ok ? w.delta[t * p.heads + h] : 0.0f;

  float acc[kDqHeads][kDqCols];  // dq of heads 4 hg + i, columns dq_col(cg, j)
#pragma unroll
  for (int i = 0; i < kDqHeads; ++i)
#pragma unroll
    for (int j = 0; j < kDqCols; ++j) acc[i][j] = 0.0f;

  float* p_row = w.p + (static_cast<std::int64_t>(tl) * p.heads + h) * p.topk;
  float* ds_row = w.ds + (static_cast<std::int64_t>(tl) * p.heads + h) * p.topk;
  for (int slot0 = 0; slot0 < p.topk; slot0 += kTileKeys) {
    gpu::block_barrier();  // the previous block's sKv, sDsT, sIdx are consumed
    if (tid < kTileKeys) sIdx[tid] = member_row(p, t, slot0 + tid);
    gpu::block_barrier();
    if (!block_has_member(sIdx)) {  // a block of holes: p and ds written as +0 (never read as members)
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const int s = slot0 + tx + 16 * c;
        if (head_ok && s < p.topk) p_row[s] = ds_row[s] = 0.0f;
      }
      continue;
    }
    gather_rows<D, In>(sKv, p.kv, p.kv_row_stride, sIdx);
    gpu::block_barrier();

    float s[1][4], dp[1][4];
    ac::tile_dots_pair<D, true>(sQ, sDo, sKv, ty, tx, s, dp);  // K == V: one pass over kv for both
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const int k = tx + 16 * c, slot = slot0 + k;
      float pr = 0.0f, dsr = 0.0f;
      if (sIdx[k] >= 0) {
        pr = L::exp(sub_rn(mul_rn(s[0][c], p.scale), lse));
        dsr = mul_rn(pr, sub_rn(dp[0][c], delta));
      }
      sDsT[k * kLdDsT + ty] = dsr;
      if (head_ok && slot < p.topk) {
        p_row[slot] = pr;
        ds_row[slot] = dsr;
      }
    }
    gpu::block_barrier();

    // dq: acc[d] = fma(ds, kv[d], acc[d]) over the block's members in slot order.
    for (int k = 0; k < kTileKeys; ++k) {
      if (sIdx[k] < 0) continue;  // uniform across the block
      const ac::float4 dsv = ld4(sDsT + k * kLdDsT + kDqHeads * hg);
      float kv[kDqCols];
      if constexpr (kDqCols % 4 == 0) {
#pragma unroll
        for (int j = 0; j < kDqCols; j += 4) {
          const ac::float4 x = ld4(sKv + k * kLd + dq_col<D>(cg, j));
          kv[j] = x.x; kv[j + 1] = x.y; kv[j + 2] = x.z; kv[j + 3] = x.w;
        }
      } else {
#pragma unroll
        for (int j = 0; j < kDqCols; ++j) kv[j] = sKv[k * kLd + dq_col<D>(cg, j)];
      }
#pragma unroll
      for (int i = 0; i < kDqHeads; ++i) {
        const float dsk = ac::comp(dsv, i);
#pragma unroll
        for (int j = 0; j < kDqCols; ++j) acc[i][j] = fma_rn(dsk, kv[j], acc[i][j]);
      }
    }
  }
#pragma unroll
  for (int i = 0; i < kDqHeads; ++i) {
    const int hq = h0 + kDqHeads * hg + i;
    if (hq >= p.heads) continue;
    const std::int64_t base = t * p.dq_stride.row + static_cast<std::int64_t>(hq) * p.dq_stride.head;
#pragma unroll
    for (int j = 0; j < kDqCols; ++j) store_from_f32(p.dq, Grad, base + dq_col<D>(cg, j), mul_rn(acc[i][j], p.scale));
  }
}

template <int D>
struct ContribSmem {
  static constexpr int kLd = kContribCols + 4, kLdP = kTileKeys + 4;
  static constexpr int kQ = 0, kDo = kQ + kContribHeads * kLd, kP = kDo + kContribHeads * kLd,
                       kDs = kP + kContribHeads * kLdP, kIdx = kDs + kContribHeads * kLdP, kFloats = kIdx + kTileKeys;
  static constexpr int kBytes = kFloats * 4;
  static_assert(kBytes <= 227 * 1024, "contrib tile fits a block's shared memory");
  static_assert(D % kContribCols == 0, "D is a multiple of the contrib block's columns");
};

// c[t][slot][col] for the block's 64 slots x 128 columns: thread (ty, tx)
// owns slots ty*4 + i and columns col_of(tx, j) of the 128 (TileConfig<128>).
// Two blocks an SM (at most 128 registers a thread, 2 x 102 KiB of shared
// memory): one block's loads of a head batch overlap the other's arithmetic.
template <int D, DType In>
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kThreads, 2)
    sparse_mla_bwd_contrib_kernel(const BackwardParams p, const ChunkWorkspace w) {
  using Sm = ContribSmem<D>;
  constexpr int kLd = Sm::kLd, kLdP = Sm::kLdP, kCols = ac::TileConfig<kContribCols>::kColsPerThread;
  extern SAMEBITS_SHARED ac::float4 smem4[];
  float* smem = reinterpret_cast<float*>(smem4);
  float* sQ = smem + Sm::kQ;
  float* sDo = smem + Sm::kDo;
  float* sP = smem + Sm::kP;
  float* sDs = smem + Sm::kDs;
  int* sIdx = reinterpret_cast<int*>(smem + Sm::kIdx);

  // Blocks numbered column block fastest, then slot block, then token: the
  // blocks that share a token's q, dO (and its p, ds) run together, so those
  // are read from memory once and from L2 after.
  const int col_blocks = D / kContribCols, slot_blocks = (p.topk + kTileKeys - 1) / kTileKeys;
  const std::int64_t b = gpu::blockIdx.x;
  const int tl = static_cast<int>(b / (static_cast<std::int64_t>(col_blocks) * slot_blocks));
  const std::int64_t t = w.t0 + tl;
  const int slot0 = static_cast<int>(b / col_blocks % slot_blocks) * kTileKeys,
            col0 = static_cast<int>(b % col_blocks) * kContribCols;
  const int tid = gpu::threadIdx.x, ty = tid / 16, tx = tid % 16;
  if (tid < kTileKeys) sIdx[tid] = member_row(p, t, slot0 + tid);
  gpu::block_barrier();
  if (!block_has_member(sIdx)) return;

  float gk[4][kCols], gv[4][kCols];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < kCols; ++j) gk[i][j] = gv[i][j] = 0.0f;

  const std::int64_t es = dtype_size(In);
  for (int hb = 0; hb < p.heads; hb += kContribHeads) {  // head batches, in head order
    const int nh = gpu::min_int(kContribHeads, p.heads - hb);
    gpu::block_barrier();  // the previous batch is consumed
    // q, dO [nh heads][128 columns from col0], widened (heads as the tile's
    // rows; rows past nh read as +0): load_tile's 16-byte path when aligned.
    static_assert(kLd == ac::TileConfig<kContribCols>::kLd, "the contrib tiles are load_tile's [rows][128 + 4]");
    ac::load_tile<kContribCols, In, kContribHeads>(
        sQ, static_cast<const char*>(p.q) + (t * p.q_stride.row + col0) * es, Strides{p.q_stride.head, 0}, hb, nh, 0);
    ac::load_tile<kContribCols, In, kContribHeads>(
        sDo, static_cast<const char*>(p.dout) + (t * p.dout_stride.row + col0) * es, Strides{p.dout_stride.head, 0}, hb,
        nh, 0);
    // p, ds [nh heads][64 slots] from the token kernel's workspace.
    for (int e = tid; e < kContribHeads * kTileKeys; e += kThreads) {
      const int hh = e / kTileKeys, k = e % kTileKeys;
      float pv = 0.0f, dsv = 0.0f;
      if (hh < nh && slot0 + k < p.topk) {
        const std::int64_t a = (static_cast<std::int64_t>(tl) * p.heads + hb + hh) * p.topk + slot0 + k;
        pv = w.p[a];
        dsv = w.ds[a];
      }
      sP[hh * kLdP + k] = pv;
      sDs[hh * kLdP + k] = dsv;
    }
    gpu::block_barrier();
    for (int hh = 0; hh < nh; ++hh) {
      const ac::float4 dsv = ld4(sDs + hh * kLdP + ty * 4), pv = ld4(sP + hh * kLdP + ty * 4);
      float qv[kCols], dov[kCols];
#pragma unroll
      for (int j = 0; j < kCols; j += 4) {
        const ac::float4 a = ld4(sQ + hh * kLd + ac::col_of(tx, j));
        const ac::float4 b = ld4(sDo + hh * kLd + ac::col_of(tx, j));
        qv[j] = a.x; qv[j + 1] = a.y; qv[j + 2] = a.z; qv[j + 3] = a.w;
        dov[j] = b.x; dov[j + 1] = b.y; dov[j + 2] = b.z; dov[j + 3] = b.w;
      }
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const float dsi = ac::comp(dsv, i), pi = ac::comp(pv, i);
#pragma unroll
        for (int j = 0; j < kCols; ++j) {
          gk[i][j] = fma_rn(dsi, qv[j], gk[i][j]);
          gv[i][j] = fma_rn(pi, dov[j], gv[i][j]);
        }
      }
    }
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int k = ty * 4 + i;
    if (sIdx[k] < 0) continue;  // a hole: no contributor
    float* c = w.c + (static_cast<std::int64_t>(tl) * p.topk + slot0 + k) * D + col0;
#pragma unroll
    for (int j = 0; j < kCols; ++j) c[ac::col_of(tx, j)] = add_rn(mul_rn(gk[i][j], p.scale), gv[i][j]);
  }
}

// The chunk's pairs: key = the slot's kv row (num_kv for a non-member, sorted
// last), value = its position t_local * topk + slot (ascending: (t, slot)).
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kThreads, 4) sparse_mla_bwd_pairs_kernel(const BackwardParams p,
                                                                                     const ChunkWorkspace w) {
  const std::int64_t e = static_cast<std::int64_t>(gpu::blockIdx.x) * kThreads + gpu::threadIdx.x;
  if (e >= static_cast<std::int64_t>(w.tokens) * p.topk) return;
  const int tl = static_cast<int>(e / p.topk), s = static_cast<int>(e % p.topk);
  const int r = member_row(p, w.t0 + tl, s);
  w.keys[e] = r >= 0 ? r : static_cast<std::int32_t>(p.num_kv);
  w.values[e] = static_cast<std::int32_t>(e);
}

// offsets[r] = the first sorted position whose key is >= r (r = 0 .. num_kv).
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kThreads, 4) sparse_mla_bwd_offsets_kernel(const BackwardParams p,
                                                                                       const ChunkWorkspace w) {
  const std::int64_t r = static_cast<std::int64_t>(gpu::blockIdx.x) * kThreads + gpu::threadIdx.x;
  if (r > p.num_kv) return;
  std::int64_t lo = 0, hi = static_cast<std::int64_t>(w.tokens) * p.topk;
  while (lo < hi) {
    const std::int64_t mid = (lo + hi) / 2;
    if (w.sorted_keys[mid] < r) lo = mid + 1;
    else hi = mid;
  }
  w.offsets[r] = static_cast<std::int32_t>(lo);
}

// A[r][d..d+3] = add(A, c) over r's contributors in the chunk, in (t, slot)
// order; one thread per (kv row, 4 columns).
template <int D>
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kThreads, 4) sparse_mla_bwd_dkv_accum_kernel(const BackwardParams p,
                                                                                         const ChunkWorkspace w) {
  const std::int64_t task = static_cast<std::int64_t>(gpu::blockIdx.x) * kThreads + gpu::threadIdx.x;
  if (task >= p.num_kv * (D / 4)) return;
  const std::int64_t r = task / (D / 4);
  const int d = static_cast<int>(task % (D / 4)) * 4;
  const int c0 = w.offsets[r], c1 = w.offsets[r + 1];
  if (c0 == c1) return;
  float* a = w.accum + r * D + d;
  ac::float4 acc = *reinterpret_cast<const ac::float4*>(a);
  auto row = [&](int i) {
    return *reinterpret_cast<const ac::float4*>(w.c + static_cast<std::int64_t>(w.sorted_values[i]) * D + d);
  };
  auto add = [&](const ac::float4& x) {
    acc.x = add_rn(acc.x, x.x);
    acc.y = add_rn(acc.y, x.y);
    acc.z = add_rn(acc.z, x.z);
    acc.w = add_rn(acc.w, x.w);
  };
  int i = c0;
  for (; i + 4 <= c1; i += 4) {  // four contributors' loads in flight, added in order
    const ac::float4 x0 = row(i), x1 = row(i + 1), x2 = row(i + 2), x3 = row(i + 3);
    add(x0);
    add(x1);
    add(x2);
    add(x3);
  }
  for (; i < c1; ++i) add(row(i));
  *reinterpret_cast<ac::float4*>(a) = acc;
}

template <int D, DType Grad>
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kThreads, 4) sparse_mla_bwd_dkv_finish_kernel(const BackwardParams p,
                                                                                          const float* accum) {
  const std::int64_t task = static_cast<std::int64_t>(gpu::blockIdx.x) * kThreads + gpu::threadIdx.x;
  if (task >= p.num_kv * D) return;
  const std::int64_t r = task / D;
  const int d = static_cast<int>(task % D);
  store_from_f32(p.dkv, Grad, r * p.dkv_row_stride + d, accum[task]);
}

// d_sink[h] = -(sum over t in order of mul(exp(sub(sigma, lse)), delta)).
template <class L>
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kThreads, 4) sparse_mla_bwd_dsink_kernel(const BackwardParams p,
                                                                                     const float* delta) {
  const int h = static_cast<int>(gpu::blockIdx.x) * kThreads + gpu::threadIdx.x;
  if (h >= p.heads) return;
  const float sigma = p.sink[h];
  float acc = 0.0f;
  for (std::int64_t t = 0; t < p.tokens; ++t) {
    const std::int64_t i = t * p.heads + h;
    acc = add_rn(acc, mul_rn(L::exp(sub_rn(sigma, p.lse[i])), delta[i]));
  }
  // -acc as a sign-bit flip: exact, and no compiler flag can make it a
  // flushing neg.ftz (as -use_fast_math does to a float negation).
  p.dsink[h] = canonical(fp::from_bits(fp::to_bits(acc) ^ 0x80000000u));
}

}  // namespace samebits::kernels::sparse_mla::cuda
