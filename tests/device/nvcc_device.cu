// samebits::nvcc and CUDA's own functions, device side of tests/device/nvcc_bitwise.cu. Built
// twice: -DSAMEBITS_BUILD_ID=default, and -DSAMEBITS_BUILD_ID=ftz -DSAMEBITS_TEST_FTZ=1 with
// -ftz=true (nvcc defines no macro for -ftz; the probe below lets the program check the flag).
// Table entries: "nvcc::expf" (samebits), "cuda::expf" (CUDA's, as these flags compile it), ...,
// and "probe::x_times_one" (a plain multiply: 0 for a subnormal x under -ftz=true).
#include <vector>

#include "functions/nvcc.hpp"
#include "harness/device_function.cuh"

#ifndef SAMEBITS_TEST_FTZ
#define SAMEBITS_TEST_FTZ 0
#endif

namespace {
__device__ float g_one = 1.0f;  // not a constant: the multiply below stays a multiply
SAMEBITS_DEVICE_FUNCTOR(Probe, x * g_one)
#define X(T, NAME, OURS, CUDA, CUDA_NAME) \
  SAMEBITS_DEVICE_FUNCTOR(T, OURS)        \
  SAMEBITS_DEVICE_FUNCTOR(T##Cuda, CUDA)
#if SAMEBITS_TEST_FTZ
SAMEBITS_NVCC_FUNCTIONS(X, samebits::nvcc::ftz, "nvcc::ftz::")
SAMEBITS_NVCC_FAST_FTZ_FUNCTIONS(X)
#else
SAMEBITS_NVCC_FUNCTIONS(X, samebits::nvcc, "nvcc::")
SAMEBITS_NVCC_FAST_FUNCTIONS(X)
#endif
#undef X
}  // namespace

SAMEBITS_DEVICE_TABLE(nvcc_device_) {
#define X(T, NAME, OURS, CUDA, CUDA_NAME) \
  {NAME, samebits::device_test::eval<T>}, {"cuda::" CUDA_NAME, samebits::device_test::eval<T##Cuda>},
  return {
#if SAMEBITS_TEST_FTZ
      SAMEBITS_NVCC_FUNCTIONS(X, samebits::nvcc::ftz, "nvcc::ftz::") SAMEBITS_NVCC_FAST_FTZ_FUNCTIONS(X)
#else
      SAMEBITS_NVCC_FUNCTIONS(X, samebits::nvcc, "nvcc::") SAMEBITS_NVCC_FAST_FUNCTIONS(X)
#endif
          {"probe::x_times_one", samebits::device_test::eval<Probe>}};
#undef X
}
