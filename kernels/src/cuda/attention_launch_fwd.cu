// kernels/src/cuda/attention_launch_fwd.cu — the fma-chain forward launcher:
// the unit for the head dim and libm (attention_launch_fwd.cuh, one
// translation unit each).
#include "cuda/attention_launch.hpp"

namespace samebits::kernels::attention::cuda {

cudaError_t launch_forward(const ForwardParams& p, cudaStream_t stream) {
  return dispatch::head_dim_and_libm<FmaChainKernels>(
      p, [&]<int D, class L>() { return ForwardUnit<D, L>::launch(p, stream); });
}

}  // namespace samebits::kernels::attention::cuda
