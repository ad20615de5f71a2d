// kernels/src/cuda/attention_launch.hpp — the launchers (attention_launch_*.cu):
// choose the kernel instantiation for the checked parameters and launch it.
// They trust their arguments; attention_api.cu checks them first.
#pragma once

#include <cuda_runtime.h>

#include "samebits/kernels/attention/params.hpp"

namespace samebits::kernels::attention::cuda {

cudaError_t launch_forward(const ForwardParams& p, cudaStream_t stream);
cudaError_t launch_backward(const BackwardParams& p, cudaStream_t stream);

}  // namespace samebits::kernels::attention::cuda
