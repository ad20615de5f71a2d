// Kernels for the PTX dataflow check: CUDA's own functions next to
// samebits::nvcc's, each kernel loading x, calling the function, storing y.
// Compiled once with default flags and once with -ftz=true; CUDA's kernels
// of the -ftz=true build are compared with samebits::nvcc::ftz::*.
#include <samebits/libm.hpp>

#define KERNEL(NAME, EXPR) \
  extern "C" __global__ void NAME(const float* x, float* y) { const float v = x[threadIdx.x]; y[threadIdx.x] = EXPR; }

KERNEL(k_cuda_expf, expf(v))
KERNEL(k_cuda_exp2f, exp2f(v))
KERNEL(k_cuda_exp10f, exp10f(v))
KERNEL(k_cuda_logf, logf(v))
KERNEL(k_cuda_log2f, log2f(v))
KERNEL(k_cuda_log10f, log10f(v))
KERNEL(k_cuda___expf, __expf(v))
KERNEL(k_cuda___exp10f, __exp10f(v))
KERNEL(k_cuda___logf, __logf(v))
KERNEL(k_cuda___log2f, __log2f(v))

namespace n = samebits::nvcc;
KERNEL(k_ours_expf, n::expf(v))
KERNEL(k_ours_exp2f, n::exp2f(v))
KERNEL(k_ours_exp10f, n::exp10f(v))
KERNEL(k_ours_logf, n::logf(v))
KERNEL(k_ours_log2f, n::log2f(v))
KERNEL(k_ours_log10f, n::log10f(v))
KERNEL(k_ours___expf, n::fast::expf(v))
KERNEL(k_ours___exp10f, n::fast::exp10f(v))
KERNEL(k_ours___logf, n::fast::logf(v))
KERNEL(k_ours___log2f, n::fast::log2f(v))
KERNEL(k_oursftz_expf, n::ftz::expf(v))
KERNEL(k_oursftz_exp2f, n::ftz::exp2f(v))
KERNEL(k_oursftz_exp10f, n::ftz::exp10f(v))
KERNEL(k_oursftz_logf, n::ftz::logf(v))
KERNEL(k_oursftz_log2f, n::ftz::log2f(v))
KERNEL(k_oursftz_log10f, n::ftz::log10f(v))
