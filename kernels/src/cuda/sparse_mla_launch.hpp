// kernels/src/cuda/sparse_mla_launch.hpp — the sparse MLA launchers
// (sparse_mla_launch_*.cu). They trust their arguments; sparse_mla_api.cu
// checks them first.
#pragma once

#include <cuda_runtime.h>

#include "samebits/kernels/sparse_mla/params.hpp"

namespace samebits::kernels::sparse_mla::cuda {

cudaError_t launch_forward(const ForwardParams& p, cudaStream_t stream);

// The backward's chunk (tokens per chunk: p.chunk_tokens, or the default,
// never more than p.tokens) and the workspace bytes a chunk size needs.
std::int64_t effective_chunk(const BackwardParams& p);
std::int64_t backward_workspace_bytes(const ProblemParams& p, std::int64_t chunk_tokens);
cudaError_t launch_backward(const BackwardParams& p, cudaStream_t stream);

}  // namespace samebits::kernels::sparse_mla::cuda
