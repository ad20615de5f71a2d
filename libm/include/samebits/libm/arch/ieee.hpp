// samebits/libm/arch/ieee.hpp — pinned binary32 arithmetic: add_rn, sub_rn,
// mul_rn, div_rn and fma_rn are each one IEEE 754 operation rounded to
// nearest-even, on every target and under any contraction flag, so that a
// kernel's reductions and recurrences give the same bits everywhere; widen
// (binary32 to binary64, exact, subnormals kept) and narrow_rn (to nearest)
// are the conversions.
//   NVIDIA device: inline PTX with an explicit `.rn` and no `.ftz`
//                  (arch/nvptx.hpp); nvcc's -ftz=true, -use_fast_math and
//                  -fmad=true cannot change them.
//   host, AMDGPU:  the C++ operator or __builtin_fmaf behind barriers: a
//                  product leaves mul_rn through one (arch::opaque on the host;
//                  on AMDGPU fp contract(off) and llvm.canonicalize, which cost
//                  no instruction), and the operands of add_rn / sub_rn /
//                  div_rn enter through arch::opaque,
//                  so neither -ffp-contract=fast (GCC, clang, HIP's default)
//                  nor -freciprocal-math has a product or a constant divisor
//                  to fold. A compile-time constant operand skips the barrier:
//                  it cannot be an unfused product, and on AMDGPU the barrier
//                  would move it into a vector register (one more instruction;
//                  a uniform operand held in an SGPR still pays that v_mov).
// Subnormals follow the target's mode: IEEE on the host and by default in HIP
// and CUDA; a HIP kernel built with -fgpu-flush-denormals-to-zero flushes them.
#pragma once

#include "samebits/libm/arch/barrier.hpp"
#include "samebits/libm/arch/nvptx.hpp"
#include "samebits/libm/platform.hpp"

namespace samebits::arch {

#if defined(SAMEBITS_DEVICE_NVIDIA)

SAMEBITS_FUNC float add_rn(float a, float b) { return nvptx::add_rn<false>(a, b); }
SAMEBITS_FUNC float sub_rn(float a, float b) { return nvptx::sub_rn<false>(a, b); }
SAMEBITS_FUNC float mul_rn(float a, float b) { return nvptx::mul_rn<false>(a, b); }
SAMEBITS_FUNC float div_rn(float a, float b) { return nvptx::div_rn<false>(a, b); }
SAMEBITS_FUNC float fma_rn(float a, float b, float c) { return nvptx::fma_rn<false>(a, b, c); }
SAMEBITS_FUNC double widen(float a) { return nvptx::cvt_f64_f32(a); }
SAMEBITS_FUNC float narrow_rn(double a) { return nvptx::cvt_rn_f32_f64(a); }

#else

namespace detail {
// An operand that might be an unfused product: behind a barrier, unless the
// compiler already knows its value (resolved after inlining; no branch).
SAMEBITS_FUNC float operand(float x) {
#if defined(SAMEBITS_COMPILER_MSVC)
  return opaque(x);
#else
  return __builtin_constant_p(x) ? x : opaque(x);
#endif
}
}  // namespace detail

SAMEBITS_FUNC float add_rn(float a, float b) { return detail::operand(a) + detail::operand(b); }
SAMEBITS_FUNC float sub_rn(float a, float b) { return detail::operand(a) - detail::operand(b); }
#if defined(SAMEBITS_DEVICE_AMDGPU)
// Not contractible, and through llvm.canonicalize, which LLVM's IR passes do
// not look through and the backend deletes (a product is already canonical):
// no instruction, where an asm barrier after a product costs a wait state
// (the finding of hipcc/amdgcn_ops.hpp, certified there).
SAMEBITS_FUNC float mul_rn(float a, float b) {
#pragma clang fp contract(off)
  return __builtin_canonicalizef(a * b);
}
#else
SAMEBITS_FUNC float mul_rn(float a, float b) { return opaque(a * b); }
#endif
SAMEBITS_FUNC float div_rn(float a, float b) { return detail::operand(a) / detail::operand(b); }
SAMEBITS_FUNC float fma_rn(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
SAMEBITS_FUNC double widen(float a) { return static_cast<double>(a); }
SAMEBITS_FUNC float narrow_rn(double a) { return static_cast<float>(a); }

#endif

}  // namespace samebits::arch
