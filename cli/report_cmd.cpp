// samebits report — the main job, run by `samebits` with no arguments: one
// table of what samebits can show on this machine without a GPU.
//
// Every implementation in the registry scored against the oracle on a
// default sample, with its host speed; then the hipcc certification recorded
// at build time.
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
#include "attention_summary.hpp"
#include "embedded_hipcc_certification.hpp"
#include "progress.hpp"
#include "samebits/cli/json.hpp"
#include "samebits/libm/fp/bits.hpp"
#include "samebits/oracle/sweep.hpp"
#include "samebits/registry/implementations.hpp"

namespace samebits::cli {
namespace {

using namespace samebits::oracle;
using registry::FloatFn;
using registry::implementations;

struct ReportArgs {
  std::uint32_t stride = 1021;
  unsigned threads = 0;
  bool json = false;
  bool quiet = false;
};

// Host speed on 2^20 inputs where the function does real work (not
// saturated), in ns per call, best of kTimingRounds. The implementations of
// one function are timed in interleaved rounds (a pass of each, round after
// round), so that a change of machine load reaches them all alike, and every
// ratio to glibc is a ratio of the figures printed. Independent calls
// (throughput); bench/bench_libm_cr measures latency too.
constexpr int kTimingRounds = 9;

const std::vector<float>& speed_inputs(Func f) {
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
  return in;
}

// ns per call of each of fns on f's inputs, in the order given.
std::vector<double> host_speeds(Func f, const std::vector<FloatFn>& fns, Progress& bar) {
  const std::vector<float>& in = speed_inputs(f);
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
  std::vector<double> best(fns.size(), 1e30);
  bar(0, kTimingRounds);
  for (int round = 0; round < kTimingRounds; ++round) {
    for (std::size_t i = 0; i < fns.size(); ++i) best[i] = std::min(best[i], pass(fns[i]));
    bar(round + 1, kTimingRounds);
  }
  return best;
}

// The hipcc certification recorded at build time (cli/meson.build): per
// compiler, target and mode, whether each function's AMD device code has
// clang's own dataflow (alone and in a refolding context), and the negative
// controls.
nlohmann::json hipcc_certification() {
  if (kHipccCertificationJson.empty()) return nullptr;
  try {
    return nlohmann::json::parse(kHipccCertificationJson);
  } catch (const nlohmann::json::exception&) {
    return nullptr;
  }
}

// Left-aligned columns sized from their content, two spaces apart; columns
// listed in right_aligned are right-aligned (numbers).
void print_columns(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right_aligned,
                   const std::string& indent = "") {
  std::vector<std::size_t> width;
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], r[c].size());
    }
  for (const auto& r : rows) {
    std::string line = indent;
    for (std::size_t c = 0; c < r.size(); ++c) {
      const bool right = c < right_aligned.size() && right_aligned[c];
      const bool last = c + 1 == r.size();
      if (c) line += "  ";
      line += right ? fmt::format("{:>{}}", r[c], width[c]) : last ? r[c] : fmt::format("{:<{}}", r[c], width[c]);
    }
    line.erase(line.find_last_not_of(' ') + 1);
    fmt::print("{}\n", line);
  }
}

void print_hipcc_certification(const nlohmann::json& rows) {
  fmt::print("\nhipcc certification: our AMD device code vs clang's own __builtin_F, same code (instructions\n"
             "with modifiers, operand kinds, where each constant lives; up to register names and scheduling)\n"
             "({}, run at build time; 'ok' = alone and in a refolding context)\n",
             kHipccCertificationScript);
  if (rows.is_null()) {
    fmt::print("  not run: clang++-22 was not found when samebits was built\n");
    return;
  }
  // (compiler, target, mode) -> function -> all same; controls caught / total.
  using Key = std::vector<std::string>;
  std::map<Key, std::map<std::string, bool>> same;
  std::map<Key, std::pair<int, int>> controls;
  std::vector<Key> order;
  for (const auto& r : rows) {
    if (r.contains("status")) {
      fmt::print("  {} {}: {}\n", r.value("compiler", ""), r.value("target", ""), r.value("status", ""));
      continue;
    }
    const Key key{r.value("compiler", ""), r.value("target", ""), r.value("mode", "")};
    if (!same.count(key) && !controls.count(key)) order.push_back(key);
    if (r.contains("function")) {
      const std::string f = r["function"].get<std::string>();
      const bool ok = r.value("same_code", false);
      const auto it = same[key].find(f);
      same[key][f] = (it == same[key].end() || it->second) && ok;  // alone and refolding
    } else {
      auto& c = controls[key];
      c.first += r.value("caught", false);
      c.second += 1;
    }
  }
  static constexpr const char* kFuncs[] = {"expf", "exp2f", "exp10f", "logf", "log2f", "log10f"};
  std::vector<std::vector<std::string>> table{{"compiler", "target", "mode"}};
  for (const char* f : kFuncs) table[0].push_back(f);
  table[0].push_back("controls caught");
  for (const auto& k : order) {
    std::vector<std::string> line = k;
    for (const char* f : kFuncs) {
      const auto it = same[k].find(f);
      line.push_back(it == same[k].end() ? "-" : it->second ? "ok" : "DIFF");
    }
    line.push_back(fmt::format("{}/{}", controls[k].first, controls[k].second));
    table.push_back(std::move(line));
  }
  print_columns(table, {false, false, false, true, true, true, true, true, true, false}, "  ");
}

// Kernels: what the CPU reference of each libm gives against the binary64
// oracle on the default shape; the GPU side is measured on the H200
// (docs/kernels/attention.md, Results), not on this machine.
void print_kernels_section(const std::vector<AttentionSummary>& runs) {
  if (runs.empty()) return;
  const auto& o = runs[0].options;
  fmt::print("\nkernels: deterministic attention (docs/kernels/attention.md), CPU reference vs binary64 oracle\n"
             "(S={} Hq={} Hkv={} D={} causal bf16; max |err| / max |ref| per tensor; dq/dk/dv from the stored o)\n",
             o.seqlen, o.hq, o.hkv, o.d);
  std::vector<std::vector<std::string>> table{{"contract fingerprint", "o (fp32)", "o (bf16)", "lse", "dq", "dk", "dv", "seconds"}};
  for (const auto& r : runs) {
    std::vector<std::string> line{r.fingerprint};
    for (int i : {0, 1, 2, 3, 4, 5}) line.push_back(fmt::format("{:.2e}", r.errors[i].max_rel_normwise));
    line.push_back(fmt::format("{:.2f}", r.forward_seconds + r.backward_seconds));
    table.push_back(std::move(line));
  }
  print_columns(table, {false, true, true, true, true, true, true, true}, "  ");
  fmt::print("  GPU kernels (CUDA, sm_90): bitwise equal to this reference on the H200 (o, lse, dq, dk, dv;\n"
             "  docs/kernels/results/h200/); this machine runs no GPU code.\n");
}

struct Row {
  const registry::Implementation* impl;
  Func func;
  SweepResult result;
  double ns = 0, glibc_ns = 0;
};

std::string max_ulp_text(const SweepResult& r) {
  if (!r.max_ulp) return "CR";
  return *r.max_ulp < 1e6 ? fmt::format("{:.6f}", *r.max_ulp) : fmt::format("{:.3e}", *r.max_ulp);
}

int run_report(const ReportArgs& a) {
  // Accuracy: one sweep per (implementation, function).
  std::vector<Row> rows;
  for (const auto& impl : implementations()) {
    for (Func f : kAllFuncs) {
      const FloatFn fn = impl.get(f);
      if (!fn) continue;
      SweepOptions opt;
      opt.ranges = {EncodingRange{0, 0xffffffffu, a.stride}};
      opt.threads = a.threads;
      Progress bar(fmt::format("{} {}", impl.name, name(f)), !a.quiet);
      opt.progress = [&](std::uint64_t d, std::uint64_t t) { bar(d, t); };
      rows.push_back({&impl, f, sweep(f, FunctionSubject(fn), opt)});
      bar.finish();
    }
  }
  // Speed: every implementation of one function in the same rounds; glibc's
  // figure is the one its own row shows.
  const registry::Implementation* glibc = registry::find_implementation("glibc");
  for (Func f : kAllFuncs) {
    std::vector<Row*> of_f;
    std::vector<FloatFn> fns;
    for (Row& r : rows)
      if (r.func == f) {
        of_f.push_back(&r);
        fns.push_back(r.impl->get(f));
      }
    if (fns.empty()) continue;
    Progress bar(fmt::format("timing {}", name(f)), !a.quiet, "timing rounds");
    const std::vector<double> ns = host_speeds(f, fns, bar);
    bar.finish();
    double glibc_ns = 0;
    for (std::size_t i = 0; i < of_f.size(); ++i)
      if (of_f[i]->impl == glibc) glibc_ns = ns[i];
    for (std::size_t i = 0; i < of_f.size(); ++i) {
      of_f[i]->ns = ns[i];
      of_f[i]->glibc_ns = glibc_ns;
    }
  }

  const nlohmann::json cert = hipcc_certification();
  // Kernels: the attention contract's CPU reference on a small default shape,
  // against the binary64 oracle, for each libm.
  std::vector<AttentionSummary> attention;
  for (const auto libm : {kernels::attention::Libm::nvcc, kernels::attention::Libm::cr}) {
    AttentionOptions o;
    o.seqlen = 128;
    o.libm = libm;
    o.threads = a.threads;
    attention.push_back(run_attention_reference(o));
  }
  if (a.json) {
    nlohmann::json jrows = nlohmann::json::array();
    for (const Row& r : rows) {
      auto j = sweep_to_json(r.result);
      j["implementation"] = r.impl->name;
      j["provenance"] = r.impl->provenance;
      j["host_ns_per_call"] = r.ns;
      j["time_ratio_vs_glibc"] = r.glibc_ns > 0 ? nlohmann::json(r.ns / r.glibc_ns) : nlohmann::json(nullptr);
      jrows.push_back(j);
    }
    nlohmann::json jatt = nlohmann::json::array();
    for (const auto& s : attention) jatt.push_back(nlohmann::json::parse(attention_summary_json(s).dump()));
    fmt::print("{}\n", nlohmann::json{{"sample_stride", a.stride}, {"rows", jrows}, {"hipcc_certification", cert},
                                      {"attention_reference", jatt}}.dump(2));
    return kExitOk;
  }

  fmt::print("samebits: every implementation known here, against the MPFR oracle\n");
  fmt::print("sample: every {} binary32 encoding (all signs, NaNs, subnormals) + special values\n\n", ordinal(a.stride));
  std::vector<std::vector<std::string>> table{
      {"impl", "function", "inputs", "not CR", "wrong", "max ulp", "specials", "ns/call", "vs glibc"},
      {"", "", "", "", "class", "", "ok", "", ""}};
  for (const Row& r : rows) {
    int specials_ok = 0;
    for (const auto& s : r.result.specials) specials_ok += s.score.outcome == Outcome::correctly_rounded;
    const bool is_glibc = r.impl == glibc;
    table.push_back({r.impl->name, std::string(name(r.func)), std::to_string(r.result.inputs),
                     std::to_string(r.result.not_correctly_rounded), std::to_string(r.result.wrong_class),
                     max_ulp_text(r.result), fmt::format("{}/{}", specials_ok, r.result.specials.size()),
                     fmt::format("{:.2f}", r.ns),
                     is_glibc || r.glibc_ns <= 0 ? std::string("-") : fmt::format("{:.2f}x", r.ns / r.glibc_ns)});
  }
  print_columns(table, {false, false, true, true, true, true, true, true, true});
  print_hipcc_certification(cert);
  print_kernels_section(attention);
  for (const auto& impl : implementations()) fmt::print("\n{}: {}", impl.name, impl.provenance);
  fmt::print("\n");
  fmt::print("'not CR' = results whose encoding differs from the correctly rounded one; 'max ulp' is\n"
             "the largest error among them (exact, MPFR); 'CR' = every sampled result correctly rounded.\n"
             "ns/call: host throughput on 2^20 non-saturated inputs, best of {} rounds in which every\n"
             "implementation of the function runs once; 'vs glibc' = ns/call over glibc's ns/call above.\n"
             "Exhaustive figures: docs/accuracy.md; cr's proof: docs/libm/cr.md.\n"
             "Details: samebits score FUNC --impl glibc [--exhaustive]; samebits --help\n",
             kTimingRounds);
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
