// samebits/libm/cr.hpp — samebits::cr, the correctly rounded personality.
#pragma once

#include "samebits/libm/fp/guards.hpp"

SAMEBITS_PRECISE_BEGIN  // clang: IEEE semantics for the library (fp/guards.hpp)
#include "samebits/libm/cr/expf.hpp"
#include "samebits/libm/cr/exp2f.hpp"
#include "samebits/libm/cr/exp10f.hpp"
#include "samebits/libm/cr/logf.hpp"
#include "samebits/libm/cr/log2f.hpp"
#include "samebits/libm/cr/log10f.hpp"
SAMEBITS_PRECISE_END
