// kernels/src/portable/common/score_tile.cuh — the score tile: the dot products of a
// tile of left rows (query rows or heads; keys in the dK/dV kernel) against a tile of
// right rows (keys; query rows in the dK/dV kernel), each the contract's `dot` under the
// FMA-chain policy (attention.md §4.1, §5.2; sparse_mla.md §3-4 with k = v = kv):
//
//     acc = +0;  for d = 0, 1, ..., D-1:  acc = fma(a[d], b[d], acc)
//
// one sequential chain per (left row, right row), its columns in ascending order.
// Thread (ty, tx) of the 16 x 16 grid holds RM x 4 chains: left rows score_row(ty, r)
// (r = 0 .. RM-1), right rows tx + 16 c (c = 0 .. 3). Both tiles lie in shared memory
// as binary32 rows of stride kLdA / kLdB.
//
// One helper for every fma-chain kernel: score_chain_steps advances one set of chains,
// or two sets that share the right tile (s = q.kv and dp = dO.kv when K == V), over a
// range of columns; continue_score_chains[_pair] call it per column chunk (a kernel
// that streams the right tile in chunks: the same chains), score_tile[_pair] over all
// D columns from +0. The unroll
// factor and the sharing of the right tile's loads are scheduling only: every chain
// keeps its operands and their order, so the bits never depend on them.
#pragma once

#include "portable/common/rounded_ops.cuh"
#include "portable/common/tile_config.cuh"
#include "portable/common/tile_io.cuh"

namespace samebits::kernels::attention::cuda {

// Where thread row ty's RM left rows lie: interleaved (ty + 16 r: the two half
// warps read adjacent rows, in different banks) or blocked (ty * RM + r: the dK/dV
// kernel's 4 consecutive keys a thread).
enum class ScoreRows { interleaved, blocked };

template <ScoreRows kRows, int RM>
SAMEBITS_DEVICE_FUNC constexpr int score_row(int ty, int r) {
  return kRows == ScoreRows::interleaved ? ty + 16 * r : ty * RM + r;
}
// Right row c (0 .. 3) of thread column tx.
SAMEBITS_DEVICE_FUNC constexpr int score_col(int tx, int c) { return tx + 16 * c; }

template <int RM>
inline constexpr bool kValidScoreRows = RM == 1 || RM == 2 || RM == 4 || RM == 8;

// The steps of N = 1 or 2 sets of chains (s1 against a1; s2 against a2 when N = 2),
// both against the right tile b, over kCols columns in order: the left tiles from
// column a0, the right tile from its column 0. Each step is fma(a[r][d], b[c][d],
// s[r][c]), s1's before s2's. (The left tiles are passed as pointers, not as an array:
// an array argument built at the call would be a temporary of the kernel's frame and
// perturb its code generation.)
template <int kLdA, int kLdB, int kCols, int kUnroll, ScoreRows kRows, int N, int RM>
SAMEBITS_DEVICE_FUNC void score_chain_steps(const float* a1, const float* a2, int a0, const float* b, int ty, int tx,
                                            float (&s1)[RM][4], float (&s2)[RM][4]) {
  static_assert(N == 1 || N == 2, "one set of chains, or two sharing the right tile");
  static_assert(kValidScoreRows<RM>, "RM = 1, 2, 4 or 8 left rows a thread");
  static_assert(kCols % 4 == 0 && kLdA % 4 == 0 && kLdB % 4 == 0, "columns read as float4 from 16-byte aligned rows");
  static_assert(kLdB >= kCols, "the right tile's rows hold the columns");
#pragma unroll kUnroll
  for (int d = 0; d < kCols; d += 4) {
    float4 av1[RM], av2[RM], bv[4];
#pragma unroll
    for (int r = 0; r < RM; ++r) {
      const int row = score_row<kRows, RM>(ty, r);
      av1[r] = ld4(a1 + row * kLdA + a0 + d);
      if constexpr (N == 2) av2[r] = ld4(a2 + row * kLdA + a0 + d);
    }
#pragma unroll
    for (int c = 0; c < 4; ++c) bv[c] = ld4(b + score_col(tx, c) * kLdB + d);
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int r = 0; r < RM; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          s1[r][c] = fma_rn(comp(av1[r], i), comp(bv[c], i), s1[r][c]);
          if constexpr (N == 2) s2[r][c] = fma_rn(comp(av2[r], i), comp(bv[c], i), s2[r][c]);
        }
  }
}

// Continues the chains s[r][c] over kCols columns (a kernel that streams the right
// tile in column chunks calls it per chunk, in column order).
template <int kLdA, int kLdB, int kCols, int kUnroll, ScoreRows kRows, int RM>
SAMEBITS_DEVICE_FUNC void continue_score_chains(const float* a, int a0, const float* b, int ty, int tx,
                                                float (&s)[RM][4]) {
  score_chain_steps<kLdA, kLdB, kCols, kUnroll, kRows, 1>(a, a, a0, b, ty, tx, s, s);
}
// The same for two left tiles against one right tile (K == V: s = q.kv, dp = dO.kv).
template <int kLdA, int kLdB, int kCols, int kUnroll, ScoreRows kRows, int RM>
SAMEBITS_DEVICE_FUNC void continue_score_chains_pair(const float* a1, const float* a2, int a0, const float* b, int ty,
                                                     int tx, float (&s1)[RM][4], float (&s2)[RM][4]) {
  score_chain_steps<kLdA, kLdB, kCols, kUnroll, kRows, 2>(a1, a2, a0, b, ty, tx, s1, s2);
}

// The chains' start: +0.
template <int RM>
SAMEBITS_DEVICE_FUNC void clear_scores(float (&s)[RM][4]) {
#pragma unroll
  for (int r = 0; r < RM; ++r)
#pragma unroll
    for (int c = 0; c < 4; ++c) s[r][c] = 0.0f;
}
template <int RM>
SAMEBITS_DEVICE_FUNC void clear_scores(float (&s1)[RM][4], float (&s2)[RM][4]) {
#pragma unroll
  for (int r = 0; r < RM; ++r)
#pragma unroll
    for (int c = 0; c < 4; ++c) s1[r][c] = s2[r][c] = 0.0f;
}

// s[r][c] = dot(a_r, b_c) over d = 0 .. D-1, both tiles [rows][TileConfig<D>::kLd].
template <int D, ScoreRows kRows, int RM>
SAMEBITS_DEVICE_FUNC void score_tile(const float* a, const float* b, int ty, int tx, float (&s)[RM][4]) {
  constexpr int kLd = TileConfig<D>::kLd;
  clear_scores(s);
  continue_score_chains<kLd, kLd, D, kUnrollDots, kRows>(a, 0, b, ty, tx, s);
}

// score_tile for two left tiles against the same right one (s = q.kv and dp = dO.kv
// with K == V): each chain exactly as score_tile computes it, the right tile's loads
// shared.
template <int D, ScoreRows kRows, int RM>
SAMEBITS_DEVICE_FUNC void score_tile_pair(const float* a1, const float* a2, const float* b, int ty, int tx,
                                          float (&s1)[RM][4], float (&s2)[RM][4]) {
  constexpr int kLd = TileConfig<D>::kLd;
  clear_scores(s1, s2);
  continue_score_chains_pair<kLd, kLd, D, kUnrollDots, kRows>(a1, a2, 0, b, ty, tx, s1, s2);
}

}  // namespace samebits::kernels::attention::cuda
