// samebits/libm/hipcc.hpp — samebits::hipcc (docs/libm/hipcc.md).
#pragma once

#include "samebits/libm/hipcc/functions.hpp"
