// kernels/src/cuda/attention_bwd_delta_kernel.cuh — §5.1: delta = dO . o per
// row (i, h), one thread each, a chain over d = 0..D-1 from +0, from the
// stored o (widened exactly from its dtype).
#pragma once

#include "attention_common.cuh"

namespace samebits::kernels::attention::cuda {

template <int D, DType In, DType OutO>
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kThreads) attention_bwd_delta_kernel(const BackwardParams p) {
  const std::int64_t task = static_cast<std::int64_t>(gpu::blockIdx.x) * kThreads + gpu::threadIdx.x;
  if (task >= p.total_q * p.hq) return;
  const std::int64_t row = task / p.hq;
  const int h = static_cast<int>(task % p.hq);
  const std::int64_t od = row * p.o_stride.row + static_cast<std::int64_t>(h) * p.o_stride.head;
  const std::int64_t dd = row * p.dout_stride.row + static_cast<std::int64_t>(h) * p.dout_stride.head;
  float acc = 0.0f;
#pragma unroll 8
  for (int d = 0; d < D; ++d) acc = fma_rn(load_as_f32(p.dout, In, dd + d), load_as_f32(p.o, OutO, od + d), acc);
  p.delta[task] = acc;
}

}  // namespace samebits::kernels::attention::cuda
