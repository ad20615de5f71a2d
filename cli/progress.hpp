// cli/progress.hpp — progress on stderr for long runs: a redrawn bar on a
// terminal, a line every 10% otherwise (logs stay readable), nothing with
// --quiet.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace samebits::cli {

class Progress {
 public:
  Progress(std::string label, bool enabled);
  void operator()(std::uint64_t done, std::uint64_t total);
  void finish();

 private:
  std::string label_;
  bool enabled_, tty_;
  int last_decile_ = -1;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace samebits::cli
