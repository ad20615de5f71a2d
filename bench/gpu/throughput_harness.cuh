// bench/gpu/throughput_harness.cuh — the compute-bound timing loop shared by
// the GPU throughput benchmarks.
//
// Each thread generates its inputs in registers (an LCG, then integer ops to
// a float in the function's useful range) and XOR-folds the result encodings,
// so memory traffic cannot hide the cost. Every variant runs the identical
// generator; only the function differs. Timing: CUDA events, 5 warm-up
// launches, median of 21.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../../tests/device/cuda_check.cuh"

namespace samebits::bench {

constexpr int kIters = 2048;

enum class Range { exp, exp2, exp10, log };

// A float input from 32 random bits, by integer operations and one fma.
__device__ __forceinline__ float make_input(std::uint32_t h, Range r) {
  if (r == Range::log) return __uint_as_float(0x00800000u + h % 0x7e800000u);  // any positive normal
  const float u = __uint_as_float(0x3f800000u | (h >> 9)) - 1.0f;              // [0, 1)
  const float span = r == Range::exp ? 176.0f : r == Range::exp2 ? 254.0f : 76.0f;
  return __fmaf_rn(u, span, -0.5f * span);  // symmetric, covers over- and underflow
}

template <class F>
__global__ void run(F f, Range r, std::uint32_t seed, std::uint32_t* sink) {
  const std::uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  std::uint32_t h = seed ^ (tid * 0x9E3779B9u);
  std::uint32_t acc = 0;
#pragma unroll 4
  for (int i = 0; i < kIters; ++i) {
    h = h * 1664525u + 1013904223u;
    acc ^= __float_as_uint(f(make_input(h, r)));
  }
  sink[tid] = acc;
}

template <class F>
float time_ms(F f, Range r, int blocks, std::uint32_t* sink) {
  cudaEvent_t a, b;
  CHECK_CUDA(cudaEventCreate(&a));
  CHECK_CUDA(cudaEventCreate(&b));
  for (int w = 0; w < 5; ++w) run<<<blocks, 256>>>(f, r, 1234u + w, sink);
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int rep = 0; rep < 21; ++rep) {
    CHECK_CUDA(cudaEventRecord(a));
    run<<<blocks, 256>>>(f, r, 77u + rep, sink);
    CHECK_CUDA(cudaEventRecord(b));
    CHECK_CUDA(cudaEventSynchronize(b));
    float ms;
    CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaEventDestroy(a));
  CHECK_CUDA(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace samebits::bench
