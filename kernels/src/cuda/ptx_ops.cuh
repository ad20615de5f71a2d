// kernels/src/cuda/ptx_ops.cuh — the raw instructions the attention kernels
// use beside samebits::arch's pinned IEEE ops (libm/arch/ieee.hpp): IEEE
// maxNum without .ftz (fmaxf may become max.ftz.f32 under -ftz=true, which
// would flush a subnormal score and change m).
#pragma once

#include "samebits/libm/platform.hpp"

namespace samebits::kernels::attention::cuda {

// maxNum: the non-NaN operand when one is NaN, NaN only when both are (§4.2).
SAMEBITS_DEVICE_FUNC float max_num(float a, float b) {
  float d;
  asm("max.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
  return d;
}

// The identity of max_num: a quiet NaN (maxNum(NaN, x) = x for every x, and
// the result stays NaN only when every member's score is NaN, as §4.2 says).
SAMEBITS_DEVICE_FUNC float max_identity() {
  return __int_as_float(0x7fffffff);
}

}  // namespace samebits::kernels::attention::cuda
