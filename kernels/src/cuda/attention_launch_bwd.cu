// kernels/src/cuda/attention_launch_bwd.cu — the backward launcher, in
// stream order: clear dq's accumulators and flags; delta (§5.1); the main
// kernel (key blocks: dK/dV accumulators and dq's chains, §5.2); the head
// fold into dk/dv; dq's rounding. No floating-point atomics: every dK/dV
// workspace element has one writer, dq's accumulators are advanced by one
// block at a time in list order behind a flag.
#include "cuda/attention_launch.hpp"
#include "cuda/attention_launch_bwd_pipeline.cuh"

namespace samebits::kernels::attention::cuda {
namespace {

template <int D, class L, DType In, DType OutO, DType Grad>
cudaError_t launch(const BackwardParams& p, cudaStream_t stream) {
  return launch_backward_pipeline<D, In, OutO, Grad, false>(p, stream, [&](cudaStream_t s) {
    auto main_kernel = attention_bwd_kernel<D, L, In>;
    constexpr int kBytes = BackwardSmem<D, In>::kBytes;
    cudaError_t e = cudaFuncSetAttribute(main_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes);
    if (e != cudaSuccess) return e;
    // One block per (key block, head, sequence); the block's work is its ticket's.
    const std::int64_t blocks = static_cast<std::int64_t>((p.max_seqlen_k + kTileKeys - 1) / kTileKeys) * p.hq * p.num_seqs;
    if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
    main_kernel<<<static_cast<unsigned>(blocks), kThreads, kBytes, s>>>(p);
    return cudaGetLastError();
  });
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
  // nvcc-fast is the sm90-tensor-core policy's only (check_problem refuses it here first).
  if (p.libm != Libm::cr && p.libm != Libm::nvcc) return cudaErrorInvalidValue;
  return p.libm == Libm::cr ? by_in<D, CrExpLog>(p, s) : by_in<D, NvccExpLog>(p, s);
}

}  // namespace

cudaError_t launch_backward(const BackwardParams& p, cudaStream_t stream) {
  return p.d == 64 ? by_libm<64>(p, stream) : by_libm<128>(p, stream);
}

}  // namespace samebits::kernels::attention::cuda
