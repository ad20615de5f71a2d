// kernels/src/cuda/attention_tc_absent.cu — linked instead of
// sm90/attention_tc/launch_fwd.cu, launch_bwd.cu and their instantiation units when the build
// targets no sm_90a (-Dnvcc_arch other than sm_90/sm_90a): the API then refuses the sm90-tensor-core policy
// by name before any launch.
#include "cuda/attention_launch.hpp"

namespace samebits::kernels::attention::cuda {

bool tc_kernels_built() { return false; }

cudaError_t launch_tc_forward(const ForwardParams&, cudaStream_t) { return cudaErrorNotSupported; }
cudaError_t launch_tc_backward(const BackwardParams&, cudaStream_t) { return cudaErrorNotSupported; }

}  // namespace samebits::kernels::attention::cuda
