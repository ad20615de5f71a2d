// samebits/gpu/runtime/hip.hpp — the HIP runtime behind samebits/gpu's
// interface: DECLARED ONLY. These machines have no ROCm runtime (and HIP
// device code is compiled with -nogpuinc -nogpulib), so nothing here is
// implemented or tested: a HIP host program that calls these links with an
// undefined-symbol error, never with a stub that pretends to work. The
// signatures are those of runtime/cuda.hpp, so that the HIP implementation
// (hipMalloc, hipLaunchKernel, ...) drops in when a ROCm machine exists.
#pragma once

#include <cstddef>

#include "samebits/gpu/status.hpp"

namespace samebits::gpu::native {

struct HipStream;
struct HipEvent;
using StreamHandle = HipStream*;
using EventHandle = HipEvent*;

Status device_malloc(void** p, std::size_t bytes) noexcept;
Status device_free(void* p) noexcept;
Status pinned_malloc(void** p, std::size_t bytes) noexcept;
Status pinned_free(void* p) noexcept;
Status memset_async(void* p, int value, std::size_t bytes, StreamHandle s) noexcept;
Status copy_async(void* dst, const void* src, std::size_t bytes, StreamHandle s) noexcept;
Status stream_create(StreamHandle* s) noexcept;
Status stream_destroy(StreamHandle s) noexcept;
Status stream_synchronize(StreamHandle s) noexcept;
Status event_create(EventHandle* e) noexcept;
Status event_destroy(EventHandle e) noexcept;
Status event_record(EventHandle e, StreamHandle s) noexcept;
Status event_synchronize(EventHandle e) noexcept;
Status event_elapsed_ms(float* ms, EventHandle a, EventHandle b) noexcept;
Status launch_kernel(const void* kernel, unsigned grid, unsigned block, std::size_t shared_bytes, StreamHandle s,
                     void** args) noexcept;
Status last_error() noexcept;

struct DeviceInfo {
  char name[256];
  int major, minor, multiprocessors;
  std::size_t global_bytes;
};
Status device_info(DeviceInfo* out, int device = 0) noexcept;

}  // namespace samebits::gpu::native
