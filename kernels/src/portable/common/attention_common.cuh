// kernels/src/portable/common/attention_common.cuh — what the attention kernels share:
// the tile configuration, the libm policies as device functors, the sequence
// a block works on, membership (§1) and the tile loads.
//
// Vendor-neutral: the kernels of this folder compile with nvcc (CUDA, sm_90)
// and with clang -x hip for AMD (kernels/src/hip/attention_kernels.hip); every
// thread index, barrier, lane exchange, vector type, memory-ordering and
// copy instruction comes from samebits/gpu (thread.hpp, memory.hpp, math.hpp:
// inline PTX in gpu/arch/nvptx.hpp, clang builtins in gpu/arch/amdgpu.hpp),
// the arithmetic from gpu/ieee.hpp. No vendor test in any function body.
#pragma once

#include <cstdint>

#include "samebits/gpu/backend.hpp"
#include "samebits/gpu/ieee.hpp"
#include "samebits/gpu/math.hpp"
#include "samebits/gpu/memory.hpp"
#include "samebits/gpu/thread.hpp"
#include "samebits/kernels/attention/contract.hpp"
#include "samebits/kernels/attention/params.hpp"
#include "samebits/kernels/dtype.hpp"
#include "samebits/libm/cr.hpp"
#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/nvcc.hpp"

// The namespace keeps its name (`cuda`) on AMD too: the kernels' symbols, and
// hence the PTX, stay what they were.
namespace samebits::kernels::attention::cuda {

using gpu::add_rn;
using gpu::div_rn;
using gpu::fma_rn;
using gpu::mul_rn;
using gpu::sub_rn;
using gpu::float4;
using gpu::make_float4;
using gpu::max_num;  // IEEE maxNum, never flushed (§4.2): max.f32 without .ftz on NVIDIA
using gpu::uint4;

// The identity of max_num: a quiet NaN (maxNum(NaN, x) = x for every x, and
// the result stays NaN only when every member's score is NaN, as §4.2 says).
SAMEBITS_DEVICE_FUNC float max_identity() { return fp::from_bits(0x7fffffffu); }

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
struct NvccFastExpLog {  // the sm90-tensor-core kernels only (attention-tc.md §23, §25)
  static constexpr Libm kLibm = Libm::nvcc_fast;
  static constexpr bool kBase2Softmax = true;  // FlashAttention-3's form: exp2 of one fma
  SAMEBITS_DEVICE_FUNC static float exp(float x) { return samebits::nvcc::fast::ftz::expf(x); }
  SAMEBITS_DEVICE_FUNC static float exp2(float x) { return samebits::nvcc::ftz::exp2f(x); }
  SAMEBITS_DEVICE_FUNC static float log(float x) { return samebits::nvcc::fast::ftz::logf(x); }
};
// §25's L2E (contract.hpp kLog2eBits); base2_softmax<L> (contract.hpp) picks the form.
SAMEBITS_DEVICE_FUNC float log2e() { return fp::from_bits(kLog2eBits); }
// NvccExpLog and NvccFastExpLog compute with PTX's MUFU instructions (ex2/lg2.approx.ftz) on the
// device: NVIDIA only; the HIP build instantiates CrExpLog and a hipcc policy
// (kernels/src/hip/attention_kernels.hip).

// ---- tiles -----------------------------------------------------------------
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
template <int RM>
inline constexpr bool kValidRowsPerThread = RM == 4 || RM == 8;

template <int D>
struct TileConfig {
  static_assert(D == 64 || D == 128 || D == 512, "D: 64, 128 (attention.md §2) or 512 (sparse_mla.md §1)");
  static constexpr int kLd = D + 4;          // shared row stride: float4 aligned, conflict-free float4 rows
  static constexpr int kColsPerThread = D / 16;  // output columns col_of(tx, 0 .. kCols - 1)
  static_assert(kColsPerThread % 4 == 0, "output columns read as float4");
  static constexpr int kLdScores = kTileKeys + 4;  // [row][key] scores in shared memory
};

// Output column j (0 .. D/16 - 1) of thread column tx: groups of 4 columns,
// group j/4 at 64 * (j/4) + 4 * tx, so that a warp's float4 reads of one
// shared row are contiguous (2 wavefronts, not 4).
SAMEBITS_DEVICE_FUNC constexpr int col_of(int tx, int j) { return (j / 4) * 64 + tx * 4 + j % 4; }

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

SAMEBITS_DEVICE_FUNC float4 ld4(const float* p) { return *reinterpret_cast<const float4*>(p); }

SAMEBITS_DEVICE_FUNC float comp(const float4& v, int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }

// s[r][c] = dot(a_r, b_c) for the thread's RM rows of `a` (ty + 16 r when
// Interleaved, else ty * RM + r) and 4 rows of `b` (tx + 16 c): each one chain
// from +0 over d = 0..D-1 (§4.1).
template <int D, bool Interleaved, int RM>
SAMEBITS_DEVICE_FUNC void tile_dots(const float* a, const float* b, int ty, int tx, float (&s)[RM][4]) {
  constexpr int kLd = TileConfig<D>::kLd;
#pragma unroll
  for (int r = 0; r < RM; ++r)
#pragma unroll
    for (int c = 0; c < 4; ++c) s[r][c] = 0.0f;
#pragma unroll kUnrollDots
  for (int d = 0; d < D; d += 4) {
    float4 av[RM], bv[4];
#pragma unroll
    for (int r = 0; r < RM; ++r) av[r] = ld4(a + (Interleaved ? ty + 16 * r : ty * RM + r) * kLd + d);
#pragma unroll
    for (int c = 0; c < 4; ++c) bv[c] = ld4(b + (tx + 16 * c) * kLd + d);
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int r = 0; r < RM; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) s[r][c] = fma_rn(comp(av[r], i), comp(bv[c], i), s[r][c]);
  }
}

// tile_dots for two left operands against the same right one (s = q.k and
// dp = dO.k with K == V in the sparse backward): each chain exactly as
// tile_dots computes it, the b loads shared.
template <int D, bool Interleaved, int RM>
SAMEBITS_DEVICE_FUNC void tile_dots_pair(const float* a1, const float* a2, const float* b, int ty, int tx,
                                         float (&s1)[RM][4], float (&s2)[RM][4]) {
  constexpr int kLd = TileConfig<D>::kLd;
#pragma unroll
  for (int r = 0; r < RM; ++r)
#pragma unroll
    for (int c = 0; c < 4; ++c) s1[r][c] = s2[r][c] = 0.0f;
#pragma unroll kUnrollDots
  for (int d = 0; d < D; d += 4) {
    float4 av1[RM], av2[RM], bv[4];
#pragma unroll
    for (int r = 0; r < RM; ++r) {
      const int row = Interleaved ? ty + 16 * r : ty * RM + r;
      av1[r] = ld4(a1 + row * kLd + d);
      av2[r] = ld4(a2 + row * kLd + d);
    }
#pragma unroll
    for (int c = 0; c < 4; ++c) bv[c] = ld4(b + (tx + 16 * c) * kLd + d);
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int r = 0; r < RM; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          s1[r][c] = fma_rn(comp(av1[r], i), comp(bv[c], i), s1[r][c]);
          s2[r][c] = fma_rn(comp(av2[r], i), comp(bv[c], i), s2[r][c]);
        }
  }
}

}  // namespace samebits::kernels::attention::cuda
