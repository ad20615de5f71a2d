// bench_libm_cr — samebits::cr against glibc's function of the same name on
// the host, in one process on identical inputs: throughput (independent
// calls over 4096 inputs) and latency (each call's input depends on the
// previous result). Inputs lie where the function does real work (no
// saturation). The cr functions are compiled twice, for the baseline ISA and
// for FMA hardware (x86-64), as the `cr` implementation of samebits score is.
//   ./build/bench/bench_libm_cr [--benchmark_format=json]
#include <benchmark/benchmark.h>

#include <cmath>
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
    // y * 0 is not folded without -ffast-math (inf * 0 is NaN), so each
    // input waits for the previous result.
    for (float x : v) y = fn(x + y * 0.0f);
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

#define CR_WRAPPERS(ATTR, SUFFIX)                                             \
  ATTR float cr_expf##SUFFIX(float x) { return samebits::cr::expf(x); }     \
  ATTR float cr_exp2f##SUFFIX(float x) { return samebits::cr::exp2f(x); }   \
  ATTR float cr_exp10f##SUFFIX(float x) { return samebits::cr::exp10f(x); } \
  ATTR float cr_logf##SUFFIX(float x) { return samebits::cr::logf(x); }     \
  ATTR float cr_log2f##SUFFIX(float x) { return samebits::cr::log2f(x); }   \
  ATTR float cr_log10f##SUFFIX(float x) { return samebits::cr::log10f(x); }
CR_WRAPPERS(, _baseline)
#if defined(__x86_64__)
CR_WRAPPERS(__attribute__((target("fma"))), _fma)
#define HAVE_FMA_BUILD 1
#endif

}  // namespace

#define BENCH_PAIR(NAME, FAM)                                               \
  BENCHMARK_CAPTURE(throughput, glibc_##NAME, glibc_##NAME, FAM);           \
  BENCHMARK_CAPTURE(throughput, cr_##NAME##_fma, cr_##NAME##_fma, FAM);     \
  BENCHMARK_CAPTURE(throughput, cr_##NAME##_baseline, cr_##NAME##_baseline, FAM); \
  BENCHMARK_CAPTURE(latency, glibc_##NAME, glibc_##NAME, FAM);              \
  BENCHMARK_CAPTURE(latency, cr_##NAME##_fma, cr_##NAME##_fma, FAM);

#if HAVE_FMA_BUILD
BENCH_PAIR(expf, kExp)
BENCH_PAIR(exp2f, kExp2)
BENCH_PAIR(exp10f, kExp10)
BENCH_PAIR(logf, kLog)
BENCH_PAIR(log2f, kLog)
BENCH_PAIR(log10f, kLog)
#endif

BENCHMARK_MAIN();
