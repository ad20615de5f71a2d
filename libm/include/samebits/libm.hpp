// samebits/libm.hpp — the one include a user's kernel needs.
//
// Everything samebits/libm offers is reached from here, on the host, in CUDA
// and in HIP. The personalities (samebits::cr, samebits::nvcc, samebits::hipcc)
// are added to this header as they land; see docs/libm/ for their status.
// Now: samebits::cr (expf exp2f exp10f logf log2f log10f); samebits::nvcc
// (CUDA device code only so far).
#pragma once

#include "samebits/libm/platform.hpp"
#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/cr.hpp"
#include "samebits/libm/nvcc.hpp"
#include "samebits/libm/hipcc.hpp"
