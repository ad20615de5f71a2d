// hipcc_bitwise — samebits::hipcc's NVIDIA path (the same IEEE binary32
// operations as the host path, in inline PTX, with the correctly rounded model
// of v_exp_f32 / v_log_f32) equals its host path on every one of the 2^32
// inputs of each function and mode, encoding for encoding (NaN bits
// included); the harness is tests/device/bitwise_harness.cuh. Build it with
// default flags and with -use_fast_math:
//   nvcc -O3 -std=c++20 -arch=sm_90 -I libm/include tests/device/hipcc_bitwise.cu -o hipcc_bitwise
#include <samebits/libm.hpp>

namespace {

namespace h = samebits::hipcc;

constexpr int kFunctions = 24;
const char* const kNames[kFunctions] = {
    "hipcc::expf", "hipcc::exp2f", "hipcc::exp10f", "hipcc::logf", "hipcc::log2f", "hipcc::log10f",
    "hipcc::afn::expf", "hipcc::afn::exp2f", "hipcc::afn::exp10f", "hipcc::afn::logf", "hipcc::afn::log2f",
    "hipcc::afn::log10f", "hipcc::daz::expf", "hipcc::daz::exp2f", "hipcc::daz::exp10f", "hipcc::daz::logf",
    "hipcc::daz::log2f", "hipcc::daz::log10f", "hipcc::clang19::logf", "hipcc::clang19::log10f",
    "hipcc::clang19::daz::logf", "hipcc::clang19::daz::log10f", "hipcc::triton::expf",
    "hipcc::triton::logf"};

__host__ __device__ inline float apply(int f, float x) {
  switch (f) {
    case 0: return h::expf(x);
    case 1: return h::exp2f(x);
    case 2: return h::exp10f(x);
    case 3: return h::logf(x);
    case 4: return h::log2f(x);
    case 5: return h::log10f(x);
    case 6: return h::afn::expf(x);
    case 7: return h::afn::exp2f(x);
    case 8: return h::afn::exp10f(x);
    case 9: return h::afn::logf(x);
    case 10: return h::afn::log2f(x);
    case 11: return h::afn::log10f(x);
    case 12: return h::daz::expf(x);
    case 13: return h::daz::exp2f(x);
    case 14: return h::daz::exp10f(x);
    case 15: return h::daz::logf(x);
    case 16: return h::daz::log2f(x);
    case 17: return h::daz::log10f(x);
    case 18: return h::clang19::logf(x);
    case 19: return h::clang19::log10f(x);
    case 20: return h::clang19::daz::logf(x);
    case 21: return h::clang19::daz::log10f(x);
    case 22: return h::triton::expf(x);
    default: return h::triton::logf(x);
  }
}

}  // namespace

#include "bitwise_harness.cuh"

int main(int argc, char** argv) { return run_all(argc, argv); }
