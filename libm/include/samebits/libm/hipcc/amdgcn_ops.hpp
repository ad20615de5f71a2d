// samebits/libm/hipcc/amdgcn_ops.hpp — the same instruction set as
// hipcc/ieee_ops.hpp, as the AMDGPU instructions themselves (HIP device pass).
//
// The builtins map one to one: __builtin_amdgcn_exp2f -> v_exp_f32,
// __builtin_amdgcn_logf -> v_log_f32, __builtin_amdgcn_ldexpf -> v_ldexp_f32,
// __builtin_rintf -> v_rndne_f32, __builtin_fmaf -> v_fma_f32. clang's own
// lowering runs after the IR optimisations, so nothing refolds it; ours must be
// kept from refolding without costing an instruction clang's code does not
// have (libm/tools/hipcc_certify/ compares the two instruction by instruction):
// products are not contractible (fp contract(off)) and pass through
// llvm.canonicalize, which LLVM's IR passes do not look through (no fneg
// folded into the product, no fma formed across it) and the AMDGPU backend
// deletes, emitting nothing, since a product is already canonical. An empty
// asm barrier would do the same at the cost of a wait state where it follows
// the product. The denormal mode is the kernel's
// (-fgpu-flush-denormals-to-zero or not): Daz only selects which of clang's
// sequences is emitted; it must match the kernel's mode.
#pragma once

#include <cstdint>

#include "samebits/libm/arch/barrier.hpp"
#include "samebits/libm/platform.hpp"

#if defined(SAMEBITS_DEVICE_AMDGPU)

namespace samebits::hipcc::amdgcn {

struct Ops {
  static SAMEBITS_FUNC float mul(float a, float b) {
#pragma clang fp contract(off)
    return __builtin_canonicalizef(a * b);
  }
  static SAMEBITS_FUNC float add(float a, float b) { return a + b; }
  static SAMEBITS_FUNC float sub(float a, float b) { return a - b; }
  static SAMEBITS_FUNC float fma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
  static SAMEBITS_FUNC float rndne(float a) { return __builtin_rintf(a); }
  // v_cvt_i32_f32 saturates (NaN -> 0); a C++ conversion would be undefined
  // out of range, so the instruction is written out, in the encoding clang
  // selects for it (VOP1, _e32).
  static SAMEBITS_FUNC std::int32_t cvt_i32(float a) {
    std::int32_t i;
    __asm__("v_cvt_i32_f32_e32 %0, %1" : "=v"(i) : "v"(a));
    return i;
  }
  // The exponent is opaque: LLVM would otherwise turn ldexp(x, c ? 32 : 0) into
  // a select of multiplies, which computes the same value by other instructions.
  // The barrier holds it in a VGPR: where the exponent is uniform (an SGPR in
  // clang's code) that is one v_mov_b32 more (docs/libm/hipcc.md); no barrier
  // both stops the rewrite and follows the value's uniformity.
  static SAMEBITS_FUNC float ldexp(float a, std::int32_t n) { return __builtin_amdgcn_ldexpf(a, arch::opaque(n)); }
  static SAMEBITS_FUNC float v_exp(float a) { return __builtin_amdgcn_exp2f(a); }
  static SAMEBITS_FUNC float v_log(float a) { return __builtin_amdgcn_logf(a); }
  static SAMEBITS_FUNC bool lt(float a, float b) { return a < b; }
  // |y| < inf as clang writes it: v_cmp_lt_f32_e64 with an |.| modifier, +inf
  // in a scalar register (s_mov_b32; a VOP3 operand takes no literal on gfx9).
  // LLVM would turn a visible comparison with inf into v_cmp_class_f32, so inf
  // is opaque: an empty asm that holds it in an SGPR ("+s", right for a
  // uniform constant only), where a "+v" barrier would cost a v_mov_b32.
  static SAMEBITS_FUNC bool finite_abs(float y) { return __builtin_fabsf(y) < scalar_constant(__builtin_inff()); }
  static SAMEBITS_FUNC float scalar_constant(float k) {
    __asm__("" : "+s"(k));
    return k;
  }
  static SAMEBITS_FUNC bool gt(float a, float b) { return a > b; }
  static SAMEBITS_FUNC float abs(float a) { return __builtin_fabsf(a); }
  static SAMEBITS_FUNC float select(bool c, float a, float b) { return c ? a : b; }
  static SAMEBITS_FUNC float result(float, float y) { return y; }  // the hardware's NaN
};

}  // namespace samebits::hipcc::amdgcn

#endif  // SAMEBITS_DEVICE_AMDGPU
