// reference_by_double — how many inputs a score changes by when the
// "correctly rounded" reference is the binary64 libm result rounded to
// binary32 (a common shortcut: double rounding, and the libm's own error)
// instead of the true correctly rounded value (samebits::cr, proven on all
// inputs). Used to explain why our counts for CUDA's expf and logf differ
// from the ones quoted in ../shared/FACTS.md (docs/accuracy.md).
//   g++ -O2 -std=c++20 -march=native -I libm/include scripts/reference_by_double.cpp -o /tmp/refdbl -lpthread
//   /tmp/refdbl            (all 2^32 inputs, every hardware thread; about 2 minutes on 2 cores)
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

#include <samebits/libm.hpp>

namespace {

struct Counts {
  std::uint64_t not_cr = 0, not_ref = 0, ref_wrong = 0;
};

template <class Model, class Cr, class Dbl>
Counts sweep(Model model, Cr cr, Dbl dbl) {
  const unsigned n = std::max(1u, std::thread::hardware_concurrency());
  std::vector<Counts> part(n);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < n; ++t)
    pool.emplace_back([&, t] {
      Counts c;
      for (std::uint64_t i = t; i < (1ull << 32); i += n) {
        const float x = samebits::fp::from_bits(static_cast<std::uint32_t>(i));
        if (std::isnan(x)) continue;  // NaN results are compared as a class by both counts
        const std::uint32_t m = samebits::fp::to_bits(model(x)), c_ = samebits::fp::to_bits(cr(x)),
                            d = samebits::fp::to_bits(static_cast<float>(dbl(static_cast<double>(x))));
        const bool mn = std::isnan(model(x)), cn = std::isnan(cr(x)), dn = std::isnan(static_cast<float>(dbl(static_cast<double>(x))));
        c.not_cr += mn || cn ? mn != cn : m != c_;
        c.not_ref += mn || dn ? mn != dn : m != d;
        c.ref_wrong += cn || dn ? cn != dn : c_ != d;
      }
      part[t] = c;
    });
  for (auto& th : pool) th.join();
  Counts s;
  for (const Counts& c : part) s.not_cr += c.not_cr, s.not_ref += c.not_ref, s.ref_wrong += c.ref_wrong;
  return s;
}

void report(const char* name, Counts c) {
  std::printf("{\"function\": \"%s\", \"not_cr_vs_true_cr\": %llu, \"not_cr_vs_float_of_double_libm\": %llu, "
              "\"inputs_where_float_of_double_libm_is_not_cr\": %llu}\n",
              name, static_cast<unsigned long long>(c.not_cr), static_cast<unsigned long long>(c.not_ref),
              static_cast<unsigned long long>(c.ref_wrong));
}

}  // namespace

int main() {
  report("nvcc::expf", sweep([](float x) { return samebits::nvcc::expf(x); }, [](float x) { return samebits::cr::expf(x); },
                             [](double x) { return std::exp(x); }));
  report("nvcc::logf", sweep([](float x) { return samebits::nvcc::logf(x); }, [](float x) { return samebits::cr::logf(x); },
                             [](double x) { return std::log(x); }));
  return 0;
}
