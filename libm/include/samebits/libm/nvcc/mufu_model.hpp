// samebits/libm/nvcc/mufu_model.hpp — bit-exact software models of the H200's
// (sm_90) MUFU instructions ex2.approx[.ftz].f32 and lg2.approx[.ftz].f32,
// which the host path of samebits::nvcc uses (nvcc::exp2f, ftz::exp2f and the
// intrinsics fast::*). Measured data, not fitted approximations; derivation
// and validation in docs/libm/nvcc.md (tests/device/mufu_model_check.cu
// compares them with the instructions on all 2^32 inputs).
//
// Declared here, defined in the samebits_mufu_model library (libm/src/,
// 10.5 MB of generated tables compiled once): a program that calls the host
// path of samebits::nvcc links it (Meson: libm_mufu_model_dep; by hand: add
// libm/src/nvcc_mufu_ex2.cpp and libm/src/nvcc_mufu_lg2.cpp to the build).
// Host only; device code uses the instructions themselves (arch/nvptx.hpp).
// Including this header costs next to nothing (fp/bits.hpp, to compare
// results as encodings).
#pragma once

#include "samebits/libm/fp/bits.hpp"

namespace samebits::nvcc::model {

// ex2.approx.ftz.f32: subnormal inputs read as zero, subnormal results
// flushed to +0; NaN in, canonical NaN 0x7fffffff out.
float ex2_approx_ftz(float a) noexcept;
// ex2.approx.f32 (no ftz): subnormal results kept.
float ex2_approx(float a) noexcept;
// lg2.approx.f32 (no ftz): +-0 -> -inf, +inf -> +inf, negative and NaN ->
// 0x7fffffff.
float lg2_approx(float a) noexcept;
// lg2.approx.ftz.f32: subnormal inputs of either sign read as zero (-inf).
float lg2_approx_ftz(float a) noexcept;

}  // namespace samebits::nvcc::model
