// kernels/src/cuda/attention_bwd_dq_kernel.cuh — §5.2-3 dq: one block per
// (64-row query tile, query head, sequence). Per key block in list order:
// s = dot(q, k), dp = dot(dO, v) as 4 x 4 micro-tiles of chains over d,
// p = exp(t - lse), ds = p (dp - delta), then acc[d] = fma(ds, k[d], acc[d])
// over the members in ascending key order (4 rows x D/16 columns a thread).
// dq = mul(acc, scale), rounded once.
#pragma once

#include "attention_common.cuh"

namespace samebits::kernels::attention::cuda {

template <int D>
struct DqSmem {
  static constexpr int kLd = TileConfig<D>::kLd;
  static constexpr int kQ = 0, kDo = kQ + kTileRows * kLd, kK = kDo + kTileRows * kLd, kV = kK + kTileKeys * kLd,
                       kDs = kV + kTileKeys * kLd, kFloats = kDs + kTileRows * TileConfig<D>::kLdScores;
  static constexpr int kBytes = kFloats * 4;
};

template <int D, class L, DType In, DType Grad>
__global__ void __launch_bounds__(kThreads, 1) attention_bwd_dq_kernel(const BackwardParams p) {
  using Cfg = TileConfig<D>;
  using Sm = DqSmem<D>;
  constexpr int kLd = Cfg::kLd, kCols = Cfg::kColsPerThread, kLdS = Cfg::kLdScores;
  extern __shared__ float4 smem4[];
  float* smem = reinterpret_cast<float*>(smem4);
  float* sQ = smem + Sm::kQ;
  float* sDo = smem + Sm::kDo;
  float* sK = smem + Sm::kK;
  float* sV = smem + Sm::kV;
  float* sDs = smem + Sm::kDs;

  const Sequence seq = sequence_of(p, blockIdx.z);
  const int row0 = blockIdx.x * kTileRows;
  if (row0 >= seq.lq) return;
  const int h = blockIdx.y, g = h / (p.hq / p.hkv);
  const int tid = threadIdx.x, ty = tid / 16, tx = tid % 16;
  const int valid_rows = min(kTileRows, seq.lq - row0);

  int n[4];
  float lse[4], delta[4];
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const int i = row0 + ty * 4 + r;
    n[r] = list_length(seq, i, p.causal);
    lse[r] = i < seq.lq ? p.lse[(seq.q0 + i) * p.hq + h] : 0.0f;
    delta[r] = i < seq.lq ? p.delta[(seq.q0 + i) * p.hq + h] : 0.0f;
  }
  const int tile_n = list_length(seq, row0 + valid_rows - 1, p.causal);

  load_tile<D, In>(sQ, p.q, p.q_stride, seq.q0 + row0, valid_rows, h);
  load_tile<D, In>(sDo, p.dout, p.dout_stride, seq.q0 + row0, valid_rows, h);

  float acc[4][kCols];
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int j = 0; j < kCols; ++j) acc[r][j] = 0.0f;

  for (int key0 = 0; key0 < tile_n; key0 += kTileKeys) {
    const int valid_keys = min(kTileKeys, seq.lk - key0);
    __syncthreads();
    load_tile<D, In>(sK, p.k, p.k_stride, seq.k0 + key0, valid_keys, g);
    load_tile<D, In>(sV, p.v, p.v_stride, seq.k0 + key0, valid_keys, g);
    __syncthreads();

    float s[4][4], dp[4][4];
    tile_dots<D>(sQ, sK, ty, tx, s);
    tile_dots<D>(sDo, sV, ty, tx, dp);
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const float pr = L::exp(sub_rn(mul_rn(s[r][c], p.scale), lse[r]));
        sDs[(ty * 4 + r) * kLdS + tx + 16 * c] = mul_rn(pr, sub_rn(dp[r][c], delta[r]));
      }
    __syncthreads();

    const bool all_members = key0 + kTileKeys <= min(min(n[0], n[1]), min(n[2], n[3]));
    if (all_members) {
#pragma unroll 2
      for (int k = 0; k < kTileKeys; k += 4) {
        float4 dsv[4];
#pragma unroll
        for (int r = 0; r < 4; ++r) dsv[r] = ld4(sDs + (ty * 4 + r) * kLdS + k);
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          float kv[kCols];
#pragma unroll
          for (int j = 0; j < kCols; j += 4) {
            const float4 x = ld4(sK + (k + i) * kLd + tx * kCols + j);
            kv[j] = x.x; kv[j + 1] = x.y; kv[j + 2] = x.z; kv[j + 3] = x.w;
          }
#pragma unroll
          for (int r = 0; r < 4; ++r) {
            const float ds = comp(dsv[r], i);
#pragma unroll
            for (int j = 0; j < kCols; ++j) acc[r][j] = fma_rn(ds, kv[j], acc[r][j]);
          }
        }
      }
    } else {
      for (int k = 0; k < kTileKeys; ++k) {
        float kv[kCols];
#pragma unroll
        for (int j = 0; j < kCols; j += 4) {
          const float4 x = ld4(sK + k * kLd + tx * kCols + j);
          kv[j] = x.x; kv[j + 1] = x.y; kv[j + 2] = x.z; kv[j + 3] = x.w;
        }
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const bool member = key0 + k < n[r];
          const float ds = sDs[(ty * 4 + r) * kLdS + k];
#pragma unroll
          for (int j = 0; j < kCols; ++j) acc[r][j] = member ? fma_rn(ds, kv[j], acc[r][j]) : acc[r][j];
        }
      }
    }
  }

#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const int i = row0 + ty * 4 + r;
    if (i >= seq.lq) continue;
    const std::int64_t base =
        (seq.q0 + i) * p.dq_stride.row + static_cast<std::int64_t>(h) * p.dq_stride.head + tx * kCols;
#pragma unroll
    for (int j = 0; j < kCols; ++j) store_from_f32(p.dq, Grad, base + j, mul_rn(acc[r][j], p.scale));
  }
}

}  // namespace samebits::kernels::attention::cuda
