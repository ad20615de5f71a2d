// kernels/src/cuda/attention_launch_fwd.cuh — the fma-chain forward's unit
// (attention_launch.hpp), for one head dim and libm: grid (query tiles of the
// longest sequence, hq, num_seqs); blocks past their sequence's end return at
// once. Included by its instantiation units only (kernels/src/instantiations/).
#pragma once

#include "cuda/attention_launch.hpp"
#include "portable/attention/fwd_kernel.cuh"

namespace samebits::kernels::attention::cuda {

template <int D, int RM, class L, DType In, DType Out>
cudaError_t launch_forward_rm(const ForwardParams& p, cudaStream_t stream) {
  auto kernel = attention_forward_kernel<D, RM, L, In, Out>;
  constexpr int kBytes = ForwardSmem<D, RM, In>::kBytes, kRows = ForwardSmem<D, RM, In>::kRows;
  cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes);
  if (e != cudaSuccess) return e;
  const dim3 grid((p.max_seqlen_q + kRows - 1) / kRows, p.hq, p.num_seqs);
  if (grid.x == 0) return cudaSuccess;
  kernel<<<grid, kThreads, kBytes, stream>>>(p);
  return cudaGetLastError();
}

template <int D, class L>
  requires(FmaChainKernels::contains<D, L>())
cudaError_t ForwardUnit<D, L>::launch(const ForwardParams& p, cudaStream_t s) {
  return dispatch::forward_dtypes<FmaChainKernels>(p, [&]<DType In, DType Out>() {
    return use_tall_tiles(p) ? launch_forward_rm<D, 8, L, In, Out>(p, s) : launch_forward_rm<D, 4, L, In, Out>(p, s);
  });
}

}  // namespace samebits::kernels::attention::cuda
