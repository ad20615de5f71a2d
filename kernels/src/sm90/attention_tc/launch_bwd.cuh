// kernels/src/sm90/attention_tc/launch_bwd.cuh — the sm90-tensor-core
// backward's unit (launch.hpp), for one head dim and libm: the main kernel
// (bwd_kernel.cuh: key blocks of 128, dK/dV accumulators, dq's ordered
// partials) — two-pass (kTcBwdTwoPass, the default), that kernel for dK/dV
// only, then, without a ds_workspace, the dq pass recomputing S, dP and dS
// (bwd_dq_kernel.cuh: query tiles of 128, key blocks in order inside the
// block). Included by its instantiation units only (kernels/meson.build),
// compiled for sm_90a.
#pragma once

#include "sm90/attention_tc/bwd_dq_kernel.cuh"
#include "sm90/attention_tc/bwd_kernel.cuh"
#include "sm90/attention_tc/launch.hpp"

namespace samebits::kernels::attention::cuda {

template <int D, class L>
  requires(TcKernels::contains<D, L>())
cudaError_t TcBackwardMainUnit<D, L>::launch(const BackwardParams& p, const TcMaps& maps, cudaStream_t s) {
  return dispatch::dtype(TcKernels::in_dtypes{}, p.in_dtype, [&]<DType In>() {
    auto main_kernel = attention_tc_bwd_kernel<D, L, In, !kTcBwdTwoPass>;
    constexpr int kBytes = TcBwdLayout<D>::kBytes;
    cudaError_t e = cudaFuncSetAttribute(main_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes);
    if (e != cudaSuccess) return e;
    // One block per (key block of 128, head, sequence): in ticket order when it hands dq on.
    const std::int64_t blocks =
        static_cast<std::int64_t>((p.max_seqlen_k + kTcKeys - 1) / kTcKeys) * p.hq * p.num_seqs;
    if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
    main_kernel<<<static_cast<unsigned>(blocks), kTcThreads, kBytes, s>>>(p, maps);
    if ((e = cudaGetLastError()) != cudaSuccess || !kTcBwdTwoPass || p.ds_workspace != nullptr) return e;
    auto dq_kernel = attention_tc_bwd_dq_kernel<D, L, In>;
    constexpr int kDqBytes = TcDqLayout<D>::kBytes;
    if ((e = cudaFuncSetAttribute(dq_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kDqBytes)) != cudaSuccess)
      return e;
    dq_kernel<<<tc_dq_grid(p, kTcRows), kTcFwdThreads, kDqBytes, s>>>(p, maps);
    return cudaGetLastError();
  });
}

}  // namespace samebits::kernels::attention::cuda
