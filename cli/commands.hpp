// cli/commands.hpp — each subcommand of `samebits` registers itself on the
// root CLI11 app and hands back the function that runs it once parsed.
//
// Exit-status convention shared by all subcommands:
//   0  success (for compare: identical; for score: the sweep ran)
//   1  a finding (for compare: mismatches)
//   2  an error: bad usage, unreadable or malformed input; the message names it
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

namespace samebits::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFinding = 1;
inline constexpr int kExitError = 2;

struct Command {
  CLI::App* app = nullptr;      // the subcommand, to see whether it was parsed
  std::function<int()> run;     // runs it; returns the exit status
};

// "1st", "2nd", "3rd", "4th", "11th", "1021st", "251st".
inline std::string ordinal(std::uint64_t n) {
  const std::uint64_t tens = n % 100, ones = n % 10;
  const char* suffix = (tens >= 11 && tens <= 13) ? "th" : ones == 1 ? "st" : ones == 2 ? "nd" : ones == 3 ? "rd" : "th";
  return std::to_string(n) + suffix;
}

Command add_report_command(CLI::App& root);   // cli/report_cmd.cpp
Command add_score_command(CLI::App& root);    // cli/score_cmd.cpp
Command add_compare_command(CLI::App& root);  // cli/compare_cmd.cpp
Command add_attention_command(CLI::App& root);   // cli/attention_cmd.cpp
Command add_sparse_mla_command(CLI::App& root);  // cli/sparse_mla_cmd.cpp

}  // namespace samebits::cli
