// kernels/src/sm90/attention_tc/launch_bwd.cu — the backward launcher of the
// sm90-tensor-core policy: the shared pipeline (cuda/attention_launch_bwd_pipeline.cuh:
// delta, fold and dq's finish with the zero rule) around the unit for the head
// dim and libm (launch_bwd.cuh, one translation unit each: the main kernel and
// dq's recomputing pass) and, when the dK/dV pass stored D^S in a ds_workspace
// (§21), the dq pass that reads it back (bwd_dq_stored_kernel.cuh). The same
// bits either way. No floating-point atomics. Compiled for sm_90a only.
#include "cuda/attention_launch_bwd_pipeline.cuh"
#include "sm90/attention_tc/bwd_dq_kernel.cuh"
#include "sm90/attention_tc/bwd_dq_stored_kernel.cuh"
#include "sm90/attention_tc/launch.hpp"

namespace samebits::kernels::attention::cuda {

cudaError_t launch_tc_backward(const BackwardParams& p, cudaStream_t stream) {
  return dispatch::head_dim_and_libm<TcKernels>(p, [&]<int D, class L>() {
    return dispatch::backward_dtypes<TcKernels>(p, [&]<DType In, DType OutO, DType Grad>() {
      return launch_backward_pipeline<D, In, OutO, Grad, true, kTcBwdTwoPass>(p, stream, [&](cudaStream_t s) {
        // Whole tiles by TMA when the maps can be made (tensor_maps.hpp), else cp.async.
        const TcMaps maps = tc_backward_maps(p);
        cudaError_t e = TcBackwardMainUnit<D, L>::launch(p, maps, s);
        if (e != cudaSuccess || !kTcBwdTwoPass || p.ds_workspace == nullptr) return e;
        auto dq_kernel = attention_tc_bwd_dq_stored_kernel<D, In>;
        constexpr int kDqBytes = TcDqStoredLayout<D>::kBytes;
        if ((e = cudaFuncSetAttribute(dq_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kDqBytes)) != cudaSuccess)
          return e;
        dq_kernel<<<tc_dq_grid(p, kTcRows), kTcFwdThreads, kDqBytes, s>>>(p, maps);
        return cudaGetLastError();
      });
    });
  });
}

}  // namespace samebits::kernels::attention::cuda
