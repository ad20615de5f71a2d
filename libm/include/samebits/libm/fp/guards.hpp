// samebits/libm/fp/guards.hpp — flags the library cannot defend against.
//
// The headers are compiled with the includer's flags. Defended in the code
// itself: contraction (explicit fma, value barriers) and flush to zero in
// samebits::cr (integer handling of subnormals). The caller's run-time modes
// (rounding direction, FTZ/DAZ, traps) are not checked per call (reading
// MXCSR costs more than a call): fp/environment.hpp offers a scope guard.
// On clang, the umbrella headers also compile the library under
// `#pragma float_control(precise, on)` (SAMEBITS_PRECISE_BEGIN / _END below),
// which takes back reassociation, reciprocals and signed-zero licences
// (-funsafe-math-optimizations, -fassociative-math, clang 22's
// -ffp-model=fast) for the library's code only. What follows would still
// change results behind the code's back, so it stops the build instead, naming
// the option (docs/libm/hardening.md: which flag gives which macro, measured).
#pragma once

#include "samebits/libm/platform.hpp"

// -ffast-math (and -Ofast; clang 19's -ffp-model=fast) allow reassociation
// and assume no NaN/inf: a correctly rounded evaluation order cannot survive.
#if defined(__FAST_MATH__)
#  error "samebits/libm: compiled with -ffast-math/-Ofast (__FAST_MATH__). Results would not be reproducible; build the files that include <samebits/libm.hpp> without it (nvcc -use_fast_math is fine)."
#endif

// -ffinite-math-only lets the compiler assume no operand is NaN or inf, also
// in comparisons: nvcc::logf's `x == 0` test came out true for NaN inputs
// (-inf returned) with GCC 12 and clang 22. No pragma takes it back.
#if defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__
#  error "samebits/libm: compiled with -ffinite-math-only (__FINITE_MATH_ONLY__). The library handles NaN and inf inputs; build the files that include it without this option."
#endif

// GCC's value-changing licences, each announced by a macro, also in the host
// pass of nvcc (whose host compiler is GCC; -Xcompiler=-funsafe-math-
// optimizations gave 28 of 48 functions different bits there). GCC has no
// pragma that restores IEEE semantics around inlined code; clang's
// float_control pragma does, and clang defines none of these macros.
#if defined(__ASSOCIATIVE_MATH__)
#  error "samebits/libm: compiled with -fassociative-math or -funsafe-math-optimizations (__ASSOCIATIVE_MATH__). Reassociation changes results; build the files that include <samebits/libm.hpp> without it."
#endif
#if defined(__RECIPROCAL_MATH__)
#  error "samebits/libm: compiled with -freciprocal-math or -funsafe-math-optimizations (__RECIPROCAL_MATH__). Build the files that include <samebits/libm.hpp> without it."
#endif
#if defined(__NO_SIGNED_ZEROS__)
#  error "samebits/libm: compiled with -fno-signed-zeros or -funsafe-math-optimizations (__NO_SIGNED_ZEROS__). The sign of zero results is part of the bits; build the files that include <samebits/libm.hpp> without it."
#endif

// x87 excess precision evaluates double arithmetic in 80-bit registers:
// every operation would round twice.
#if defined(SAMEBITS_HOST_PASS) && defined(__FLT_EVAL_METHOD__) && \
    (__FLT_EVAL_METHOD__ == 2 || __FLT_EVAL_METHOD__ < 0)
#  error "samebits/libm: FLT_EVAL_METHOD is not 0 or 1 (x87 excess precision, -mfpmath=387); compile with -msse2 -mfpmath=sse"
#endif

// Brackets the library's code in the umbrella headers: on the clang host
// pass, IEEE semantics whatever licences the includer's flags gave.
#if defined(SAMEBITS_COMPILER_CLANG) && defined(SAMEBITS_HOST_PASS)
#  define SAMEBITS_PRECISE_BEGIN _Pragma("float_control(precise, on, push)")
#  define SAMEBITS_PRECISE_END _Pragma("float_control(pop)")
#else
#  define SAMEBITS_PRECISE_BEGIN
#  define SAMEBITS_PRECISE_END
#endif
