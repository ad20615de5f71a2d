// kernels/src/portable/attention/fwd_kernel.cuh — the forward (§4): one block per
// (16*RM-row query tile, query head, sequence). Per key block b (keys 64b ..
// 64b+63 of the sequence): scores as RM x 4 micro-tiles of fma chains over d,
// the block max per row (maxNum over members, across the 16 threads of the
// row), p = exp(t - m_new), the rescale, then o += p v as RM x D/16 micro-tiles
// whose chains run over the keys in ascending order. l is summed sequentially
// in key order by one owner thread per row (tx = r of the row's 16 threads:
// the other 15 would only repeat it) and handed to the others at the end. Membership is a predicate on every fold: a non-member
// touches no accumulator.
#pragma once

#include "portable/common/libm_policy.cuh"
#include "portable/common/rounded_ops.cuh"
#include "portable/common/score_tile.cuh"
#include "portable/common/sequence.cuh"
#include "portable/common/softmax.cuh"
#include "portable/common/tile_config.cuh"
#include "portable/common/tile_io.cuh"
#include "portable/common/value_fold.cuh"
#include "samebits/gpu/thread.hpp"
#include "samebits/kernels/attention/params.hpp"
#include "samebits/kernels/dtype.hpp"

namespace samebits::kernels::attention::cuda {

template <int D, int RM, DType In>
struct ForwardSmem {
  static_assert(kValidRowsPerThread<RM>, "RM = 4 or 8 rows per thread");
  static constexpr int kRows = 16 * RM;
  static constexpr int kLd = TileConfig<D>::kLd;
  // Staging for the next key block's K and V as stored (16-bit inputs only).
  static constexpr int kStageFloats = kStaged<In> ? kStagingBytes<D, In> / 4 : 0;
  static constexpr int kQ = 0, kK = kQ + kRows * kLd, kV = kK + kTileKeys * kLd,
                       kP = kV + kTileKeys * kLd, kStageK = kP + kRows * TileConfig<D>::kLdScores,
                       kStageV = kStageK + kStageFloats, kFloats = kStageV + kStageFloats;
  static constexpr int kBytes = kFloats * 4;
  static_assert(kBytes <= 227 * 1024, "forward tile fits an H200 block's shared memory");
};

// l += p_k over the block's members in ascending key order, by the owner thread of
// row ty + 16 tx (tx < RM; the row's list length n_own): the row's sum is one chain,
// kept by one thread (the other 15 would only repeat it).
template <int RM>
SAMEBITS_DEVICE_FUNC void owner_row_sum(const float* sP, int ty, int tx, int key0, int n_own, float& l_own) {
  constexpr int kLdP = kLdScores;
  if (tx < RM && key0 < n_own) {
    const float* prow = sP + (ty + 16 * tx) * kLdP;
    if (key0 + kTileKeys <= n_own) {
#pragma unroll 4
      for (int k = 0; k < kTileKeys; k += 4) {
        const float4 x = ld4(prow + k);
        l_own = add_rn(add_rn(add_rn(add_rn(l_own, x.x), x.y), x.z), x.w);
      }
    } else {
      for (int k = 0; k < kTileKeys; ++k) l_own = key0 + k < n_own ? add_rn(l_own, prow[k]) : l_own;
    }
  }
}

// o[r] = fma(p_k, v_k, o[r]) over the block's keys k in ascending order, for the members
// (key0 + k < n[r]) — p from sP [row][key], v from sV [key][kLd]. all_members: every key
// of the block is a member of every row of the tile (no predicates).
template <int D, int RM>
SAMEBITS_DEVICE_FUNC void fold_pv(const float* sP, const float* sV, int ty, int tx, int key0, const int (&n)[RM],
                                  bool all_members, float (&o)[RM][TileConfig<D>::kColsPerThread]) {
  constexpr int kLd = TileConfig<D>::kLd, kCols = TileConfig<D>::kColsPerThread, kLdP = TileConfig<D>::kLdScores;
  const auto cols = [tx](int j) { return col_of(tx, j); };
  if (all_members) {
#pragma unroll kUnrollPv
    for (int k = 0; k < kTileKeys; k += 4) {
      float4 pv[RM];
#pragma unroll
      for (int r = 0; r < RM; ++r) pv[r] = ld4(sP + (ty + 16 * r) * kLdP + k);
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        float vv[kCols];
        read_cols(sV + (k + i) * kLd, cols, vv);
#pragma unroll
        for (int r = 0; r < RM; ++r) fma_step(comp(pv[r], i), vv, o[r]);
      }
    }
  } else {
    for (int k = 0; k < kTileKeys; ++k) {
      float vv[kCols];
      read_cols(sV + k * kLd, cols, vv);
#pragma unroll
      for (int r = 0; r < RM; ++r) {
        const bool member = key0 + k < n[r];
        const float pk = sP[(ty + 16 * r) * kLdP + k];
        fma_step_if(member, pk, vv, o[r]);
      }
    }
  }
}

// Finish (§4.5) of the thread's rows and their store, each element rounded once: o =
// div(o, l), lse = add(m, log(l)); a row without a member: o = +0, lse = -inf.
template <int D, int RM, class L, DType Out>
SAMEBITS_DEVICE_FUNC void finish_store(const ForwardParams& p, const Sequence& seq, int row0, int h, int ty, int tx,
                                       const bool (&started)[RM], const float (&m)[RM], const float (&l)[RM],
                                       float (&o)[RM][TileConfig<D>::kColsPerThread]) {
  constexpr int kCols = TileConfig<D>::kColsPerThread;
#pragma unroll
  for (int r = 0; r < RM; ++r) {
    const int i = row0 + ty + 16 * r;
    if (i >= seq.lq) continue;
    const std::int64_t row = seq.q0 + i;
    float lse;
    if (!started[r]) {
      lse = fp::from_bits(0xff800000u);  // -inf: the list has no member
#pragma unroll
      for (int j = 0; j < kCols; ++j) o[r][j] = 0.0f;
    } else {
      lse = add_rn(m[r], L::log(l[r]));
#pragma unroll
      for (int j = 0; j < kCols; ++j) o[r][j] = div_rn(o[r][j], l[r]);
    }
    const std::int64_t base = row * p.o_stride.row + static_cast<std::int64_t>(h) * p.o_stride.head;
#pragma unroll
    for (int j = 0; j < kCols; ++j) store_from_f32(p.o, Out, base + col_of(tx, j), o[r][j]);
    if (tx == 0) p.lse[row * p.hq + h] = canonical(lse);
  }
}

template <int D, int RM, class L, DType In, DType Out>
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kThreads, 1) attention_forward_kernel(const ForwardParams p) {
  using Cfg = TileConfig<D>;
  using Sm = ForwardSmem<D, RM, In>;
  constexpr int kRows = Sm::kRows;
  constexpr int kCols = Cfg::kColsPerThread, kLdP = Cfg::kLdScores;
  extern SAMEBITS_SHARED float4 smem4[];
  float* smem = reinterpret_cast<float*>(smem4);
  float* sQ = smem + Sm::kQ;
  float* sK = smem + Sm::kK;
  float* sV = smem + Sm::kV;
  float* sP = smem + Sm::kP;
  float* stage_k = smem + Sm::kStageK;
  float* stage_v = smem + Sm::kStageV;

  const Sequence seq = sequence_of(p, gpu::blockIdx.z);
  // Heaviest tiles (latest rows: longest causal lists) first.
  const int row0 = (gpu::gridDim.x - 1 - gpu::blockIdx.x) * kRows;
  if (row0 >= seq.lq) return;
  const int h = gpu::blockIdx.y, g = h / (p.hq / p.hkv);
  const int tid = gpu::threadIdx.x, ty = tid / 16, tx = tid % 16;
  const int valid_rows = gpu::min_int(kRows, seq.lq - row0);

  int n[RM];  // list lengths of the thread's rows
  int n_min = 1 << 30;
#pragma unroll
  for (int r = 0; r < RM; ++r) {
    n[r] = list_length(seq, row0 + ty + 16 * r, p.causal);
    n_min = gpu::min_int(n_min, n[r]);
  }
  // Lists grow with the row (causal) or are all Lk: the tile's last row has the longest.
  const int tile_n = list_length(seq, row0 + valid_rows - 1, p.causal);

  load_tile<D, In, kRows>(sQ, p.q, p.q_stride, seq.q0 + row0, valid_rows, h);

  // l of row ty + 16 * tx, held by its owner (tx < RM); the row's list length.
  float l_own = 0.0f;
  const int n_own = list_length(seq, row0 + ty + 16 * tx, p.causal);
  float m[RM], o[RM][kCols];
  bool started[RM];
#pragma unroll
  for (int r = 0; r < RM; ++r) {
    m[r] = 0.0f;
    started[r] = false;
#pragma unroll
    for (int j = 0; j < kCols; ++j) o[r][j] = 0.0f;
  }

  // Key block b + 1 is copied into the staging buffers while block b is
  // computed (16-bit inputs read as 16-byte words); otherwise each block is
  // loaded when its turn comes.
  const bool staged = kStaged<In> && vector_readable<In>(p.k, p.k_stride) && vector_readable<In>(p.v, p.v_stride);
  auto stage_block = [&](int key0) {
    if (key0 < tile_n) {
      const int valid_keys = gpu::min_int(kTileKeys, seq.lk - key0);
      stage_tile_async<D, In>(stage_k, p.k, p.k_stride, seq.k0 + key0, valid_keys, g);
      stage_tile_async<D, In>(stage_v, p.v, p.v_stride, seq.k0 + key0, valid_keys, g);
    }
    gpu::copy_async_commit();
  };
  if (staged) stage_block(0);

  for (int key0 = 0; key0 < tile_n; key0 += kTileKeys) {
    const int valid_keys = gpu::min_int(kTileKeys, seq.lk - key0);
    if (staged) {
      gpu::copy_async_wait_all();
      gpu::block_barrier();  // block key0 is staged; the previous block's sK, sV, sP are consumed
      widen_staged_tile<D, In>(sK, stage_k, valid_keys);
      widen_staged_tile<D, In>(sV, stage_v, valid_keys);
      gpu::block_barrier();  // sK, sV ready; the staging buffers are free
      stage_block(key0 + kTileKeys);
    } else {
      gpu::block_barrier();  // the previous block's sK, sV, sP are consumed
      load_tile<D, In>(sK, p.k, p.k_stride, seq.k0 + key0, valid_keys, g);
      load_tile<D, In>(sV, p.v, p.v_stride, seq.k0 + key0, valid_keys, g);
      gpu::block_barrier();
    }

    float s[RM][4];
    score_tile<D, ScoreRows::interleaved>(sQ, sK, ty, tx, s);

    float m_new[RM];
    bool active[RM];
#pragma unroll
    for (int r = 0; r < RM; ++r) {
      const auto member = [&](int c) { return key0 + tx + 16 * c < n[r]; };
      const float mb = scaled_block_max(s[r], p.scale, member);
      active[r] = key0 < n[r];  // the block has a member in this row
      m_new[r] = running_max(started[r], m[r], mb);
#pragma unroll
      for (int c = 0; c < 4; ++c) sP[(ty + 16 * r) * kLdP + tx + 16 * c] = block_prob<L>(member(c), s[r][c], m_new[r]);
      if (active[r]) {
        if (started[r]) {
          const float alpha = rescale_factor<L>(m[r], m_new[r]);
          if (tx == r) l_own = mul_rn(l_own, alpha);
          rescale_row(o[r], alpha);
        } else if (tx == r) {
          l_own = 0.0f;
        }
      }
    }
    gpu::block_barrier();

    // l = add(l, p_k) and o = fma(p_k, v_k, o) over the block's members, ascending.
    owner_row_sum<RM>(sP, ty, tx, key0, n_own, l_own);
    fold_pv<D>(sP, sV, ty, tx, key0, n, key0 + kTileKeys <= n_min, o);
#pragma unroll
    for (int r = 0; r < RM; ++r) {
      if (active[r]) {
        m[r] = m_new[r];
        started[r] = true;
      }
    }
  }

  // Finish (§4.5) and store, each element rounded once. Row r's l comes from
  // its owner, lane r of this 16-lane half of the 32-lane group (the warp).
  float l[RM];
  from_owners(l_own, tid, l);
  finish_store<D, RM, L, Out>(p, seq, row0, h, ty, tx, started, m, l, o);
}

}  // namespace samebits::kernels::attention::cuda
