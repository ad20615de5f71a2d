// samebits/libm/hipcc.hpp — samebits::hipcc (docs/libm/hipcc.md).
#pragma once

#include "samebits/libm/fp/guards.hpp"

SAMEBITS_PRECISE_BEGIN  // clang: IEEE semantics for the library (fp/guards.hpp)
#include "samebits/libm/hipcc/functions.hpp"
SAMEBITS_PRECISE_END
