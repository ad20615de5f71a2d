// samebits/gpu/event.hpp — an owned event: a point in a stream to wait for
// or to time from.
#pragma once

#include <utility>

#include "samebits/gpu/runtime.hpp"
#include "samebits/gpu/stream.hpp"

namespace samebits::gpu {

class Event {
 public:
  Event() = default;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Event& operator=(Event&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  ~Event() { reset(); }

  static Status create(Event& out) noexcept {
    out.reset();
    return native::event_create(&out.h_);
  }
  Status record(const Stream& s) const noexcept { return native::event_record(h_, s.handle()); }
  Status synchronize() const noexcept { return native::event_synchronize(h_); }
  native::EventHandle handle() const noexcept { return h_; }

 private:
  void reset() noexcept {
    if (h_) native::event_destroy(h_);
    h_ = nullptr;
  }
  native::EventHandle h_ = nullptr;
};

// Milliseconds between two recorded events (both complete).
inline Status elapsed_ms(const Event& from, const Event& to, float& ms) noexcept {
  return native::event_elapsed_ms(&ms, from.handle(), to.handle());
}

}  // namespace samebits::gpu
