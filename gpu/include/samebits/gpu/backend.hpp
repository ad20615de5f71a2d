// samebits/gpu/backend.hpp — which vendor runtime samebits/gpu talks to; the
// one place in gpu/ that decides it (the compiler and pass macros come from
// samebits/libm/platform.hpp).
//   HIP source (clang -x hip)                 -> SAMEBITS_GPU_HIP
//   CUDA source (nvcc, clang -x cuda)         -> SAMEBITS_GPU_CUDA
//   plain C++ that drives CUDA kernels built elsewhere: define
//   SAMEBITS_GPU_CUDA_RUNTIME (and link cudart) -> SAMEBITS_GPU_CUDA
#pragma once

#include "samebits/libm/platform.hpp"

#if defined(SAMEBITS_LANG_HIP)
#  define SAMEBITS_GPU_HIP 1
#elif defined(SAMEBITS_LANG_CUDA) || defined(SAMEBITS_GPU_CUDA_RUNTIME)
#  define SAMEBITS_GPU_CUDA 1
#else
#  error "samebits/gpu: no GPU runtime for this translation unit: compile it as CUDA (nvcc) or HIP (clang -x hip), or define SAMEBITS_GPU_CUDA_RUNTIME and link the CUDA runtime"
#endif

// Kernel and shared-memory qualifiers. clang takes the attribute spelling,
// which needs no vendor header (HIP device code is built with -nogpuinc).
#if defined(__clang__) && (defined(SAMEBITS_LANG_HIP) || defined(__CUDA__))
#  define SAMEBITS_KERNEL extern "C++" __attribute__((global))
#  define SAMEBITS_SHARED __attribute__((shared))
#elif defined(SAMEBITS_LANG_CUDA)
#  define SAMEBITS_KERNEL __global__
#  define SAMEBITS_SHARED __shared__
#endif
