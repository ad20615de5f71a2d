// kernels/src/cuda/attention_launch_bwd.cu — the fma-chain backward launcher,
// in stream order: clear dq's accumulators and flags; delta (§5.1); the main
// kernel (key blocks: dK/dV accumulators and dq's chains, §5.2: the unit for
// the head dim and libm, attention_launch_bwd.cuh, one translation unit each);
// the head fold into dk/dv; dq's rounding. No floating-point atomics: every
// dK/dV workspace element has one writer, dq's accumulators are advanced by one
// block at a time in list order behind a flag.
#include "cuda/attention_launch.hpp"
#include "cuda/attention_launch_bwd_pipeline.cuh"

namespace samebits::kernels::attention::cuda {

cudaError_t launch_backward(const BackwardParams& p, cudaStream_t stream) {
  return dispatch::head_dim_and_libm<FmaChainKernels>(p, [&]<int D, class L>() {
    return dispatch::backward_dtypes<FmaChainKernels>(p, [&]<DType In, DType OutO, DType Grad>() {
      return launch_backward_pipeline<D, In, OutO, Grad, false>(
          p, stream, [&](cudaStream_t s) { return BackwardMainUnit<D, L>::launch(p, s); });
    });
  });
}

}  // namespace samebits::kernels::attention::cuda
