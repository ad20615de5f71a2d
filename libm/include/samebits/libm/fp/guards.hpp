// samebits/libm/fp/guards.hpp — flags the library cannot defend against.
//
// The headers are compiled with the includer's flags. Contraction and flush
// to zero are defended in the code itself (explicit fma, integer handling of
// subnormals); what follows would change results behind the code's back, so
// it stops the build instead.
#pragma once

#include "samebits/libm/platform.hpp"

// -ffast-math (and -Ofast) allow reassociation and assume no NaN/inf: a
// correctly rounded evaluation order cannot survive that.
#if defined(__FAST_MATH__)
#  error "samebits/libm: compiled with -ffast-math/-Ofast (__FAST_MATH__). Results would not be reproducible; build the files that include <samebits/libm.hpp> without it (nvcc -use_fast_math is fine)."
#endif

// x87 excess precision evaluates double arithmetic in 80-bit registers:
// every operation would round twice.
#if defined(SAMEBITS_HOST_PASS) && defined(__FLT_EVAL_METHOD__) && \
    (__FLT_EVAL_METHOD__ == 2 || __FLT_EVAL_METHOD__ < 0)
#  error "samebits/libm: FLT_EVAL_METHOD is not 0 or 1 (x87 excess precision); compile with -msse2 -mfpmath=sse"
#endif
