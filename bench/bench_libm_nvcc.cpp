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
#include <cmath>

#include "host_harness.hpp"
#include "samebits/libm.hpp"

namespace {

using namespace samebits::bench;

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
