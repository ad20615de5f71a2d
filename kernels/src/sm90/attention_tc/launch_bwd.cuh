// kernels/src/sm90/attention_tc/launch_bwd.cuh — the sm90-tensor-core
// backward's unit (launch.hpp), for one head dim and libm: the main kernel
// (bwd_kernel.cuh: key blocks of 128, dK/dV accumulators, dq's ordered
// partials) — or, two-pass (kTcBwdTwoPass, the default), that kernel for dK/dV
// only and the dq pass (bwd_dq_kernel.cuh: query tiles of 128, key blocks in
// order inside the block; bwd_dq_stored_kernel.cuh from a ds_workspace). The
// same bits either way. Included by its instantiation units only
// (kernels/src/instantiations/), compiled for sm_90a.
//
// The stored-D^S dq pass has no libm, yet each (D, L) unit instantiates it:
// a kernel's code can depend on what else its translation unit holds (alone
// in one, interprocedural constant propagation into gpu::smem_descriptor_sw128,
// whose every call there passes the same lbo, folds one OR differently), and
// here it compiles to the PTX it had in the single backward unit.
#pragma once

#include "sm90/attention_tc/bwd_dq_kernel.cuh"
#include "sm90/attention_tc/bwd_dq_stored_kernel.cuh"
#include "sm90/attention_tc/bwd_kernel.cuh"
#include "sm90/attention_tc/launch.hpp"
#include "sm90/attention_tc/tensor_maps.hpp"

namespace samebits::kernels::attention::cuda {

template <int D, class L>
  requires(TcKernels::contains<D, L>())
cudaError_t TcBackwardMainUnit<D, L>::launch(const BackwardParams& p, cudaStream_t s) {
  // Whole tiles by TMA when the maps can be made (tensor_maps.hpp), else cp.async.
  const TcMaps maps = tc_backward_maps(p);
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

}  // namespace samebits::kernels::attention::cuda
