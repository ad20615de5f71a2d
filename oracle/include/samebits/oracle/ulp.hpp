// samebits/oracle/ulp.hpp — how one result is scored.
//
// A result r for input x is, in this order:
//   wrong class  — a NaN where a number is due or the reverse, a finite value
//                  (or the opposite infinity) where an exact infinity is due;
//                  no ulp figure is given for it;
//   correctly rounded — r has the same encoding as the correctly rounded
//                  value (any NaN counts as "the same" when a NaN is due:
//                  MPFR has no payloads; NaN bits are compared by `compare`
//                  and by the personalities' own bitwise certifications);
//   not correctly rounded — everything else, with its error in ulps of the
//                  exact value's binade (reference.hpp gives the definition).
#pragma once

#include <cstdint>

namespace samebits::oracle {

enum class Outcome : std::uint8_t { correctly_rounded, not_correctly_rounded, wrong_class };

struct Score {
  Outcome outcome = Outcome::correctly_rounded;
  double ulp = 0.0;  // error in ulps; 0 for wrong_class (not meaningful)
};

// Error in ulps when the exact value is approximated by a double y with
// |y - y_exact| <= 2^-36 |y| (filter.hpp); the answer is then within
// kFastUlpTolerance of the exact error. Same definition as exact_ulp_error.
double fast_ulp_error(double y, float r);
inline constexpr double kFastUlpTolerance = 0x1p-10;

// Histogram of ulp errors: bin 0 holds errors <= 0.5, bin k >= 1 holds
// (2^(k-2), 2^(k-1)], i.e. (0.5,1], (1,2], (2,4], ...; the last bin is open.
inline constexpr int kUlpBins = 40;
int ulp_bin(double ulp);
// Upper edge of bin k (0.5, 1, 2, ...); +inf for the last.
double ulp_bin_upper(int k);

}  // namespace samebits::oracle
