// samebits/gpu/reduce.hpp — sums and maxima whose bits do not depend on the
// warp width (32 on NVIDIA, 64 on AMD), the block size or the scheduling:
// the order of the additions is a fixed tree over the LOGICAL index of the
// elements, and the host reference functions below compute the same tree.
//
// The tree (docs/gpu.md draws it). For n elements x[0..n):
//   1. Pad x with the identity (-0 for sum, -inf for max) to a multiple of 32.
//   2. Reduce each group of 32 consecutive elements g[0..32) by the butterfly
//      order: for o = 16, 8, 4, 2, 1: g'[i] = op(g[i], g[i ^ o]); the result
//      is g[0] after the five steps.
//   3. The group results, in index order, are the next level's elements;
//      repeat from 1 until one element is left (n = 0 gives the identity).
// Padding adds identities only, which change no bits, so extra padded levels
// (a block whose size exceeds n, say) give the same result.
//
// op for sum: IEEE binary32 addition, round to nearest even, subnormals kept
// (gpu::add_rn, pinned against -ftz and contraction). A NaN result (a NaN
// input, or inf + -inf on the way) is returned as the canonical 0x7fffffff:
// vendors propagate different NaN payloads, so payloads are not part of the
// contract.
// op for max: order-free, hence any tree gives the same bits: a NaN operand
// gives 0x7fffffff; max(-0, +0) = +0 whatever the order; otherwise the larger.
//
// Device entry points (all threads of the block call them, blockDim.x a
// multiple of 32, at most 1024):
//   group_sum / group_max(v)              the 32 lanes of v's logical group
//   block_sum / block_max(v, scratch)     one element per thread, index threadIdx.x
//   block_sum_array / block_max_array(x, n, scratch)
//                                         x[0..n) of any length, read by the block
// scratch: shared memory of kReduceScratch floats.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "samebits/gpu/ieee.hpp"
#include "samebits/gpu/thread.hpp"
#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/platform.hpp"

namespace samebits::gpu {

inline constexpr std::uint32_t kReduceNaN = 0x7fffffffu;
inline constexpr int kReduceLevels = 5;  // 1024 * 32^5 = 2^35 elements: any 32-bit count
inline constexpr unsigned kReduceScratch = 32u * (kReduceLevels + 2);

struct SumOp {
  static SAMEBITS_FUNC float identity() { return fp::from_bits(0x80000000u); }  // -0: x + -0 == x for every x
  static SAMEBITS_FUNC float combine(float a, float b) { return add_rn(a, b); }
  static SAMEBITS_FUNC float finish(float r) {
    return (fp::to_bits(r) & 0x7fffffffu) > 0x7f800000u ? fp::from_bits(kReduceNaN) : r;
  }
};

struct MaxOp {
  static SAMEBITS_FUNC float identity() { return fp::from_bits(0xff800000u); }  // -inf
  static SAMEBITS_FUNC float combine(float a, float b) {
    const std::uint32_t ab = fp::to_bits(a), bb = fp::to_bits(b);
    if ((ab & 0x7fffffffu) > 0x7f800000u || (bb & 0x7fffffffu) > 0x7f800000u) return fp::from_bits(kReduceNaN);
    if (a == b) return fp::from_bits(ab & bb);  // equal values have equal bits, except +-0: +0 wins
    return a > b ? a : b;
  }
  static SAMEBITS_FUNC float finish(float r) { return r; }
};

// ---- host references: the same tree, written for clarity ------------------

namespace reference {

template <class Op>
float group(const float* g32) {
  float a[32], b[32];
  for (int i = 0; i < 32; ++i) a[i] = g32[i];
  for (int o = 16; o > 0; o >>= 1) {
    for (int i = 0; i < 32; ++i) b[i] = Op::combine(a[i], a[i ^ o]);
    for (int i = 0; i < 32; ++i) a[i] = b[i];
  }
  return a[0];
}

template <class Op>
float tree(const float* x, std::size_t n) {
  if (n == 0) return Op::finish(Op::identity());
  std::vector<float> level(x, x + n);
  while (level.size() > 1) {
    std::vector<float> next((level.size() + 31) / 32);
    for (std::size_t g = 0; g < next.size(); ++g) {
      float buf[32];
      for (std::size_t i = 0; i < 32; ++i) {
        const std::size_t k = g * 32 + i;
        buf[i] = k < level.size() ? level[k] : Op::identity();
      }
      next[g] = group<Op>(buf);
    }
    level.swap(next);
  }
  return Op::finish(level[0]);
}

inline float sum(const float* x, std::size_t n) { return tree<SumOp>(x, n); }
inline float max(const float* x, std::size_t n) { return tree<MaxOp>(x, n); }

}  // namespace reference

// ---- device ------------------------------------------------------------------

#if defined(SAMEBITS_LANG_CUDA) || defined(SAMEBITS_LANG_HIP)

namespace detail {

// Step 2 of the tree over the 32 lanes of this thread's group; every lane
// returns the group's result (up to NaN payloads, which finish() erases).
template <class Op>
SAMEBITS_DEVICE SAMEBITS_FORCEINLINE float group_reduce(float v) {
  for (unsigned o = kGroupWidth / 2; o > 0; o >>= 1)
    v = Op::combine(v, fp::from_bits(arch::shuffle_xor(fp::to_bits(v), o)));
  return v;
}

// Reduces scratch[0..count) (count <= 32, padded with the identity) in the
// calling group; every lane returns the result.
template <class Op>
SAMEBITS_DEVICE SAMEBITS_FORCEINLINE float group_reduce_slots(const float* slots, unsigned count) {
  const unsigned lane = arch::thread_x() % kGroupWidth;
  return group_reduce<Op>(lane < count ? slots[lane] : Op::identity());
}

template <class Op>
SAMEBITS_DEVICE SAMEBITS_FORCEINLINE float block_reduce(float v, float* scratch) {
  const unsigned t = arch::thread_x(), lane = t % kGroupWidth, g = t / kGroupWidth;
  const unsigned groups = arch::block_dim_x() / kGroupWidth;
  v = group_reduce<Op>(v);
  arch::block_barrier();  // scratch may still be read by a previous call
  if (lane == 0) scratch[g] = v;
  arch::block_barrier();
  if (g == 0) {
    const float r = group_reduce_slots<Op>(scratch, groups);
    if (lane == 0) scratch[32] = r;
  }
  arch::block_barrier();
  return Op::finish(scratch[32]);
}

// Tiles of 1024 elements (32 groups: the tree's level-2 nodes) are reduced
// in index order; their results climb a stack of 32-slot levels (a carry
// when a level fills), which is the tree above the tiles. Group 0 keeps the
// stack; every lane holds the same counts.
template <class Op>
SAMEBITS_DEVICE SAMEBITS_FORCEINLINE float block_reduce_array(const float* x, std::size_t n, float* scratch) {
  const unsigned t = arch::thread_x(), lane = t % kGroupWidth, g0 = t / kGroupWidth;
  const unsigned groups = arch::block_dim_x() / kGroupWidth;
  float* tile_slots = scratch;       // 32 group results of the current tile
  float* stack = scratch + 32;       // kReduceLevels levels of 32 slots
  float* result = scratch + 32 * (kReduceLevels + 1);
  unsigned count[kReduceLevels] = {};
  const std::size_t tiles = (n + 1023) / 1024;
  arch::block_barrier();
  for (std::size_t tile = 0; tile < tiles; ++tile) {
    for (unsigned g = g0; g < 32; g += groups) {
      const std::size_t k = tile * 1024 + g * 32 + lane;
      const float r = group_reduce<Op>(k < n ? x[k] : Op::identity());
      if (lane == 0) tile_slots[g] = r;
    }
    arch::block_barrier();
    if (g0 == 0) {
      float carry = group_reduce_slots<Op>(tile_slots, 32);
      for (int level = 0; level < kReduceLevels; ++level) {
        if (lane == 0) stack[level * 32 + count[level]] = carry;
        if (++count[level] < 32) break;
        count[level] = 0;
        carry = group_reduce_slots<Op>(stack + level * 32, 32);
      }
    }
    arch::block_barrier();
  }
  if (g0 == 0) {
    // The last, partial group of each level, padded: pushed one level up.
    float top = Op::identity();
    for (int level = 0; level < kReduceLevels; ++level) {
      if (count[level] == 0) continue;
      const float r = group_reduce_slots<Op>(stack + level * 32, count[level]);
      if (level + 1 < kReduceLevels) {
        if (lane == 0) stack[(level + 1) * 32 + count[level + 1]] = r;
        ++count[level + 1];
      } else {
        top = r;
      }
    }
    if (lane == 0) *result = top;
  }
  arch::block_barrier();
  return Op::finish(*result);
}

}  // namespace detail

SAMEBITS_DEVICE SAMEBITS_FORCEINLINE float group_sum(float v) { return SumOp::finish(detail::group_reduce<SumOp>(v)); }
SAMEBITS_DEVICE SAMEBITS_FORCEINLINE float group_max(float v) { return MaxOp::finish(detail::group_reduce<MaxOp>(v)); }
SAMEBITS_DEVICE SAMEBITS_FORCEINLINE float block_sum(float v, float* scratch) {
  return detail::block_reduce<SumOp>(v, scratch);
}
SAMEBITS_DEVICE SAMEBITS_FORCEINLINE float block_max(float v, float* scratch) {
  return detail::block_reduce<MaxOp>(v, scratch);
}
SAMEBITS_DEVICE SAMEBITS_FORCEINLINE float block_sum_array(const float* x, std::size_t n, float* scratch) {
  return detail::block_reduce_array<SumOp>(x, n, scratch);
}
SAMEBITS_DEVICE SAMEBITS_FORCEINLINE float block_max_array(const float* x, std::size_t n, float* scratch) {
  return detail::block_reduce_array<MaxOp>(x, n, scratch);
}

#endif  // CUDA or HIP

}  // namespace samebits::gpu
