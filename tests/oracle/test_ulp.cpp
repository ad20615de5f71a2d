// Tier 1 (special values): the ulp-error definition and the encoding helpers.
#include <catch2/catch.hpp>

#include <cmath>

#include "samebits/libm/fp/bits.hpp"
#include "samebits/oracle/reference.hpp"
#include "samebits/oracle/ulp.hpp"

using namespace samebits;
using namespace samebits::oracle;

TEST_CASE("ordinal keeps +0 and -0 apart and counts ulps", "[bits]") {
  CHECK(fp::ordinal(0x00000000u) == 0);
  CHECK(fp::ordinal(0x80000000u) == -1);
  CHECK(fp::ordinal(0x00000001u) - fp::ordinal(0x00000000u) == 1);
  CHECK(fp::ordinal(0x3f800001u) - fp::ordinal(0x3f800000u) == 1);
  CHECK(fp::ordinal(0x80000001u) < fp::ordinal(0x80000000u));
  CHECK(fp::ordinal(fp::kPosInf) > fp::ordinal(fp::kMaxFinite));
}

TEST_CASE("ulp histogram bins", "[ulp]") {
  CHECK(ulp_bin(0.0) == 0);
  CHECK(ulp_bin(0.5) == 0);
  CHECK(ulp_bin(0.5000001) == 1);
  CHECK(ulp_bin(1.0) == 1);
  CHECK(ulp_bin(1.0000001) == 2);
  CHECK(ulp_bin(2.0) == 2);
  CHECK(ulp_bin(3.0) == 3);
  CHECK(ulp_bin(4.0) == 3);
  CHECK(ulp_bin(1e300) == kUlpBins - 1);
  CHECK(ulp_bin_upper(0) == 0.5);
  CHECK(ulp_bin_upper(1) == 1.0);
  CHECK(ulp_bin_upper(3) == 4.0);
}

TEST_CASE("fast ulp error follows the binade of the exact value", "[ulp]") {
  CHECK(fast_ulp_error(1.0, 0x1.000002p0f) == 1.0);       // one ulp of [1,2)
  CHECK(fast_ulp_error(1.0, 0x1.fffffep-1f) == 0.5);      // the float below 1 is half an ulp of 1's binade
  CHECK(fast_ulp_error(0.0, 0x1p-149f) == 1.0);           // zero: the subnormal ulp
  CHECK(fast_ulp_error(0x1p-140, 0x1.2p-140f) == 64.0);  // subnormal binade: ulp 2^-149
  // Infinity is scored as 2^128; exact values beyond are saturated.
  CHECK(fast_ulp_error(0x1p200, INFINITY) == 0.0);
  CHECK(fast_ulp_error(0x1p200, 0x1.fffffep127f) == 1.0);
  CHECK(fast_ulp_error(0x1.fffffep127, INFINITY) == 1.0);
}

TEST_CASE("exact ulp error agrees with the definition", "[ulp][mpfr]") {
  // exp2(1) = 2 exactly: 2 + 1 ulp(2) scores 1.
  CHECK(exact_ulp_error(Func::exp2, 1.0f, 0x1.000002p1f) == 1.0);
  CHECK(exact_ulp_error(Func::exp2, 1.0f, 2.0f) == 0.0);
  // log2(1) = 0: the ulp of zero is 2^-149.
  CHECK(exact_ulp_error(Func::log2, 1.0f, 0x1p-149f) == 1.0);
  // exp(100) overflows: inf scores 0, the largest float 1.
  CHECK(exact_ulp_error(Func::exp, 100.0f, INFINITY) == 0.0);
  CHECK(exact_ulp_error(Func::exp, 100.0f, 0x1.fffffep127f) == 1.0);
  // A correctly rounded result is within half an ulp, its neighbour beyond.
  const float x = 0.3f;
  const float cr = cr_mpfr(Func::exp, x);
  CHECK(exact_ulp_error(Func::exp, x, cr) <= 0.5);
  const double e1 = exact_ulp_error(Func::exp, x, std::nextafter(cr, 10.0f));
  CHECK(e1 > 0.5);
  CHECK(e1 < 1.5);
  // Fast and exact agree to within the documented tolerance.
  const double y = std::exp(static_cast<double>(x));
  CHECK(std::fabs(fast_ulp_error(y, std::nextafter(cr, 10.0f)) - e1) < kFastUlpTolerance);
}
