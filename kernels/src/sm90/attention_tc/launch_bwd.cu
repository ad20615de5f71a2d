// kernels/src/sm90/attention_tc/launch_bwd.cu — the backward launcher of the
// sm90-tensor-core policy: the shared pipeline (cuda/attention_launch_bwd_pipeline.cuh:
// delta, fold and dq's finish with the zero rule) around the unit for the head
// dim and libm (launch_bwd.cuh, one translation unit each: the dK/dV pass and
// the dq pass). No floating-point atomics. Compiled for sm_90a only.
#include "cuda/attention_launch_bwd_pipeline.cuh"
#include "sm90/attention_tc/bwd_dq_kernel.cuh"
#include "sm90/attention_tc/launch.hpp"

namespace samebits::kernels::attention::cuda {

cudaError_t launch_tc_backward(const BackwardParams& p, cudaStream_t stream) {
  return dispatch::head_dim_and_libm<TcKernels>(p, [&]<int D, class L>() {
    return dispatch::backward_dtypes<TcKernels>(p, [&]<DType In, DType OutO, DType Grad>() {
      return launch_backward_pipeline<D, In, OutO, Grad, true, kTcBwdTwoPass>(
          p, stream, [&](cudaStream_t s) { return TcBackwardMainUnit<D, L>::launch(p, s); });
    });
  });
}

}  // namespace samebits::kernels::attention::cuda
