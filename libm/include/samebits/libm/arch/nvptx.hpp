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

// 32-bit integer operations on a binary32's encoding, pinned like the rest so
// that the sequence around them reaches ptxas as libdevice writes it.
SAMEBITS_DEVICE_FUNC std::int32_t mov_b32(float a) {
  std::int32_t d;
  asm("mov.b32 %0, %1;" : "=r"(d) : "f"(a));
  return d;
}
SAMEBITS_DEVICE_FUNC std::int32_t add_s32(std::int32_t a, std::int32_t b) {
  std::int32_t d;
  asm("add.s32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
SAMEBITS_DEVICE_FUNC std::int32_t sub_s32(std::int32_t a, std::int32_t b) {
  std::int32_t d;
  asm("sub.s32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
// a & 0xFF800000: the sign and exponent field.
SAMEBITS_DEVICE_FUNC std::int32_t and_b32_exponent(std::int32_t a) {
  std::int32_t d;
  asm("and.b32 %0, %1, -8388608;" : "=r"(d) : "r"(a));
  return d;
}

// Predicated idioms of libdevice's logarithms: one setp and the instructions
// it guards, in one asm block so the predicate stays a predicate.
// x < 2^-126 (setp.lt, .ftz per Ftz): xs = scaled, e23 = -23; else xs = x, e23 = 0.
template <bool Ftz>
SAMEBITS_DEVICE_FUNC void select_subnormal_scaled(float x, float scaled, float& xs, float& e23) {
  if constexpr (Ftz) {
    asm("{ .reg .pred %%sbp; setp.lt.ftz.f32 %%sbp, %2, 0f00800000; selp.f32 %0, %3, %2, %%sbp; "
        "selp.f32 %1, 0fC1B80000, 0f00000000, %%sbp; }"
        : "=f"(xs), "=f"(e23) : "f"(x), "f"(scaled));
  } else {
    asm("{ .reg .pred %%sbp; setp.lt.f32 %%sbp, %2, 0f00800000; selp.f32 %0, %3, %2, %%sbp; "
        "selp.f32 %1, 0fC1B80000, 0f00000000, %%sbp; }"
        : "=f"(xs), "=f"(e23) : "f"(x), "f"(scaled));
  }
}
// y, or fma.rn(xs, inf, inf) where the encoding ix is >= 0x7f800000 as unsigned
// (+inf, NaN, every negative x).
template <bool Ftz>
SAMEBITS_DEVICE_FUNC float fma_inf_inf_unless_below_inf(float y, std::int32_t ix, float xs) {
  if constexpr (Ftz) {
    asm("{ .reg .pred %%sbq; setp.lt.u32 %%sbq, %1, 2139095040; @!%%sbq fma.rn.ftz.f32 %0, %2, 0f7F800000, 0f7F800000; }"
        : "+f"(y) : "r"(ix), "f"(xs));
  } else {
    asm("{ .reg .pred %%sbq; setp.lt.u32 %%sbq, %1, 2139095040; @!%%sbq fma.rn.f32 %0, %2, 0f7F800000, 0f7F800000; }"
        : "+f"(y) : "r"(ix), "f"(xs));
  }
  return y;
}
// -inf where xs == 0 (setp.eq, .ftz per Ftz), y elsewhere.
template <bool Ftz>
SAMEBITS_DEVICE_FUNC float select_neg_inf_if_zero(float xs, float y) {
  float out;
  if constexpr (Ftz) {
    asm("{ .reg .pred %%sbz; setp.eq.ftz.f32 %%sbz, %1, 0f00000000; selp.f32 %0, 0fFF800000, %2, %%sbz; }"
        : "=f"(out) : "f"(xs), "f"(y));
  } else {
    asm("{ .reg .pred %%sbz; setp.eq.f32 %%sbz, %1, 0f00000000; selp.f32 %0, 0fFF800000, %2, %%sbz; }"
        : "=f"(out) : "f"(xs), "f"(y));
  }
  return out;
}

}  // namespace samebits::arch::nvptx

#endif  // SAMEBITS_LANG_CUDA
