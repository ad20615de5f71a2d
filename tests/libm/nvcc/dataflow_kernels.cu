// Kernels for the PTX dataflow check: CUDA's own expf/logf next to
// samebits::nvcc's, each kernel loading x, calling the function, storing y.
#include <samebits/libm.hpp>

#define KERNEL(NAME, EXPR) \
  extern "C" __global__ void NAME(const float* x, float* y) { const float v = x[threadIdx.x]; y[threadIdx.x] = EXPR; }

KERNEL(k_cuda_expf, expf(v))
KERNEL(k_cuda_logf, logf(v))
KERNEL(k_ours_expf, samebits::nvcc::expf(v))
KERNEL(k_ours_logf, samebits::nvcc::logf(v))
