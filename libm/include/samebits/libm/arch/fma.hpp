// samebits/libm/arch/fma.hpp — the fused multiply-add instruction, by target.
//
// samebits::cr writes every multiply that feeds an add as an explicit fma,
// so that no compiler contraction (-ffp-contract=fast, nvcc -fmad=true) can
// change a result: there is nothing left to contract. This header is the
// only place that picks the instruction.
//   host  : __builtin_fma — one vfmadd with -mfma/-march=haswell or later;
//           without FMA hardware, glibc's correctly rounded fma (same bits,
//           slower).
//   CUDA  : __fma_rn — fma.rn.f64, never rewritten by the compiler.
//   HIP   : __builtin_fma — llvm.fma.f64, v_fma_f64.
#pragma once

#include "samebits/libm/platform.hpp"

namespace samebits::arch {

#if defined(SAMEBITS_DEVICE_NVIDIA)
SAMEBITS_FUNC double fma(double a, double b, double c) { return __fma_rn(a, b, c); }
#else
SAMEBITS_FUNC double fma(double a, double b, double c) { return __builtin_fma(a, b, c); }
#endif

}  // namespace samebits::arch
