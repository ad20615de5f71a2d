#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace samebits::cli {

Progress::Progress(std::string label, bool enabled, std::string unit)
    : label_(std::move(label)), unit_(std::move(unit)), enabled_(enabled), tty_(isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()) {}

void Progress::operator()(std::uint64_t done, std::uint64_t total) {
  if (!enabled_ || total == 0) return;
  const double frac = static_cast<double>(done) / static_cast<double>(total);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double eta = frac > 0 ? secs * (1 - frac) / frac : 0;
  if (tty_) {
    constexpr int kWidth = 40;
    const int fill = static_cast<int>(frac * kWidth);
    std::fprintf(stderr, "\r%s [%.*s%*s] %5.1f%%  %.0fs elapsed, ~%.0fs left ", label_.c_str(), fill,
                 "########################################", kWidth - fill, "", 100 * frac, secs, eta);
    std::fflush(stderr);
    drawn_ = true;
  } else {
    const int decile = static_cast<int>(frac * 10);
    if (decile > last_decile_ && secs >= 2.0) {  // short runs stay silent in logs
      // A run found long (2 s) after its first deciles still starts its log at 0%: the line
      // says what was true at the start.
      if (last_decile_ < 0 && decile > 0) line(0, 0, total, 0.0);
      last_decile_ = decile;
      line(decile * 10, done, total, secs);
    }
  }
}

void Progress::line(int percent, std::uint64_t done, std::uint64_t total, double secs) const {
  std::fprintf(stderr, "%s: %3d%% (%llu of %llu %s, %.0fs)\n", label_.c_str(), percent,
               static_cast<unsigned long long>(done), static_cast<unsigned long long>(total), unit_.c_str(), secs);
}

void Progress::finish() {
  if (drawn_) std::fprintf(stderr, "\r\033[K");
  drawn_ = false;
}

}  // namespace samebits::cli
