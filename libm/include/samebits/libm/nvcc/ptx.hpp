// samebits/libm/nvcc/ptx.hpp — the PTX instructions nvcc's libdevice
// sequences use, one inline-asm wrapper each (__device__; declared in both
// CUDA passes, compiled in the device pass).
//
// Inline asm pins the opcode and its modifiers: the compiler can schedule
// these but not contract, reassociate or substitute them, so the sequences in
// nvcc/*.hpp reach ptxas exactly as written, whatever the flags. The template
// parameter Ftz selects the `.ftz` form, which is what nvcc emits under
// -ftz=true (and -use_fast_math).
#pragma once

#include <cstdint>

#include "samebits/libm/platform.hpp"

#if defined(SAMEBITS_LANG_CUDA)

namespace samebits::nvcc::ptx {

#define SAMEBITS_PTX_OP(NAME, OP, OPFTZ, PARAMS, CONSTRAINTS, OPERANDS)             \
  template <bool Ftz>                                                               \
  __device__ __forceinline__ float NAME PARAMS {                                    \
    float d;                                                                        \
    if constexpr (Ftz) asm(OPFTZ OPERANDS : "=f"(d) : CONSTRAINTS);                 \
    else asm(OP OPERANDS : "=f"(d) : CONSTRAINTS);                                  \
    return d;                                                                       \
  }
#define SAMEBITS_ARGS3 "f"(a), "f"(b), "f"(c)
#define SAMEBITS_ARGS2 "f"(a), "f"(b)
#define SAMEBITS_ARGS1 "f"(a)

SAMEBITS_PTX_OP(fma_rn, "fma.rn.f32", "fma.rn.ftz.f32", (float a, float b, float c), SAMEBITS_ARGS3, " %0, %1, %2, %3;")
SAMEBITS_PTX_OP(fma_rm, "fma.rm.f32", "fma.rm.ftz.f32", (float a, float b, float c), SAMEBITS_ARGS3, " %0, %1, %2, %3;")
SAMEBITS_PTX_OP(add, "add.f32", "add.ftz.f32", (float a, float b), SAMEBITS_ARGS2, " %0, %1, %2;")
SAMEBITS_PTX_OP(mul, "mul.f32", "mul.ftz.f32", (float a, float b), SAMEBITS_ARGS2, " %0, %1, %2;")
SAMEBITS_PTX_OP(neg, "neg.f32", "neg.ftz.f32", (float a), SAMEBITS_ARGS1, " %0, %1;")
SAMEBITS_PTX_OP(sat, "cvt.sat.f32.f32", "cvt.ftz.sat.f32.f32", (float a), SAMEBITS_ARGS1, " %0, %1;")
SAMEBITS_PTX_OP(ex2_approx, "ex2.approx.f32", "ex2.approx.ftz.f32", (float a), SAMEBITS_ARGS1, " %0, %1;")
SAMEBITS_PTX_OP(lg2_approx, "lg2.approx.f32", "lg2.approx.ftz.f32", (float a), SAMEBITS_ARGS1, " %0, %1;")

#undef SAMEBITS_PTX_OP
#undef SAMEBITS_ARGS3
#undef SAMEBITS_ARGS2
#undef SAMEBITS_ARGS1

// ex2.approx.ftz.f32 regardless of Ftz: libdevice's expf uses it in both.
__device__ __forceinline__ float ex2_approx_ftz(float a) {
  float d;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(d) : "f"(a));
  return d;
}

__device__ __forceinline__ float cvt_rn_f32_s32(std::int32_t a) {
  float d;
  asm("cvt.rn.f32.s32 %0, %1;" : "=f"(d) : "r"(a));
  return d;
}

}  // namespace samebits::nvcc::ptx

#endif  // SAMEBITS_LANG_CUDA
