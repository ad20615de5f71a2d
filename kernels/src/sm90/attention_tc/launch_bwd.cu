// kernels/src/sm90/attention_tc/launch_bwd.cu — the backward launcher of the
// sm90-tensor-core policy: the shared pipeline (attention_launch_bwd_pipeline.cuh:
// delta, fold and dq's finish with the zero rule) around the main kernel
// (attention_tc_bwd_kernel.cuh: key blocks of 128, dK/dV accumulators, dq's
// ordered partials) — or, two-pass (kTcBwdTwoPass, the default), that kernel
// for dK/dV only and the dq pass (attention_tc_bwd_dq_kernel.cuh: query tiles
// of 128, key blocks in order inside the block). The same bits either way. No
// floating-point atomics. Compiled for sm_90a only.
#include "cuda/attention_launch.hpp"
#include "cuda/attention_launch_bwd_pipeline.cuh"
#include "sm90/attention_tc/bwd_dq_kernel.cuh"
#include "sm90/attention_tc/bwd_dq_stored_kernel.cuh"
#include "sm90/attention_tc/bwd_kernel.cuh"

namespace samebits::kernels::attention::cuda {
namespace {

template <int D, class L, DType In, DType OutO, DType Grad>
cudaError_t launch(const BackwardParams& p, cudaStream_t stream) {
  return launch_backward_pipeline<D, In, OutO, Grad, true, kTcBwdTwoPass>(p, stream, [&](cudaStream_t s) {
    // Whole tiles by TMA when the maps can be made (tensor_maps.hpp), else cp.async.
    const TcMaps maps = tc_backward_maps(p);
    auto main_kernel = attention_tc_bwd_kernel<D, L, In, !kTcBwdTwoPass>;
    constexpr int kBytes = TcBwdLayout<D>::kBytes;
    cudaError_t e = cudaFuncSetAttribute(main_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes);
    if (e != cudaSuccess) return e;
    // One block per (key block of 128, head, sequence): in ticket order when it hands dq on.
    const std::int64_t blocks =
        static_cast<std::int64_t>((p.max_seqlen_k + kTcKeys - 1) / kTcKeys) * p.hq * p.num_seqs;
    if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
    main_kernel<<<static_cast<unsigned>(blocks), kTcThreads, kBytes, s>>>(p, maps);
    if ((e = cudaGetLastError()) != cudaSuccess || !kTcBwdTwoPass) return e;
    // The dq pass: the forward's grid (query tiles of 128 positions, heaviest first; one more
    // tile than max_seqlen_q needs, for sequences whose first row is not a tile's first) —
    // from the D^S the dK/dV pass stored when there is a ds_workspace (§21), else recomputing.
    const dim3 grid(static_cast<unsigned>((p.max_seqlen_q + kTcRows - 1) / kTcRows + 1), static_cast<unsigned>(p.hq),
                    static_cast<unsigned>(p.num_seqs));
    if (p.ds_workspace != nullptr) {
      auto dq_kernel = attention_tc_bwd_dq_stored_kernel<D, In>;
      constexpr int kDqBytes = TcDqStoredLayout<D>::kBytes;
      if ((e = cudaFuncSetAttribute(dq_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kDqBytes)) != cudaSuccess)
        return e;
      dq_kernel<<<grid, kTcFwdThreads, kDqBytes, s>>>(p, maps);
      return cudaGetLastError();
    }
    auto dq_kernel = attention_tc_bwd_dq_kernel<D, L, In>;
    constexpr int kDqBytes = TcDqLayout<D>::kBytes;
    if ((e = cudaFuncSetAttribute(dq_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kDqBytes)) != cudaSuccess)
      return e;
    dq_kernel<<<grid, kTcFwdThreads, kDqBytes, s>>>(p, maps);
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
  return p.in_dtype == DType::f16 ? by_o<D, L, DType::f16>(p, s) : by_o<D, L, DType::bf16>(p, s);
}
template <int D>
cudaError_t by_libm(const BackwardParams& p, cudaStream_t s) {
  switch (p.libm) {
    case Libm::cr: return by_in<D, CrExpLog>(p, s);
    case Libm::nvcc_fast: return by_in<D, NvccFastExpLog>(p, s);
    case Libm::nvcc: return by_in<D, NvccExpLog>(p, s);
  }
  return cudaErrorInvalidValue;  // check_problem refuses any other code first
}

}  // namespace

cudaError_t launch_tc_backward(const BackwardParams& p, cudaStream_t stream) {
  return p.d == 64 ? by_libm<64>(p, stream) : by_libm<128>(p, stream);
}

}  // namespace samebits::kernels::attention::cuda
