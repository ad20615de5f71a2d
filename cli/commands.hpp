// cli/commands.hpp — each subcommand of `samebits` registers itself on the
// root CLI11 app and hands back the function that runs it once parsed.
//
// Exit-status convention shared by all subcommands:
//   0  success (for compare: identical; for score: the sweep ran)
//   1  a finding (for compare: mismatches)
//   2  an error: bad usage, unreadable or malformed input; the message names it
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace samebits::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFinding = 1;
inline constexpr int kExitError = 2;

struct Command {
  CLI::App* app = nullptr;      // the subcommand, to see whether it was parsed
  std::function<int()> run;     // runs it; returns the exit status
};

Command add_report_command(CLI::App& root);   // cli/report_cmd.cpp
Command add_score_command(CLI::App& root);    // cli/score_cmd.cpp
Command add_compare_command(CLI::App& root);  // cli/compare_cmd.cpp
Command add_attention_command(CLI::App& root);  // cli/attention_cmd.cpp

}  // namespace samebits::cli
