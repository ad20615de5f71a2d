// cli/progress.hpp — progress on stderr for long runs: a redrawn bar on a
// terminal, a line every 10% otherwise (logs stay readable: a run shorter
// than 2 s prints nothing; a longer one prints from its 0% line on), nothing
// with --quiet. unit names what done and total count ("inputs", "timing rounds").
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace samebits::cli {

class Progress {
 public:
  Progress(std::string label, bool enabled, std::string unit = "inputs");
  void operator()(std::uint64_t done, std::uint64_t total);
  void finish();

 private:
  void line(int percent, std::uint64_t done, std::uint64_t total, double secs) const;
  std::string label_, unit_;
  bool enabled_, tty_;
  int last_decile_ = -1;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace samebits::cli
