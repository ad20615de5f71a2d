// kernels/src/cuda/sparse_mla_launch.hpp — the sparse MLA launchers
// (sparse_mla_launch_*.cu). They trust their arguments; sparse_mla_api.cu
// checks them first.
#pragma once

#include <cuda_runtime.h>

#include "samebits/kernels/sparse_mla/params.hpp"

namespace samebits::kernels::sparse_mla::cuda {

cudaError_t launch_forward(const ForwardParams& p, cudaStream_t stream);

}  // namespace samebits::kernels::sparse_mla::cuda
