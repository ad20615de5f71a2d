// kernels/src/cuda/attention_launch.hpp — the launchers (attention_launch_*.cu):
// choose the kernel instantiation for the checked parameters and launch it.
// They trust their arguments; attention_api.cu checks them first.
#pragma once

#include <cuda_runtime.h>

#include "samebits/kernels/attention/params.hpp"

namespace samebits::kernels::attention::cuda {

cudaError_t launch_forward(const ForwardParams& p, cudaStream_t stream);

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
cudaError_t launch_backward(const BackwardParams& p, cudaStream_t stream);

// The sm90-tensor-core policy's forward and backward (attention_tc_launch_*.cu,
// built for sm_90a only: bf16/f16 inputs, D = 64 or 128, 16-byte aligned rows).
// tc_kernels_built() is false in a build without them (attention_tc_absent.cu).
bool tc_kernels_built();
cudaError_t launch_tc_forward(const ForwardParams& p, cudaStream_t stream);
cudaError_t launch_tc_backward(const BackwardParams& p, cudaStream_t stream);

}  // namespace samebits::kernels::attention::cuda
