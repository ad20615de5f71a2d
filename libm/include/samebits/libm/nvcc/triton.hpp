// samebits/libm/nvcc/triton.hpp — what Triton's tl.exp and tl.log compute on
// NVIDIA for binary32. Read off Triton 3.6's PTX on the H200 and compared with
// CUDA's own functions over all 2^32 inputs, encodings equal (0 mismatches;
// tests/device/triton_lowering.py, docs/libm/nvcc.md):
//   tl.exp(x): mul.f32 x, 0x3FB8AA3B; ex2.approx.f32     = __expf = fast::expf
//   tl.log(x): libdevice's logf with .ftz on its FMAs only; the subnormal input
//              scaling (setp.lt.f32, mul.f32) has no .ftz, so no input is
//              flushed and every result equals logf's     = samebits::nvcc::logf
// (not nvcc -ftz=true's logf: that one differs on the 16,777,214 subnormal inputs).
#pragma once

#include "samebits/libm/nvcc/expf.hpp"
#include "samebits/libm/nvcc/logf.hpp"

namespace samebits::nvcc::triton {

SAMEBITS_FUNC float expf(float x) { return fast::expf(x); }
SAMEBITS_FUNC float logf(float x) { return nvcc::logf(x); }

}  // namespace samebits::nvcc::triton
