// samebits/libm.hpp — the one include a user's kernel needs.
//
// Everything samebits/libm offers is reached from here, on the host, in CUDA
// and in HIP. The personalities (samebits::cr, samebits::nvcc, samebits::hipcc)
// are added to this header as they land; see docs/libm/ for their status.
#pragma once

#include "samebits/libm/platform.hpp"
#include "samebits/libm/fp/bits.hpp"
