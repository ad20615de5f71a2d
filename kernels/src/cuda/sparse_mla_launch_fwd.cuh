// kernels/src/cuda/sparse_mla_launch_fwd.cuh — the sparse MLA forward's unit
// (sparse_mla_launch.hpp), for one head dim and libm: for 16-bit inputs whose
// kv rows can be read in 16-byte words, the streamed kernel (grid: tokens x
// head groups of 64); otherwise the 32-head kernel (tokens x head groups of
// 32). Both compute the same operations in the same order: the bits do not
// depend on the choice. Included by its instantiation units only
// (kernels/src/instantiations/).
#pragma once

#include <cstdint>

#include "cuda/sparse_mla_launch.hpp"
#include "portable/sparse_mla/fwd_kernel.cuh"
#include "portable/sparse_mla/fwd_streamed_kernel.cuh"

namespace samebits::kernels::sparse_mla::cuda {

// The streamed kernel's condition: 16-bit elements, kv's base and row stride
// in whole 16-byte words.
inline bool streamable(const ForwardParams& p) {
  return p.in_dtype != DType::f32 &&
         reinterpret_cast<std::uintptr_t>(p.kv) % 16 == 0 && p.kv_row_stride % 8 == 0;
}

template <int D, class L, DType In, DType Out>
cudaError_t launch_forward_streamed(const ForwardParams& p, cudaStream_t stream) {
  auto kernel = sparse_mla_forward_streamed_kernel<D, L, In, Out>;
  constexpr int kBytes = StreamedSmem<D>::kBytes;
  cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes);
  if (e != cudaSuccess) return e;
  if (p.tokens == 0) return cudaSuccess;
  if (p.tokens > 0x7fffffff) return cudaErrorInvalidConfiguration;
  const dim3 grid(static_cast<unsigned>(p.tokens), (p.heads + kStreamHeads - 1) / kStreamHeads);
  kernel<<<grid, kThreads, kBytes, stream>>>(p);
  return cudaGetLastError();
}

template <int D, class L>
  requires(SparseMlaKernels::contains<D, L>())
cudaError_t ForwardUnit<D, L>::launch(const ForwardParams& p, cudaStream_t stream) {
  return dispatch::forward_dtypes<SparseMlaKernels>(p, [&]<DType In, DType Out>() {
    if constexpr (In != DType::f32) {
      if (streamable(p)) return launch_forward_streamed<D, L, In, Out>(p, stream);
    }
    auto kernel = sparse_mla_forward_kernel<D, L, In, Out>;
    constexpr int kBytes = ForwardSmem<D>::kBytes;
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes);
    if (e != cudaSuccess) return e;
    if (p.tokens == 0) return cudaSuccess;
    if (p.tokens > 0x7fffffff) return cudaErrorInvalidConfiguration;
    const dim3 grid(static_cast<unsigned>(p.tokens), (p.heads + kHeadsPerBlock - 1) / kHeadsPerBlock);
    kernel<<<grid, kThreads, kBytes, stream>>>(p);
    return cudaGetLastError();
  });
}

}  // namespace samebits::kernels::sparse_mla::cuda
