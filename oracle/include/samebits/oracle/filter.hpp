// samebits/oracle/filter.hpp — the double-precision fast path of the oracle.
//
// For an input x with a real result y = f(x), the filter evaluates y_d with
// glibc's binary64 function of the same name and asks whether every real
// number within a relative distance W = 2^-36 of y_d rounds to the same
// binary32 (in the same binade). If so, that binary32 is RN(y) — provided
// |y - y_d| <= W |y_d|, which is what the window must guarantee:
//
//   glibc 2.36 documents, in sysdeps/x86_64/fpu/libm-test-ulps, maximum known
//   errors in round-to-nearest of 1 ulp for exp, exp2 and log and 2 ulp for
//   exp10, log2 and log10 (binary64). 2 ulp of binary64 is at most 2^-51
//   relative, so W = 2^-36 leaves a factor 2^15 of margin. Rounding in the
//   three double operations that form the window ends adds < 2^-52 relative.
//
// The documented figures are measured, not proven; the margin covers that,
// and the filter is checked against plain MPFR on every input it is used for
// in tests/oracle/test_filter_sampled.cpp and by `samebits score --no-filter`.
// Where the window straddles a rounding boundary, or y_d is zero or not a
// normal double, the filter declines and the caller falls back to MPFR
// (reference.hpp). A window that straddles a binade edge (exp(x) for tiny x
// lies on both sides of 1) still decides the rounding, but not the binade
// whose ulp scores an error: it is flagged, and errors there are computed by
// MPFR.
//
// Outside [-200, 200] every exponential is saturated: b^x for b in {e, 2, 10}
// is below 2^-151 for x <= -200 (so RN is +0) and above 2^128 for x >= 200
// (so RN is +inf); there the filter answers without evaluating anything.
#pragma once

#include "samebits/oracle/functions.hpp"

namespace samebits::oracle {

inline constexpr double kFilterWindow = 0x1p-36;

struct FilterResult {
  bool decided = false;  // false: ask MPFR
  float cr = 0.0f;       // RN(y) when decided
  double approx = 0.0;   // y_d (saturated to +-2^128, or 0 below 2^-151)
  bool binade_known = true;  // false: y may lie in either of two binades
};

// Only for classify(f, x).kind == ExactKind::real.
FilterResult filter_reference(Func f, float x);

// glibc's binary64 function (exp, exp2, exp10, log, log2, log10).
double double_reference(Func f, double x);

}  // namespace samebits::oracle
