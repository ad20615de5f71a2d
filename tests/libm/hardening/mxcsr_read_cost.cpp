// tests/libm/hardening/mxcsr_read_cost.cpp — what reading MXCSR costs, the
// price of a per-call check of the caller's floating-point mode
// (docs/libm/hardening.md). Not part of the test suite:
//   g++ -O2 tests/libm/hardening/mxcsr_read_cost.cpp -o /tmp/mxcsr && /tmp/mxcsr
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>

int main() {
  double best[2] = {1e9, 1e9};
  for (int rep = 0; rep < 20; ++rep) {
    for (int k = 0; k < 2; ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      std::uint32_t acc = 0;
      for (int i = 0; i < 1000000; ++i) {
        std::uint32_t s;
        if (k) __asm__ volatile("stmxcsr %0" : "=m"(s));
        else __asm__ volatile("" : "=r"(s));
        acc += s;
      }
      const auto t1 = std::chrono::steady_clock::now();
      best[k] = std::min(best[k], std::chrono::duration<double, std::nano>(t1 - t0).count() / 1e6);
      if (acc == 1) std::puts("");
    }
  }
  std::printf("loop alone %.2f ns, with stmxcsr %.2f ns per iteration (best of 20)\n", best[0], best[1]);
}
