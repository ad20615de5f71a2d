// kernels/src/cuda/sparse_mla_launch_fwd.cu — the sparse MLA forward
// launcher: for 16-bit inputs whose kv rows can be read in 16-byte words,
// the streamed kernel (grid: tokens x head groups of 64); otherwise the
// 32-head kernel (tokens x head groups of 32). Both compute the same
// operations in the same order: the bits do not depend on the choice.
#include <cstdint>

#include "portable/sparse_mla/fwd_kernel.cuh"
#include "portable/sparse_mla/fwd_streamed_kernel.cuh"
#include "cuda/sparse_mla_launch.hpp"

namespace samebits::kernels::sparse_mla::cuda {
namespace {

using ac::CrExpLog;
using ac::NvccExpLog;

// The streamed kernel's condition: 16-bit elements, kv's base and row stride
// in whole 16-byte words.
bool streamable(const ForwardParams& p) {
  return p.in_dtype != DType::f32 &&
         reinterpret_cast<std::uintptr_t>(p.kv) % 16 == 0 && p.kv_row_stride % 8 == 0;
}

template <int D, class L, DType In, DType Out>
cudaError_t launch_streamed(const ForwardParams& p, cudaStream_t stream) {
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

template <int D, class L, DType In, DType Out>
cudaError_t launch(const ForwardParams& p, cudaStream_t stream) {
  if constexpr (In != DType::f32) {
    if (streamable(p)) return launch_streamed<D, L, In, Out>(p, stream);
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
}
template <int D, class L, DType In>
cudaError_t by_out(const ForwardParams& p, cudaStream_t s) {
  return p.o_dtype == DType::f32 ? launch<D, L, In, DType::f32>(p, s) : launch<D, L, In, In>(p, s);
}
template <int D, class L>
cudaError_t by_in(const ForwardParams& p, cudaStream_t s) {
  return p.in_dtype == DType::f32 ? by_out<D, L, DType::f32>(p, s) : by_out<D, L, DType::bf16>(p, s);
}
template <int D>
cudaError_t by_libm(const ForwardParams& p, cudaStream_t s) {
  if (p.libm != Libm::cr && p.libm != Libm::nvcc) return cudaErrorInvalidValue;  // check_sizes refuses it first
  return p.libm == Libm::cr ? by_in<D, CrExpLog>(p, s) : by_in<D, NvccExpLog>(p, s);
}

}  // namespace

cudaError_t launch_forward(const ForwardParams& p, cudaStream_t stream) {
  return p.d == 128 ? by_libm<128>(p, stream) : by_libm<512>(p, stream);
}

}  // namespace samebits::kernels::sparse_mla::cuda
