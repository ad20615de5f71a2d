// kernels/src/cuda/attention_bwd_dkdv_kernel.cuh — §5 dK/dV accumulators: one
// block per (64-key tile, query head, sequence). The block's 64 keys x D
// accumulators A_K, A_V stay in registers (4 keys x D/16 columns a thread)
// and advance over the query rows in ascending order, tile by tile: scores
// s = dot(k, q) and dp = dot(v, dO) as 4 x 4 micro-tiles of chains over d,
// then p = exp(t - lse), ds = p (dp - delta), then for each row in order
// A_V = fma(p, dO[d], A_V), A_K = fma(ds, q[d], A_K) where the row's list
// holds the key (a predicate: non-members touch nothing). The result goes to
// the fp32 workspace [total_k, hq, D] (the head fold is its own kernel).
#pragma once

#include "attention_common.cuh"

namespace samebits::kernels::attention::cuda {

// p and ds as [row][key]: a thread's 4 keys (ty*4 .. +3) of one row are one
// float4, written and read whole (row stride 68: conflict-free float4 stores).
inline constexpr int kLdTransposed = kTileKeys + 4;

template <int D>
struct DkdvSmem {
  static constexpr int kLd = TileConfig<D>::kLd;
  static constexpr int kK = 0, kV = kK + kTileKeys * kLd, kQ = kV + kTileKeys * kLd, kDo = kQ + kTileRows * kLd,
                       kP = kDo + kTileRows * kLd, kDs = kP + kTileRows * kLdTransposed,
                       kLse = kDs + kTileRows * kLdTransposed, kDelta = kLse + kTileRows,
                       kFloats = kDelta + kTileRows;
  static constexpr int kBytes = kFloats * 4;
};

template <int D, class L, DType In>
__global__ void __launch_bounds__(kThreads, 1) attention_bwd_dkdv_kernel(const BackwardParams p) {
  using Cfg = TileConfig<D>;
  using Sm = DkdvSmem<D>;
  constexpr int kLd = Cfg::kLd, kCols = Cfg::kColsPerThread;
  extern __shared__ float4 smem4[];
  float* smem = reinterpret_cast<float*>(smem4);
  float* sK = smem + Sm::kK;
  float* sV = smem + Sm::kV;
  float* sQ = smem + Sm::kQ;
  float* sDo = smem + Sm::kDo;
  float* sP = smem + Sm::kP;
  float* sDs = smem + Sm::kDs;
  float* sLse = smem + Sm::kLse;
  float* sDelta = smem + Sm::kDelta;

  const Sequence seq = sequence_of(p, blockIdx.z);
  const int key0 = blockIdx.x * kTileKeys;
  if (key0 >= seq.lk) return;
  const int h = blockIdx.y, g = h / (p.hq / p.hkv);
  const int tid = threadIdx.x, ty = tid / 16, tx = tid % 16;
  const int valid_keys = min(kTileKeys, seq.lk - key0);

  load_tile<D, In>(sK, p.k, p.k_stride, seq.k0 + key0, valid_keys, g);
  load_tile<D, In>(sV, p.v, p.v_stride, seq.k0 + key0, valid_keys, g);

  // Accumulators of keys key0 + ty*4 + r, columns col_of(tx, j).
  float ak[4][kCols], av[4][kCols];
  const std::int64_t row_stride = static_cast<std::int64_t>(p.hq) * D;
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const int kr = ty * 4 + r;
    const std::int64_t a = (seq.k0 + key0 + kr) * row_stride + static_cast<std::int64_t>(h) * D;
#pragma unroll
    for (int j = 0; j < kCols; ++j) {
      const bool from_input = p.accum_k_in != nullptr && kr < valid_keys;
      ak[r][j] = from_input ? p.accum_k_in[a + col_of(tx, j)] : 0.0f;
      av[r][j] = from_input ? p.accum_v_in[a + col_of(tx, j)] : 0.0f;
    }
  }

  // Rows before first_row hold none of these keys (their lists end earlier).
  const int first_row = p.causal ? max(0, key0 - (seq.lk - seq.lq)) : 0;
  for (int qrow0 = first_row; qrow0 < seq.lq; qrow0 += kTileRows) {
    const int valid_rows = min(kTileRows, seq.lq - qrow0);
    __syncthreads();  // the previous tile's shared data are consumed
    load_tile<D, In>(sQ, p.q, p.q_stride, seq.q0 + qrow0, valid_rows, h);
    load_tile<D, In>(sDo, p.dout, p.dout_stride, seq.q0 + qrow0, valid_rows, h);
    if (tid < kTileRows) {
      const bool ok = tid < valid_rows;
      sLse[tid] = ok ? p.lse[(seq.q0 + qrow0 + tid) * p.hq + h] : 0.0f;
      sDelta[tid] = ok ? p.delta[(seq.q0 + qrow0 + tid) * p.hq + h] : 0.0f;
    }
    __syncthreads();

    float s[4][4], dp[4][4];
    tile_dots<D, false>(sK, sQ, ty, tx, s);   // keys ty*4+r, rows tx+16c
    tile_dots<D, false>(sV, sDo, ty, tx, dp);
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const int x = tx + 16 * c;
      const float lse = sLse[x], delta = sDelta[x];
      float pr[4], ds[4];
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        pr[r] = L::exp(sub_rn(mul_rn(s[r][c], p.scale), lse));
        ds[r] = mul_rn(pr[r], sub_rn(dp[r][c], delta));
      }
      *reinterpret_cast<float4*>(sP + x * kLdTransposed + ty * 4) = make_float4(pr[0], pr[1], pr[2], pr[3]);
      *reinterpret_cast<float4*>(sDs + x * kLdTransposed + ty * 4) = make_float4(ds[0], ds[1], ds[2], ds[3]);
    }
    __syncthreads();

    const bool all_members = valid_rows == kTileRows && list_length(seq, qrow0, p.causal) >= key0 + valid_keys;
    if (all_members) {
#pragma unroll 2
      for (int x = 0; x < kTileRows; ++x) {
        const float4 pv = ld4(sP + x * kLdTransposed + ty * 4), dsv = ld4(sDs + x * kLdTransposed + ty * 4);
        float qv[kCols], dov[kCols];
#pragma unroll
        for (int j = 0; j < kCols; j += 4) {
          const float4 a = ld4(sQ + x * kLd + col_of(tx, j));
          const float4 b = ld4(sDo + x * kLd + col_of(tx, j));
          qv[j] = a.x; qv[j + 1] = a.y; qv[j + 2] = a.z; qv[j + 3] = a.w;
          dov[j] = b.x; dov[j + 1] = b.y; dov[j + 2] = b.z; dov[j + 3] = b.w;
        }
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const float pr = comp(pv, r), dsr = comp(dsv, r);
#pragma unroll
          for (int j = 0; j < kCols; ++j) {
            av[r][j] = fma_rn(pr, dov[j], av[r][j]);
            ak[r][j] = fma_rn(dsr, qv[j], ak[r][j]);
          }
        }
      }
    } else {
      for (int x = 0; x < kTileRows; ++x) {
        const int n = list_length(seq, qrow0 + x, p.causal);  // 0 past the sequence's rows
        const float4 pv = ld4(sP + x * kLdTransposed + ty * 4), dsv = ld4(sDs + x * kLdTransposed + ty * 4);
        float qv[kCols], dov[kCols];
#pragma unroll
        for (int j = 0; j < kCols; j += 4) {
          const float4 a = ld4(sQ + x * kLd + col_of(tx, j));
          const float4 b = ld4(sDo + x * kLd + col_of(tx, j));
          qv[j] = a.x; qv[j + 1] = a.y; qv[j + 2] = a.z; qv[j + 3] = a.w;
          dov[j] = b.x; dov[j + 1] = b.y; dov[j + 2] = b.z; dov[j + 3] = b.w;
        }
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const bool member = key0 + ty * 4 + r < n;
          const float pr = comp(pv, r), dsr = comp(dsv, r);
#pragma unroll
          for (int j = 0; j < kCols; ++j) {
            av[r][j] = member ? fma_rn(pr, dov[j], av[r][j]) : av[r][j];
            ak[r][j] = member ? fma_rn(dsr, qv[j], ak[r][j]) : ak[r][j];
          }
        }
      }
    }
  }

#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const int kr = ty * 4 + r;
    if (kr >= valid_keys) continue;
    const std::int64_t a = (seq.k0 + key0 + kr) * row_stride + static_cast<std::int64_t>(h) * D;
#pragma unroll
    for (int j = 0; j < kCols; ++j) {
      p.accum_k[a + col_of(tx, j)] = ak[r][j];
      p.accum_v[a + col_of(tx, j)] = av[r][j];
    }
  }
}

}  // namespace samebits::kernels::attention::cuda
