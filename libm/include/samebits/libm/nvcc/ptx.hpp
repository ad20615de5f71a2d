// samebits/libm/nvcc/ptx.hpp — the PTX instructions nvcc's libdevice
// sequences use, one inline-asm wrapper each (CUDA device pass only).
//
// Inline asm pins the opcode and its modifiers: the compiler can schedule
// these but not contract, reassociate or substitute them, so the sequence in
// nvcc/*.hpp reaches ptxas exactly as written, whatever the flags.
#pragma once

#include <cstdint>

#include "samebits/libm/platform.hpp"

#if defined(SAMEBITS_DEVICE_NVIDIA)

namespace samebits::nvcc::ptx {

#define SAMEBITS_PTX_F3(NAME, OP)                                                       \
  __device__ __forceinline__ float NAME(float a, float b, float c) {                    \
    float d;                                                                            \
    asm(OP " %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c));                    \
    return d;                                                                           \
  }
#define SAMEBITS_PTX_F2(NAME, OP)                                                       \
  __device__ __forceinline__ float NAME(float a, float b) {                             \
    float d;                                                                            \
    asm(OP " %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));                                 \
    return d;                                                                           \
  }
#define SAMEBITS_PTX_F1(NAME, OP)                                                       \
  __device__ __forceinline__ float NAME(float a) {                                      \
    float d;                                                                            \
    asm(OP " %0, %1;" : "=f"(d) : "f"(a));                                              \
    return d;                                                                           \
  }

SAMEBITS_PTX_F3(fma_rn, "fma.rn.f32")
SAMEBITS_PTX_F3(fma_rm, "fma.rm.f32")
SAMEBITS_PTX_F2(add, "add.f32")
SAMEBITS_PTX_F2(mul, "mul.f32")
SAMEBITS_PTX_F1(neg, "neg.f32")
SAMEBITS_PTX_F1(sat, "cvt.sat.f32.f32")
SAMEBITS_PTX_F1(ex2_approx_ftz, "ex2.approx.ftz.f32")
SAMEBITS_PTX_F1(ex2_approx, "ex2.approx.f32")
SAMEBITS_PTX_F1(lg2_approx, "lg2.approx.f32")
SAMEBITS_PTX_F1(lg2_approx_ftz, "lg2.approx.ftz.f32")

#undef SAMEBITS_PTX_F3
#undef SAMEBITS_PTX_F2
#undef SAMEBITS_PTX_F1

__device__ __forceinline__ float cvt_rn_f32_s32(std::int32_t a) {
  float d;
  asm("cvt.rn.f32.s32 %0, %1;" : "=f"(d) : "r"(a));
  return d;
}
__device__ __forceinline__ bool setp_lt_f32(float a, float b) {
  std::uint32_t p;
  asm("{ .reg .pred p; setp.lt.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(p) : "f"(a), "f"(b));
  return p != 0;
}
__device__ __forceinline__ float selp(float a, float b, bool c) { return c ? a : b; }

}  // namespace samebits::nvcc::ptx

#endif  // SAMEBITS_DEVICE_NVIDIA
