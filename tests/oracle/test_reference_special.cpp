// Tier 1 (special values): the MPFR reference at the inputs where a wrong
// exponent range, a missing subnormalization or a sign slip would show.
#include <catch2/catch.hpp>

#include <cmath>

#include "samebits/libm/fp/bits.hpp"
#include "samebits/oracle/filter.hpp"
#include "samebits/oracle/reference.hpp"
#include "samebits/oracle/specials.hpp"

using namespace samebits;
using namespace samebits::oracle;

namespace {
std::uint32_t cr_bits(Func f, float x) { return fp::to_bits(cr_mpfr(f, x)); }
}  // namespace

TEST_CASE("special inputs of the exponentials", "[reference]") {
  for (Func f : {Func::exp, Func::exp2, Func::exp10}) {
    INFO(name(f));
    CHECK(cr_bits(f, 0.0f) == 0x3f800000u);         // b^0 = 1
    CHECK(cr_bits(f, -0.0f) == 0x3f800000u);
    CHECK(cr_bits(f, INFINITY) == fp::kPosInf);
    CHECK(cr_bits(f, -INFINITY) == 0x00000000u);     // +0, not -0
    CHECK(cr_bits(f, NAN) == fp::kCanonicalNaN);
    CHECK(cr_bits(f, fp::from_bits(0xffc12345u)) == fp::kCanonicalNaN);
    CHECK(cr_bits(f, 1000.0f) == fp::kPosInf);       // overflow rounds to +inf
    CHECK(cr_bits(f, -1000.0f) == 0x00000000u);      // underflow rounds to +0
    CHECK(cr_bits(f, 0x1p-149f) == 0x3f800000u);     // 1 + tiny rounds to 1
    CHECK(cr_bits(f, -0x1p-149f) == 0x3f800000u);    // 1 - tiny rounds to 1
  }
}

TEST_CASE("exp2 exact cases and gradual underflow", "[reference]") {
  CHECK(cr_bits(Func::exp2, 3.0f) == fp::to_bits(8.0f));
  CHECK(cr_bits(Func::exp2, -126.0f) == 0x00800000u);  // 0x1p-126, min normal
  CHECK(cr_bits(Func::exp2, -127.0f) == 0x00400000u);  // 0x1p-127, subnormal
  CHECK(cr_bits(Func::exp2, -149.0f) == 0x00000001u);  // 0x1p-149
  CHECK(cr_bits(Func::exp2, -150.0f) == 0x00000000u);  // 0x1p-150: tie, to even (+0)
  CHECK(cr_bits(Func::exp2, -149.5f) == 0x00000001u);  // 0.707 * 2^-149 -> 2^-149
  CHECK(cr_bits(Func::exp2, -148.5f) == 0x00000001u);  // 1.414 * 2^-149 -> 1 * 2^-149
  CHECK(cr_bits(Func::exp2, -147.5f) == 0x00000003u);  // 2.828 * 2^-149 -> 3 * 2^-149
  CHECK(cr_bits(Func::exp2, 127.0f) == 0x7f000000u);   // 0x1p127
  CHECK(cr_bits(Func::exp2, 128.0f) == fp::kPosInf);
  CHECK(cr_bits(Func::exp10, 10.0f) == fp::to_bits(1e10f));  // 10^10 = 2^10 5^10 is exact
  CHECK(cr_bits(Func::exp10, -1.0f) == fp::to_bits(0.1f));
}

TEST_CASE("special inputs of the logarithms", "[reference]") {
  for (Func f : {Func::log, Func::log2, Func::log10}) {
    INFO(name(f));
    CHECK(cr_bits(f, 1.0f) == 0x00000000u);          // +0
    CHECK(cr_bits(f, 0.0f) == fp::kNegInf);
    CHECK(cr_bits(f, -0.0f) == fp::kNegInf);
    CHECK(cr_bits(f, INFINITY) == fp::kPosInf);
    CHECK(cr_bits(f, -INFINITY) == fp::kCanonicalNaN);
    CHECK(cr_bits(f, -1.0f) == fp::kCanonicalNaN);
    CHECK(cr_bits(f, -0x1p-149f) == fp::kCanonicalNaN);
    CHECK(cr_bits(f, NAN) == fp::kCanonicalNaN);
  }
  CHECK(cr_bits(Func::log2, 0x1p-149f) == fp::to_bits(-149.0f));
  CHECK(cr_bits(Func::log2, 0x1p127f) == fp::to_bits(127.0f));
  CHECK(cr_bits(Func::log10, 1000.0f) == fp::to_bits(3.0f));
  CHECK(cr_bits(Func::log10, 1e10f) == fp::to_bits(10.0f));
}

TEST_CASE("thresholds found by bisection agree with a double computation", "[reference][specials]") {
  // RN(y) is +inf exactly when y >= (2 - 2^-24) 2^127, the midpoint above the
  // largest float; it is +0 when y <= 2^-150 (the tie goes to even, +0).
  const double overflow_edge = 0x1.ffffffp127;
  for (Func f : {Func::exp, Func::exp2, Func::exp10}) {
    INFO(name(f));
    std::uint32_t last_finite = 0, last_nonzero = 0;
    for (const auto& s : special_inputs(f)) {
      if (s.label == "overflow: last finite") last_finite = s.encoding;
      if (s.label == "underflow: last nonzero") last_nonzero = s.encoding;
    }
    REQUIRE(last_finite != 0);
    REQUIRE(last_nonzero != 0);
    const double xo = fp::from_bits(last_finite), xo1 = fp::from_bits(last_finite + 1);
    CHECK(double_reference(f, xo) < overflow_edge);
    CHECK(double_reference(f, xo1) > overflow_edge);
    const double xu = fp::from_bits(last_nonzero), xu1 = fp::from_bits(last_nonzero + 1);
    CHECK(double_reference(f, xu) > 0x1p-150);
    CHECK(double_reference(f, xu1) <= 0x1p-150);  // exp2(-150) is the tie itself
  }
  // The well-known expf overflow threshold 0x1.62e42ep+6.
  for (const auto& s : special_inputs(Func::exp))
    if (s.label == "overflow: last finite") CHECK(s.encoding == fp::to_bits(0x1.62e42ep+6f));
}
