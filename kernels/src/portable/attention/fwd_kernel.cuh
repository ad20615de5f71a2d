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

#include "portable/common/attention_common.cuh"

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

template <int D, int RM, class L, DType In, DType Out>
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kThreads, 1) attention_forward_kernel(const ForwardParams p) {
  using Cfg = TileConfig<D>;
  using Sm = ForwardSmem<D, RM, In>;
  constexpr int kRows = Sm::kRows;
  constexpr int kLd = Cfg::kLd, kCols = Cfg::kColsPerThread, kLdP = Cfg::kLdScores;
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
    tile_dots<D, true>(sQ, sK, ty, tx, s);

    float m_new[RM];
    bool active[RM];
#pragma unroll
    for (int r = 0; r < RM; ++r) {
      float mb = max_identity();
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        s[r][c] = mul_rn(s[r][c], p.scale);  // t = mul(s, scale)
        const bool member = key0 + tx + 16 * c < n[r];
        mb = member ? max_num(mb, s[r][c]) : mb;
      }
#pragma unroll
      for (int off = 1; off < 16; off <<= 1) mb = max_num(mb, gpu::shuffle_xor(mb, off));
      active[r] = key0 < n[r];  // the block has a member in this row
      m_new[r] = started[r] ? max_num(m[r], mb) : mb;
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const bool member = key0 + tx + 16 * c < n[r];
        sP[(ty + 16 * r) * kLdP + tx + 16 * c] = member ? L::exp(sub_rn(s[r][c], m_new[r])) : 0.0f;
      }
      if (active[r]) {
        if (started[r]) {
          const float alpha = L::exp(sub_rn(m[r], m_new[r]));
          if (tx == r) l_own = mul_rn(l_own, alpha);
#pragma unroll
          for (int j = 0; j < kCols; ++j) o[r][j] = mul_rn(o[r][j], alpha);
        } else if (tx == r) {
          l_own = 0.0f;
        }
      }
    }
    gpu::block_barrier();

    // l = add(l, p_k) over the block's members, ascending: the owners only.
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

    // o[r][d] = fma(p_k, v_k[d], o[r][d]) over the block's members, ascending.
    const bool all_members = key0 + kTileKeys <= n_min;
    if (all_members) {
#pragma unroll kUnrollPv
      for (int k = 0; k < kTileKeys; k += 4) {
        float4 pv[RM];
#pragma unroll
        for (int r = 0; r < RM; ++r) pv[r] = ld4(sP + (ty + 16 * r) * kLdP + k);
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          float vv[kCols];
#pragma unroll
          for (int j = 0; j < kCols; j += 4) {
            const float4 x = ld4(sV + (k + i) * kLd + col_of(tx, j));
            vv[j] = x.x; vv[j + 1] = x.y; vv[j + 2] = x.z; vv[j + 3] = x.w;
          }
#pragma unroll
          for (int r = 0; r < RM; ++r) {
            const float pk = comp(pv[r], i);
#pragma unroll
            for (int j = 0; j < kCols; ++j) o[r][j] = fma_rn(pk, vv[j], o[r][j]);
          }
        }
      }
    } else {
      for (int k = 0; k < kTileKeys; ++k) {
        float vv[kCols];
#pragma unroll
        for (int j = 0; j < kCols; j += 4) {
          const float4 x = ld4(sV + k * kLd + col_of(tx, j));
          vv[j] = x.x; vv[j + 1] = x.y; vv[j + 2] = x.z; vv[j + 3] = x.w;
        }
#pragma unroll
        for (int r = 0; r < RM; ++r) {
          const bool member = key0 + k < n[r];
          const float pk = sP[(ty + 16 * r) * kLdP + k];
#pragma unroll
          for (int j = 0; j < kCols; ++j) o[r][j] = member ? fma_rn(pk, vv[j], o[r][j]) : o[r][j];
        }
      }
    }
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
#pragma unroll
  for (int r = 0; r < RM; ++r) l[r] = gpu::shuffle_in_group(l_own, (tid & 16) + r);
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

}  // namespace samebits::kernels::attention::cuda
