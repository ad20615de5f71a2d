// samebits report — the main job, run by `samebits` with no arguments: one
// table of what samebits can show on this machine without a GPU.
//
// Now: the host libm scored against the oracle on a default sample. Each
// libm personality and kernel adds its rows here as its issue lands.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "commands.hpp"
#include "progress.hpp"
#include "samebits/libm/fp/bits.hpp"
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

// Host speed on 2^20 inputs where the function does real work (not
// saturated), in ns per call: the implementation and glibc's function timed
// in alternating passes, best of 9 each. Independent calls (throughput);
// bench/bench_libm_cr measures latency too.
struct Speed {
  double ns, glibc_ns;
};
Speed host_speed(FloatFn fn, FloatFn glibc_fn, Func f) {
  static std::map<Func, std::vector<float>> inputs;
  auto& in = inputs[f];
  if (in.empty()) {
    std::mt19937 rng(42);
    const bool exp_family = f == Func::exp || f == Func::exp2 || f == Func::exp10;
    std::uniform_real_distribution<float> e(-80.0f, 80.0f);
    std::uniform_int_distribution<std::uint32_t> l(0x00800000u, 0x7f7fffffu);
    in.resize(1u << 20);
    for (auto& x : in) x = exp_family ? e(rng) : fp::from_bits(l(rng));
  }
  auto pass = [&](FloatFn g) {
    volatile float sink = 0;
    const auto t0 = std::chrono::steady_clock::now();
    float acc = 0;
    for (float x : in) acc += g(x);
    const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    sink = acc;
    (void)sink;
    return ns / static_cast<double>(in.size());
  };
  Speed s{1e30, 1e30};
  for (int round = 0; round < 9; ++round) {
    s.ns = std::min(s.ns, pass(fn));
    s.glibc_ns = std::min(s.glibc_ns, pass(glibc_fn));
  }
  return s;
}

int run_report(const ReportArgs& a) {
  nlohmann::json rows = nlohmann::json::array();
  if (!a.json) {
    fmt::print("samebits: every implementation known here, against the MPFR oracle\n");
    fmt::print("sample: every {}th binary32 encoding (all signs, NaNs, subnormals) + special values\n\n", a.stride);
    fmt::print("{:<8} {:<8} {:>11} {:>12} {:>8} {:>12} {:>9} {:>9} {:>9}\n", "impl", "function", "inputs",
               "not CR", "wrong", "max ulp", "specials", "ns/call", "vs glibc");
    fmt::print("{:<8} {:<8} {:>11} {:>12} {:>8} {:>12} {:>9} {:>9} {:>9}\n", "", "", "", "", "class", "", "ok", "",
               "");
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
      const Speed sp = host_speed(fn, find_implementation("glibc")->get(f), f);
      const double ns = sp.ns, ratio = sp.ns / sp.glibc_ns;
      if (a.json) {
        auto j = to_json(r);
        j["implementation"] = impl.name;
        j["provenance"] = impl.provenance;
        j["host_ns_per_call"] = ns;
        j["time_ratio_vs_glibc"] = ratio;
        rows.push_back(j);
      } else {
        fmt::print("{:<8} {:<8} {:>11} {:>12} {:>8} {:>12} {:>5}/{:<3} {:>9.2f} {:>9}\n", impl.name, name(f),
                   r.inputs, r.not_correctly_rounded, r.wrong_class,
                   r.max_ulp ? (*r.max_ulp < 1e6 ? fmt::format("{:.6f}", *r.max_ulp) : fmt::format("{:.3e}", *r.max_ulp)) : std::string("CR"), specials_ok,
                   r.specials.size(), ns, impl.name == "glibc" ? std::string("-") : fmt::format("{:.2f}x", ratio));
      }
    }
  }
  if (a.json) {
    fmt::print("{}\n", nlohmann::json{{"sample_stride", a.stride}, {"rows", rows}}.dump(2));
  } else {
    for (const auto& impl : implementations()) fmt::print("\n{}: {}", impl.name, impl.provenance);
    fmt::print("\n");
    fmt::print("'not CR' = results whose encoding differs from the correctly rounded one; 'max ulp' is\n"
               "the largest error among them (exact, MPFR); 'CR' = every sampled result correctly rounded.\n"
               "ns/call: host throughput on 2^20 non-saturated inputs, best of 7; 'vs glibc' = time ratio.\n"
               "Exhaustive figures: docs/accuracy.md; cr's proof: docs/libm/cr.md.\n"
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
