// samebits/libm/nvcc.hpp — samebits::nvcc, the functions nvcc (CUDA 13, sm_90)
// emits, bit for bit. Device path now (expf, logf); the host path and the
// rest of the personality land with their issue (docs/libm/nvcc.md).
#pragma once

#include "samebits/libm/nvcc/expf.hpp"
#include "samebits/libm/nvcc/logf.hpp"
