// kernels/src/portable/common/tile_io.cuh — moving tiles between global and shared
// memory, and reading them back. Every input element is widened to binary32 exactly
// (attention.md §2: bf16 and fp16 are subsets of binary32; load_as_f32's conversions),
// rows past a tile's valid rows read as +0 and are never loaded (they may lie past the
// tensor's end; membership keeps them out of every chain, §1). 16-byte words when the
// tensor's base and strides allow (the same answer on every thread of the block), element
// loads otherwise: the same values either way. ld4 / comp read a float4 of a shared row.
#pragma once

#include <cstdint>

#include "portable/common/rounded_ops.cuh"
#include "portable/common/tile_config.cuh"
#include "samebits/gpu/memory.hpp"
#include "samebits/gpu/thread.hpp"
#include "samebits/kernels/attention/params.hpp"
#include "samebits/kernels/dtype.hpp"
#include "samebits/libm/fp/bits.hpp"

namespace samebits::kernels::attention::cuda {

// The kVec = 16 / sizeof(T) elements of one 16-byte word, widened to
// binary32 exactly (load_as_f32's conversions).
template <DType T>
SAMEBITS_DEVICE_FUNC void widen16(const uint4& u, float (&x)[16 / dtype_size(T)]) {
  const unsigned w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    if constexpr (T == DType::f32) {
      x[k] = fp::from_bits(w[k]);
    } else {
      const auto lo = static_cast<std::uint16_t>(w[k] & 0xffffu), hi = static_cast<std::uint16_t>(w[k] >> 16);
      x[2 * k] = T == DType::bf16 ? bf16_to_f32(lo) : f16_to_f32(lo);
      x[2 * k + 1] = T == DType::bf16 ? bf16_to_f32(hi) : f16_to_f32(hi);
    }
  }
}

// Whether a [rows, heads, D] tensor can be read in 16-byte words (its base
// and strides allow it: the same answer on every thread of the block).
template <DType T>
SAMEBITS_DEVICE_FUNC bool vector_readable(const void* base, Strides st) {
  constexpr int kVec = 16 / dtype_size(T);
  return reinterpret_cast<std::uintptr_t>(base) % 16 == 0 && st.row % kVec == 0 && st.head % kVec == 0;
}

// rows [row0, row0 + kRows) of a [rows, heads, D] tensor at head h, widened
// to binary32 (exactly: load_as_f32's conversions) into shared memory
// [kRows][kLd]; rows at or past `valid` read as +0 (no load: they may lie past
// the tensor's end). 16-byte loads when the tensor's base and strides allow
// (the same on every thread of the block), element loads otherwise.
template <int D, DType T, int kRows = 64>
SAMEBITS_DEVICE_FUNC void load_tile(float* dst, const void* base, Strides st, std::int64_t row0, int valid, int h) {
  constexpr int kLd = TileConfig<D>::kLd;
  constexpr int kEs = dtype_size(T), kVec = 16 / kEs, kChunks = D / kVec;
  if (vector_readable<T>(base, st)) {
    for (int e = gpu::threadIdx.x; e < kRows * kChunks; e += kThreads) {
      const int r = e / kChunks, c = (e % kChunks) * kVec;
      float x[kVec];
      if (r < valid) {
        const std::int64_t i = (row0 + r) * st.row + static_cast<std::int64_t>(h) * st.head + c;
        widen16<T>(gpu::load_readonly(reinterpret_cast<const uint4*>(static_cast<const char*>(base) + i * kEs)), x);
      } else {
#pragma unroll
        for (int k = 0; k < kVec; ++k) x[k] = 0.0f;
      }
#pragma unroll
      for (int k = 0; k < kVec; k += 4)
        *reinterpret_cast<float4*>(dst + r * kLd + c + k) = make_float4(x[k], x[k + 1], x[k + 2], x[k + 3]);
    }
    return;
  }
  for (int e = gpu::threadIdx.x; e < kRows * D; e += kThreads) {
    const int r = e / D, c = e % D;
    float x = 0.0f;
    if (r < valid) x = load_as_f32(base, T, (row0 + r) * st.row + static_cast<std::int64_t>(h) * st.head + c);
    dst[r * kLd + c] = x;
  }
}

// The same tile in two steps, so that its global latency hides behind the
// previous tile's arithmetic: stage_tile_async copies the rows below `valid`
// as stored (16-bit elements, [kRows][D] unpadded) into a shared staging
// buffer with cp.async (gpu::copy_async_16; on AMD a synchronous copy); after
// gpu::copy_async_wait_all() and a barrier,
// widen_staged_tile widens them into [kRows][kLd] exactly as load_tile
// would (rows at or past `valid`: +0). Only for 16-bit inputs read as 16-byte
// words (vector_readable): an fp32 staging buffer would not fit beside the
// tiles, and fp32 tiles use load_tile.
template <DType T>
inline constexpr bool kStaged = T != DType::f32;
template <int D, DType T, int kRows = 64>
inline constexpr int kStagingBytes = kRows * D * dtype_size(T);

template <int D, DType T, int kRows = 64>
SAMEBITS_DEVICE_FUNC void stage_tile_async(void* staging, const void* base, Strides st, std::int64_t row0, int valid,
                                           int h) {
  constexpr int kEs = dtype_size(T), kVec = 16 / kEs, kChunks = D / kVec;
  for (int e = gpu::threadIdx.x; e < valid * kChunks; e += kThreads) {
    const int r = e / kChunks, c = (e % kChunks) * kVec;
    const std::int64_t i = (row0 + r) * st.row + static_cast<std::int64_t>(h) * st.head + c;
    gpu::copy_async_16(static_cast<char*>(staging) + (r * D + c) * kEs, static_cast<const char*>(base) + i * kEs);
  }
}
template <int D, DType T, int kRows = 64>
SAMEBITS_DEVICE_FUNC void widen_staged_tile(float* dst, const void* staging, int valid) {
  constexpr int kLd = TileConfig<D>::kLd;
  constexpr int kEs = dtype_size(T), kVec = 16 / kEs, kChunks = D / kVec;
  for (int e = gpu::threadIdx.x; e < kRows * kChunks; e += kThreads) {
    const int r = e / kChunks, c = (e % kChunks) * kVec;
    float x[kVec];
    if (r < valid) {
      widen16<T>(*reinterpret_cast<const uint4*>(static_cast<const char*>(staging) + (r * D + c) * kEs), x);
    } else {
#pragma unroll
      for (int k = 0; k < kVec; ++k) x[k] = 0.0f;
    }
#pragma unroll
    for (int k = 0; k < kVec; k += 4)
      *reinterpret_cast<float4*>(dst + r * kLd + c + k) = make_float4(x[k], x[k + 1], x[k + 2], x[k + 3]);
  }
}

// Four consecutive floats of a shared row (16-byte aligned), and element i of them.
SAMEBITS_DEVICE_FUNC float4 ld4(const float* p) { return *reinterpret_cast<const float4*>(p); }

SAMEBITS_DEVICE_FUNC float comp(const float4& v, int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }

}  // namespace samebits::kernels::attention::cuda
