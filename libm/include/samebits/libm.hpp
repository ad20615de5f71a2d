// samebits/libm.hpp — the one include a user's kernel needs.
//
// Everything samebits/libm offers is reached from here, on the host, in CUDA
// and in HIP (docs/libm/):
//   samebits::cr      correctly rounded expf exp2f exp10f logf log2f log10f
//   samebits::nvcc    what nvcc 13 (sm_90) computes, device and host paths
//   samebits::hipcc   what clang (HIP, gfx942/gfx950) computes, device and host paths
// Header-only, and light: the host path of samebits::nvcc's MUFU models is
// compiled once in the samebits_mufu_model library, which a program calling
// samebits::nvcc on the host links (nvcc/mufu_model.hpp); device passes never
// see its tables. Pinned instructions for kernels: samebits/libm/arch/ieee.hpp.
#pragma once

#include "samebits/libm/fp/guards.hpp"

SAMEBITS_PRECISE_BEGIN  // clang: IEEE semantics for the library (fp/guards.hpp)
#include "samebits/libm/platform.hpp"
#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/fp/environment.hpp"
#include "samebits/libm/cr.hpp"
#include "samebits/libm/nvcc.hpp"
#include "samebits/libm/hipcc.hpp"
SAMEBITS_PRECISE_END
