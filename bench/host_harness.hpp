// bench/host_harness.hpp — the host benchmarks' shared inputs and loops:
// throughput (independent calls over 4096 inputs) and latency (each call's
// input depends on the previous result), on inputs where the function does
// real work (no saturation), the same for every implementation compared.
#pragma once

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "samebits/libm/fp/bits.hpp"

namespace samebits::bench {

using Fn = float (*)(float);

enum Family { kExp, kExp2, kExp10, kLog };

inline std::vector<float> inputs(Family fam) {
  std::mt19937 rng(1);
  std::vector<float> v(4096);
  const float span = fam == kExp ? 87.0f : fam == kExp2 ? 126.0f : 37.0f;
  std::uniform_real_distribution<float> e(-span, span);
  std::uniform_int_distribution<std::uint32_t> l(0x00800000u, 0x7f7fffffu);
  for (auto& x : v) x = fam == kLog ? fp::from_bits(l(rng)) : e(rng);
  return v;
}

inline void throughput(benchmark::State& st, Fn fn, Family fam) {
  const auto v = inputs(fam);
  for (auto _ : st) {
    float acc = 0;
    for (float x : v) acc += fn(x);
    benchmark::DoNotOptimize(acc);
  }
  st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(v.size()));
}

inline void latency(benchmark::State& st, Fn fn, Family fam) {
  const auto v = inputs(fam);
  for (auto _ : st) {
    float y = 0;
    // y * 0 is not folded without -ffast-math (inf * 0 is NaN), so each
    // input waits for the previous result.
    for (float x : v) y = fn(x + y * 0.0f);
    benchmark::DoNotOptimize(y);
  }
  st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(v.size()));
}

// glibc's functions, called through pointers like the ones compared with them.
inline float glibc_expf(float x) { return ::expf(x); }
inline float glibc_exp2f(float x) { return ::exp2f(x); }
inline float glibc_exp10f(float x) { return ::exp10f(x); }
inline float glibc_logf(float x) { return ::logf(x); }
inline float glibc_log2f(float x) { return ::log2f(x); }
inline float glibc_log10f(float x) { return ::log10f(x); }

}  // namespace samebits::bench
