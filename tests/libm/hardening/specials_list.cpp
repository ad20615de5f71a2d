// tests/libm/hardening/specials_list.cpp — writes the oracle's special inputs
// of the six functions (signed zeros, infinities, NaNs, subnormal and normal
// extremes, each function's overflow/underflow thresholds found by bisection
// on MPFR) with 64 neighbours on each side of every finite one, one hex
// encoding a line, for hardening_digest. Run once at build time, so that the
// per-flag builds of the digest need not link MPFR.
#include <cstdint>
#include <cstdio>
#include <set>

#include "samebits/oracle/specials.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: hardening_specials OUT\n");
    return 2;
  }
  std::set<std::uint32_t> all;
  for (const samebits::oracle::Func f : samebits::oracle::kAllFuncs) {
    for (const auto& s : samebits::oracle::special_inputs(f)) {
      all.insert(s.encoding);
      for (std::uint32_t d = 1; d <= 64; ++d) {
        all.insert(s.encoding + d);
        all.insert(s.encoding - d);
      }
    }
  }
  FILE* out = std::fopen(argv[1], "w");
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", argv[1]);
    return 2;
  }
  for (const std::uint32_t b : all) std::fprintf(out, "%08x\n", b);
  return std::fclose(out) == 0 ? 0 : 2;
}
