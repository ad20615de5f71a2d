// samebits score — the accuracy of one float(float) function against the
// MPFR oracle, over a range, a sample or all 2^32 inputs.
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include <fmt/core.h>

#include "commands.hpp"
#include "progress.hpp"
#include "samebits/cli/json.hpp"
#include "samebits/libm/fp/bits.hpp"
#include "samebits/oracle/sweep.hpp"
#include "samebits/oracle/tensor_io.hpp"
#include "samebits/registry/implementations.hpp"
#include "samebits/registry/score.hpp"

namespace samebits::cli {
namespace {

using namespace samebits::oracle;
using registry::find_implementation;
using registry::implementations;
using registry::Implementation;

struct ScoreArgs {
  std::string func;
  std::string impl;
  std::string range;
  std::string outputs;
  bool exhaustive = false;
  std::uint32_t stride = 0;
  unsigned threads = 0;
  bool json = false;
  bool no_filter = false;
  bool no_variants = false;
  bool list = false;
  bool quiet = false;
};

// Default sample: every 251st encoding (a prime stride, so the sample does
// not line up with mantissa bit patterns): 17,111,423 inputs, NaNs included.
constexpr std::uint32_t kDefaultStride = 251;

std::string hexfloat(std::uint32_t b) {
  const float v = fp::from_bits(b);
  if (std::isnan(v)) return fp::sign_bit(b) ? "-nan" : "nan";
  return fmt::format("{:a}", static_cast<double>(v));
}

std::string grouped(std::uint64_t n) {
  std::string s = std::to_string(n), out;
  int c = 0;
  for (auto it = s.rbegin(); it != s.rend(); ++it) {
    if (c && c % 3 == 0) out.insert(out.begin(), ',');
    out.insert(out.begin(), *it);
    ++c;
  }
  return out;
}

const char* verdict(const Score& s) {
  switch (s.outcome) {
    case Outcome::correctly_rounded: return "ok";
    case Outcome::not_correctly_rounded: return "NOT CR";
    case Outcome::wrong_class: return "WRONG CLASS";
  }
  return "?";
}

void print_list() {
  fmt::print("implementations (PERSONALITY[:VARIANT]):\n");
  for (const auto& i : implementations()) {
    std::string funcs;
    for (Func f : kAllFuncs)
      if (i.get(f)) funcs += std::string(funcs.empty() ? "" : " ") + std::string(name(f));
    fmt::print("  {:<14} {} [{}]\n  {:<14} functions: {}\n", i.name, i.description, i.provenance, "", funcs);
  }
  fmt::print("functions: expf exp2f exp10f logf log2f log10f\n");
}

void print_human(const SweepResult& r, const std::string& subject_label, const std::string& scope) {
  fmt::print("samebits score {} --impl {}\n", name(r.func), subject_label);
  const double pct = r.inputs ? 100.0 * static_cast<double>(r.correctly_rounded) / static_cast<double>(r.inputs) : 0;
  fmt::print("  inputs                 {:>15}   {}\n", grouped(r.inputs), scope);
  fmt::print("  correctly rounded      {:>15}   {:.6f}%\n", grouped(r.correctly_rounded), pct);
  fmt::print("  not correctly rounded  {:>15}\n", grouped(r.not_correctly_rounded));
  fmt::print("  wrong class            {:>15}\n", grouped(r.wrong_class));
  if (r.max_ulp) {
    fmt::print("  max error              {:>15.6g} ulp at x = {} ({}): got {} ({}), correctly rounded {} ({})\n",
               *r.max_ulp, hexfloat(r.max_ulp_input), fmt::format("0x{:08x}", r.max_ulp_input),
               hexfloat(r.max_ulp_got), fmt::format("0x{:08x}", r.max_ulp_got), hexfloat(r.max_ulp_expected),
               fmt::format("0x{:08x}", r.max_ulp_expected));
  } else {
    fmt::print("  max error              every result correctly rounded (<= 0.5 ulp)\n");
  }
  fmt::print("  reference              {}\n",
             r.filtered ? fmt::format("double filter, 2^-36 window; {} inputs sent to MPFR", grouped(r.mpfr_fallbacks))
                        : std::string("MPFR on every input (no filter)"));
  fmt::print("  time                   {:.2f} s on {} threads\n", r.seconds, r.threads);
  if (!r.wrong_class_inputs.empty()) {
    fmt::print("  wrong class at         ");
    for (auto e : r.wrong_class_inputs) fmt::print("0x{:08x} ", e);
    fmt::print("\n");
  }
  fmt::print("\n  ulp histogram (results that are not wrong-class)\n");
  for (int k = 0; k < kUlpBins; ++k) {
    if (!r.histogram[k]) continue;
    const std::string bin = k == 0 ? std::string("<= 0.5")
                                   : (k == kUlpBins - 1 ? fmt::format("> {:g}", ulp_bin_upper(k - 1))
                                                        : fmt::format("({:g}, {:g}]", ulp_bin_upper(k - 1), ulp_bin_upper(k)));
    fmt::print("    {:>16} ulp {:>15}\n", bin, grouped(r.histogram[k]));
  }
  if (!r.specials.empty()) {
    fmt::print("\n  special values\n    {:<26} {:<12} {:<16} {:<12} {:<16} {:<12} {}\n", "input", "bits", "x",
               "expected", "", "got", "verdict");
    for (const auto& s : r.specials) {
      std::string v = verdict(s.score);
      if (s.score.outcome == Outcome::not_correctly_rounded) v += fmt::format(" ({:.3f} ulp)", s.score.ulp);
      fmt::print("    {:<26} 0x{:08x}   {:<16} 0x{:08x}   {:<16} 0x{:08x}   {}\n", s.label, s.input,
                 hexfloat(s.input), s.expected, hexfloat(s.expected), s.got, v);
    }
  }
}

int run_score(const ScoreArgs& a) {
  if (a.list) {
    print_list();
    return kExitOk;
  }
  if (a.func.empty()) throw std::invalid_argument("FUNC is required (or --list)");
  const auto f = parse_func(a.func);
  if (!f) throw std::invalid_argument("unknown function '" + a.func + "'; known: expf exp2f exp10f logf log2f log10f");
  if (a.exhaustive && !a.range.empty()) throw std::invalid_argument("--range and --exhaustive exclude each other");
  if (a.impl.empty() == a.outputs.empty())
    throw std::invalid_argument("give exactly one of --impl IMPL and --outputs FILE");

  SweepOptions opt;
  opt.threads = a.threads;
  opt.use_filter = !a.no_filter;
  std::string scope;
  if (a.exhaustive) {
    opt.ranges = {EncodingRange{0, 0xffffffffu, 1}};
    scope = "all 2^32 encodings";
  } else if (!a.range.empty()) {
    opt.ranges = parse_range(a.range);
    scope = "range " + a.range;
  } else if (a.outputs.empty()) {
    opt.ranges = {EncodingRange{0, 0xffffffffu, a.stride ? a.stride : kDefaultStride}};
    scope = fmt::format("sample: every {} encoding", ordinal(a.stride ? a.stride : kDefaultStride));
  } else {
    throw std::invalid_argument("--outputs needs --range A:B or --exhaustive (the inputs the file answers)");
  }
  if (a.stride > 1 && (a.exhaustive || !a.range.empty())) {
    for (auto& r : opt.ranges) r.stride = a.stride;
    scope += ", every " + ordinal(a.stride);
  }

  Progress bar(fmt::format("score {}", name(*f)), !a.quiet);
  opt.progress = [&](std::uint64_t d, std::uint64_t t) { bar(d, t); };
  SweepResult r;
  std::vector<registry::VariantScore> variants;
  double max_ulp_over_models = 0.0;
  std::string label;
  if (!a.impl.empty()) {
    const Implementation* impl = find_implementation(a.impl);
    if (!impl) throw std::invalid_argument("unknown implementation '" + a.impl + "' (see samebits score --list)");
    // Model variants (hipcc: v_exp_f32 / v_log_f32 one ulp up or down) are
    // scored after the implementation, each with its own progress line.
    registry::ScoreOptions so;
    so.sweep = opt;
    so.model_variants = !a.no_variants;
    std::unique_ptr<Progress> vbar;
    so.sweep.progress = [&](std::uint64_t d, std::uint64_t t) { vbar ? (*vbar)(d, t) : bar(d, t); };
    so.on_sweep_start = [&](const std::string& variant) {
      if (!variant.empty()) vbar = std::make_unique<Progress>(fmt::format("score {} ({})", name(*f), variant), !a.quiet);
    };
    so.on_sweep_end = [&] { vbar ? vbar->finish() : bar.finish(); };
    registry::ImplementationScore s = registry::score(*impl, *f, so);
    max_ulp_over_models = s.max_ulp_over_models();
    r = std::move(s.result);
    variants = std::move(s.variants);
    label = impl->name + "  (" + impl->provenance + ")";
  } else {
    if (opt.ranges.size() != 1)
      throw std::invalid_argument("--outputs needs a single encoding range (a value range across 0 is two)");
    const RawF32File outputs(a.outputs, opt.ranges[0].size());
    r = sweep(*f, BufferSubject(opt.ranges[0], outputs.values().data()), opt);
    bar.finish();
    label = "(outputs from " + a.outputs + ")";
  }
  if (a.json) {
    auto j = sweep_to_json(r);
    if (!variants.empty()) {
      auto arr = nlohmann::json::array();
      for (const auto& [vl, vr] : variants) {
        nlohmann::json e;
        e["model"] = vl;
        e["not_correctly_rounded"] = vr.not_correctly_rounded;
        e["wrong_class"] = vr.wrong_class;
        e["max_ulp"] = vr.max_ulp ? nlohmann::json(*vr.max_ulp) : nlohmann::json(nullptr);
        arr.push_back(e);
      }
      j["model_variants"] = arr;
      j["max_ulp_over_models"] = max_ulp_over_models;
    }
    j["implementation"] = a.impl.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.impl);
    j["outputs_file"] = a.outputs.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.outputs);
    j["scope"] = scope;
    fmt::print("{}\n", j.dump(2));
  } else {
    print_human(r, label, scope);
    if (!variants.empty()) {
      fmt::print("\n  with the modelled instructions perturbed (bounds for hardware within 1 ulp):\n");
      for (const auto& [vl, vr] : variants)
        fmt::print("    {:<34} not CR {:>13L}   wrong class {:>9L}   max error {:.6f} ulp\n", vl,
                   vr.not_correctly_rounded, vr.wrong_class, vr.max_ulp.value_or(0.0));
      fmt::print("    {:<34} {:.6f} ulp\n", "max error over the three models", max_ulp_over_models);
    }
  }
  return kExitOk;
}

}  // namespace

Command add_score_command(CLI::App& root) {
  auto args = std::make_shared<ScoreArgs>();
  CLI::App* app = root.add_subcommand("score", "Score a float(float) function against the MPFR oracle");
  app->footer(
      "Scores each result against the correctly rounded value (round to nearest even): counts the\n"
      "results that are not correctly rounded and those of the wrong class (NaN vs number, finite\n"
      "where an exact infinity is due), the max error in ulps of the exact value's binade, a ulp\n"
      "histogram, and a table of special inputs. Without --range or --exhaustive it scores a sample\n"
      "(every 251st encoding). Exit status: 0 the sweep ran, 2 error.\n"
      "Examples:\n"
      "  samebits score expf --impl glibc --exhaustive\n"
      "  samebits score logf --impl glibc --range 0.5:2 --json\n"
      "  samebits score expf --outputs gpu_out.f32 --range 0x00000000:0x7f800000");
  app->add_option("FUNC", args->func, "function: expf exp2f exp10f logf log2f log10f");
  app->add_option("--impl", args->impl, "implementation PERSONALITY[:VARIANT] (see --list)");
  app->add_option("--range", args->range,
                  "inputs A:B: encodings (0x00800000:0x7f7fffff) or float values (-1.5:0x1p3)");
  app->add_flag("--exhaustive", args->exhaustive, "all 2^32 inputs");
  app->add_option("--stride", args->stride, "score every Nth encoding of the range")->check(CLI::PositiveNumber);
  app->add_option("--outputs", args->outputs,
                  "score results computed elsewhere: raw little-endian float32, one per input of the range");
  app->add_option("--threads", args->threads, "worker threads (default: all cores)");
  app->add_flag("--json", args->json, "print one JSON document instead of the table");
  app->add_flag("--no-filter", args->no_filter, "call MPFR for every input (slow; checks the filter)");
  app->add_flag("--no-variants", args->no_variants,
                "skip the model variants (hipcc: v_exp/v_log one ulp up and down), which score again and, "
                "being off on most inputs, are slow over all 2^32 inputs");
  app->add_flag("--list", args->list, "list the implementations");
  app->add_flag("-q,--quiet", args->quiet, "no progress on stderr");
  return {app, [args] { return run_score(*args); }};
}

}  // namespace samebits::cli
