// samebits/libm/arch/nvptx.hpp — pinned NVIDIA PTX instructions, one
// inline-asm wrapper each (samebits::arch::nvptx; CUDA translation units
// only: declared in both passes, compiled in the device pass).
//
// Inline asm pins the opcode and its modifiers: nvcc can schedule these but
// not contract, reassociate or substitute them, whatever the flags (-ftz,
// -use_fast_math, -fmad). Ftz = true selects the `.ftz` form (subnormal inputs
// and results become zeros of the same sign), which is what nvcc emits under
// -ftz=true.
//
// Two families of binary32 arithmetic:
//   add, mul, fma_rn, ...   the forms nvcc's libdevice emits (add.f32, mul.f32:
//                           no rounding modifier, which ptxas may contract with
//                           a neighbour; libdevice's sequences are reproduced
//                           as nvcc emits them, samebits/libm/nvcc/)
//   add_rn, mul_rn, ...     explicit `.rn`: never contracted (PTX ISA, "mul",
//                           "add": an explicit rounding modifier disables
//                           contraction), one IEEE operation each.
#pragma once

#include <cstdint>

#include "samebits/libm/platform.hpp"

#if defined(SAMEBITS_LANG_CUDA)

namespace samebits::arch::nvptx {

#define SAMEBITS_PTX_OP(NAME, OP, OPFTZ, PARAMS, CONSTRAINTS, OPERANDS)             \
  template <bool Ftz>                                                               \
  SAMEBITS_DEVICE_FUNC float NAME PARAMS {                                          \
    float d;                                                                        \
    if constexpr (Ftz) asm(OPFTZ OPERANDS : "=f"(d) : CONSTRAINTS);                 \
    else asm(OP OPERANDS : "=f"(d) : CONSTRAINTS);                                  \
    return d;                                                                       \
  }
#define SAMEBITS_ARGS3 "f"(a), "f"(b), "f"(c)
#define SAMEBITS_ARGS2 "f"(a), "f"(b)
#define SAMEBITS_ARGS1 "f"(a)

// As libdevice emits them.
SAMEBITS_PTX_OP(fma_rn, "fma.rn.f32", "fma.rn.ftz.f32", (float a, float b, float c), SAMEBITS_ARGS3, " %0, %1, %2, %3;")
SAMEBITS_PTX_OP(fma_rm, "fma.rm.f32", "fma.rm.ftz.f32", (float a, float b, float c), SAMEBITS_ARGS3, " %0, %1, %2, %3;")
SAMEBITS_PTX_OP(add, "add.f32", "add.ftz.f32", (float a, float b), SAMEBITS_ARGS2, " %0, %1, %2;")
SAMEBITS_PTX_OP(mul, "mul.f32", "mul.ftz.f32", (float a, float b), SAMEBITS_ARGS2, " %0, %1, %2;")
SAMEBITS_PTX_OP(neg, "neg.f32", "neg.ftz.f32", (float a), SAMEBITS_ARGS1, " %0, %1;")
SAMEBITS_PTX_OP(sat, "cvt.sat.f32.f32", "cvt.ftz.sat.f32.f32", (float a), SAMEBITS_ARGS1, " %0, %1;")
SAMEBITS_PTX_OP(ex2_approx, "ex2.approx.f32", "ex2.approx.ftz.f32", (float a), SAMEBITS_ARGS1, " %0, %1;")
SAMEBITS_PTX_OP(lg2_approx, "lg2.approx.f32", "lg2.approx.ftz.f32", (float a), SAMEBITS_ARGS1, " %0, %1;")

// Explicit round-to-nearest-even: never contracted.
SAMEBITS_PTX_OP(add_rn, "add.rn.f32", "add.rn.ftz.f32", (float a, float b), SAMEBITS_ARGS2, " %0, %1, %2;")
SAMEBITS_PTX_OP(sub_rn, "sub.rn.f32", "sub.rn.ftz.f32", (float a, float b), SAMEBITS_ARGS2, " %0, %1, %2;")
SAMEBITS_PTX_OP(mul_rn, "mul.rn.f32", "mul.rn.ftz.f32", (float a, float b), SAMEBITS_ARGS2, " %0, %1, %2;")
SAMEBITS_PTX_OP(div_rn, "div.rn.f32", "div.rn.ftz.f32", (float a, float b), SAMEBITS_ARGS2, " %0, %1, %2;")

#undef SAMEBITS_PTX_OP
#undef SAMEBITS_ARGS3
#undef SAMEBITS_ARGS2
#undef SAMEBITS_ARGS1

// ex2.approx.ftz.f32 regardless of Ftz: libdevice's expf uses it in both.
SAMEBITS_DEVICE_FUNC float ex2_approx_ftz(float a) {
  float d;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(d) : "f"(a));
  return d;
}

// Conversions: int to float (exact below 2^24, else to nearest), widening
// (exact), narrowing to nearest.
SAMEBITS_DEVICE_FUNC float cvt_rn_f32_s32(std::int32_t a) {
  float d;
  asm("cvt.rn.f32.s32 %0, %1;" : "=f"(d) : "r"(a));
  return d;
}
SAMEBITS_DEVICE_FUNC double cvt_f64_f32(float a) {
  double d;
  asm("cvt.f64.f32 %0, %1;" : "=d"(d) : "f"(a));
  return d;
}
SAMEBITS_DEVICE_FUNC float cvt_rn_f32_f64(double a) {
  float d;
  asm("cvt.rn.f32.f64 %0, %1;" : "=f"(d) : "d"(a));
  return d;
}

}  // namespace samebits::arch::nvptx

#endif  // SAMEBITS_LANG_CUDA
