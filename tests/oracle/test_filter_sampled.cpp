// Tier 2 (MPFR-sampled): the double filter never accepts a wrong answer.
// For each function, 1,000,000 random inputs (half uniform over all
// encodings, half in the range where the result is neither saturated nor
// trivially 1) plus the special inputs: the sweep's reference must equal
// plain MPFR's correctly rounded value, encoding for encoding. Inputs the
// filter must decline (exact results, ties) are checked to reach MPFR.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "samebits/libm/fp/bits.hpp"
#include "samebits/oracle/filter.hpp"
#include "samebits/oracle/reference.hpp"
#include "samebits/oracle/specials.hpp"
#include "samebits/oracle/sweep.hpp"
#include "samebits/oracle/ulp.hpp"

using namespace samebits;
using namespace samebits::oracle;

namespace {

constexpr int kSamples = 1'000'000;

}  // namespace

TEST_CASE("the filtered reference equals plain MPFR on random inputs", "[filter][mpfr][sampled]") {
  std::mt19937_64 rng(0x5a3eb175);
  for (Func f : kAllFuncs) {
    INFO(name(f));
    const bool exp_family = f == Func::exp || f == Func::exp2 || f == Func::exp10;
    std::uint64_t mismatches = 0, declined = 0, checked = 0;
    std::uint32_t first_bad = 0;
    auto check = [&](std::uint32_t b) {
      const float x = fp::from_bits(b);
      const float via_filter = reference_value(f, x, true);
      const float plain = cr_mpfr(f, x);
      ++checked;
      if (classify(f, x).kind == ExactKind::real && !filter_reference(f, x).decided) ++declined;
      if (fp::to_bits(via_filter) != fp::to_bits(plain)) {
        if (!mismatches) first_bad = b;
        ++mismatches;
      }
    };
    std::uniform_int_distribution<std::uint32_t> any;
    for (int i = 0; i < kSamples / 2; ++i) check(any(rng));
    if (exp_family) {
      // |x| < 160 covers every non-saturated result of the three bases.
      std::uniform_real_distribution<float> u(-160.0f, 160.0f);
      for (int i = 0; i < kSamples / 2; ++i) check(fp::to_bits(u(rng)));
    } else {
      // Every positive finite input.
      std::uniform_int_distribution<std::uint32_t> pos(0x00000001u, 0x7f7fffffu);
      for (int i = 0; i < kSamples / 4; ++i) check(pos(rng));
      // Near 1, where log is small and relative accuracy matters most.
      std::uniform_int_distribution<std::uint32_t> near1(0x3f700000u, 0x3f880000u);
      for (int i = 0; i < kSamples / 4; ++i) check(near1(rng));
    }
    for (const auto& s : special_inputs(f)) check(s.encoding);
    CAPTURE(first_bad, checked, declined);
    CHECK(mismatches == 0);
    CHECK(checked >= static_cast<std::uint64_t>(kSamples));
  }
}

TEST_CASE("inputs the filter cannot decide are sent to MPFR and come back right", "[filter][fallback]") {
  // log(1) = 0 exactly: y_d = 0 is not a normal double.
  CHECK_FALSE(filter_reference(Func::log, 1.0f).decided);
  CHECK(fp::to_bits(reference_value(Func::log, 1.0f, true)) == 0u);
  // exp2(-150) = 2^-150 is the midpoint between +0 and 2^-149 (ties to +0).
  CHECK_FALSE(filter_reference(Func::exp2, -150.0f).decided);
  CHECK(fp::to_bits(reference_value(Func::exp2, -150.0f, true)) == 0u);
  // exp2(k) lands on a binade edge: the rounding is decided, the binade is
  // flagged as unknown (so errors there are scored by MPFR).
  const FilterResult e5 = filter_reference(Func::exp2, 5.0f);
  CHECK(e5.decided);
  CHECK_FALSE(e5.binade_known);
  CHECK(e5.cr == 32.0f);
  CHECK(fast_ulp_error(32.0, 0x1.fffffep4f) == 0.5);  // why: below 32 the ulp is half as big
  CHECK(score_one(Func::exp2, 5.0f, 0x1.fffffep4f, true, false).ulp == 0.5);
  // log10(1000) = 3 exactly, but 3 is not a binade edge: the window decides it.
  CHECK(filter_reference(Func::log10, 1000.0f).decided);
  CHECK(reference_value(Func::log10, 1000.0f, true) == 3.0f);

  // Hard-to-round inputs: scan a stretch of expf inputs for those whose exact
  // value lies within 2^-36 (relative) of a rounding boundary. The filter must
  // decline every one of them, and MPFR must be what answers.
  std::uint64_t found = 0;
  for (std::uint32_t b = 0x3f000000u; b < 0x3f000000u + (1u << 20); ++b) {
    const float x = fp::from_bits(b);
    if (filter_reference(Func::exp, x).decided) continue;
    ++found;
    CHECK(fp::to_bits(reference_value(Func::exp, x, true)) == fp::to_bits(cr_mpfr(Func::exp, x)));
  }
  INFO("declined inputs in [0.5, 0.5 + 2^-3): " << found);
  CHECK(found > 0);
}

TEST_CASE("fast ulp errors stay within tolerance of the exact ones", "[filter][ulp][sampled]") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<float> u(-80.0f, 80.0f);
  std::uniform_int_distribution<int> off(-70, 70);
  for (int i = 0; i < 20000; ++i) {
    const float x = u(rng);
    const FilterResult fr = filter_reference(Func::exp, x);
    if (!fr.decided) continue;
    const float r = fp::from_bits(fp::to_bits(fr.cr) + off(rng));
    CHECK(std::fabs(fast_ulp_error(fr.approx, r) - exact_ulp_error(Func::exp, x, r)) < kFastUlpTolerance);
  }
}
