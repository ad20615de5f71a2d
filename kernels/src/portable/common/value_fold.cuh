// kernels/src/portable/common/value_fold.cuh — one member's step of the chains that run
// over a list, and the shared-memory row reads that feed them: a thread advances its
// columns of an accumulator row by one member, in the order the caller walks the members
// (attention.md §4.4: o[d] = fma(p, v[d], o[d]); §5.3: dq's acc[d] = fma(ds, k[d], acc[d]);
// §5 dK/dV: A_V = fma(p, dO[d], A_V), A_K = fma(ds, q[d], A_K); sparse_mla.md §4: gK, gV
// over the heads). A non-member is a select that leaves the accumulator as it was, never
// a multiply by zero (§1).
#pragma once

#include "portable/common/rounded_ops.cuh"
#include "portable/common/tile_io.cuh"
#include "samebits/gpu/backend.hpp"

namespace samebits::kernels::attention::cuda {

// x[j] = row[col(j)], j = 0 .. kCols-1: a thread's columns of one shared row (col:
// col_of, or a kernel's own column map). Read as float4 groups when kCols is a multiple
// of 4 (col(j) .. col(j) + 3 contiguous for j a multiple of 4), element by element
// otherwise.
template <int kCols, class Col>
SAMEBITS_DEVICE_FUNC void read_cols(const float* row, Col col, float (&x)[kCols]) {
  if constexpr (kCols % 4 == 0) {
#pragma unroll
    for (int j = 0; j < kCols; j += 4) {
      const float4 v = ld4(row + col(j));
      x[j] = v.x; x[j + 1] = v.y; x[j + 2] = v.z; x[j + 3] = v.w;
    }
  } else {
#pragma unroll
    for (int j = 0; j < kCols; ++j) x[j] = row[col(j)];
  }
}

// The same columns of two rows, their loads interleaved group by group.
template <int kCols, class Col>
SAMEBITS_DEVICE_FUNC void read_cols_pair(const float* row1, const float* row2, Col col, float (&x1)[kCols],
                                         float (&x2)[kCols]) {
  static_assert(kCols % 4 == 0, "float4 groups");
#pragma unroll
  for (int j = 0; j < kCols; j += 4) {
    const float4 a = ld4(row1 + col(j));
    const float4 b = ld4(row2 + col(j));
    x1[j] = a.x; x1[j + 1] = a.y; x1[j + 2] = a.z; x1[j + 3] = a.w;
    x2[j] = b.x; x2[j + 1] = b.y; x2[j + 2] = b.z; x2[j + 3] = b.w;
  }
}

// acc[j] = fma(w, x[j], acc[j]) for every column: one member's step.
template <int kCols>
SAMEBITS_DEVICE_FUNC void fma_step(float w, const float (&x)[kCols], float (&acc)[kCols]) {
#pragma unroll
  for (int j = 0; j < kCols; ++j) acc[j] = fma_rn(w, x[j], acc[j]);
}

// The step where `member`, the accumulator unchanged otherwise.
template <int kCols>
SAMEBITS_DEVICE_FUNC void fma_step_if(bool member, float w, const float (&x)[kCols], float (&acc)[kCols]) {
#pragma unroll
  for (int j = 0; j < kCols; ++j) acc[j] = member ? fma_rn(w, x[j], acc[j]) : acc[j];
}

// Two accumulator rows advanced by the same member (dK and dV, gK and gV), their steps
// interleaved column by column: acc1 first.
template <int kCols>
SAMEBITS_DEVICE_FUNC void fma_step_pair(float w1, const float (&x1)[kCols], float (&acc1)[kCols], float w2,
                                        const float (&x2)[kCols], float (&acc2)[kCols]) {
#pragma unroll
  for (int j = 0; j < kCols; ++j) {
    acc1[j] = fma_rn(w1, x1[j], acc1[j]);
    acc2[j] = fma_rn(w2, x2[j], acc2[j]);
  }
}
template <int kCols>
SAMEBITS_DEVICE_FUNC void fma_step_pair_if(bool member, float w1, const float (&x1)[kCols], float (&acc1)[kCols],
                                           float w2, const float (&x2)[kCols], float (&acc2)[kCols]) {
#pragma unroll
  for (int j = 0; j < kCols; ++j) {
    acc1[j] = member ? fma_rn(w1, x1[j], acc1[j]) : acc1[j];
    acc2[j] = member ? fma_rn(w2, x2[j], acc2[j]) : acc2[j];
  }
}

}  // namespace samebits::kernels::attention::cuda
