// samebits/gpu/launch.hpp — launch a kernel on a stream and get a Status.
//
//   SAMEBITS_KERNEL void scale(float* p, float a, unsigned n);
//   gpu::Status s = gpu::launch(scale, gpu::Shape{blocks, 256}, stream, ptr, 2.0f, n);
//
// The arguments are converted to the kernel's parameter types first, so a
// literal 2 passed for a float parameter arrives as 2.0f, as with <<< >>>.
#pragma once

#include <cstddef>
#include <tuple>

#include "samebits/gpu/runtime.hpp"
#include "samebits/gpu/stream.hpp"

namespace samebits::gpu {

struct Shape {
  unsigned grid = 1;   // blocks
  unsigned block = 1;  // threads per block
  std::size_t shared_bytes = 0;
};

template <class... Params, class... Args>
Status launch(void (*kernel)(Params...), const Shape& shape, const Stream& s, Args&&... args) noexcept {
  static_assert(sizeof...(Params) == sizeof...(Args), "launch: argument count differs from the kernel's");
  if (shape.grid == 0 || shape.block == 0) return Status{Errc::invalid_argument, 0, "empty grid or block", "launch"};
  std::tuple<Params...> values(static_cast<Params>(args)...);
  void* ptrs[sizeof...(Params) > 0 ? sizeof...(Params) : 1];
  std::apply([&](auto&... v) {
    std::size_t i = 0;
    ((ptrs[i++] = static_cast<void*>(&v)), ...);
  }, values);
  const Status st = native::launch_kernel(reinterpret_cast<const void*>(kernel), shape.grid, shape.block,
                                          shape.shared_bytes, s.handle(), ptrs);
  if (!st) return st;
  return native::last_error();
}

// Blocks of `block` threads covering n items (at least one block).
constexpr unsigned blocks_for(std::size_t n, unsigned block) noexcept {
  const std::size_t b = (n + block - 1) / block;
  return b ? static_cast<unsigned>(b) : 1u;
}

}  // namespace samebits::gpu
