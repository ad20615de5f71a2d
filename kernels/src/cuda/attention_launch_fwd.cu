// kernels/src/cuda/attention_launch_fwd.cu — the forward launcher: grid
// (query tiles of the longest sequence, hq, num_seqs); blocks past their
// sequence's end return at once.
#include "portable/attention/fwd_kernel.cuh"
#include "cuda/attention_launch.hpp"

namespace samebits::kernels::attention::cuda {
namespace {

template <int D, int RM, class L, DType In, DType Out>
cudaError_t launch_rm(const ForwardParams& p, cudaStream_t stream) {
  auto kernel = attention_forward_kernel<D, RM, L, In, Out>;
  constexpr int kBytes = ForwardSmem<D, RM, In>::kBytes, kRows = ForwardSmem<D, RM, In>::kRows;
  cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes);
  if (e != cudaSuccess) return e;
  const dim3 grid((p.max_seqlen_q + kRows - 1) / kRows, p.hq, p.num_seqs);
  if (grid.x == 0) return cudaSuccess;
  kernel<<<grid, kThreads, kBytes, stream>>>(p);
  return cudaGetLastError();
}

template <int D, class L, DType In, DType Out>
cudaError_t launch(const ForwardParams& p, cudaStream_t s) {
  return use_tall_tiles(p) ? launch_rm<D, 8, L, In, Out>(p, s) : launch_rm<D, 4, L, In, Out>(p, s);
}

template <int D, class L, DType In>
cudaError_t by_out(const ForwardParams& p, cudaStream_t s) {
  return p.o_dtype == DType::f32 ? launch<D, L, In, DType::f32>(p, s) : launch<D, L, In, In>(p, s);
}
template <int D, class L>
cudaError_t by_in(const ForwardParams& p, cudaStream_t s) {
  switch (p.in_dtype) {
    case DType::bf16: return by_out<D, L, DType::bf16>(p, s);
    case DType::f16: return by_out<D, L, DType::f16>(p, s);
    default: return by_out<D, L, DType::f32>(p, s);
  }
}
template <int D>
cudaError_t by_libm(const ForwardParams& p, cudaStream_t s) {
  // nvcc-fast is the sm90-tensor-core policy's only (check_problem refuses it here first).
  if (p.libm != Libm::cr && p.libm != Libm::nvcc) return cudaErrorInvalidValue;
  return p.libm == Libm::cr ? by_in<D, CrExpLog>(p, s) : by_in<D, NvccExpLog>(p, s);
}

}  // namespace

cudaError_t launch_forward(const ForwardParams& p, cudaStream_t stream) {
  return p.d == 64 ? by_libm<64>(p, stream) : by_libm<128>(p, stream);
}

}  // namespace samebits::kernels::attention::cuda
