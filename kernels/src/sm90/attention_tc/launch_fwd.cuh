// kernels/src/sm90/attention_tc/launch_fwd.cuh — the sm90-tensor-core
// forward's unit (launch.hpp), for one head dim and libm (fwd_kernel.cuh):
// grid (position tiles of the longest sequence + 1, hq, num_seqs); a sequence
// whose first row is not at a multiple of 128 positions spans one tile more
// than its rows fill. Included by its instantiation units only
// (kernels/src/instantiations/), compiled for sm_90a.
#pragma once

#include "sm90/attention_tc/fwd_kernel.cuh"
#include "sm90/attention_tc/launch.hpp"
#include "sm90/attention_tc/tensor_maps.hpp"

namespace samebits::kernels::attention::cuda {

template <int D, class L>
  requires(TcKernels::contains<D, L>())
cudaError_t TcForwardUnit<D, L>::launch(const ForwardParams& p, cudaStream_t stream) {
  return dispatch::forward_dtypes<TcKernels>(p, [&]<DType In, DType Out>() {
    auto kernel = attention_tc_forward_kernel<D, L, In, Out>;
    constexpr int kBytes = TcFwdLayout<D>::kBytes;
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes);
    if (e != cudaSuccess) return e;
    const dim3 grid((p.max_seqlen_q + kTcRows - 1) / kTcRows + 1, p.hq, p.num_seqs);
    // Whole key blocks by TMA when the maps can be made (tensor_maps.hpp), else cp.async.
    kernel<<<grid, kTcFwdThreads, kBytes, stream>>>(p, tc_forward_maps(p));
    return cudaGetLastError();
  });
}

}  // namespace samebits::kernels::attention::cuda
