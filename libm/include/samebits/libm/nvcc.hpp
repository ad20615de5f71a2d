// samebits/libm/nvcc.hpp — samebits::nvcc, the functions nvcc (CUDA 13, sm_90)
// emits, bit for bit: nvcc::{expf, exp2f, exp10f, logf, log2f, log10f}
// (default flags), nvcc::ftz::* (-ftz=true), nvcc::fast::* (__expf, __exp10f,
// __logf, __log2f), nvcc::fast::ftz::* (those under -ftz=true: what
// -use_fast_math gives), nvcc::triton::{expf, logf} (docs/libm/nvcc.md).
// Device path (CUDA): the PTX instructions themselves. Host path: the same
// operations in IEEE binary32, with the H200's MUFU from measured models: a
// host program calling the exponentials (any form) or fast::* links
// samebits_mufu_model (nvcc/mufu_model.hpp); the logarithms need no library.
#pragma once

#include "samebits/libm/fp/guards.hpp"

SAMEBITS_PRECISE_BEGIN  // clang: IEEE semantics for the library (fp/guards.hpp)
#include "samebits/libm/nvcc/expf.hpp"
#include "samebits/libm/nvcc/logf.hpp"
#include "samebits/libm/nvcc/triton.hpp"
SAMEBITS_PRECISE_END
