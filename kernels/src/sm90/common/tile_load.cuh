// kernels/src/sm90/common/tile_load.cuh — global rows into a swizzled tile
// (smem_tile.cuh's TcSwTile): by TMA for a tile that lies whole inside one
// sequence, by cp.async for the rest (rows outside zero-filled: the contract's
// zero rows, attention-tc.md §3, §11.1, §27). Either copy lands the same bytes
// in the same layout, so the bits cannot depend on which one ran.
//
//   tc_stage_tile_sw           cp.async, a strided loop (any thread count)
//   TcSwRowCopy                cp.async, four threads a row, unrolled: the
//                              destination side of a row copy, for any source
//                              of rows (strided rows below; gathered rows — sparse
//                              MLA's top-k kv rows — supply their own address a row)
//   tc_stage_tile_sw_unrolled  TcSwRowCopy over strided rows
//   tc_tma_tile                TMA: D/64 boxes of [kRows x 64], one a panel
// cp.async copies complete on a commit group or an mbarrier (pipeline.cuh);
// TMA copies complete on an mbarrier's transaction bytes (tc_tma_tile_bytes).
#pragma once

#include <cstdint>

#include "sm90/common/smem_tile.cuh"
#include "samebits/gpu/tensor_core.hpp"
#include "samebits/gpu/thread.hpp"
#include "samebits/kernels/attention/params.hpp"

namespace samebits::kernels::hopper {

using attention::Strides;

// Rows [first, end) of a swizzled [kRows x D] tile from tensor rows row0 + r
// (head h), the other rows +0 (cp.async; one group per call site's commit).
// Chunk e is row e / (D/8), chunk e % (D/8): 8 lanes read one row's 128
// contiguous bytes and write one 128-byte row of a panel, conflict-free.
template <int D, int kRows, int kThreads>
SAMEBITS_DEVICE_FUNC void tc_stage_tile_sw(char* dst, const void* base, Strides st, std::int64_t row0, int first,
                                           int end, int h) {
  using T = TcSwTile<D, kRows>;
  const char* b = static_cast<const char*>(base);
  for (int e = gpu::threadIdx.x % kThreads; e < kRows * T::kChunks; e += kThreads) {
    const int r = e / T::kChunks, c = e % T::kChunks;
    const bool valid = r >= first && r < end;
    const char* src = valid ? b + ((row0 + r) * st.row + static_cast<std::int64_t>(h) * st.head + c * 8) * 2 : b;
    gpu::copy_async_16_or_zero(dst + T::offset(r, c), src, valid);
  }
}

// The unrolled copy's mapping, four threads a row: thread t copies rows r = t / 4 + kRowStep m
// (kRowStep = kThreads / 4, pass m = 0 .. kPasses - 1), chunks t % 4 + 4 k of each (k = 0 ..
// D/32 - 1), i.e. bytes 16 (t % 4) + 64 k: one 64-bit source address and one predicate a row,
// immediate offsets for the rest. Chunk t % 4 + 4 k lands in panel k / 2, 16-byte slot s ^ 4 (k %
// 2) with s = (t % 4) ^ (r % 8) (4 | 8, so t % 4 + 4 (k % 2) = t % 4 ^ 4 (k % 2)), and kRowStep %
// 8 == 0 keeps r % 8 over the passes: two shared offsets a thread, the rest immediates. A warp's
// chunk step reads 8 rows x 64 contiguous bytes (whole 32-byte sectors) and writes 8 rows x 4
// slots, each slot of the row line twice: 4 wavefronts for 512 bytes, the least there is.
// (The mapping before, 16 threads a row with a predicate and address per chunk, cost about 250
// instructions a warp per tile in the dK/dV pass and 550 per block in the forward's producer,
// against 8 and 32 copies: H100 profiles, attention-tc.md §21.)
template <int D, int kRows, int kThreads>
struct TcSwRowCopy {
  using T = TcSwTile<D, kRows>;
  static constexpr int kPerRow = 4, kRowStep = kThreads / kPerRow, kPasses = kRows / kRowStep,
                       kChunks = T::kChunks / kPerRow;
  static_assert(kThreads % kPerRow == 0 && kRows % kRowStep == 0 && kRowStep % 8 == 0 && T::kChunks % kPerRow == 0,
                "four threads a row, whole passes, a pass whole swizzle atoms");
  int r0, q, even, odd;  // the thread's first row, its quarter of a row, its two shared offsets
  SAMEBITS_DEVICE_FUNC TcSwRowCopy() {
    const int t = static_cast<int>(gpu::threadIdx.x % kThreads);
    r0 = t / kPerRow;
    q = t % kPerRow;
    const int s = q ^ (r0 % 8);
    even = r0 * 128 + (s << 4);
    odd = r0 * 128 + ((s ^ 4) << 4);
  }
  SAMEBITS_DEVICE_FUNC int row(int m) const { return r0 + m * kRowStep; }  // pass m's tile row
  // Pass m's row into dst: from src (the row's byte 16 q) when valid, else +0 (zero: any
  // readable address, not read).
  SAMEBITS_DEVICE_FUNC void copy_row(char* dst, int m, const char* src, const char* zero, bool valid) const {
#pragma unroll
    for (int k = 0; k < kChunks; ++k)
      gpu::copy_async_16_or_zero(dst + (k % 2 ? odd : even) + (k / 2) * T::kPanelBytes + m * kRowStep * 128,
                                 valid ? src + 64 * k : zero, valid);
  }
};

// tc_stage_tile_sw's copies by TcSwRowCopy: rows [first, end) from tensor rows row0 + r (head h).
template <int D, int kRows, int kThreads>
SAMEBITS_DEVICE_FUNC void tc_stage_tile_sw_unrolled(char* dst, const void* base, Strides st, std::int64_t row0,
                                                    int first, int end, int h) {
  using C = TcSwRowCopy<D, kRows, kThreads>;
  const char* b = static_cast<const char*>(base);
  const C c;
  const char* src0 = b + ((row0 + c.r0) * st.row + static_cast<std::int64_t>(h) * st.head) * 2 + 16 * c.q;
  const std::int64_t step = C::kRowStep * st.row * 2;  // bytes from one pass's row to the next's
#pragma unroll
  for (int m = 0; m < C::kPasses; ++m) {
    const int r = c.row(m);
    const bool valid = r >= first && r < end;
    c.copy_row(dst, m, valid ? src0 + m * step : b, b, valid);
  }
}

// A [kRows x D] tile by TMA (§27): D/64 boxes of [kRows x 64], each landing as one panel of
// TcSwTile (the 128-byte swizzle both describe), rows row0 .. row0 + kRows - 1 of head h, their
// bytes completing on bar. One thread issues it, after expecting the bytes (tc_tma_tile_bytes).
template <int D, int kRows>
SAMEBITS_DEVICE_FUNC void tc_tma_tile(char* dst, const gpu::TensorMap& map, std::int64_t row0, int h, std::uint64_t* bar) {
  using T = TcSwTile<D, kRows>;
#pragma unroll
  for (int panel = 0; panel < D / 64; ++panel)
    gpu::tma_load_3d(dst + panel * T::kPanelBytes, &map, 64 * panel, h, static_cast<int>(row0), bar);
}
template <int D, int kRows>
inline constexpr std::uint32_t tc_tma_tile_bytes = TcSwTile<D, kRows>::kBytes;

}  // namespace samebits::kernels::hopper
