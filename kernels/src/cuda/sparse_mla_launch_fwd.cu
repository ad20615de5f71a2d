// kernels/src/cuda/sparse_mla_launch_fwd.cu — the sparse MLA forward
// launcher: the unit for the head dim and libm (sparse_mla_launch_fwd.cuh,
// one translation unit each).
#include "cuda/sparse_mla_launch.hpp"

namespace samebits::kernels::sparse_mla::cuda {

cudaError_t launch_forward(const ForwardParams& p, cudaStream_t stream) {
  return dispatch::head_dim_and_libm<SparseMlaKernels>(
      p, [&]<int D, class L>() { return ForwardUnit<D, L>::launch(p, stream); });
}

}  // namespace samebits::kernels::sparse_mla::cuda
