// kernels/src/sm90/attention_tc/launch.hpp — the sm90-tensor-core launchers'
// units (launch_fwd.cu, launch_bwd.cu dispatch to them; launch_fwd.cuh and
// launch_bwd.cuh define them; one translation unit per (D, L) instantiates
// each, kernels/meson.build). Compiled for sm_90a only.
#pragma once

#include "cuda/attention_launch.hpp"
#include "sm90/attention_tc/tensor_maps.hpp"

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
// The backward's libm kernels (launch_bwd.cuh): the dK/dV pass (which also hands dq on
// when the backward is one pass) and, two-pass without a ds_workspace, dq's recomputing
// pass. The pipeline around them and the dq pass from the stored D^S (no libm) are
// launch_bwd.cu's.
template <int D, class L>
  requires(TcKernels::contains<D, L>())
struct TcBackwardMainUnit {
  static cudaError_t launch(const BackwardParams& p, const TcMaps& maps, cudaStream_t stream);
};

// The dq pass's grid: the forward's (query tiles of 128 positions, heaviest first; one more
// tile than max_seqlen_q needs, for sequences whose first row is not a tile's first).
inline dim3 tc_dq_grid(const ProblemParams& p, int tile_rows) {
  return dim3(static_cast<unsigned>((p.max_seqlen_q + tile_rows - 1) / tile_rows + 1), static_cast<unsigned>(p.hq),
              static_cast<unsigned>(p.num_seqs));
}

}  // namespace samebits::kernels::attention::cuda
