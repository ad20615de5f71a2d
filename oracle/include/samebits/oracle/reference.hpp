// samebits/oracle/reference.hpp — correctly rounded binary32 results from MPFR.
//
// These are the ground truth every other number in samebits is measured
// against. They are slow (~0.2-2 us an input); the sweep engine calls them
// only where the double-precision filter (filter.hpp) cannot decide.
#pragma once

#include <cstdint>

#include "samebits/oracle/functions.hpp"

namespace samebits::oracle {

// The correctly rounded (round to nearest, ties to even) binary32 value of
// f(x), with binary32's exponent range and gradual underflow: MPFR computes
// at 24 bits with emin = -148 and emax = 128 (its significands lie in
// [1/2, 1), so these are binary32's 2^-149 and 2^127 in IEEE terms) and
// mpfr_subnormalize re-rounds subnormal results from the ternary value, which
// avoids double rounding. NaN results are the canonical quiet NaN 0x7fc00000.
float cr_mpfr(Func f, float x);

// Error of the binary32 result r for input x, in ulps of the exact value's
// binade, computed exactly enough (MPFR, 256 bits) to be trusted to ~1e-60.
//   ulp(y) = 2^(clamp(floor(log2|y|), -126, 127) - 23), and 2^-149 for y = 0;
//   |y| >= 2^128 is saturated to 2^128 and an infinite r is scored as 2^128,
//   as in "Accuracy of Mathematical Functions" (Gladman, Innocente, Mather,
//   Zimmermann), so inf for an overflowing result scores 0 ulp.
// Only meaningful when classify(f, x).kind == ExactKind::real and r is not a
// NaN; the caller handles classes (see ulp.hpp).
double exact_ulp_error(Func f, float x, float r);

// True when the MPFR library was built thread-safe (required: the sweep
// changes the exponent range per thread).
bool mpfr_is_thread_safe();

}  // namespace samebits::oracle
