// samebits/libm/platform.hpp — the one place that knows which compiler and
// which target a header is being compiled for.
//
// Every other header in samebits/libm uses only the macros defined here; no
// function body tests __CUDACC__, __HIPCC__ or __CUDA_ARCH__ itself.
#pragma once

// ---- compiler -------------------------------------------------------------
#if defined(__NVCC__)
#  define SAMEBITS_COMPILER_NVCC 1
#elif defined(__clang__)
#  define SAMEBITS_COMPILER_CLANG 1
#elif defined(__GNUC__)
#  define SAMEBITS_COMPILER_GCC 1
#elif defined(_MSC_VER)
#  define SAMEBITS_COMPILER_MSVC 1
#endif

// ---- language dialect (single-source GPU languages) -----------------------
#if defined(__HIP__)
#  define SAMEBITS_LANG_HIP 1
#elif defined(__CUDACC__)
#  define SAMEBITS_LANG_CUDA 1
#endif

// ---- which pass is this (host or one device) ------------------------------
// In CUDA and HIP a translation unit is compiled once for the host and once
// per device architecture; the personalities choose instructions per pass.
#if defined(__CUDA_ARCH__) && !defined(__HIP__)
#  define SAMEBITS_DEVICE_NVIDIA 1
#  define SAMEBITS_DEVICE_PASS 1
#elif defined(__HIP_DEVICE_COMPILE__) || defined(__AMDGCN__)
#  define SAMEBITS_DEVICE_AMDGPU 1
#  define SAMEBITS_DEVICE_PASS 1
#else
#  define SAMEBITS_HOST_PASS 1
#endif

// ---- function qualifiers ---------------------------------------------------
// clang (HIP, or CUDA compiled by clang) takes the attribute spelling, which
// needs no runtime header (HIP device code may be built with -nogpuinc).
#if defined(__clang__) && (defined(SAMEBITS_LANG_HIP) || defined(__CUDA__))
#  define SAMEBITS_HOST_DEVICE __attribute__((host, device))
#  define SAMEBITS_DEVICE __attribute__((device))
#elif defined(SAMEBITS_LANG_CUDA) || defined(SAMEBITS_LANG_HIP)
#  define SAMEBITS_HOST_DEVICE __host__ __device__
#  define SAMEBITS_DEVICE __device__
#else
#  define SAMEBITS_HOST_DEVICE
#  define SAMEBITS_DEVICE
#endif

#if defined(SAMEBITS_COMPILER_MSVC)
#  define SAMEBITS_FORCEINLINE __forceinline
#else
#  define SAMEBITS_FORCEINLINE inline __attribute__((always_inline))
#endif

// The qualifier every libm function carries: callable from host and device,
// inlined so that a user's kernel sees the whole sequence.
#define SAMEBITS_FUNC SAMEBITS_HOST_DEVICE SAMEBITS_FORCEINLINE
// A device-only instruction wrapper (inline PTX, AMDGPU builtins): declared in
// every pass of a CUDA/HIP translation unit, compiled in the device pass only.
#define SAMEBITS_DEVICE_FUNC SAMEBITS_DEVICE SAMEBITS_FORCEINLINE

// ---- language level ----------------------------------------------------------
#if defined(_MSVC_LANG)
#  define SAMEBITS_CPLUSPLUS _MSVC_LANG
#else
#  define SAMEBITS_CPLUSPLUS __cplusplus
#endif
#if SAMEBITS_CPLUSPLUS < 201703L
#  error "samebits/libm needs C++17 or later"
#endif

// ---- host instruction set (for value barriers, arch/barrier.hpp) -------------
#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#  define SAMEBITS_HOST_X86 1
#elif defined(__aarch64__)
#  define SAMEBITS_HOST_AARCH64 1
#endif
