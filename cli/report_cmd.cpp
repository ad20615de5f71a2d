// samebits report — the main job, run by `samebits` with no arguments: one
// table of what samebits can show on this machine without a GPU.
//
// Now: the host libm scored against the oracle on a default sample. Each
// libm personality and kernel adds its rows here as its issue lands.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
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

// The hipcc certification recorded at build time (cli/meson.build): per
// compiler, target and mode, whether each function's AMD device code has
// clang's own dataflow (alone and in a refolding context), and the negative
// controls.
nlohmann::json hipcc_certification() {
  const std::string path = SAMEBITS_HIPCC_CERT_JSON;
  if (path.empty()) return nullptr;
  std::ifstream in(path);
  if (!in) return nullptr;
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception&) {
    return nullptr;
  }
}

void print_hipcc_certification(const nlohmann::json& rows) {
  fmt::print("\nhipcc certification: our AMD device code vs clang's own __builtin_F, same dataflow\n"
             "(tests/libm/hipcc/check_hipcc_dataflow.py, run at build time; 'ok' = alone and in a refolding context)\n");
  if (rows.is_null()) {
    fmt::print("  not run: clang++-22 was not found when samebits was built\n");
    return;
  }
  // (compiler, target, mode) -> function -> all same; controls caught / total.
  std::map<std::string, std::map<std::string, bool>> same;
  std::map<std::string, std::pair<int, int>> controls;
  std::vector<std::string> order;
  for (const auto& r : rows) {
    if (r.contains("status")) {
      fmt::print("  {} {}: {}\n", r.value("compiler", ""), r.value("target", ""), r.value("status", ""));
      continue;
    }
    const std::string key = fmt::format("{:<40} {:<7} {:<5}", r.value("compiler", ""), r.value("target", ""), r.value("mode", ""));
    if (!same.count(key) && !controls.count(key)) order.push_back(key);
    if (r.contains("function")) {
      const std::string f = r["function"].get<std::string>();
      const bool ok = r.value("same_dataflow", false);
      const auto it = same[key].find(f);
      same[key][f] = (it == same[key].end() || it->second) && ok;  // alone and refolding
    } else {
      auto& c = controls[key];
      c.first += r.value("caught", false);
      c.second += 1;
    }
  }
  fmt::print("  {:<40} {:<7} {:<5} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}  {}\n", "compiler", "target", "mode", "expf",
             "exp2f", "exp10f", "logf", "log2f", "log10f", "controls caught");
  for (const auto& k : order) {
    std::string line = "  " + k;
    for (const char* f : {"expf", "exp2f", "exp10f", "logf", "log2f", "log10f"}) {
      const auto it = same[k].find(f);
      line += fmt::format(" {:>6}", it == same[k].end() ? "-" : it->second ? "ok" : "DIFF");
    }
    line += fmt::format("  {}/{}", controls[k].first, controls[k].second);
    fmt::print("{}\n", line);
  }
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
  const nlohmann::json cert = hipcc_certification();
  if (a.json) {
    fmt::print("{}\n", nlohmann::json{{"sample_stride", a.stride}, {"rows", rows}, {"hipcc_certification", cert}}.dump(2));
  } else {
    print_hipcc_certification(cert);
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
