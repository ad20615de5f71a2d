// kernels/src/portable/common/tile_config.cuh — the fma-chain kernels' block and tile
// shapes: 256 threads as a 16 x 16 grid, key tiles of the contract's B = 64 keys
// (attention.md §1: the block boundaries are part of the arithmetic), shared-memory row
// strides, the output-column map of a thread, and the unroll factors (scheduling only).
#pragma once

#include "samebits/gpu/backend.hpp"
#include "samebits/kernels/attention/contract.hpp"

namespace samebits::kernels::attention::cuda {

// Every kernel: 256 threads as a 16 x 16 grid (ty = tid / 16, tx = tid % 16).
// A block holds a tile of 16 * RM query rows (each thread RM rows, interleaved:
// ty + 16 r, so that the two half warps read adjacent rows, in different
// banks) — RM = 4 or 8 — or, in the dK/dV kernel, a tile of 64 keys (4
// consecutive keys a thread: ty * 4 + r).
// Key tiles are the contract's blocks: B = 64 keys counted from the
// sequence's key 0, each thread 4 keys of a block's scores (tx + 16 c).
// Unroll factors of the score loop (over d) and of the p.v / ds.k loops (over
// keys): scheduling only, never the bits (every chain keeps its order). The
// defaults were the fastest of (dots, pv) in {(2,1), (4,2), (2,2), (1,2)} on
// an H100 at S = 4096 (docs/kernels/attention-results.md), by 1-2%.
inline constexpr int kUnrollDots = 4;
inline constexpr int kUnrollPv = 2;
inline constexpr int kThreads = 256;
inline constexpr int kTileRows = 64;  // query rows per tile of the dK/dV kernel
inline constexpr int kTileKeys = kBlock;
inline constexpr int kKeysPerThread = 4;   // tx + 16 * c, c = 0..3
static_assert(kTileKeys == 64, "the key tile is the contract's block (B = 64)");
static_assert(kThreads == 16 * 16 && kTileKeys == 16 * kKeysPerThread && kTileRows == 16 * 4,
              "tile = 16 x 16 threads of RM x 4 scores");
inline constexpr int kLdScores = kTileKeys + 4;  // [row][key] scores (p) of a key tile in shared memory
template <int RM>
inline constexpr bool kValidRowsPerThread = RM == 4 || RM == 8;

template <int D>
struct TileConfig {
  static_assert(D == 64 || D == 128 || D == 512, "D: 64, 128 (attention.md §2) or 512 (sparse_mla.md §1)");
  static constexpr int kLd = D + 4;          // shared row stride: float4 aligned, conflict-free float4 rows
  static constexpr int kColsPerThread = D / 16;  // output columns col_of(tx, 0 .. kCols - 1)
  static_assert(kColsPerThread % 4 == 0, "output columns read as float4");
  static constexpr int kLdScores = cuda::kLdScores;
};

// Output column j (0 .. D/16 - 1) of thread column tx: groups of 4 columns,
// group j/4 at 64 * (j/4) + 4 * tx, so that a warp's float4 reads of one
// shared row are contiguous (2 wavefronts, not 4).
SAMEBITS_DEVICE_FUNC constexpr int col_of(int tx, int j) { return (j / 4) * 64 + tx * 4 + j % 4; }

}  // namespace samebits::kernels::attention::cuda
