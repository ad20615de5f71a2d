// samebits/gpu/status.hpp — errors of the GPU runtime as a value.
//
// Every runtime call of samebits/gpu returns a Status; nothing on the hot path
// throws. `check` turns a failed Status into an exception for tests and
// tools that prefer to stop at the first error.
#pragma once

#include <stdexcept>
#include <string>

namespace samebits::gpu {

enum class Errc {
  ok,
  invalid_argument,  // a size, shape or pointer the runtime refused
  out_of_memory,     // device or pinned host allocation failed
  launch_failed,     // a kernel launch or its execution failed
  no_device,         // no usable GPU (no driver, no device, wrong architecture)
  not_implemented,   // this backend does not provide the call here (HIP runtime: see runtime/hip.hpp)
  runtime_error,     // anything else the vendor runtime reported
};

const char* errc_name(Errc e) noexcept;

// code == Errc::ok means success. `native` is the vendor runtime's own code
// (cudaError_t, hipError_t), `message` its text or ours; static storage.
struct Status {
  Errc code = Errc::ok;
  int native = 0;
  const char* message = "";
  const char* where = "";  // the samebits call that failed

  constexpr bool ok() const noexcept { return code == Errc::ok; }
  constexpr explicit operator bool() const noexcept { return ok(); }
};

inline constexpr Status kOk{};

class Error : public std::runtime_error {
 public:
  explicit Error(const Status& s)
      : std::runtime_error(std::string(s.where) + ": " + errc_name(s.code) + ": " + s.message), status_(s) {}
  const Status& status() const noexcept { return status_; }

 private:
  Status status_;
};

// Throws Error when s failed; returns s otherwise (for tests and tools).
inline const Status& check(const Status& s) {
  if (!s.ok()) throw Error(s);
  return s;
}

inline const char* errc_name(Errc e) noexcept {
  switch (e) {
    case Errc::ok: return "ok";
    case Errc::invalid_argument: return "invalid argument";
    case Errc::out_of_memory: return "out of memory";
    case Errc::launch_failed: return "launch failed";
    case Errc::no_device: return "no device";
    case Errc::not_implemented: return "not implemented";
    case Errc::runtime_error: return "runtime error";
  }
  return "?";
}

}  // namespace samebits::gpu
