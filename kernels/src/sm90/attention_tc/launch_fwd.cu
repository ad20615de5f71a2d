// kernels/src/sm90/attention_tc/launch_fwd.cu — the forward launcher of the
// sm90-tensor-core policy (attention_tc_fwd_kernel.cuh): grid (position tiles
// of the longest sequence + 1, hq, num_seqs); a sequence whose first row is
// not at a multiple of 128 positions spans one tile more than its rows fill.
// Compiled for sm_90a only (wgmma): -gencode arch=compute_90a,code=sm_90a.
#include "cuda/attention_launch.hpp"
#include "sm90/attention_tc/fwd_kernel.cuh"

namespace samebits::kernels::attention::cuda {
namespace {

template <int D, class L, DType In, DType Out>
cudaError_t launch(const ForwardParams& p, cudaStream_t stream) {
  auto kernel = attention_tc_forward_kernel<D, L, In, Out>;
  constexpr int kBytes = TcFwdLayout<D>::kBytes;
  cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes);
  if (e != cudaSuccess) return e;
  const dim3 grid((p.max_seqlen_q + kTcRows - 1) / kTcRows + 1, p.hq, p.num_seqs);
  // Whole key blocks by TMA when the maps can be made (tensor_maps.hpp), else cp.async.
  kernel<<<grid, kTcFwdThreads, kBytes, stream>>>(p, tc_forward_maps(p));
  return cudaGetLastError();
}

template <int D, class L, DType In>
cudaError_t by_out(const ForwardParams& p, cudaStream_t s) {
  return p.o_dtype == DType::f32 ? launch<D, L, In, DType::f32>(p, s) : launch<D, L, In, In>(p, s);
}
template <int D, class L>
cudaError_t by_in(const ForwardParams& p, cudaStream_t s) {
  return p.in_dtype == DType::f16 ? by_out<D, L, DType::f16>(p, s) : by_out<D, L, DType::bf16>(p, s);
}
template <int D>
cudaError_t by_libm(const ForwardParams& p, cudaStream_t s) {
  switch (p.libm) {
    case Libm::cr: return by_in<D, CrExpLog>(p, s);
    case Libm::nvcc_fast: return by_in<D, NvccFastExpLog>(p, s);
    case Libm::nvcc: return by_in<D, NvccExpLog>(p, s);
  }
  return cudaErrorInvalidValue;  // check_problem refuses any other code first
}

}  // namespace

bool tc_kernels_built() { return true; }

cudaError_t launch_tc_forward(const ForwardParams& p, cudaStream_t stream) {
  return p.d == 64 ? by_libm<64>(p, stream) : by_libm<128>(p, stream);
}

}  // namespace samebits::kernels::attention::cuda
