// samebits/libm/hipcc/ops.hpp — which instruction set a pass uses: the
// AMDGPU instructions in the HIP device pass, IEEE arithmetic with a model
// of v_exp_f32 / v_log_f32 everywhere else (host, NVIDIA).
#pragma once

#include "samebits/libm/hipcc/amdgcn_ops.hpp"
#include "samebits/libm/hipcc/ieee_ops.hpp"
#include "samebits/libm/hipcc/models.hpp"
#include "samebits/libm/platform.hpp"

namespace samebits::hipcc {

// Floating-point modes of the kernel clang compiled: HIP's defaults (IEEE f32
// denormals, no fast-math), afn (-fapprox-func, implied by -ffast-math), and
// daz (-fgpu-flush-denormals-to-zero: f32 denormals flushed, sign kept).
enum class Mode { ieee, afn, daz };

// The LLVM release whose lowering is reproduced (docs/libm/hipcc.md: 19 and
// 22 differ in the last step of log and log10).
enum class Clang { v19, v22 };

namespace detail {
#if defined(SAMEBITS_DEVICE_AMDGPU)
template <Mode M, class Model>
using OpsFor = amdgcn::Ops;
#else
template <Mode M, class Model>
using OpsFor = ieee::Ops<M == Mode::daz, Model>;
#endif
}  // namespace detail

}  // namespace samebits::hipcc
