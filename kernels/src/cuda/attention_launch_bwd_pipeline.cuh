// kernels/src/cuda/attention_launch_bwd_pipeline.cuh — the backward's launch
// sequence, shared by both policies' launchers (attention_launch_bwd.cu,
// sm90/attention_tc/launch_bwd.cu), in stream order: clear dq's accumulators and
// flags (where the main kernels need it); delta (§5.1, the same kernel for both policies); the main kernel
// (given: key blocks, dK/dV accumulators, dq's ordered chains); the head fold
// into dk/dv; dq's rounding (where the main kernels do not write dq) — the last two with the
// zero rule under sm90-tensor-core (kZeroRule, attention-tc.md §7). No floating-point atomics.
#pragma once

#include "portable/attention/bwd_delta_kernel.cuh"
#include "portable/attention/bwd_fold_kernel.cuh"
#include "portable/attention/bwd_kernel.cuh"

namespace samebits::kernels::attention::cuda {

inline unsigned blocks_for(std::int64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

// launch_main(stream) launches the main kernel (only when total_k > 0). kMainWritesDq: the main
// kernels write every valid row's finished dq, z(mul(dq_acc, scale)) rounded (the two-pass
// tensor-core backward's dq pass), and use no flags: no clear, no finish — unless total_k = 0,
// when no main kernel runs and dq's finish writes the cleared +0.
template <int D, DType In, DType OutO, DType Grad, bool kZeroRule, bool kMainWritesDq = false, class LaunchMain>
cudaError_t launch_backward_pipeline(const BackwardParams& p, cudaStream_t stream, LaunchMain&& launch_main) {
  cudaError_t e;
  const std::int64_t rows_heads = p.total_q * p.hq;
  const bool clear = !kMainWritesDq || p.total_k == 0;
  if (clear && (e = cudaMemsetAsync(p.dq_flags, 0, static_cast<std::size_t>(rows_heads + 1) * sizeof(std::int32_t),
                                    stream)) != cudaSuccess)
    return e;
  if (p.total_q > 0) {
    if (clear && (e = cudaMemsetAsync(p.dq_accum, 0, static_cast<std::size_t>(rows_heads) * D * sizeof(float),
                                      stream)) != cudaSuccess)
      return e;
    attention_bwd_delta_kernel<D, In, OutO><<<blocks_for(rows_heads), kThreads, 0, stream>>>(p);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
  }
  if (p.total_k > 0) {
    if ((e = launch_main(stream)) != cudaSuccess) return e;
    attention_bwd_fold_kernel<D, Grad, kZeroRule><<<blocks_for(p.total_k * p.hkv * D), kThreads, 0, stream>>>(p);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
  }
  if (p.total_q > 0 && clear) {
    attention_bwd_dq_finish_kernel<D, Grad, kZeroRule><<<blocks_for(rows_heads * D), kThreads, 0, stream>>>(p);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
  }
  return cudaSuccess;
}

}  // namespace samebits::kernels::attention::cuda
