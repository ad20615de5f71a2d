// samebits/libm/nvcc/triton.hpp — what Triton's tl.exp and tl.log compute on
// NVIDIA for binary32 (../shared/FACTS.md; to be confirmed against Triton's own
// PTX on the H200, issue: nvcc personality):
//   tl.exp(x) = ex2.approx.f32(x * 0x3FB8AA3B)      = samebits::nvcc::fast::expf
//   tl.log(x) = libdevice logf with ftz reflect on  = samebits::nvcc::ftz::logf
#pragma once

#include "samebits/libm/nvcc/expf.hpp"
#include "samebits/libm/nvcc/logf.hpp"

namespace samebits::nvcc::triton {

SAMEBITS_FUNC float expf(float x) { return fast::expf(x); }
SAMEBITS_FUNC float logf(float x) { return ftz::logf(x); }

}  // namespace samebits::nvcc::triton
