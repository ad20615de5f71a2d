// Device code for the HIP build check: each samebits::cr function in its
// own kernel, compiled with clang for gfx942 and gfx950 without ROCm headers
// (-nogpuinc), so the attribute spellings are used instead of __global__.
#include <samebits/libm.hpp>

#define SAMEBITS_KERNEL(F)                                                              \
  extern "C" __attribute__((global)) void k_##F(const float* x, float* y) {             \
    const unsigned i = __builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x(); \
    y[i] = samebits::cr::F(x[i]);                                                       \
  }

SAMEBITS_KERNEL(expf)
SAMEBITS_KERNEL(exp2f)
SAMEBITS_KERNEL(exp10f)
SAMEBITS_KERNEL(logf)
SAMEBITS_KERNEL(log2f)
SAMEBITS_KERNEL(log10f)
