// samebits/libm/nvcc.hpp — samebits::nvcc, the functions nvcc (CUDA 13, sm_90)
// emits, bit for bit: nvcc::{expf, exp2f, exp10f, logf, log2f, log10f}
// (default flags), nvcc::ftz::* (-ftz=true), nvcc::fast::* (__expf, __exp10f,
// __logf, __log2f). Device path (CUDA) only so far; the host path with its
// MUFU model lands with its issue (docs/libm/nvcc.md).
#pragma once

#include "samebits/libm/nvcc/expf.hpp"
#include "samebits/libm/nvcc/logf.hpp"
#include "samebits/libm/nvcc/triton.hpp"
