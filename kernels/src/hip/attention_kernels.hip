// kernels/src/hip/attention_kernels.hip — the HIP form of the attention
// kernels: the very kernel bodies of kernels/src/cuda/ (vendor-neutral
// through samebits/gpu), compiled by clang -x hip for AMD gfx942 and gfx950
// (--cuda-device-only -nogpuinc -nogpulib: no ROCm headers or runtime; Meson
// -Dhip=enabled, kernels/meson.build). COMPILE ONLY: no AMD GPU has run them,
// and no HIP launcher exists (gpu/runtime/hip.hpp is declared only).
//
// Instantiated: forward (RM = 4 and 8), backward main, delta, head fold and
// dq finish, for D in {64, 128}, inputs bf16 / f16 / f32 with the outputs
// the CUDA launchers pick (o: the input's dtype or f32; gradients: the
// input's dtype or f32), for two libm policies:
//   CrExpLog     samebits::cr (correctly rounded: the same bits on every target)
//   HipccExpLog  samebits::hipcc (clang 22's own expf/logf sequences on AMD)
// NvccExpLog is not instantiated: samebits::nvcc computes with PTX's MUFU
// instructions (ex2/lg2.approx.ftz), which exist on NVIDIA only.
//
// Shared memory: the tiles need up to ~203 KiB of dynamic LDS
// (ForwardSmem / BackwardSmem::kBytes); AMD's LDS per workgroup is 64 KiB
// (gfx942) and 160 KiB (gfx950). The code compiles; a launch of the larger
// tiles would be refused: running on AMD needs smaller tiles
// (docs/kernels/attention.md §9).
#include "portable/attention/bwd_delta_kernel.cuh"
#include "portable/attention/bwd_fold_kernel.cuh"
#include "portable/attention/bwd_kernel.cuh"
#include "portable/attention/fwd_kernel.cuh"
#include "samebits/libm/hipcc.hpp"

namespace samebits::kernels::attention::cuda {

// samebits::hipcc's default form (clang 22, IEEE denormals, no fast-math):
// not a Libm of the contract (Libm has nvcc and cr), so it names none.
struct HipccExpLog {
  SAMEBITS_DEVICE_FUNC static float exp(float x) { return samebits::hipcc::expf(x); }
  SAMEBITS_DEVICE_FUNC static float log(float x) { return samebits::hipcc::logf(x); }
};

#define SB_FWD(D, RM, L, IN, OUT) \
  template SAMEBITS_GLOBAL void attention_forward_kernel<D, RM, L, DType::IN, DType::OUT>(const ForwardParams);
#define SB_FWD_SAME(D, L, IN) SB_FWD(D, 4, L, IN, IN) SB_FWD(D, 8, L, IN, IN)
#define SB_FWD_IN(D, L, IN) SB_FWD_SAME(D, L, IN) SB_FWD(D, 4, L, IN, f32) SB_FWD(D, 8, L, IN, f32)
#define SB_BWD_MAIN(D, L, IN) template SAMEBITS_GLOBAL void attention_bwd_kernel<D, L, DType::IN>(const BackwardParams);
#define SB_DELTA(D, IN, OUTO) \
  template SAMEBITS_GLOBAL void attention_bwd_delta_kernel<D, DType::IN, DType::OUTO>(const BackwardParams);
#define SB_GRAD(D, G)                                                                      \
  template SAMEBITS_GLOBAL void attention_bwd_fold_kernel<D, DType::G>(const BackwardParams); \
  template SAMEBITS_GLOBAL void attention_bwd_dq_finish_kernel<D, DType::G>(const BackwardParams);
#define SB_POLICY(D, L)                                                 \
  SB_FWD_IN(D, L, bf16) SB_FWD_IN(D, L, f16) SB_FWD_SAME(D, L, f32)     \
  SB_BWD_MAIN(D, L, bf16) SB_BWD_MAIN(D, L, f16) SB_BWD_MAIN(D, L, f32)
#define SB_D(D)                                                                                   \
  SB_POLICY(D, CrExpLog)                                                                          \
  SB_POLICY(D, HipccExpLog)                                                                       \
  SB_DELTA(D, bf16, bf16) SB_DELTA(D, bf16, f32) SB_DELTA(D, f16, f16) SB_DELTA(D, f16, f32)      \
  SB_DELTA(D, f32, f32) SB_GRAD(D, bf16) SB_GRAD(D, f16) SB_GRAD(D, f32)

SB_D(64)
SB_D(128)

}  // namespace samebits::kernels::attention::cuda

// ---- sparse MLA (docs/kernels/sparse_mla.md): forward and backward kernels,
// D in {128, 512}, inputs bf16 / f32, the same two policies. Their only
// atomics are the integer adds of the index error flag. Their tiles need up to
// ~207 KiB of LDS too (ForwardSmem, TokenSmem, ContribSmem): compile only, as
// above. The backward's host side sorts with CUB (NVIDIA only): a HIP
// launcher would need another stable sort.
#include "portable/sparse_mla/bwd_kernel.cuh"
#include "portable/sparse_mla/bwd_streamed_kernel.cuh"
#include "portable/sparse_mla/fwd_streamed_kernel.cuh"

namespace samebits::kernels::sparse_mla::cuda {

using attention::cuda::CrExpLog;
using attention::cuda::HipccExpLog;

#define SB_SP_FWD(D, L, IN, OUT) \
  template SAMEBITS_GLOBAL void sparse_mla_forward_kernel<D, L, DType::IN, DType::OUT>(const ForwardParams);
#define SB_SP_TOKEN(D, L, IN, G) \
  template SAMEBITS_GLOBAL void sparse_mla_bwd_token_kernel<D, L, DType::IN, DType::G>(const BackwardParams, const ChunkWorkspace);
// The streamed forward and token kernels (16-bit inputs only).
#define SB_SP_FWD_STREAMED(D, L, OUT) \
  template SAMEBITS_GLOBAL void sparse_mla_forward_streamed_kernel<D, L, DType::bf16, DType::OUT>(const ForwardParams);
#define SB_SP_TOKEN_STREAMED(D, L, G)                                                                  \
  template SAMEBITS_GLOBAL void sparse_mla_bwd_token_streamed_kernel<D, L, DType::bf16, DType::G>(const BackwardParams, \
                                                                                           const ChunkWorkspace);
#define SB_SP_POLICY(D, L)                                                              \
  SB_SP_FWD(D, L, bf16, bf16) SB_SP_FWD(D, L, bf16, f32) SB_SP_FWD(D, L, f32, f32)      \
  SB_SP_TOKEN(D, L, bf16, bf16) SB_SP_TOKEN(D, L, bf16, f32) SB_SP_TOKEN(D, L, f32, f32) \
  SB_SP_FWD_STREAMED(D, L, bf16) SB_SP_FWD_STREAMED(D, L, f32)                          \
  SB_SP_TOKEN_STREAMED(D, L, bf16) SB_SP_TOKEN_STREAMED(D, L, f32)
#define SB_SP_D(D)                                                                                                  \
  SB_SP_POLICY(D, CrExpLog)                                                                                         \
  SB_SP_POLICY(D, HipccExpLog)                                                                                      \
  template SAMEBITS_GLOBAL void sparse_mla_bwd_delta_kernel<D, DType::bf16, DType::bf16>(const BackwardParams, float*); \
  template SAMEBITS_GLOBAL void sparse_mla_bwd_delta_kernel<D, DType::bf16, DType::f32>(const BackwardParams, float*);  \
  template SAMEBITS_GLOBAL void sparse_mla_bwd_delta_kernel<D, DType::f32, DType::f32>(const BackwardParams, float*);   \
  template SAMEBITS_GLOBAL void sparse_mla_bwd_contrib_kernel<D, DType::bf16>(const BackwardParams, const ChunkWorkspace); \
  template SAMEBITS_GLOBAL void sparse_mla_bwd_contrib_kernel<D, DType::f32>(const BackwardParams, const ChunkWorkspace);  \
  template SAMEBITS_GLOBAL void sparse_mla_bwd_dkv_accum_kernel<D>(const BackwardParams, const ChunkWorkspace);          \
  template SAMEBITS_GLOBAL void sparse_mla_bwd_dkv_finish_kernel<D, DType::bf16>(const BackwardParams, const float*);   \
  template SAMEBITS_GLOBAL void sparse_mla_bwd_dkv_finish_kernel<D, DType::f32>(const BackwardParams, const float*);

SB_SP_D(128)
SB_SP_D(512)
template SAMEBITS_GLOBAL void sparse_mla_bwd_dsink_kernel<CrExpLog>(const BackwardParams, const float*);
template SAMEBITS_GLOBAL void sparse_mla_bwd_dsink_kernel<HipccExpLog>(const BackwardParams, const float*);

}  // namespace samebits::kernels::sparse_mla::cuda
