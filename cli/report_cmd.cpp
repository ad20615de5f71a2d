// samebits report — the main job, run by `samebits` with no arguments: one
// table of what samebits can show on this machine without a GPU.
//
// Now: the host libm scored against the oracle on a default sample. Each
// libm personality and kernel adds its rows here as its issue lands.
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/core.h>

#include "commands.hpp"
#include "progress.hpp"
#include "samebits/oracle/implementations.hpp"
#include "samebits/oracle/sweep.hpp"

namespace samebits::cli {
namespace {

using namespace samebits::oracle;

struct ReportArgs {
  std::uint32_t stride = 1021;
  unsigned threads = 0;
  bool json = false;
  bool quiet = false;
};

int run_report(const ReportArgs& a) {
  nlohmann::json rows = nlohmann::json::array();
  if (!a.json) {
    fmt::print("samebits: accuracy of the host libm against the MPFR oracle\n");
    fmt::print("sample: every {}th binary32 encoding (all signs, NaNs, subnormals) + special values\n\n", a.stride);
    fmt::print("{:<8} {:<8} {:>11} {:>12} {:>8} {:>12} {:>9} {:>8}\n", "impl", "function", "inputs", "not CR",
               "wrong", "max ulp", "specials", "time");
    fmt::print("{:<8} {:<8} {:>11} {:>12} {:>8} {:>12} {:>9} {:>8}\n", "", "", "", "", "class", "", "ok", "");
  }
  for (const auto& impl : implementations()) {
    for (Func f : kAllFuncs) {
      const FloatFn fn = impl.get(f);
      if (!fn) continue;
      FunctionSubject subject(fn);
      SweepOptions opt;
      opt.ranges = {EncodingRange{0, 0xffffffffu, a.stride}};
      opt.threads = a.threads;
      Progress bar(fmt::format("{} {}", impl.name, name(f)), !a.quiet);
      opt.progress = [&](std::uint64_t d, std::uint64_t t) { bar(d, t); };
      const SweepResult r = sweep(f, subject, opt);
      bar.finish();
      int specials_ok = 0;
      for (const auto& s : r.specials) specials_ok += s.score.outcome == Outcome::correctly_rounded;
      if (a.json) {
        auto j = to_json(r);
        j["implementation"] = impl.name;
        j["provenance"] = impl.provenance;
        rows.push_back(j);
      } else {
        fmt::print("{:<8} {:<8} {:>11} {:>12} {:>8} {:>12} {:>5}/{:<3} {:>7.2f}s\n", impl.name, name(f), r.inputs,
                   r.not_correctly_rounded, r.wrong_class,
                   r.max_ulp ? fmt::format("{:.6f}", *r.max_ulp) : std::string("CR"), specials_ok,
                   r.specials.size(), r.seconds);
      }
    }
  }
  if (a.json) {
    fmt::print("{}\n", nlohmann::json{{"sample_stride", a.stride}, {"rows", rows}}.dump(2));
  } else {
    fmt::print("\nglibc: {}\n", find_implementation("glibc")->provenance);
    fmt::print("'not CR' = results whose encoding differs from the correctly rounded one; 'max ulp' is\n"
               "the largest error among them (exact, MPFR). Exhaustive figures: docs/accuracy.md.\n"
               "Details: samebits score FUNC --impl glibc [--exhaustive]; samebits --help\n");
  }
  return kExitOk;
}

}  // namespace

Command add_report_command(CLI::App& root) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* app = root.add_subcommand("report", "The default job: accuracy table of everything scoreable here");
  app->add_option("--stride", args->stride, "sample every Nth encoding (default 1021)")->check(CLI::PositiveNumber);
  app->add_option("--threads", args->threads, "worker threads (default: all cores)");
  app->add_flag("--json", args->json, "print one JSON document instead of the table");
  app->add_flag("-q,--quiet", args->quiet, "no progress on stderr");
  return {app, [args] { return run_report(*args); }};
}

}  // namespace samebits::cli
