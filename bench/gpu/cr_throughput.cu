// cr_throughput — compute-bound throughput of samebits::cr on the GPU
// against CUDA's own functions (not correctly rounded) on the same inputs in
// the same program.
//
// Compute-bound: inputs generated in registers (bench/gpu/throughput_harness.cuh).
//   nvcc -O3 -std=c++20 -arch=sm_90 -I libm/include bench/gpu/cr_throughput.cu -o cr_throughput
// Output: one JSON object per line, then a table.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <samebits/libm.hpp>

#include "throughput_harness.cuh"

using namespace samebits::bench;

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
