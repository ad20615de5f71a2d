// kernels/src/cuda/attention_launch_bwd.cuh — the fma-chain backward's unit
// (attention_launch.hpp), for one head dim and libm: the main kernel, one
// block per (key block, head, sequence), the block's work its ticket's.
// Included by its instantiation units only (kernels/src/instantiations/).
#pragma once

#include "cuda/attention_launch.hpp"
#include "portable/attention/bwd_kernel.cuh"

namespace samebits::kernels::attention::cuda {

template <int D, class L>
  requires(FmaChainKernels::contains<D, L>())
cudaError_t BackwardMainUnit<D, L>::launch(const BackwardParams& p, cudaStream_t s) {
  return dispatch::dtype(FmaChainKernels::in_dtypes{}, p.in_dtype, [&]<DType In>() {
    auto main_kernel = attention_bwd_kernel<D, L, In>;
    constexpr int kBytes = BackwardSmem<D, In>::kBytes;
    cudaError_t e = cudaFuncSetAttribute(main_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes);
    if (e != cudaSuccess) return e;
    const std::int64_t blocks = static_cast<std::int64_t>((p.max_seqlen_k + kTileKeys - 1) / kTileKeys) * p.hq * p.num_seqs;
    if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
    main_kernel<<<static_cast<unsigned>(blocks), kThreads, kBytes, s>>>(p);
    return cudaGetLastError();
  });
}

}  // namespace samebits::kernels::attention::cuda
