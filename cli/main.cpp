// samebits — make GPU numerics reproducible bit for bit, and prove it.
//
// With no arguments it runs `samebits report`, the default job.
#include <cstdio>
#include <exception>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands.hpp"

int main(int argc, char** argv) {
  using namespace samebits::cli;
  CLI::App app{"samebits: bit-for-bit reproducible float math, scored against MPFR", "samebits"};
  app.set_version_flag("--version", "samebits 0.1.0");
  app.require_subcommand(0, 1);
  app.footer(
      "With no subcommand, runs `report` (the default job).\n"
      "Exit status: 0 success (compare: identical), 1 finding (compare: mismatches), 2 error.\n"
      "Docs: README.md, docs/accuracy.md, docs/oracle.md, docs/compare.md");
  std::vector<Command> commands = {add_report_command(app), add_score_command(app), add_compare_command(app),
                                   add_attention_command(app), add_sparse_mla_command(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitError;
  }
  const Command* chosen = &commands[0];  // report
  for (const auto& c : commands)
    if (c.app->parsed()) chosen = &c;
  try {
    return chosen->run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "samebits %s: error: %s\n", chosen->app->get_name().c_str(), e.what());
    return kExitError;
  }
}
