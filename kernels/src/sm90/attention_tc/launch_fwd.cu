// kernels/src/sm90/attention_tc/launch_fwd.cu — the forward launcher of the
// sm90-tensor-core policy: the unit for the head dim and libm (launch_fwd.cuh,
// one translation unit each). Compiled for sm_90a only (wgmma):
// -gencode arch=compute_90a,code=sm_90a.
#include "sm90/attention_tc/launch.hpp"

namespace samebits::kernels::attention::cuda {

bool tc_kernels_built() { return true; }

cudaError_t launch_tc_forward(const ForwardParams& p, cudaStream_t stream) {
  return dispatch::head_dim_and_libm<TcKernels>(
      p, [&]<int D, class L>() { return TcForwardUnit<D, L>::launch(p, stream); });
}

}  // namespace samebits::kernels::attention::cuda
