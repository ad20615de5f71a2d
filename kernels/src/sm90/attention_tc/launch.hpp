// kernels/src/sm90/attention_tc/launch.hpp — the sm90-tensor-core launchers'
// units (launch_fwd.cu, launch_bwd.cu dispatch to them; launch_fwd.cuh and
// launch_bwd.cuh define them; one translation unit per (D, L) instantiates
// each, kernels/src/instantiations/). Compiled for sm_90a only.
#pragma once

#include "cuda/attention_launch.hpp"

namespace samebits::kernels::attention::cuda {

// What the policy's kernels are instantiated for; dispatch.hpp answers any
// other value with its one error (the validator refuses it first, by name).
// sm90-tensor-core: D = 64, 128; libm cr, nvcc-fast, nvcc; bf16, f16 inputs.
using TcKernels = dispatch::Space<dispatch::HeadDims<64, 128>, dispatch::Libms<Libm::cr, Libm::nvcc_fast, Libm::nvcc>,
                                  dispatch::DTypes<DType::bf16, DType::f16>>;

// The forward (launch_fwd.cuh): every element type.
template <int D, class L>
  requires(TcKernels::contains<D, L>())
struct TcForwardUnit {
  static cudaError_t launch(const ForwardParams& p, cudaStream_t stream);
};
// The backward's main stage (launch_bwd.cuh): the dK/dV pass (which also hands dq on when
// the backward is one pass) and the dq pass, recomputing or from a ds_workspace. The
// pipeline around it (no libm) is launch_bwd.cu's.
template <int D, class L>
  requires(TcKernels::contains<D, L>())
struct TcBackwardMainUnit {
  static cudaError_t launch(const BackwardParams& p, cudaStream_t stream);
};

}  // namespace samebits::kernels::attention::cuda
