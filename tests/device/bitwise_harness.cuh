// tests/device/bitwise_harness.cuh — the GPU build of a samebits function
// equals its host build on every one of the 2^32 inputs, encoding for
// encoding (NaN bits included). Included by a program that defines, before
// the include, in an anonymous namespace:
//   constexpr int kFunctions;  const char* const kNames[kFunctions];
//   __host__ __device__ float apply(int f, float x);
// and calls run_all(argc, argv) from main. The GPU evaluates chunks of 2^28
// inputs; the host evaluates the same inputs with the host build on all its
// cores and counts differing encodings. A negative control plants a one-ulp
// change in one GPU result of the first function and checks that exactly that
// one is reported. Output: one JSON object per line (function, mismatches,
// first mismatches, an FNV-1a digest of all 2^32 result encodings, seconds).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <samebits/libm/fp/bits.hpp>

#include "cuda_check.cuh"

namespace {

template <int F>
__global__ void eval(std::uint32_t base, std::uint32_t* out) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = samebits::fp::to_bits(apply(F, samebits::fp::from_bits(base + i)));
}

template <int... F>
void launch_one(int f, std::uint32_t base, std::uint32_t n, std::uint32_t* out, std::integer_sequence<int, F...>) {
  const dim3 block(256), grid(n / 256);
  ((f == F ? (eval<F><<<grid, block>>>(base, out), 0) : 0), ...);
  CHECK_CUDA(cudaGetLastError());
}
void launch(int f, std::uint32_t base, std::uint32_t n, std::uint32_t* out) {
  launch_one(f, base, n, out, std::make_integer_sequence<int, kFunctions>{});
}

struct Diff {
  std::uint64_t count = 0;
  std::vector<std::uint32_t> first;  // inputs
};

// Host comparison of one chunk on all cores.
Diff compare_chunk(int f, std::uint32_t base, const std::uint32_t* dev, std::uint32_t n, unsigned threads,
                   std::uint64_t* digest_parts) {
  Diff d;
  std::mutex m;
  std::vector<std::thread> pool;
  const std::uint32_t per = n / threads;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      Diff mine;
      const std::uint32_t lo = t * per, hi = (t + 1 == threads) ? n : lo + per;
      std::uint64_t h = 1469598103934665603ull;
      for (std::uint32_t i = lo; i < hi; ++i) {
        const std::uint32_t want = samebits::fp::to_bits(apply(f, samebits::fp::from_bits(base + i)));
        h = (h ^ want) * 1099511628211ull;
        if (want != dev[i]) {
          if (mine.first.size() < 5) mine.first.push_back(base + i);
          ++mine.count;
        }
      }
      digest_parts[t] = h;
      std::lock_guard<std::mutex> g(m);
      d.count += mine.count;
      d.first.insert(d.first.end(), mine.first.begin(), mine.first.end());
    });
  }
  for (auto& th : pool) th.join();
  std::sort(d.first.begin(), d.first.end());
  if (d.first.size() > 5) d.first.resize(5);
  return d;
}

// Runs every function over all 2^32 inputs; one JSON line each. Returns the
// process exit status (0: no mismatch and the control caught).
int run_all(int argc, char** argv) {
  const std::string build = argc > 1 ? argv[1] : "default";
  const std::string only = argc > 2 ? argv[2] : "";  // run the functions whose name contains this
  bool control_done = false;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  constexpr std::uint32_t kChunk = 1u << 28;
  std::uint32_t* dev = nullptr;
  std::uint32_t* host = nullptr;
  CHECK_CUDA(cudaMalloc(&dev, std::size_t{kChunk} * 4));
  CHECK_CUDA(cudaMallocHost(&host, std::size_t{kChunk} * 4));
  std::vector<std::uint64_t> parts(threads);
  int failures = 0;
  for (int f = 0; f < kFunctions; ++f) {
    if (!only.empty() && std::string(kNames[f]).find(only) == std::string::npos) continue;
    const auto t0 = std::chrono::steady_clock::now();
    Diff total;
    std::uint64_t digest = 1469598103934665603ull;
    for (std::uint64_t c = 0; c < (1ull << 32) / kChunk; ++c) {
      const std::uint32_t base = static_cast<std::uint32_t>(c * kChunk);
      launch(f, base, kChunk, dev);
      CHECK_CUDA(cudaMemcpy(host, dev, std::size_t{kChunk} * 4, cudaMemcpyDeviceToHost));
      if (!control_done && c == 0) {
        control_done = true;
        // Negative control: one planted one-ulp change must be the only mismatch.
        const std::uint32_t at = 0x00123457u;
        host[at] += 1;
        const Diff ctl = compare_chunk(f, base, host, kChunk, threads, parts.data());
        const bool ok = ctl.count == 1 && ctl.first.size() == 1 && ctl.first[0] == base + at;
        std::printf("{\"negative_control\": \"one planted one-ulp change\", \"reported\": %llu, \"caught\": %s}\n",
                    static_cast<unsigned long long>(ctl.count), ok ? "true" : "false");
        if (!ok) ++failures;
        host[at] -= 1;
      }
      const Diff d = compare_chunk(f, base, host, kChunk, threads, parts.data());
      for (auto p : parts) digest = (digest ^ p) * 1099511628211ull;
      total.count += d.count;
      for (auto x : d.first)
        if (total.first.size() < 5) total.first.push_back(x);
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("{\"function\": \"%s\", \"build\": \"%s\", \"inputs\": 4294967296, \"mismatches\": %llu, "
                "\"first\": [",
                kNames[f], build.c_str(), static_cast<unsigned long long>(total.count));
    for (std::size_t i = 0; i < total.first.size(); ++i) std::printf("%s\"0x%08x\"", i ? ", " : "", total.first[i]);
    std::printf("], \"digest\": \"%016llx\", \"seconds\": %.1f}\n", static_cast<unsigned long long>(digest), secs);
    std::fflush(stdout);
    if (total.count) ++failures;
  }
  CHECK_CUDA(cudaFree(dev));
  CHECK_CUDA(cudaFreeHost(host));
  return failures ? 1 : 0;
}

}  // namespace
