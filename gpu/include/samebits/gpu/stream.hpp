// samebits/gpu/stream.hpp — an owned stream (in-order queue of GPU work).
#pragma once

#include <utility>

#include "samebits/gpu/runtime.hpp"

namespace samebits::gpu {

class Stream {
 public:
  Stream() = default;  // empty: create() gives a usable one
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Stream(Stream&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Stream& operator=(Stream&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  ~Stream() { reset(); }

  static Status create(Stream& out) noexcept {
    out.reset();
    return native::stream_create(&out.h_);
  }
  Status synchronize() const noexcept { return native::stream_synchronize(h_); }
  native::StreamHandle handle() const noexcept { return h_; }
  bool valid() const noexcept { return h_ != nullptr; }

 private:
  void reset() noexcept {
    if (h_) native::stream_destroy(h_);
    h_ = nullptr;
  }
  native::StreamHandle h_ = nullptr;
};

}  // namespace samebits::gpu
