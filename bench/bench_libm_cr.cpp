// bench_libm_cr — samebits::cr against glibc's function of the same name on
// the host, in one process on identical inputs: throughput (independent
// calls over 4096 inputs) and latency (each call's input depends on the
// previous result). Inputs lie where the function does real work (no
// saturation). The cr functions are compiled twice, for the baseline ISA and
// for FMA hardware (x86-64), as the `cr` implementation of samebits score is.
//   ./build/bench/bench_libm_cr [--benchmark_format=json]
#include <cmath>

#include "host_harness.hpp"
#include "samebits/libm.hpp"

namespace {

using namespace samebits::bench;

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
