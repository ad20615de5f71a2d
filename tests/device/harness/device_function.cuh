// tests/device/harness/device_function.cuh — a float(float) functor as a
// device function of the harness: one grid-stride kernel per functor type.
// Define the functors in an anonymous namespace: the kernels then have
// internal linkage, so one function compiled in two translation units with
// different flags (default, -use_fast_math, -ftz=true) stays two kernels.
#pragma once

#include <cstdint>

#include <samebits/gpu/launch.hpp>
#include <samebits/libm/fp/bits.hpp>

#include "bitwise_sweep.hpp"

// A functor callable on host and device (samebits functions), or on the
// device only (CUDA's own functions, raw instructions).
#define SAMEBITS_HOST_DEVICE_FUNCTOR(TYPE, EXPR) \
  struct TYPE {                                  \
    __host__ __device__ float operator()(float x) const { return EXPR; } \
  };
#define SAMEBITS_DEVICE_FUNCTOR(TYPE, EXPR) \
  struct TYPE {                             \
    __device__ float operator()(float x) const { return EXPR; } \
  };

namespace samebits::device_test {

template <class F>
__global__ void eval_kernel(std::uint32_t first, std::uint32_t count, std::uint32_t* out) {
  const F f{};
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
    out[i] = fp::to_bits(f(fp::from_bits(first + i)));
}

template <class F>
gpu::Status eval(std::uint32_t first, std::uint32_t count, std::uint32_t* out, const gpu::Stream& s) {
  return gpu::launch(eval_kernel<F>, gpu::Shape{gpu::blocks_for(count, 256), 256}, s, first, count, out);
}

}  // namespace samebits::device_test

// The table of a device translation unit built with -DSAMEBITS_BUILD_ID=ID:
//   SAMEBITS_DEVICE_TABLE(cr_device_) { return {...}; }  defines cr_device_ID().
#define SAMEBITS_CAT_(a, b) a##b
#define SAMEBITS_CAT(a, b) SAMEBITS_CAT_(a, b)
#define SAMEBITS_DEVICE_TABLE(PREFIX) \
  std::vector<samebits::device_test::DeviceFunction> SAMEBITS_CAT(PREFIX, SAMEBITS_BUILD_ID)()
