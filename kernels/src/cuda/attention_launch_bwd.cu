// kernels/src/cuda/attention_launch_bwd.cu — the backward launcher, four
// kernels in stream order: delta (§5.1), the dK/dV accumulators (key tiles),
// the head fold into dk/dv, and dq (query tiles). No atomics: every output
// and workspace element has exactly one writer.
#include "attention_bwd_delta_kernel.cuh"
#include "attention_bwd_dkdv_kernel.cuh"
#include "attention_bwd_dq_kernel.cuh"
#include "attention_bwd_fold_kernel.cuh"
#include "attention_launch.hpp"

namespace samebits::kernels::attention::cuda {
namespace {

unsigned blocks_for(std::int64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

template <int D, int RM, class L, DType In, DType Grad>
cudaError_t launch_dq(const BackwardParams& p, cudaStream_t stream) {
  auto dq = attention_bwd_dq_kernel<D, RM, L, In, Grad>;
  constexpr int kBytes = DqSmem<D, RM>::kBytes, kRows = DqSmem<D, RM>::kRows;
  cudaError_t e = cudaFuncSetAttribute(dq, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes);
  if (e != cudaSuccess) return e;
  const dim3 grid((p.max_seqlen_q + kRows - 1) / kRows, p.hq, p.num_seqs);
  dq<<<grid, kThreads, kBytes, stream>>>(p);
  return cudaGetLastError();
}

template <int D, class L, DType In, DType OutO, DType Grad>
cudaError_t launch(const BackwardParams& p, cudaStream_t stream) {
  cudaError_t e;
  if (p.total_q > 0) {
    attention_bwd_delta_kernel<D, In, OutO><<<blocks_for(p.total_q * p.hq), kThreads, 0, stream>>>(p);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
  }
  if (p.total_k > 0) {
    auto dkdv = attention_bwd_dkdv_kernel<D, L, In>;
    constexpr int kBytes = DkdvSmem<D>::kBytes;
    static_assert(kBytes <= 227 * 1024, "dK/dV tile fits an H200 block's shared memory");
    if ((e = cudaFuncSetAttribute(dkdv, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes)) != cudaSuccess)
      return e;
    const dim3 grid((p.max_seqlen_k + kTileKeys - 1) / kTileKeys, p.hq, p.num_seqs);
    dkdv<<<grid, kThreads, kBytes, stream>>>(p);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
    attention_bwd_fold_kernel<D, Grad><<<blocks_for(p.total_k * p.hkv * D), kThreads, 0, stream>>>(p);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
  }
  if (p.total_q > 0) {
    if ((e = use_tall_tiles(p) ? launch_dq<D, 8, L, In, Grad>(p, stream) : launch_dq<D, 4, L, In, Grad>(p, stream)) !=
        cudaSuccess)
      return e;
  }
  return cudaSuccess;
}

template <int D, class L, DType In, DType OutO>
cudaError_t by_grad(const BackwardParams& p, cudaStream_t s) {
  return p.grad_dtype == DType::f32 ? launch<D, L, In, OutO, DType::f32>(p, s) : launch<D, L, In, OutO, In>(p, s);
}
template <int D, class L, DType In>
cudaError_t by_o(const BackwardParams& p, cudaStream_t s) {
  return p.o_dtype == DType::f32 ? by_grad<D, L, In, DType::f32>(p, s) : by_grad<D, L, In, In>(p, s);
}
template <int D, class L>
cudaError_t by_in(const BackwardParams& p, cudaStream_t s) {
  switch (p.in_dtype) {
    case DType::bf16: return by_o<D, L, DType::bf16>(p, s);
    case DType::f16: return by_o<D, L, DType::f16>(p, s);
    default: return by_o<D, L, DType::f32>(p, s);
  }
}
template <int D>
cudaError_t by_libm(const BackwardParams& p, cudaStream_t s) {
  return p.libm == Libm::cr ? by_in<D, CrExpLog>(p, s) : by_in<D, NvccExpLog>(p, s);
}

}  // namespace

cudaError_t launch_backward(const BackwardParams& p, cudaStream_t stream) {
  return p.d == 64 ? by_libm<64>(p, stream) : by_libm<128>(p, stream);
}

}  // namespace samebits::kernels::attention::cuda
