// `samebits attention` — the attention contract's CPU reference on one shape:
// its accuracy against the high-precision oracle, per tensor, and the
// contract fingerprint. (With a CUDA build on a GPU machine the kernels are
// compared with it by tests/device/kernels/; see docs/kernels/attention.md.)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "attention_summary.hpp"
#include "kernel_errors.hpp"
#include "commands.hpp"
#include "samebits/kernels/attention/reference_api.hpp"
#include "samebits/kernels/dtype.hpp"

namespace samebits::cli {

namespace ka = samebits::kernels::attention;
namespace kn = samebits::kernels;

AttentionSummary run_attention_reference(const AttentionOptions& opt) {
  if (opt.d != 64 && opt.d != 128) throw std::invalid_argument("--d " + std::to_string(opt.d) + ": supported head dims are 64 and 128");
  if (opt.hq <= 0 || opt.hkv <= 0 || opt.hq % opt.hkv != 0)
    throw std::invalid_argument("--hq " + std::to_string(opt.hq) + " --hkv " + std::to_string(opt.hkv) +
                                ": need hq > 0, hkv > 0 and hq % hkv == 0");
  if (opt.seqlen <= 0) throw std::invalid_argument("--seqlen must be positive");
  ka::DenseProblem p;
  p.cu_q = {0, opt.seqlen};
  p.cu_k = {0, opt.seqlen};
  p.hq = opt.hq;
  p.hkv = opt.hkv;
  p.d = opt.d;
  p.causal = opt.causal;
  p.scale = ka::default_scale(opt.d);
  p.policy = opt.policy;
  p.in_dtype = opt.dtype;  // read by sm90-tensor-core (bf16 or fp16: refused otherwise)
  ka::check_policy(p);
  const std::size_t nq = static_cast<std::size_t>(p.rows()) * p.hq * p.d;
  const std::size_t nk = static_cast<std::size_t>(p.kv_rows()) * p.hkv * p.d;
  const std::size_t nl = static_cast<std::size_t>(p.rows()) * p.hq;

  // Inputs: normal(0, 1) draws rounded to the dtype (what a bf16 model holds).
  std::mt19937 rng(opt.seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  auto draw = [&](std::size_t n) {
    std::vector<float> x(n);
    for (auto& e : x) e = nd(rng);
    return through_dtype(x, opt.dtype);
  };
  const auto q = draw(nq), k = draw(nk), v = draw(nk), dout = draw(nq);

  AttentionSummary s;
  s.options = opt;
  s.fingerprint = ka::fingerprint(p, opt.libm);
  std::vector<float> o(nq), lse(nl), dq(nq), dk(nk), dv(nk);
  const auto t0 = std::chrono::steady_clock::now();
  ka::reference_forward(opt.libm, p, q.data(), k.data(), v.data(), o.data(), lse.data(), opt.threads);
  const auto t1 = std::chrono::steady_clock::now();
  // The backward takes o as the caller stores it: rounded to the dtype.
  const auto o_stored = through_dtype(o, opt.dtype);
  ka::reference_backward(opt.libm, p, q.data(), k.data(), v.data(), o_stored.data(), dout.data(), lse.data(),
                         dq.data(), dk.data(), dv.data(), opt.threads);
  const auto t2 = std::chrono::steady_clock::now();
  s.forward_seconds = std::chrono::duration<double>(t1 - t0).count();
  s.backward_seconds = std::chrono::duration<double>(t2 - t1).count();

  std::vector<double> ro(nq), rl(nl), rdq(nq), rdk(nk), rdv(nk);
  const auto t3 = std::chrono::steady_clock::now();
  ka::oracle_forward(opt.oracle, p, q.data(), k.data(), v.data(), ro.data(), rl.data(), opt.threads);
  ka::oracle_backward(opt.oracle, p, q.data(), k.data(), v.data(), dout.data(), rdq.data(), rdk.data(), rdv.data(),
                      opt.threads);
  s.oracle_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t3).count();

  s.errors.push_back(error_of("o (fp32)", o, ro));
  s.errors.push_back(error_of(std::string("o (") + kn::dtype_name(opt.dtype) + ")", o_stored, ro));
  s.errors.push_back(error_of("lse", lse, rl));
  const std::string stored = std::string("(o as ") + kn::dtype_name(opt.dtype) + ")";
  s.errors.push_back(error_of("dq " + stored, dq, rdq));
  s.errors.push_back(error_of("dk " + stored, dk, rdk));
  s.errors.push_back(error_of("dv " + stored, dv, rdv));
  if (opt.dtype != kn::DType::f32) {
    // The same backward from the binary32 o: what the core's arithmetic adds,
    // without the input rounding of o (delta = rowsum(dO * o) takes o as stored).
    ka::reference_backward(opt.libm, p, q.data(), k.data(), v.data(), o.data(), dout.data(), lse.data(), dq.data(),
                           dk.data(), dv.data(), opt.threads);
    s.errors.push_back(error_of("dq (o as fp32)", dq, rdq));
    s.errors.push_back(error_of("dk (o as fp32)", dk, rdk));
    s.errors.push_back(error_of("dv (o as fp32)", dv, rdv));
  }
  return s;
}

nlohmann::ordered_json attention_summary_json(const AttentionSummary& s) {
  nlohmann::ordered_json j;
  j["fingerprint"] = s.fingerprint;
  j["shape"] = {{"seqlen", s.options.seqlen}, {"hq", s.options.hq},       {"hkv", s.options.hkv},
                {"d", s.options.d},           {"causal", s.options.causal}, {"dtype", kn::dtype_name(s.options.dtype)}};
  j["seed"] = s.options.seed;
  j["oracle"] = ka::precision_name(s.options.oracle);
  j["seconds"] = {{"reference_forward", s.forward_seconds},
                  {"reference_backward", s.backward_seconds},
                  {"oracle", s.oracle_seconds}};
  auto& e = j["error_vs_oracle"];
  e = nlohmann::ordered_json::array();
  for (const auto& t : s.errors)
    e.push_back({{"tensor", t.name}, {"elements", t.elements}, {"max_abs", t.max_abs}, {"max_rel_normwise", t.max_rel_normwise}});
  return j;
}

void print_attention_summary(std::ostream& out, const AttentionSummary& s) {
  const auto& o = s.options;
  out << fmt::format("attention reference  S={} Hq={} Hkv={} D={} {} {}  inputs N(0,1) seed {}\n", o.seqlen, o.hq,
                     o.hkv, o.d, o.causal ? "causal" : "not causal", kn::dtype_name(o.dtype), o.seed);
  out << fmt::format("  contract   {}\n", s.fingerprint);
  out << fmt::format("  time       forward {:.3f} s, backward {:.3f} s (CPU reference); oracle ({}) {:.3f} s\n",
                     s.forward_seconds, s.backward_seconds, ka::precision_name(o.oracle), s.oracle_seconds);
  out << fmt::format("  {:<20} {:>12} {:>14} {:>18}\n", "tensor", "elements", "max |err|", "max |err|/max|ref|");
  for (const auto& t : s.errors)
    out << fmt::format("  {:<20} {:>12} {:>14.3e} {:>18.3e}\n", t.name, t.elements, t.max_abs, t.max_rel_normwise);
}

Command add_attention_command(CLI::App& root) {
  auto opt = std::make_shared<AttentionOptions>();
  auto json = std::make_shared<bool>(false);
  auto libm = std::make_shared<std::string>("nvcc");
  auto dtype = std::make_shared<std::string>("bf16");
  auto oracle = std::make_shared<std::string>("f64");
  auto policy = std::make_shared<std::string>("fma-chain");
  CLI::App* app = root.add_subcommand(
      "attention",
      "Deterministic attention (docs/kernels/attention.md): run the CPU reference on one shape and measure its "
      "error against the high-precision oracle (forward o, lse; backward dq, dk, dv).");
  app->add_option("--seqlen", opt->seqlen, "Query and key length (one sequence)")->capture_default_str();
  app->add_option("--hq", opt->hq, "Query heads")->capture_default_str();
  app->add_option("--hkv", opt->hkv, "Key/value heads (hq % hkv == 0)")->capture_default_str();
  app->add_option("--d", opt->d, "Head dimension: 64 or 128")->capture_default_str();
  app->add_flag("--causal,!--no-causal", opt->causal, "Causal mask, bottom-right aligned (default on)");
  app->add_option("--libm", *libm,
                  "exp/log of the binary32 core: nvcc (CUDA's bits), cr (correctly rounded) or nvcc-fast "
                  "(nvcc -use_fast_math's expf/logf; policy sm90-tensor-core only)")
      ->check(CLI::IsMember({"nvcc", "cr", "nvcc-fast"}))
      ->capture_default_str();
  app->add_option("--policy", *policy,
                  "Arithmetic policy: fma-chain (attention.md §7) or sm90-tensor-core (attention-tc.md: the "
                  "tensor-core model with its default parameters; bf16/fp16 only)")
      ->check(CLI::IsMember({"fma-chain", "sm90-tensor-core"}))
      ->capture_default_str();
  app->add_option("--dtype", *dtype, "Input/output dtype: bf16, fp16, f32")
      ->check(CLI::IsMember({"bf16", "fp16", "f32"}))
      ->capture_default_str();
  app->add_option("--oracle", *oracle, "High-precision reference: f64 (binary64) or mpfr (128-bit, slow)")
      ->check(CLI::IsMember({"f64", "mpfr"}))
      ->capture_default_str();
  app->add_option("--seed", opt->seed, "Random seed of the inputs")->capture_default_str();
  app->add_option("--threads", opt->threads, "Worker threads (0: all cores)")->capture_default_str();
  app->add_flag("--json", *json, "Print one JSON object instead of the table");
  return {app, [=]() {
            ka::libm_from_name(*libm, opt->libm);  // the check above admits only the three names
            opt->dtype = *dtype == "f32" ? kn::DType::f32 : *dtype == "fp16" ? kn::DType::f16 : kn::DType::bf16;
            opt->oracle = *oracle == "mpfr" ? ka::Precision::mpfr128 : ka::Precision::f64;
            opt->policy = *policy == "sm90-tensor-core" ? ka::Policy::sm90_tensor_core : ka::Policy::fma_chain;
            const AttentionSummary s = run_attention_reference(*opt);
            if (*json)
              std::cout << attention_summary_json(s).dump(2) << '\n';
            else
              print_attention_summary(std::cout, s);
            return kExitOk;
          }};
}

}  // namespace samebits::cli
