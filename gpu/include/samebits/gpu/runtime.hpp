// samebits/gpu/runtime.hpp — the vendor runtime, as free functions in
// samebits::gpu::native returning Status (runtime/cuda.hpp: implemented with
// the CUDA runtime; runtime/hip.hpp: declared only, see there). Kernels and
// tools use the RAII types built on it: stream.hpp, buffer.hpp, event.hpp,
// launch.hpp.
#pragma once

#include "samebits/gpu/backend.hpp"

#if defined(SAMEBITS_GPU_HIP)
#  include "samebits/gpu/runtime/hip.hpp"
#else
#  include "samebits/gpu/runtime/cuda.hpp"
#endif
