// bench_oracle — what one input costs the oracle: the double filter against
// plain MPFR, per function, and the host glibc function being scored, on the
// same inputs in the same process. The ratio filter/MPFR is what makes an
// exhaustive sweep take seconds rather than an hour.
//   ./build/bench/bench_oracle [--benchmark_format=json]
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "samebits/libm/fp/bits.hpp"
#include "samebits/oracle/filter.hpp"
#include "samebits/oracle/reference.hpp"
#include "samebits/registry/implementations.hpp"

using namespace samebits;
using namespace samebits::oracle;

namespace {

// 4096 inputs where the function is neither saturated nor trivial.
std::vector<float> inputs(Func f) {
  std::mt19937 rng(1);
  const bool exp_family = f == Func::exp || f == Func::exp2 || f == Func::exp10;
  std::uniform_real_distribution<float> e(-80.0f, 80.0f);
  std::uniform_int_distribution<std::uint32_t> l(0x00800000u, 0x7f7fffffu);
  std::vector<float> v(4096);
  for (auto& x : v) x = exp_family ? e(rng) : fp::from_bits(l(rng));
  return v;
}

void BM_filter(benchmark::State& st, Func f) {
  const auto v = inputs(f);
  std::size_t i = 0, declined = 0;
  for (auto _ : st) {
    const FilterResult r = filter_reference(f, v[i++ & 4095]);
    declined += !r.decided;
    benchmark::DoNotOptimize(r);
  }
  st.counters["declined"] = benchmark::Counter(static_cast<double>(declined), benchmark::Counter::kAvgIterations);
  st.SetItemsProcessed(st.iterations());
}

void BM_mpfr(benchmark::State& st, Func f) {
  const auto v = inputs(f);
  std::size_t i = 0;
  for (auto _ : st) benchmark::DoNotOptimize(cr_mpfr(f, v[i++ & 4095]));
  st.SetItemsProcessed(st.iterations());
}

void BM_glibc(benchmark::State& st, Func f) {
  const auto v = inputs(f);
  const registry::FloatFn fn = registry::find_implementation("glibc")->get(f);
  std::size_t i = 0;
  for (auto _ : st) benchmark::DoNotOptimize(fn(v[i++ & 4095]));
  st.SetItemsProcessed(st.iterations());
}

}  // namespace

#define SAMEBITS_ORACLE_BENCH(F)                                     \
  BENCHMARK_CAPTURE(BM_filter, F, Func::F);                          \
  BENCHMARK_CAPTURE(BM_mpfr, F, Func::F);                            \
  BENCHMARK_CAPTURE(BM_glibc, F, Func::F);

SAMEBITS_ORACLE_BENCH(exp)
SAMEBITS_ORACLE_BENCH(exp2)
SAMEBITS_ORACLE_BENCH(exp10)
SAMEBITS_ORACLE_BENCH(log)
SAMEBITS_ORACLE_BENCH(log2)
SAMEBITS_ORACLE_BENCH(log10)

BENCHMARK_MAIN();
