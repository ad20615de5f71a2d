// kernels/src/cuda/attention_tc_launch_bwd.cu — the backward launcher of the
// sm90-tensor-core policy, in stream order: clear dq's accumulators and flags;
// delta (§5.1: fma-chain's delta kernel, the policy keeps it); the main kernel
// (attention_tc_bwd_kernel.cuh: key blocks of 128, dK/dV accumulators, dq's
// ordered partials); the head fold with the zero rule; dq's finish. No
// floating-point atomics. Compiled for sm_90a only.
#include "attention_bwd_delta_kernel.cuh"
#include "attention_bwd_fold_kernel.cuh"
#include "attention_bwd_kernel.cuh"
#include "attention_launch.hpp"
#include "attention_tc_bwd_kernel.cuh"

namespace samebits::kernels::attention::cuda {
namespace {

unsigned blocks_for(std::int64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

template <int D, class L, DType In, DType OutO, DType Grad>
cudaError_t launch(const BackwardParams& p, cudaStream_t stream) {
  cudaError_t e;
  const std::int64_t rows_heads = p.total_q * p.hq;
  if ((e = cudaMemsetAsync(p.dq_flags, 0, static_cast<std::size_t>(rows_heads + 1) * sizeof(std::int32_t), stream)) !=
      cudaSuccess)
    return e;
  if (p.total_q > 0) {
    if ((e = cudaMemsetAsync(p.dq_accum, 0, static_cast<std::size_t>(rows_heads) * D * sizeof(float), stream)) !=
        cudaSuccess)
      return e;
    attention_bwd_delta_kernel<D, In, OutO><<<blocks_for(rows_heads), kThreads, 0, stream>>>(p);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
  }
  if (p.total_k > 0) {
    auto main_kernel = attention_tc_bwd_kernel<D, L, In>;
    constexpr int kBytes = TcBwdLayout<D>::kBytes;
    if ((e = cudaFuncSetAttribute(main_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes)) != cudaSuccess)
      return e;
    const std::int64_t blocks =
        static_cast<std::int64_t>((p.max_seqlen_k + kTcKeys - 1) / kTcKeys) * p.hq * p.num_seqs;
    if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
    main_kernel<<<static_cast<unsigned>(blocks), kTcThreads, kBytes, stream>>>(p);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
    attention_bwd_fold_kernel<D, Grad, true><<<blocks_for(p.total_k * p.hkv * D), kThreads, 0, stream>>>(p);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
  }
  if (p.total_q > 0) {
    attention_bwd_dq_finish_kernel<D, Grad, true><<<blocks_for(rows_heads * D), kThreads, 0, stream>>>(p);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
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
  return p.in_dtype == DType::f16 ? by_o<D, L, DType::f16>(p, s) : by_o<D, L, DType::bf16>(p, s);
}
template <int D>
cudaError_t by_libm(const BackwardParams& p, cudaStream_t s) {
  return p.libm == Libm::cr ? by_in<D, CrExpLog>(p, s) : by_in<D, NvccExpLog>(p, s);
}

}  // namespace

cudaError_t launch_tc_backward(const BackwardParams& p, cudaStream_t stream) {
  return p.d == 64 ? by_libm<64>(p, stream) : by_libm<128>(p, stream);
}

}  // namespace samebits::kernels::attention::cuda
