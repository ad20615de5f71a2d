// kernels/src/cuda/attention_launch.hpp — the launchers: choose the kernel
// instantiation for the checked parameters (dispatch.hpp) and launch it. They
// trust their arguments; attention_api.cu checks them first.
//
// Each launcher (attention_launch_*.cu, sm90/attention_tc/launch_*.cu) switches
// on the head dim and libm to a unit declared here, defined in its .cuh and
// instantiated once per (head dim, libm) in a translation unit of its own
// (kernels/src/instantiations/ generates them): the units compile in parallel.
#pragma once

#include <cuda_runtime.h>

#include "cuda/dispatch.hpp"
#include "samebits/kernels/attention/params.hpp"

namespace samebits::kernels::attention::cuda {

// What the policy's kernels are instantiated for; dispatch.hpp answers any
// other value with its one error (the validator refuses it first, by name).
// fma-chain: D = 64, 128; libm cr, nvcc; bf16, f16, f32 inputs. (sm90-tensor-core:
// sm90/attention_tc/launch.hpp.)
using FmaChainKernels = dispatch::Space<dispatch::HeadDims<64, 128>, dispatch::Libms<Libm::cr, Libm::nvcc>,
                                        dispatch::DTypes<DType::bf16, DType::f16, DType::f32>>;

cudaError_t launch_forward(const ForwardParams& p, cudaStream_t stream);
cudaError_t launch_backward(const BackwardParams& p, cudaStream_t stream);

// Rows per tile of the forward and dq kernels (RM = 8: 128, RM = 4: 64). Any
// choice gives the same bits; 128-row tiles do more work per shared-memory
// load, 64-row tiles make twice the blocks, which small problems need to fill
// the device.
inline bool use_tall_tiles(const ProblemParams& p) {
  if (p.tile_rows != 0) return p.tile_rows == 128;
  int dev = 0, sms = 132;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
    cudaGetLastError();
    sms = 132;
  }
  const long long blocks = static_cast<long long>((p.max_seqlen_q + 127) / 128) * p.hq * p.num_seqs;
  return blocks >= 2LL * sms;
}

// The sm90-tensor-core policy's forward and backward (sm90/attention_tc/launch_*.cu,
// built for sm_90a only: bf16/f16 inputs, D = 64 or 128, 16-byte aligned rows).
// tc_kernels_built() is false in a build without them (attention_tc_absent.cu).
bool tc_kernels_built();
cudaError_t launch_tc_forward(const ForwardParams& p, cudaStream_t stream);
cudaError_t launch_tc_backward(const BackwardParams& p, cudaStream_t stream);

// ---- the instantiation units (one translation unit per (D, L) each) ---------
// The forward (attention_launch_fwd.cuh): every element type, both tile heights.
template <int D, class L>
  requires(FmaChainKernels::contains<D, L>())
struct ForwardUnit {
  static cudaError_t launch(const ForwardParams& p, cudaStream_t stream);
};
// The backward's main kernel (attention_launch_bwd.cuh; key blocks: dK/dV
// accumulators, dq's chains) for every input type. The pipeline around it
// (delta, fold, dq's rounding: no libm) is attention_launch_bwd.cu's.
template <int D, class L>
  requires(FmaChainKernels::contains<D, L>())
struct BackwardMainUnit {
  static cudaError_t launch(const BackwardParams& p, cudaStream_t stream);
};

}  // namespace samebits::kernels::attention::cuda
