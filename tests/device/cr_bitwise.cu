// cr_bitwise — samebits::cr on the GPU equals samebits::cr on the CPU, for
// every one of the 2^32 inputs of each function, encoding for encoding (NaN
// bits included); the harness is tests/device/bitwise_harness.cuh. Build it
// twice — with default flags and with -use_fast_math — to show the flags
// change nothing:
//   nvcc -O3 -std=c++20 -arch=sm_90 -I libm/include tests/device/cr_bitwise.cu -o cr_bitwise
//   nvcc -O3 -std=c++20 -arch=sm_90 -use_fast_math -I libm/include tests/device/cr_bitwise.cu -o cr_bitwise_fast
#include <samebits/libm.hpp>

namespace {

constexpr int kFunctions = 6;
const char* const kNames[kFunctions] = {"cr::expf", "cr::exp2f", "cr::exp10f", "cr::logf", "cr::log2f", "cr::log10f"};

__host__ __device__ inline float apply(int f, float x) {
  switch (f) {
    case 0: return samebits::cr::expf(x);
    case 1: return samebits::cr::exp2f(x);
    case 2: return samebits::cr::exp10f(x);
    case 3: return samebits::cr::logf(x);
    case 4: return samebits::cr::log2f(x);
    default: return samebits::cr::log10f(x);
  }
}

}  // namespace

#include "bitwise_harness.cuh"

int main(int argc, char** argv) { return run_all(argc, argv); }
