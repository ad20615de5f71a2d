// kernels/src/portable/attention/bwd_kernel.cuh — the backward's main kernel
// (§5): one block per (64-key block, query head, sequence), taken in ticket
// order. The block's 64 keys x D accumulators A_K, A_V stay in registers
// (4 keys x D/16 columns a thread) and advance over the query rows in
// ascending order, 64-row tile by tile:
//   s = dot(k, q), dp = dot(v, dO) as 4 x 4 micro-tiles of chains over d;
//   p = exp(t - lse), ds = p (dp - delta);
//   for each row in order: A_V = fma(p, dO[d], A_V), A_K = fma(ds, q[d], A_K)
//   where the row's list holds the key (a predicate: non-members touch nothing);
//   dq: each row's fp32 accumulator (workspace) continues its chain over this
//   block's member keys in ascending order, acc = fma(ds, k[d], acc) — behind
//   the tile's flag, so that the key blocks of a query tile take their turns in
//   list order (§5.2: one chain over the whole list, as the reference's).
// The dK/dV result goes to the fp32 workspace [total_k, hq, D] (the head fold
// is its own kernel); dq = mul(acc, scale) is rounded by its own kernel.
//
// Ordering without deadlock: a block waits only for the block of the same
// (sequence, head) one key block earlier. Blocks take tickets (an integer
// atomic: scheduling, not arithmetic) and a ticket's work is key-block-major,
// so that block's ticket is smaller: it is running or done, never waiting for
// a multiprocessor this block holds.
//
// Query tiles are aligned to multiples of 64 rows from the sequence's row 0
// (the flags are per tile); a block starts at the first tile holding a row
// whose list reaches its keys.
#pragma once

#include "portable/common/attention_common.cuh"

namespace samebits::kernels::attention::cuda {

// p and ds as [row][key]: a thread's 4 keys (ty*4 .. +3) of one row are one
// float4, written and read whole (row stride 68: conflict-free float4 stores).
inline constexpr int kLdTransposed = kTileKeys + 4;

template <int D, DType In>
struct BackwardSmem {
  static constexpr int kLd = TileConfig<D>::kLd;
  // Staging for the next query tile's q and dO as stored (16-bit inputs only).
  static constexpr int kStageFloats = kStaged<In> ? kStagingBytes<D, In> / 4 : 0;
  static constexpr int kK = 0, kV = kK + kTileKeys * kLd, kQ = kV + kTileKeys * kLd, kDo = kQ + kTileRows * kLd,
                       kP = kDo + kTileRows * kLd, kDs = kP + kTileRows * kLdTransposed,
                       kLse = kDs + kTileRows * kLdTransposed, kDelta = kLse + kTileRows,
                       kStageQ = kDelta + kTileRows, kStageDo = kStageQ + kStageFloats,
                       kTicket = kStageDo + kStageFloats, kFloats = kTicket + 4;
  static constexpr int kBytes = kFloats * 4;
  static_assert(kBytes <= 227 * 1024, "backward tile fits an H200 block's shared memory");
  static_assert(kStageQ % 4 == 0 && kStageFloats % 4 == 0, "staging buffers 16-byte aligned");
};

// The flag of query tile `tile` of the sequence starting at packed row q0, at
// head h: tiles are fewer than the sequence's rows, so (q0 + tile) is unique.
SAMEBITS_DEVICE_FUNC int* dq_flag(const BackwardParams& p, std::int64_t q0, int tile, int h) {
  return p.dq_flags + (q0 + tile) * p.hq + h;
}

template <int D, class L, DType In>
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kThreads, 1) attention_bwd_kernel(const BackwardParams p) {
  using Cfg = TileConfig<D>;
  using Sm = BackwardSmem<D, In>;
  constexpr int kLd = Cfg::kLd, kCols = Cfg::kColsPerThread;
  extern SAMEBITS_SHARED float4 smem4[];
  float* smem = reinterpret_cast<float*>(smem4);
  float* sK = smem + Sm::kK;
  float* sV = smem + Sm::kV;
  float* sQ = smem + Sm::kQ;
  float* sDo = smem + Sm::kDo;
  float* sP = smem + Sm::kP;
  float* sDs = smem + Sm::kDs;
  float* sLse = smem + Sm::kLse;
  float* sDelta = smem + Sm::kDelta;
  float* stage_q = smem + Sm::kStageQ;
  float* stage_do = smem + Sm::kStageDo;
  int* sTicket = reinterpret_cast<int*>(smem + Sm::kTicket);

  const int tid = gpu::threadIdx.x, ty = tid / 16, tx = tid % 16;
  if (tid == 0) *sTicket = gpu::fetch_add_agent(p.dq_flags + p.total_q * p.hq, 1);
  gpu::block_barrier();
  const int ticket = *sTicket;
  const int per_block = p.hq * p.num_seqs;
  const int kb = ticket / per_block, h = ticket % p.hq, seq_index = (ticket % per_block) / p.hq;

  const Sequence seq = sequence_of(p, seq_index);
  const int key0 = kb * kTileKeys;
  if (key0 >= seq.lk) return;
  const int g = h / (p.hq / p.hkv);
  const int valid_keys = gpu::min_int(kTileKeys, seq.lk - key0);

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
  const int first_row = p.causal ? gpu::max_int(0, key0 - (seq.lk - seq.lq)) : 0;
  const int first_tile = first_row / kTileRows;
  const bool staged =
      kStaged<In> && vector_readable<In>(p.q, p.q_stride) && vector_readable<In>(p.dout, p.dout_stride);
  // The next tile's q and dO go to the staging buffers by cp.async, its lse
  // and delta to registers (threads tid < 64), while this tile is computed.
  float next_lse = 0.0f, next_delta = 0.0f;
  auto prefetch_tile = [&](int qrow0) {
    if (qrow0 < seq.lq) {
      const int valid_rows = gpu::min_int(kTileRows, seq.lq - qrow0);
      if (staged) {
        stage_tile_async<D, In>(stage_q, p.q, p.q_stride, seq.q0 + qrow0, valid_rows, h);
        stage_tile_async<D, In>(stage_do, p.dout, p.dout_stride, seq.q0 + qrow0, valid_rows, h);
      }
      if (tid < valid_rows) {
        next_lse = p.lse[(seq.q0 + qrow0 + tid) * p.hq + h];
        next_delta = p.delta[(seq.q0 + qrow0 + tid) * p.hq + h];
      }
    }
    if (staged) gpu::copy_async_commit();
  };
  prefetch_tile(first_tile * kTileRows);

  for (int tile = first_tile; tile * kTileRows < seq.lq; ++tile) {
    const int qrow0 = tile * kTileRows;
    const int valid_rows = gpu::min_int(kTileRows, seq.lq - qrow0);
    if (staged) {
      gpu::copy_async_wait_all();
      gpu::block_barrier();  // the tile is staged; the previous tile's shared data are consumed
      widen_staged_tile<D, In>(sQ, stage_q, valid_rows);
      widen_staged_tile<D, In>(sDo, stage_do, valid_rows);
    } else {
      gpu::block_barrier();  // the previous tile's shared data are consumed
      load_tile<D, In>(sQ, p.q, p.q_stride, seq.q0 + qrow0, valid_rows, h);
      load_tile<D, In>(sDo, p.dout, p.dout_stride, seq.q0 + qrow0, valid_rows, h);
    }
    if (tid < kTileRows) {
      const bool ok = tid < valid_rows;
      sLse[tid] = ok ? next_lse : 0.0f;
      sDelta[tid] = ok ? next_delta : 0.0f;
    }
    gpu::block_barrier();  // sQ, sDo, sLse, sDelta ready; the staging buffers are free
    prefetch_tile(qrow0 + kTileRows);

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
    gpu::block_barrier();

    // Every (row, key) of the tile a member: no predicates (a full key block:
    // the dq segment runs over all 64 keys).
    const bool all_members = valid_rows == kTileRows && valid_keys == kTileKeys &&
                             list_length(seq, qrow0, p.causal) >= key0 + kTileKeys;
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

    // §5.2 dq, this key block's segment of each row's chain: rows ty*4 + r,
    // columns col_of(tx, j); after key block kb - 1's segment (the flag).
    int* flag = dq_flag(p, seq.q0, tile, h);
    if (tid == 0) {
      while (gpu::load_acquire_agent(flag) < kb) {
      }
    }
    gpu::block_barrier();
    {
      int n[4];
      float acc[4][kCols];
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        n[r] = list_length(seq, qrow0 + ty * 4 + r, p.causal);
        const float* a = p.dq_accum + (seq.q0 + qrow0 + ty * 4 + r) * row_stride + static_cast<std::int64_t>(h) * D;
#pragma unroll
        for (int j = 0; j < kCols; j += 4) {
          float4 x = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
          if (n[r] > key0) x = gpu::load_coherent(a + col_of(tx, j));
          acc[r][j] = x.x; acc[r][j + 1] = x.y; acc[r][j + 2] = x.z; acc[r][j + 3] = x.w;
        }
      }
      if (all_members) {
#pragma unroll kUnrollPv
        for (int k = 0; k < kTileKeys; k += 4) {
          float4 dsv[4];
#pragma unroll
          for (int r = 0; r < 4; ++r) dsv[r] = ld4(sDs + (ty * 4 + r) * kLdTransposed + k);
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            float kv[kCols];
#pragma unroll
            for (int j = 0; j < kCols; j += 4) {
              const float4 x = ld4(sK + (k + i) * kLd + col_of(tx, j));
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
            const float4 x = ld4(sK + k * kLd + col_of(tx, j));
            kv[j] = x.x; kv[j + 1] = x.y; kv[j + 2] = x.z; kv[j + 3] = x.w;
          }
#pragma unroll
          for (int r = 0; r < 4; ++r) {
            const bool member = key0 + k < n[r];
            const float ds = sDs[(ty * 4 + r) * kLdTransposed + k];
#pragma unroll
            for (int j = 0; j < kCols; ++j) acc[r][j] = member ? fma_rn(ds, kv[j], acc[r][j]) : acc[r][j];
          }
        }
      }
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        if (n[r] <= key0) continue;  // no member here: the row's accumulator is not touched
        float* a = p.dq_accum + (seq.q0 + qrow0 + ty * 4 + r) * row_stride + static_cast<std::int64_t>(h) * D;
#pragma unroll
        for (int j = 0; j < kCols; j += 4)
          gpu::store_coherent(a + col_of(tx, j), make_float4(acc[r][j], acc[r][j + 1], acc[r][j + 2], acc[r][j + 3]));
      }
    }
    gpu::fence_agent();
    gpu::block_barrier();  // every thread's segment is stored and fenced
    if (tid == 0) gpu::store_release_agent(flag, kb + 1);
  }
  if (staged) gpu::copy_async_wait_all();  // no copy outlives the block

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

// dq = mul(acc, scale), rounded once to the gradient dtype (§5.3); rows whose
// list is empty kept their +0 (the workspace is cleared before the kernel).
// One thread per (row, head, column).
// kZeroRule: the sm90-tensor-core policy writes z(mul(acc, scale)) (attention-tc.md §7).
template <int D, DType Grad, bool kZeroRule = false>
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kThreads) attention_bwd_dq_finish_kernel(const BackwardParams p) {
  const std::int64_t task = static_cast<std::int64_t>(gpu::blockIdx.x) * kThreads + gpu::threadIdx.x;
  if (task >= p.total_q * p.hq * D) return;
  const int d = static_cast<int>(task % D);
  const std::int64_t rh = task / D;
  const int h = static_cast<int>(rh % p.hq);
  const std::int64_t row = rh / p.hq;
  store_from_f32(p.dq, Grad, row * p.dq_stride.row + static_cast<std::int64_t>(h) * p.dq_stride.head + d,
                 kZeroRule ? zero_canonical(mul_rn(p.dq_accum[task], p.scale)) : mul_rn(p.dq_accum[task], p.scale));
}

}  // namespace samebits::kernels::attention::cuda
