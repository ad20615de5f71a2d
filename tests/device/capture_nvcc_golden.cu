// capture_nvcc_golden — golden vectors of CUDA's own binary32 exp/log
// functions on the GPU it runs on, for the CI test of samebits::nvcc's host
// path (issue: nvcc personality).
//
// Inputs: the special values (+-0, +-inf, NaNs with payloads, subnormal and
// normal extremes), every binade boundary and its two neighbours for both
// signs, and 300,000 inputs from a fixed 64-bit LCG (half uniform over all
// encodings, half over the range where each function does real work).
// Output (argv[1]): a little-endian binary file: "SBGOLD01", uint32 count,
// uint32 function count, then per function a 32-byte zero-padded name and
// count result encodings; the inputs are regenerated from the same
// generator by the reader (tests/libm/nvcc/golden_inputs.hpp).
//   nvcc -O3 -std=c++20 -arch=sm_90 -I libm/include tests/device/capture_nvcc_golden.cu -o cap
//   nvcc ... -ftz=true ... -o cap_ftz     (the ftz variants)
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "../libm/nvcc/golden_inputs.hpp"

namespace {

#define FUNCS(X) X(expf) X(exp2f) X(exp10f) X(logf) X(log2f) X(log10f) X(__expf) X(__exp10f) X(__logf) X(__log2f)

#define KERNEL(F)                                                                         \
  __global__ void k_##F(const float* x, std::uint32_t* y, std::uint32_t n) {              \
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;                       \
    if (i < n) y[i] = __float_as_uint(F(x[i]));                                          \
  }
FUNCS(KERNEL)

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_FILE\n", argv[0]);
    return 2;
  }
  const std::vector<std::uint32_t> in = samebits::golden::inputs();
  const std::uint32_t n = static_cast<std::uint32_t>(in.size());
  float* d_x;
  std::uint32_t* d_y;
  CHECK_CUDA(cudaMalloc(&d_x, n * 4));
  CHECK_CUDA(cudaMalloc(&d_y, n * 4));
  CHECK_CUDA(cudaMemcpy(d_x, in.data(), n * 4, cudaMemcpyHostToDevice));
  std::vector<std::uint32_t> out(n);
  FILE* f = std::fopen(argv[1], "wb");
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", argv[1]);
    return 2;
  }
  const std::uint32_t nfuncs = 10;
  std::fwrite("SBGOLD01", 1, 8, f);
  std::fwrite(&n, 4, 1, f);
  std::fwrite(&nfuncs, 4, 1, f);
  auto emit = [&](const char* name, void (*k)(const float*, std::uint32_t*, std::uint32_t)) {
    k<<<(n + 255) / 256, 256>>>(d_x, d_y, n);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaMemcpy(out.data(), d_y, n * 4, cudaMemcpyDeviceToHost));
    char padded[32] = {};
    std::strncpy(padded, name, 31);
    std::fwrite(padded, 1, 32, f);
    std::fwrite(out.data(), 4, n, f);
  };
#define EMIT(F) emit(#F, k_##F);
  FUNCS(EMIT)
  std::fclose(f);
  std::printf("wrote %u inputs x %u functions to %s\n", n, nfuncs, argv[1]);
  return 0;
}
