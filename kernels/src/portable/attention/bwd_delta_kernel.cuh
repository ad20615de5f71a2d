// kernels/src/portable/attention/bwd_delta_kernel.cuh — §5.1: delta = dO . o per
// row (i, h), one thread each, a chain over d = 0..D-1 from +0, from the
// stored o (widened exactly from its dtype).
//
// The chain is sequential, so one thread reads its whole row. When both
// tensors' bases and strides allow it (vector_readable: the same answer on
// every thread), it reads them in 16-byte words; element loads otherwise.
// Either way the same operands enter the same chain: the same bits. (Element
// loads alone — 2-byte loads 256 bytes apart across a warp, a few in flight a
// thread — took 137 us at Qwen3-8B's S = 4096 on an H100, 11 % of the
// tensor-core backward, for 64 MB; words: 39 us. attention-tc.md §26.)
#pragma once

#include "portable/common/attention_common.cuh"

namespace samebits::kernels::attention::cuda {

// Elements [c0, c0 + kN) of one row, widened, from 16-byte words.
template <DType T, int kN>
SAMEBITS_DEVICE_FUNC void load_row_words(const void* base, std::int64_t i0, int c0, float (&x)[kN]) {
  constexpr int kVec = 16 / dtype_size(T);
  static_assert(kN % kVec == 0, "whole 16-byte words");
#pragma unroll
  for (int w = 0; w < kN / kVec; ++w) {
    float y[kVec];
    widen16<T>(gpu::load_readonly(reinterpret_cast<const uint4*>(static_cast<const char*>(base) +
                                                                 (i0 + c0 + w * kVec) * dtype_size(T))),
               y);
#pragma unroll
    for (int k = 0; k < kVec; ++k) x[w * kVec + k] = y[k];
  }
}

template <int D, DType In, DType OutO>
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kThreads) attention_bwd_delta_kernel(const BackwardParams p) {
  const std::int64_t task = static_cast<std::int64_t>(gpu::blockIdx.x) * kThreads + gpu::threadIdx.x;
  if (task >= p.total_q * p.hq) return;
  const std::int64_t row = task / p.hq;
  const int h = static_cast<int>(task % p.hq);
  const std::int64_t od = row * p.o_stride.row + static_cast<std::int64_t>(h) * p.o_stride.head;
  const std::int64_t dd = row * p.dout_stride.row + static_cast<std::int64_t>(h) * p.dout_stride.head;
  float acc = 0.0f;
  if (vector_readable<In>(p.dout, p.dout_stride) && vector_readable<OutO>(p.o, p.o_stride)) {
    // 16 elements of each at a time (whole words of any dtype; ptxas hoists the loads of the
    // unrolled steps as registers allow — a 48-register bound with f32 o at D = 64 spilled when
    // the steps were half rows).
    constexpr int kStep = 16;
    static_assert(D % kStep == 0, "whole steps");
#pragma unroll
    for (int c0 = 0; c0 < D; c0 += kStep) {
      float x[kStep], y[kStep];
      load_row_words<In>(p.dout, dd, c0, x);
      load_row_words<OutO>(p.o, od, c0, y);
#pragma unroll
      for (int d = 0; d < kStep; ++d) acc = fma_rn(x[d], y[d], acc);
    }
  } else {
#pragma unroll 8
    for (int d = 0; d < D; ++d) acc = fma_rn(load_as_f32(p.dout, In, dd + d), load_as_f32(p.o, OutO, od + d), acc);
  }
  p.delta[task] = acc;
}

}  // namespace samebits::kernels::attention::cuda
