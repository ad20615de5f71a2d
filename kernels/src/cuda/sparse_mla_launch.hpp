// kernels/src/cuda/sparse_mla_launch.hpp — the sparse MLA launchers
// (sparse_mla_launch_*.cu): choose the kernel instantiation for the checked
// parameters (dispatch.hpp) and launch it. They trust their arguments;
// sparse_mla_api.cu checks them first.
#pragma once

#include <cuda_runtime.h>

#include "cuda/dispatch.hpp"
#include "samebits/kernels/sparse_mla/params.hpp"

namespace samebits::kernels::sparse_mla::cuda {

// What the kernels are instantiated for; dispatch.hpp answers any other value
// with its one error (the validator refuses it first, by name): D = 128, 512;
// libm cr, nvcc; bf16, f32 inputs.
using SparseMlaKernels = dispatch::Space<dispatch::HeadDims<128, 512>, dispatch::Libms<Libm::cr, Libm::nvcc>,
                                         dispatch::DTypes<DType::bf16, DType::f32>>;

cudaError_t launch_forward(const ForwardParams& p, cudaStream_t stream);

// The backward's chunk (tokens per chunk: p.chunk_tokens, or the default,
// never more than p.tokens) and the workspace bytes a chunk size needs.
std::int64_t effective_chunk(const BackwardParams& p);
std::int64_t backward_workspace_bytes(const ProblemParams& p, std::int64_t chunk_tokens);
cudaError_t launch_backward(const BackwardParams& p, cudaStream_t stream);

// ---- the instantiation units (one translation unit per (D, L)) --------------
// The forward (sparse_mla_launch_fwd.cuh): every element type, streamed or not.
template <int D, class L>
  requires(SparseMlaKernels::contains<D, L>())
struct ForwardUnit {
  static cudaError_t launch(const ForwardParams& p, cudaStream_t stream);
};

}  // namespace samebits::kernels::sparse_mla::cuda
