// samebits/gpu/runtime/cuda.hpp — the CUDA runtime behind samebits/gpu's
// interface (runtime.hpp). Included through runtime.hpp only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "samebits/gpu/status.hpp"

namespace samebits::gpu::native {

using StreamHandle = cudaStream_t;
using EventHandle = cudaEvent_t;

inline Status status(cudaError_t e, const char* where) noexcept {
  if (e == cudaSuccess) return kOk;
  Errc c = Errc::runtime_error;
  switch (e) {
    case cudaErrorMemoryAllocation: c = Errc::out_of_memory; break;
    case cudaErrorInvalidValue:
    case cudaErrorInvalidDevicePointer:
    case cudaErrorInvalidConfiguration: c = Errc::invalid_argument; break;
    case cudaErrorLaunchFailure:
    case cudaErrorLaunchOutOfResources:
    case cudaErrorLaunchTimeout:
    case cudaErrorIllegalAddress:
    case cudaErrorInvalidDeviceFunction: c = Errc::launch_failed; break;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorNoKernelImageForDevice: c = Errc::no_device; break;
    default: break;
  }
  return Status{c, static_cast<int>(e), cudaGetErrorString(e), where};
}

inline Status device_malloc(void** p, std::size_t bytes) noexcept { return status(cudaMalloc(p, bytes), "device_malloc"); }
inline Status device_free(void* p) noexcept { return status(cudaFree(p), "device_free"); }
inline Status pinned_malloc(void** p, std::size_t bytes) noexcept {
  return status(cudaMallocHost(p, bytes), "pinned_malloc");
}
inline Status pinned_free(void* p) noexcept { return status(cudaFreeHost(p), "pinned_free"); }
inline Status memset_async(void* p, int value, std::size_t bytes, StreamHandle s) noexcept {
  return status(cudaMemsetAsync(p, value, bytes, s), "memset_async");
}
// Direction inferred from the pointers (unified addressing).
inline Status copy_async(void* dst, const void* src, std::size_t bytes, StreamHandle s) noexcept {
  return status(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s), "copy_async");
}
inline Status stream_create(StreamHandle* s) noexcept {
  return status(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking), "stream_create");
}
inline Status stream_destroy(StreamHandle s) noexcept { return status(cudaStreamDestroy(s), "stream_destroy"); }
inline Status stream_synchronize(StreamHandle s) noexcept {
  return status(cudaStreamSynchronize(s), "stream_synchronize");
}
inline Status event_create(EventHandle* e) noexcept { return status(cudaEventCreate(e), "event_create"); }
inline Status event_destroy(EventHandle e) noexcept { return status(cudaEventDestroy(e), "event_destroy"); }
inline Status event_record(EventHandle e, StreamHandle s) noexcept {
  return status(cudaEventRecord(e, s), "event_record");
}
inline Status event_synchronize(EventHandle e) noexcept { return status(cudaEventSynchronize(e), "event_synchronize"); }
inline Status event_elapsed_ms(float* ms, EventHandle a, EventHandle b) noexcept {
  return status(cudaEventElapsedTime(ms, a, b), "event_elapsed_ms");
}
// kernel: the host-side handle of a __global__ function; args: pointers to
// each argument, converted to the kernel's parameter types.
inline Status launch_kernel(const void* kernel, unsigned grid, unsigned block, std::size_t shared_bytes,
                            StreamHandle s, void** args) noexcept {
  return status(cudaLaunchKernel(kernel, dim3(grid), dim3(block), args, shared_bytes, s), "launch");
}
// The error a kernel raised while running (sticky errors included).
inline Status last_error() noexcept { return status(cudaGetLastError(), "last_error"); }

struct DeviceInfo {
  char name[256];
  int major, minor, multiprocessors;
  std::size_t global_bytes;
};
inline Status device_info(DeviceInfo* out, int device = 0) noexcept {
  cudaDeviceProp p{};
  const Status s = status(cudaGetDeviceProperties(&p, device), "device_info");
  if (!s) return s;
  for (std::size_t i = 0; i < sizeof out->name; ++i) out->name[i] = p.name[i];
  out->name[sizeof out->name - 1] = 0;
  out->major = p.major;
  out->minor = p.minor;
  out->multiprocessors = p.multiProcessorCount;
  out->global_bytes = p.totalGlobalMem;
  return kOk;
}

}  // namespace samebits::gpu::native
