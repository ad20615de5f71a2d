// dump_cuda_outputs — CUDA's own binary32 function on this GPU over all 2^32
// inputs, written as raw little-endian float32 (16 GiB) for
// `samebits score FUNC --outputs FILE`: the GPU's own accuracy, scored by the
// oracle on the CPU (issue: nvcc personality, docs/accuracy.md).
//   nvcc -O3 -std=c++20 -arch=sm_90 tests/device/dump_cuda_outputs.cu -o dump && ./dump expf out.f32
// Functions: expf exp2f exp10f logf log2f log10f __expf __exp10f __logf __log2f.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "cuda_check.cuh"

namespace {

template <int F>
__global__ void eval(std::uint32_t base, float* out) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const float x = __uint_as_float(base + i);
  float y;
  switch (F) {
    case 0: y = expf(x); break;
    case 1: y = exp2f(x); break;
    case 2: y = exp10f(x); break;
    case 3: y = logf(x); break;
    case 4: y = log2f(x); break;
    case 5: y = log10f(x); break;
    case 6: y = __expf(x); break;
    case 7: y = __exp10f(x); break;
    case 8: y = __logf(x); break;
    default: y = __log2f(x); break;
  }
  out[i] = y;
}

using Kernel = void (*)(std::uint32_t, float*);
constexpr Kernel kKernels[] = {eval<0>, eval<1>, eval<2>, eval<3>, eval<4>, eval<5>, eval<6>, eval<7>, eval<8>, eval<9>};
const char* const kNames[] = {"expf", "exp2f", "exp10f", "logf", "log2f", "log10f", "__expf", "__exp10f", "__logf", "__log2f"};

}  // namespace

int main(int argc, char** argv) {
  int f = -1;
  for (int k = 0; argc == 3 && k < 10; ++k)
    if (std::strcmp(argv[1], kNames[k]) == 0) f = k;
  if (f < 0) {
    std::fprintf(stderr, "usage: %s FUNCTION OUTPUT (FUNCTION: expf exp2f exp10f logf log2f log10f __expf ...)\n", argv[0]);
    return 2;
  }
  FILE* out = std::fopen(argv[2], "wb");
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", argv[2]);
    return 2;
  }
  constexpr std::uint32_t kChunk = 1u << 28;
  float *dev, *host;
  CHECK_CUDA(cudaMalloc(&dev, std::size_t{kChunk} * 4));
  CHECK_CUDA(cudaMallocHost(&host, std::size_t{kChunk} * 4));
  for (std::uint64_t c = 0; c < 16; ++c) {
    kKernels[f]<<<kChunk / 256, 256>>>(static_cast<std::uint32_t>(c << 28), dev);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaMemcpy(host, dev, std::size_t{kChunk} * 4, cudaMemcpyDeviceToHost));
    if (std::fwrite(host, 4, kChunk, out) != kChunk) {
      std::fprintf(stderr, "write failed\n");
      return 2;
    }
  }
  return std::fclose(out) == 0 ? 0 : 2;
}
