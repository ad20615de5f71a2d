// kernels/src/cuda/attention_bwd_dq_kernel.cuh — §5.2-3 dq: one block per
// (16*RM-row query tile, query head, sequence). Per key block in list order:
// s = dot(q, k), dp = dot(dO, v) as RM x 4 micro-tiles of chains over d,
// p = exp(t - lse), ds = p (dp - delta), then acc[d] = fma(ds, k[d], acc[d])
// over the members in ascending key order (RM rows x D/16 columns a thread).
// dq = mul(acc, scale), rounded once. ds lives where v was (v is consumed by
// dp before ds is written: a barrier between), which keeps RM = 8 in shared
// memory.
#pragma once

#include "attention_common.cuh"

namespace samebits::kernels::attention::cuda {

template <int D, int RM>
struct DqSmem {
  static_assert(kValidRowsPerThread<RM>, "RM = 4 or 8 rows per thread");
  static constexpr int kRows = 16 * RM;
  static constexpr int kLd = TileConfig<D>::kLd;
  static constexpr int kLdS = kTileKeys + 4;  // ds [row][key]: float4 rows (adjacent rows in other banks), aliased on sV
  static constexpr int kQ = 0, kDo = kQ + kRows * kLd, kK = kDo + kRows * kLd, kV = kK + kTileKeys * kLd,
                       kLse = kV + (kTileKeys * kLd > kRows * kLdS ? kTileKeys * kLd : kRows * kLdS),
                       kDelta = kLse + kRows, kFloats = kDelta + kRows;
  static constexpr int kDs = kV;
  static constexpr int kBytes = kFloats * 4;
  static_assert(kBytes <= 227 * 1024, "dq tile fits an H200 block's shared memory");
};

template <int D, int RM, class L, DType In, DType Grad>
__global__ void __launch_bounds__(kThreads, 1) attention_bwd_dq_kernel(const BackwardParams p) {
  using Cfg = TileConfig<D>;
  using Sm = DqSmem<D, RM>;
  constexpr int kRows = Sm::kRows;
  constexpr int kLd = Cfg::kLd, kCols = Cfg::kColsPerThread, kLdS = Sm::kLdS;
  extern __shared__ float4 smem4[];
  float* smem = reinterpret_cast<float*>(smem4);
  float* sQ = smem + Sm::kQ;
  float* sDo = smem + Sm::kDo;
  float* sK = smem + Sm::kK;
  float* sV = smem + Sm::kV;
  float* sDs = smem + Sm::kDs;
  float* sLse = smem + Sm::kLse;  // per row: in shared memory, not registers (RM = 8 fits without spills)
  float* sDelta = smem + Sm::kDelta;

  const Sequence seq = sequence_of(p, blockIdx.z);
  // Heaviest tiles (latest rows: longest causal lists) first.
  const int row0 = (gridDim.x - 1 - blockIdx.x) * kRows;
  if (row0 >= seq.lq) return;
  const int h = blockIdx.y, g = h / (p.hq / p.hkv);
  const int tid = threadIdx.x, ty = tid / 16, tx = tid % 16;
  const int valid_rows = min(kRows, seq.lq - row0);

  // Lists grow with the row: the thread's first row has the shortest.
  const int n_min = list_length(seq, row0 + ty, p.causal);
  if (tid < kRows) {
    const int i = row0 + tid;
    sLse[tid] = i < seq.lq ? p.lse[(seq.q0 + i) * p.hq + h] : 0.0f;
    sDelta[tid] = i < seq.lq ? p.delta[(seq.q0 + i) * p.hq + h] : 0.0f;
  }
  const int tile_n = list_length(seq, row0 + valid_rows - 1, p.causal);

  load_tile<D, In, kRows>(sQ, p.q, p.q_stride, seq.q0 + row0, valid_rows, h);
  load_tile<D, In, kRows>(sDo, p.dout, p.dout_stride, seq.q0 + row0, valid_rows, h);

  float acc[RM][kCols];
#pragma unroll
  for (int r = 0; r < RM; ++r)
#pragma unroll
    for (int j = 0; j < kCols; ++j) acc[r][j] = 0.0f;

  for (int key0 = 0; key0 < tile_n; key0 += kTileKeys) {
    const int valid_keys = min(kTileKeys, seq.lk - key0);
    __syncthreads();  // the previous block's sK and sDs are consumed
    load_tile<D, In>(sK, p.k, p.k_stride, seq.k0 + key0, valid_keys, g);
    load_tile<D, In>(sV, p.v, p.v_stride, seq.k0 + key0, valid_keys, g);
    __syncthreads();

    float s[RM][4], dp[RM][4];
    tile_dots<D, true>(sQ, sK, ty, tx, s);
    tile_dots<D, true>(sDo, sV, ty, tx, dp);
    __syncthreads();  // sV is consumed: sDs overwrites it
#pragma unroll
    for (int r = 0; r < RM; ++r)
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const float pr = L::exp(sub_rn(mul_rn(s[r][c], p.scale), sLse[ty + 16 * r]));
        sDs[(ty + 16 * r) * kLdS + tx + 16 * c] = mul_rn(pr, sub_rn(dp[r][c], sDelta[ty + 16 * r]));
      }
    __syncthreads();

    const bool all_members = key0 + kTileKeys <= n_min;
    if (all_members) {
#pragma unroll 1
      for (int k = 0; k < kTileKeys; k += 4) {
        float4 dsv[RM];
#pragma unroll
        for (int r = 0; r < RM; ++r) dsv[r] = ld4(sDs + (ty + 16 * r) * kLdS + k);
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          float kv[kCols];
#pragma unroll
          for (int j = 0; j < kCols; j += 4) {
            const float4 x = ld4(sK + (k + i) * kLd + col_of(tx, j));
            kv[j] = x.x; kv[j + 1] = x.y; kv[j + 2] = x.z; kv[j + 3] = x.w;
          }
#pragma unroll
          for (int r = 0; r < RM; ++r) {
            const float ds = comp(dsv[r], i);
#pragma unroll
            for (int j = 0; j < kCols; ++j) acc[r][j] = fma_rn(ds, kv[j], acc[r][j]);
          }
        }
      }
    } else {
      int n[RM];
#pragma unroll
      for (int r = 0; r < RM; ++r) n[r] = list_length(seq, row0 + ty + 16 * r, p.causal);
      for (int k = 0; k < kTileKeys; ++k) {
        float kv[kCols];
#pragma unroll
        for (int j = 0; j < kCols; j += 4) {
          const float4 x = ld4(sK + k * kLd + col_of(tx, j));
          kv[j] = x.x; kv[j + 1] = x.y; kv[j + 2] = x.z; kv[j + 3] = x.w;
        }
#pragma unroll
        for (int r = 0; r < RM; ++r) {
          const bool member = key0 + k < n[r];
          const float ds = sDs[(ty + 16 * r) * kLdS + k];
#pragma unroll
          for (int j = 0; j < kCols; ++j) acc[r][j] = member ? fma_rn(ds, kv[j], acc[r][j]) : acc[r][j];
        }
      }
    }
  }

#pragma unroll
  for (int r = 0; r < RM; ++r) {
    const int i = row0 + ty + 16 * r;
    if (i >= seq.lq) continue;
    const std::int64_t base = (seq.q0 + i) * p.dq_stride.row + static_cast<std::int64_t>(h) * p.dq_stride.head;
#pragma unroll
    for (int j = 0; j < kCols; ++j) store_from_f32(p.dq, Grad, base + col_of(tx, j), mul_rn(acc[r][j], p.scale));
  }
}

}  // namespace samebits::kernels::attention::cuda
