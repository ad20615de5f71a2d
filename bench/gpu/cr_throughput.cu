// cr_throughput — compute-bound throughput of samebits::cr on the GPU
// against CUDA's own functions (not correctly rounded) on the same inputs in
// the same program.
//
// Each thread generates its inputs in registers (an LCG, then integer ops to
// a float in the function's useful range) and XOR-folds the result encodings,
// so memory traffic cannot hide the cost. Every variant runs the identical
// generator; only the function differs. Timing: CUDA events, 5 warm-up
// launches, median of 21.
//   nvcc -O3 -std=c++20 -arch=sm_90 -I libm/include bench/gpu/cr_throughput.cu -o cr_throughput
// Output: one JSON object per line, then a table.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <samebits/libm.hpp>

#include "../../tests/device/cuda_check.cuh"

namespace {

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
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main() {
  int sms = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int blocks = sms * 8;
  std::uint32_t* sink;
  CHECK_CUDA(cudaMalloc(&sink, std::size_t(blocks) * 256 * 4));
  const double evals = double(blocks) * 256 * kIters;

  struct Row {
    const char* ours;
    const char* peer;
    float t_ours, t_peer, t_fast;
  };
  std::vector<Row> rows;
  auto bench = [&](const char* ours, const char* peer, Range r, auto f_ours, auto f_peer, auto f_fast) {
    Row row{ours, peer, time_ms(f_ours, r, blocks, sink), time_ms(f_peer, r, blocks, sink),
            time_ms(f_fast, r, blocks, sink)};
    std::printf("{\"function\": \"%s\", \"peer\": \"%s\", \"evals\": %.0f, \"ms_samebits\": %.4f, \"ms_cuda\": %.4f, "
                "\"ms_cuda_intrinsic\": %.4f, \"ratio_vs_cuda\": %.3f}\n",
                ours, peer, evals, row.t_ours, row.t_peer, row.t_fast, row.t_ours / row.t_peer);
    rows.push_back(row);
  };
  bench("cr::expf", "expf", Range::exp, [] __device__(float x) { return samebits::cr::expf(x); },
        [] __device__(float x) { return expf(x); }, [] __device__(float x) { return __expf(x); });
  bench("cr::exp2f", "exp2f", Range::exp2, [] __device__(float x) { return samebits::cr::exp2f(x); },
        [] __device__(float x) { return exp2f(x); }, [] __device__(float x) { return exp2f(x); });
  bench("cr::exp10f", "exp10f", Range::exp10, [] __device__(float x) { return samebits::cr::exp10f(x); },
        [] __device__(float x) { return exp10f(x); }, [] __device__(float x) { return __exp10f(x); });
  bench("cr::logf", "logf", Range::log, [] __device__(float x) { return samebits::cr::logf(x); },
        [] __device__(float x) { return logf(x); }, [] __device__(float x) { return __logf(x); });
  bench("cr::log2f", "log2f", Range::log, [] __device__(float x) { return samebits::cr::log2f(x); },
        [] __device__(float x) { return log2f(x); }, [] __device__(float x) { return __log2f(x); });
  bench("cr::log10f", "log10f", Range::log, [] __device__(float x) { return samebits::cr::log10f(x); },
        [] __device__(float x) { return log10f(x); }, [] __device__(float x) { return __log10f(x); });

  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("\n%s, %d SMs; %d blocks x 256 threads x %d inputs = %.3g evaluations per launch\n", prop.name, sms,
              blocks, kIters, evals);
  std::printf("%-12s %12s %12s %14s %10s %12s\n", "function", "samebits ms", "CUDA ms", "intrinsic ms", "ratio",
              "Geval/s");
  for (const Row& r : rows)
    std::printf("%-12s %12.3f %12.3f %14.3f %9.2fx %12.1f\n", r.ours, r.t_ours, r.t_peer, r.t_fast,
                r.t_ours / r.t_peer, evals / r.t_ours / 1e6);
  CHECK_CUDA(cudaFree(sink));
  return 0;
}
