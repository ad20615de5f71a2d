// samebits::hipcc's device side for tests/device/hipcc_bitwise.cu, compiled once per build
// (-DSAMEBITS_BUILD_ID=default, and =use_fast_math with -use_fast_math).
#include <vector>

#include "functions/hipcc.hpp"
#include "harness/device_function.cuh"

namespace {
#define X(T, NAME, EXPR) SAMEBITS_HOST_DEVICE_FUNCTOR(T, EXPR)
SAMEBITS_HIPCC_FUNCTIONS(X)
#undef X
}  // namespace

SAMEBITS_DEVICE_TABLE(hipcc_device_) {
#define X(T, NAME, EXPR) {NAME, samebits::device_test::eval<T>},
  return {SAMEBITS_HIPCC_FUNCTIONS(X)};
#undef X
}
