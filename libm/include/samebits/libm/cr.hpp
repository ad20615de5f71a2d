// samebits/libm/cr.hpp — samebits::cr, the correctly rounded personality.
#pragma once

#include "samebits/libm/cr/expf.hpp"
#include "samebits/libm/cr/exp2f.hpp"
#include "samebits/libm/cr/exp10f.hpp"
#include "samebits/libm/cr/logf.hpp"
#include "samebits/libm/cr/log2f.hpp"
#include "samebits/libm/cr/log10f.hpp"
