// samebits/gpu/buffer.hpp — owned memory: DeviceBuffer<T> (GPU memory) and
// PinnedBuffer<T> (page-locked host memory, the source and target of
// asynchronous copies). Sizes are in elements. Allocation reports failure as
// a Status; nothing throws.
#pragma once

#include <cstddef>
#include <utility>

#include "samebits/gpu/runtime.hpp"
#include "samebits/gpu/stream.hpp"

namespace samebits::gpu {

namespace detail {

template <class T, Status (*Alloc)(void**, std::size_t) noexcept, Status (*Free)(void*) noexcept>
class OwnedArray {
 public:
  OwnedArray() = default;
  OwnedArray(const OwnedArray&) = delete;
  OwnedArray& operator=(const OwnedArray&) = delete;
  OwnedArray(OwnedArray&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  OwnedArray& operator=(OwnedArray&& o) noexcept {
    if (this != &o) {
      reset();
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  ~OwnedArray() { reset(); }

  static Status create(std::size_t n, OwnedArray& out) noexcept {
    out.reset();
    if (n > static_cast<std::size_t>(-1) / sizeof(T))
      return Status{Errc::invalid_argument, 0, "element count overflows the byte size", "buffer create"};
    void* p = nullptr;
    const Status s = Alloc(&p, n * sizeof(T));
    if (!s) return s;
    out.p_ = static_cast<T*>(p);
    out.n_ = n;
    return kOk;
  }

  T* data() const noexcept { return p_; }
  std::size_t size() const noexcept { return n_; }
  std::size_t bytes() const noexcept { return n_ * sizeof(T); }
  T& operator[](std::size_t i) const noexcept { return p_[i]; }  // PinnedBuffer only: host memory

 private:
  void reset() noexcept {
    if (p_) Free(p_);
    p_ = nullptr;
    n_ = 0;
  }
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace detail

template <class T>
using DeviceBuffer = detail::OwnedArray<T, native::device_malloc, native::device_free>;
template <class T>
using PinnedBuffer = detail::OwnedArray<T, native::pinned_malloc, native::pinned_free>;

// Asynchronous copy of n elements on stream s (either direction).
template <class T>
Status copy_async(T* dst, const T* src, std::size_t n, const Stream& s) noexcept {
  return native::copy_async(dst, src, n * sizeof(T), s.handle());
}

}  // namespace samebits::gpu
