// mufu_model_check — samebits::nvcc::model (nvcc/mufu_model.hpp) against the
// GPU's own MUFU instructions, for every one of the 2^32 inputs, encoding for
// encoding (NaN bits included):
//   model::ex2_approx_ftz  vs  ex2.approx.ftz.f32
//   model::ex2_approx      vs  ex2.approx.f32
//   model::lg2_approx_ftz  vs  lg2.approx.ftz.f32
//   model::lg2_approx      vs  lg2.approx.f32
// The GPU evaluates the instruction on chunks of 2^28 inputs; the host
// evaluates the model on all cores and compares. A planted one-ulp change
// must be the only mismatch reported. Run it on your own GPU to re-validate
// the model there (it was measured on an H200, sm_90):
//   nvcc -O3 -std=c++20 -arch=sm_XX -I libm/include tests/device/mufu_model_check.cu -o mufu_model_check
//   ./mufu_model_check        (exit 0: the model is exact on this GPU)
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include <samebits/libm/nvcc/mufu_model.hpp>

#include "cuda_check.cuh"

namespace {

template <int Op>
__global__ void hw(std::uint32_t base, std::uint32_t* out) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const float a = __uint_as_float(base + i);
  float d;
  if constexpr (Op == 0) asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(d) : "f"(a));
  else if constexpr (Op == 1) asm volatile("ex2.approx.f32 %0, %1;" : "=f"(d) : "f"(a));
  else if constexpr (Op == 2) asm volatile("lg2.approx.ftz.f32 %0, %1;" : "=f"(d) : "f"(a));
  else asm volatile("lg2.approx.f32 %0, %1;" : "=f"(d) : "f"(a));
  out[i] = __float_as_uint(d);
}

float model(int op, float a) {
  namespace m = samebits::nvcc::model;
  switch (op) {
    case 0: return m::ex2_approx_ftz(a);
    case 1: return m::ex2_approx(a);
    case 2: return m::lg2_approx_ftz(a);
    default: return m::lg2_approx(a);
  }
}

struct Diff {
  std::uint64_t count = 0;
  std::vector<std::uint32_t> first;
};

Diff compare(int op, std::uint32_t base, const std::uint32_t* dev, std::uint32_t n, unsigned threads) {
  Diff d;
  std::mutex m;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      Diff mine;
      const std::uint32_t lo = n / threads * t, hi = t + 1 == threads ? n : n / threads * (t + 1);
      for (std::uint32_t i = lo; i < hi; ++i)
        if (samebits::fp::to_bits(model(op, samebits::fp::from_bits(base + i))) != dev[i]) {
          if (mine.first.size() < 5) mine.first.push_back(base + i);
          ++mine.count;
        }
      std::lock_guard<std::mutex> g(m);
      d.count += mine.count;
      d.first.insert(d.first.end(), mine.first.begin(), mine.first.end());
    });
  for (auto& th : pool) th.join();
  std::sort(d.first.begin(), d.first.end());
  if (d.first.size() > 5) d.first.resize(5);
  return d;
}

}  // namespace

int main() {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  constexpr std::uint32_t kChunk = 1u << 28;
  std::uint32_t *dev, *host;
  CHECK_CUDA(cudaMalloc(&dev, std::size_t{kChunk} * 4));
  CHECK_CUDA(cudaMallocHost(&host, std::size_t{kChunk} * 4));
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("{\"device\": \"%s\", \"sm\": \"%d%d\", \"host_threads\": %u}\n", prop.name, prop.major, prop.minor,
              threads);
  const char* names[4] = {"ex2.approx.ftz.f32", "ex2.approx.f32", "lg2.approx.ftz.f32", "lg2.approx.f32"};
  int failures = 0;
  for (int op = 0; op < 4; ++op) {
    const auto t0 = std::chrono::steady_clock::now();
    Diff total;
    for (std::uint64_t c = 0; c < 16; ++c) {
      const std::uint32_t base = static_cast<std::uint32_t>(c << 28);
      if (op == 0) hw<0><<<kChunk / 256, 256>>>(base, dev);
      else if (op == 1) hw<1><<<kChunk / 256, 256>>>(base, dev);
      else if (op == 2) hw<2><<<kChunk / 256, 256>>>(base, dev);
      else hw<3><<<kChunk / 256, 256>>>(base, dev);
      CHECK_CUDA(cudaGetLastError());
      CHECK_CUDA(cudaMemcpy(host, dev, std::size_t{kChunk} * 4, cudaMemcpyDeviceToHost));
      if ((op == 0 || op == 3) && c == 3) {  // negative controls, in a chunk of real work (0x30000000...)
        const std::uint32_t at = 0x0badf00du & (kChunk - 1);
        host[at] += 1;
        const Diff ctl = compare(op, base, host, kChunk, threads);
        const bool ok = ctl.count == 1 && ctl.first[0] == base + at;
        std::printf("{\"negative_control\": \"one planted one-ulp change\", \"instruction\": \"%s\", "
                    "\"reported\": %llu, \"caught\": %s}\n",
                    names[op], static_cast<unsigned long long>(ctl.count), ok ? "true" : "false");
        failures += !ok;
        host[at] -= 1;
      }
      const Diff d = compare(op, base, host, kChunk, threads);
      total.count += d.count;
      for (auto x : d.first)
        if (total.first.size() < 5) total.first.push_back(x);
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("{\"instruction\": \"%s\", \"model\": \"samebits::nvcc::model\", \"inputs\": 4294967296, "
                "\"mismatches\": %llu, \"first\": [",
                names[op], static_cast<unsigned long long>(total.count));
    for (std::size_t i = 0; i < total.first.size(); ++i) std::printf("%s\"0x%08x\"", i ? ", " : "", total.first[i]);
    std::printf("], \"seconds\": %.1f}\n", secs);
    std::fflush(stdout);
    failures += total.count != 0;
  }
  return failures ? 1 : 0;
}
