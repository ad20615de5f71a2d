// samebits/gpu/arch.hpp — the one place in gpu/ that picks the instruction
// header of the device pass: arch/nvptx.hpp (CUDA) or arch/amdgpu.hpp (HIP
// device pass), or arch/emulator.hpp (plain C++ with SAMEBITS_GPU_EMULATOR:
// the kernels' source run on the CPU). Both define the same names in samebits::gpu::arch; kernels
// use them through thread.hpp, memory.hpp and math.hpp. Nothing in plain C++.
#pragma once

#include "samebits/gpu/backend.hpp"

// SAMEBITS_GPU_ARCH: defined where one of them is included (every pass of a
// CUDA translation unit; the device pass of a HIP one).
#if defined(SAMEBITS_DEVICE_AMDGPU)
#  include "samebits/gpu/arch/amdgpu.hpp"
#  define SAMEBITS_GPU_ARCH 1
#elif defined(SAMEBITS_DEVICE_NVIDIA) || defined(SAMEBITS_LANG_CUDA)
#  include "samebits/gpu/arch/nvptx.hpp"  // nvcc parses device bodies in the host pass too
#  define SAMEBITS_GPU_ARCH 1
#elif defined(SAMEBITS_GPU_EMU)
#  include "samebits/gpu/arch/emulator.hpp"
#  define SAMEBITS_GPU_ARCH 1
#endif
