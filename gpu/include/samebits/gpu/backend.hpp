// samebits/gpu/backend.hpp — which vendor runtime samebits/gpu talks to; the
// one place in gpu/ that decides it (the compiler and pass macros come from
// samebits/libm/platform.hpp).
//   HIP source (clang -x hip)                 -> SAMEBITS_GPU_HIP
//   CUDA source (nvcc, clang -x cuda)         -> SAMEBITS_GPU_CUDA
//   plain C++ that drives CUDA kernels built elsewhere: define
//   SAMEBITS_GPU_CUDA_RUNTIME (and link cudart) -> SAMEBITS_GPU_CUDA
//   plain C++ that runs the kernels' source on the CPU: define
//   SAMEBITS_GPU_EMULATOR (samebits/gpu/emulator.hpp: each block's threads as
//   fibers; no GPU runtime)    -> SAMEBITS_GPU_EMU
#pragma once

#include "samebits/libm/platform.hpp"

#if defined(SAMEBITS_LANG_HIP)
#  define SAMEBITS_GPU_HIP 1
#elif defined(SAMEBITS_LANG_CUDA) || defined(SAMEBITS_GPU_CUDA_RUNTIME)
#  define SAMEBITS_GPU_CUDA 1
#elif defined(SAMEBITS_GPU_EMULATOR)
#  define SAMEBITS_GPU_EMU 1
#else
#  error "samebits/gpu: no GPU runtime for this translation unit: compile it as CUDA (nvcc) or HIP (clang -x hip), or define SAMEBITS_GPU_CUDA_RUNTIME and link the CUDA runtime"
#endif

// Kernel and shared-memory qualifiers. clang takes the attribute spelling,
// which needs no vendor header (HIP device code is built with -nogpuinc).
//   SAMEBITS_KERNEL    a kernel (not a template: it carries a linkage specification)
//   SAMEBITS_GLOBAL    the kernel qualifier alone, for kernel templates
//   SAMEBITS_SHARED    shared memory (LDS on AMD)
//   SAMEBITS_LAUNCH_BOUNDS(max_threads[, min_blocks])
//                      the most threads a block is launched with, and on
//                      NVIDIA the blocks per SM to fit (__launch_bounds__).
//                      AMD gets the first only (amdgpu_flat_work_group_size
//                      1..max_threads): its occupancy hint counts waves per
//                      SIMD, another quantity.
//   SAMEBITS_GRID_CONSTANT
//                      a kernel argument read in place from the parameter space (CUDA's
//                      __grid_constant__): what a TMA tensor map argument needs, its address
//                      being what the copy instruction takes (clang: the grid_constant
//                      attribute). Nothing on AMD or in the emulator.
#if defined(__clang__) && (defined(SAMEBITS_LANG_HIP) || defined(__CUDA__))
#  define SAMEBITS_KERNEL extern "C++" __attribute__((global))
#  define SAMEBITS_GLOBAL __attribute__((global))
#  define SAMEBITS_SHARED __attribute__((shared))
#  if defined(SAMEBITS_LANG_HIP)
#    define SAMEBITS_LAUNCH_BOUNDS(max_threads, ...) __attribute__((amdgpu_flat_work_group_size(1, max_threads)))
#    define SAMEBITS_GRID_CONSTANT
#  else
#    define SAMEBITS_LAUNCH_BOUNDS(...) __attribute__((launch_bounds(__VA_ARGS__)))
#    define SAMEBITS_GRID_CONSTANT __attribute__((grid_constant))
#  endif
#elif defined(SAMEBITS_LANG_CUDA)
#  define SAMEBITS_KERNEL __global__
#  define SAMEBITS_GLOBAL __global__
#  define SAMEBITS_SHARED __shared__
#  define SAMEBITS_LAUNCH_BOUNDS(...) __launch_bounds__(__VA_ARGS__)
#  define SAMEBITS_GRID_CONSTANT __grid_constant__
#elif defined(SAMEBITS_GPU_EMU)
// A kernel is a plain function the emulator calls once per thread; a block's
// shared array is a namespace-scope array the emulating program defines.
#  define SAMEBITS_KERNEL
#  define SAMEBITS_GLOBAL
#  define SAMEBITS_SHARED
#  define SAMEBITS_LAUNCH_BOUNDS(...)
#  define SAMEBITS_GRID_CONSTANT
#endif
