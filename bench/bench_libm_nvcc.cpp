// bench_libm_nvcc — the host path of samebits::nvcc (the H200's functions,
// bit for bit, through the measured MUFU models) against glibc's function of
// the same name, in one process on identical inputs: throughput (independent
// calls over 4096 inputs) and latency (each call's input depends on the
// previous result). Inputs lie where the function does real work. The nvcc
// wrappers are compiled for FMA hardware on x86-64 (the host path's fmaf is
// then one instruction; without FMA it is glibc's software fma), as the
// `nvcc` implementations of samebits score are.
//   ./build/bench/bench_libm_nvcc [--benchmark_format=json]
//   python3 scripts/bench_ratios.py FILE.json --ours nvcc --suffix ''    (ratio table)
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "samebits/libm.hpp"

namespace {

using Fn = float (*)(float);

enum Family { kExp, kExp2, kExp10, kLog };

std::vector<float> inputs(Family fam) {
  std::mt19937 rng(1);
  std::vector<float> v(4096);
  const float span = fam == kExp ? 87.0f : fam == kExp2 ? 126.0f : 37.0f;
  std::uniform_real_distribution<float> e(-span, span);
  std::uniform_int_distribution<std::uint32_t> l(0x00800000u, 0x7f7fffffu);
  for (auto& x : v) x = fam == kLog ? samebits::fp::from_bits(l(rng)) : e(rng);
  return v;
}

void throughput(benchmark::State& st, Fn fn, Family fam) {
  const auto v = inputs(fam);
  for (auto _ : st) {
    float acc = 0;
    for (float x : v) acc += fn(x);
    benchmark::DoNotOptimize(acc);
  }
  st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(v.size()));
}

void latency(benchmark::State& st, Fn fn, Family fam) {
  const auto v = inputs(fam);
  for (auto _ : st) {
    float y = 0;
    for (float x : v) y = fn(x + y * 0.0f);  // y * 0 is not folded (inf * 0 is NaN)
    benchmark::DoNotOptimize(y);
  }
  st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(v.size()));
}

float glibc_expf(float x) { return ::expf(x); }
float glibc_exp2f(float x) { return ::exp2f(x); }
float glibc_exp10f(float x) { return ::exp10f(x); }
float glibc_logf(float x) { return ::logf(x); }
float glibc_log2f(float x) { return ::log2f(x); }
float glibc_log10f(float x) { return ::log10f(x); }

#if defined(__x86_64__)
#define NVCC_ATTR __attribute__((target("fma")))
#else
#define NVCC_ATTR
#endif
NVCC_ATTR float nvcc_expf(float x) { return samebits::nvcc::expf(x); }
NVCC_ATTR float nvcc_exp2f(float x) { return samebits::nvcc::exp2f(x); }
NVCC_ATTR float nvcc_exp10f(float x) { return samebits::nvcc::exp10f(x); }
NVCC_ATTR float nvcc_logf(float x) { return samebits::nvcc::logf(x); }
NVCC_ATTR float nvcc_log2f(float x) { return samebits::nvcc::log2f(x); }
NVCC_ATTR float nvcc_log10f(float x) { return samebits::nvcc::log10f(x); }
NVCC_ATTR float nvcc_fast_expf(float x) { return samebits::nvcc::fast::expf(x); }   // __expf
NVCC_ATTR float nvcc_fast_logf(float x) { return samebits::nvcc::fast::logf(x); }   // __logf

}  // namespace

#define BENCH(NAME, FAM)                          \
  BENCHMARK_CAPTURE(throughput, NAME, NAME, FAM);               \
  BENCHMARK_CAPTURE(latency, NAME, NAME, FAM);

BENCH(glibc_expf, kExp)
BENCH(nvcc_expf, kExp)
BENCH(nvcc_fast_expf, kExp)
BENCH(glibc_exp2f, kExp2)
BENCH(nvcc_exp2f, kExp2)
BENCH(glibc_exp10f, kExp10)
BENCH(nvcc_exp10f, kExp10)
BENCH(glibc_logf, kLog)
BENCH(nvcc_logf, kLog)
BENCH(nvcc_fast_logf, kLog)
BENCH(glibc_log2f, kLog)
BENCH(nvcc_log2f, kLog)
BENCH(glibc_log10f, kLog)
BENCH(nvcc_log10f, kLog)

BENCHMARK_MAIN();
