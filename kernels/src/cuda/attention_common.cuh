// kernels/src/cuda/attention_common.cuh — what the attention kernels share:
// the tile configuration, the libm policies as device functors, the sequence
// a block works on, membership (§1) and the tile loads.
#pragma once

#include <cstdint>

#include "samebits/kernels/attention/contract.hpp"
#include "samebits/kernels/attention/params.hpp"
#include "samebits/kernels/dtype.hpp"
#include "samebits/libm/arch/ieee.hpp"
#include "samebits/libm/cr.hpp"
#include "samebits/libm/nvcc.hpp"
#include "ptx_ops.cuh"

namespace samebits::kernels::attention::cuda {

using arch::add_rn;
using arch::div_rn;
using arch::fma_rn;
using arch::mul_rn;
using arch::sub_rn;

// ---- libm policies (§7): the very functions the CPU reference calls --------
struct NvccExpLog {
  static constexpr Libm kLibm = Libm::nvcc;
  SAMEBITS_DEVICE_FUNC static float exp(float x) { return samebits::nvcc::expf(x); }
  SAMEBITS_DEVICE_FUNC static float log(float x) { return samebits::nvcc::logf(x); }
};
struct CrExpLog {
  static constexpr Libm kLibm = Libm::cr;
  SAMEBITS_DEVICE_FUNC static float exp(float x) { return samebits::cr::expf(x); }
  SAMEBITS_DEVICE_FUNC static float log(float x) { return samebits::cr::logf(x); }
};

// ---- tiles -----------------------------------------------------------------
// Every kernel: 256 threads as a 16 x 16 grid (ty = tid / 16, tx = tid % 16);
// a 64-row (or 64-key) tile per block, each thread 4 rows of it. Key tiles
// are the contract's blocks: B = 64 keys counted from the sequence's key 0.
inline constexpr int kThreads = 256;
inline constexpr int kTileRows = 64;
inline constexpr int kTileKeys = kBlock;
inline constexpr int kRowsPerThread = 4;   // ty * 4 .. ty * 4 + 3
inline constexpr int kKeysPerThread = 4;   // tx + 16 * c, c = 0..3
static_assert(kTileKeys == 64, "the key tile is the contract's block (B = 64)");
static_assert(kThreads == 16 * 16 && kTileRows == 16 * kRowsPerThread && kTileKeys == 16 * kKeysPerThread,
              "tile = 16 x 16 threads of 4 x 4 scores");

template <int D>
struct TileConfig {
  static_assert(D == 64 || D == 128, "D in {64, 128} (§2)");
  static constexpr int kLd = D + 4;          // shared row stride: float4 aligned, conflict-free float4 rows
  static constexpr int kColsPerThread = D / 16;  // output columns tx * kCols .. + kCols - 1
  static_assert(kColsPerThread % 4 == 0, "output columns read as float4");
  static constexpr int kLdScores = kTileKeys + 4;  // [row][key] scores in shared memory
};

// The sequence of block (blockIdx.z) and its extents.
struct Sequence {
  std::int64_t q0, k0;  // first query row and first key row in the packed tensors
  int lq, lk;
};
SAMEBITS_DEVICE_FUNC Sequence sequence_of(const ProblemParams& p, int s) {
  Sequence q;
  const int a = p.cu_seqlens_q[s], b = p.cu_seqlens_q[s + 1];
  const int c = p.cu_seqlens_k[s], d = p.cu_seqlens_k[s + 1];
  q.q0 = a;
  q.k0 = c;
  q.lq = b - a;
  q.lk = d - c;
  return q;
}

// List length of query row i of the sequence (0 for rows outside it): its
// members are keys 0 .. n-1 (§1, bottom-right causal alignment).
SAMEBITS_DEVICE_FUNC int list_length(const Sequence& s, int i, bool causal) {
  return i < s.lq ? dense_list_length(i, s.lq, s.lk, causal) : 0;
}

// rows [row0, row0 + 64) of a [rows, heads, D] tensor at head h, widened to
// binary32 into shared memory [64][kLd]; rows at or past `valid` read as +0
// (no load: they may lie past the tensor's end).
template <int D, DType T>
SAMEBITS_DEVICE_FUNC void load_tile(float* dst, const void* base, Strides st, std::int64_t row0, int valid, int h) {
  constexpr int kLd = TileConfig<D>::kLd;
  for (int e = threadIdx.x; e < 64 * D; e += kThreads) {
    const int r = e / D, c = e % D;
    float x = 0.0f;
    if (r < valid) x = load_as_f32(base, T, (row0 + r) * st.row + static_cast<std::int64_t>(h) * st.head + c);
    dst[r * kLd + c] = x;
  }
}

SAMEBITS_DEVICE_FUNC float4 ld4(const float* p) { return *reinterpret_cast<const float4*>(p); }

SAMEBITS_DEVICE_FUNC float comp(const float4& v, int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }

// s[r][c] = dot(a_r, b_c) for the thread's 4 rows of `a` (ty * 4 + r) and 4
// rows of `b` (tx + 16 c): each one chain from +0 over d = 0..D-1 (§4.1).
template <int D>
SAMEBITS_DEVICE_FUNC void tile_dots(const float* a, const float* b, int ty, int tx, float (&s)[4][4]) {
  constexpr int kLd = TileConfig<D>::kLd;
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int c = 0; c < 4; ++c) s[r][c] = 0.0f;
#pragma unroll 4
  for (int d = 0; d < D; d += 4) {
    float4 av[4], bv[4];
#pragma unroll
    for (int r = 0; r < 4; ++r) av[r] = ld4(a + (ty * 4 + r) * kLd + d);
#pragma unroll
    for (int c = 0; c < 4; ++c) bv[c] = ld4(b + (tx + 16 * c) * kLd + d);
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) s[r][c] = fma_rn(comp(av[r], i), comp(bv[c], i), s[r][c]);
  }
}

}  // namespace samebits::kernels::attention::cuda
