// `samebits sparse-mla` — the DeepSeek-V4 sparse MLA contract's CPU reference
// (docs/kernels/sparse_mla.md) on one shape: its accuracy against the
// high-precision oracle per tensor (max error and cosine), both lse
// conventions, and the contract fingerprint. The lists are the op's: a window
// of each token's preceding rows, then pool rows, with holes, a fully masked
// token and a duplicate. (The GPU kernels are compared with the reference by
// tests/device/kernels/sparse_mla_check.cu.)
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "kernel_errors.hpp"
#include "samebits/kernels/sparse_mla/reference_api.hpp"

namespace samebits::cli {

namespace {

namespace ka = samebits::kernels::attention;
namespace km = samebits::kernels::sparse_mla;
namespace kn = samebits::kernels;

struct SparseOptions {
  int tokens = 128, heads = 16, d = 512, topk = 128, pool = 128, window = 64;
  bool sink = true;
  ka::Libm libm = ka::Libm::nvcc;
  kn::DType dtype = kn::DType::bf16;
  ka::Precision oracle = ka::Precision::f64;
  unsigned seed = 1, threads = 0;
};

struct SparseSummary {
  SparseOptions options;
  std::string fingerprint;
  double forward_seconds = 0, backward_seconds = 0, oracle_seconds = 0;
  std::int64_t holes = 0, masked_tokens = 0;
  std::vector<TensorError> errors;
};

SparseSummary run(const SparseOptions& opt) {
  if (opt.d != 512 && opt.d != 128) throw std::invalid_argument("--d " + std::to_string(opt.d) + ": 512 (or 128)");
  if (opt.tokens <= 0 || opt.heads <= 0 || opt.topk <= 0 || opt.pool < 0 || opt.window < 0 || opt.window > opt.topk)
    throw std::invalid_argument("need --tokens, --heads, --topk > 0, --pool >= 0 and 0 <= --window <= --topk");
  km::Problem p;
  p.tokens = opt.tokens;
  p.num_kv = opt.tokens + opt.pool;
  p.heads = opt.heads;
  p.d = opt.d;
  p.topk = opt.topk;
  p.scale = ka::default_scale(opt.d);
  std::mt19937 rng(opt.seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::bernoulli_distribution hole(0.1);
  std::uniform_int_distribution<std::int64_t> pool_row(opt.tokens, std::max<std::int64_t>(opt.tokens, p.num_kv - 1));
  std::uniform_int_distribution<std::int64_t> any_row(0, p.num_kv - 1);
  SparseSummary s;
  p.indices.resize(static_cast<std::size_t>(p.tokens) * p.topk);
  for (std::int64_t t = 0; t < p.tokens; ++t)
    for (int k = 0; k < p.topk; ++k) {
      std::int64_t i = k < opt.window ? t - k : opt.pool > 0 ? pool_row(rng) : any_row(rng);
      if (i < 0 || hole(rng)) i = -1;
      p.indices[t * p.topk + k] = static_cast<std::int32_t>(i);
    }
  if (p.tokens > 2) {
    for (int k = 0; k < p.topk; ++k) p.indices[(p.tokens / 2) * p.topk + k] = -1;
    s.masked_tokens = 1;
  }
  if (p.topk >= 2) p.indices[1] = p.indices[0] >= 0 ? p.indices[0] : 0;
  for (auto i : p.indices) s.holes += i < 0;
  if (opt.sink) {
    p.sink.resize(p.heads);
    for (auto& x : p.sink) x = nd(rng);
  }
  auto draw = [&](std::size_t n) {
    std::vector<float> x(n);
    for (auto& e : x) e = nd(rng);
    return through_dtype(x, opt.dtype);
  };
  const std::size_t nq = static_cast<std::size_t>(p.tokens) * p.heads * p.d, nkv = static_cast<std::size_t>(p.num_kv) * p.d,
                    nl = static_cast<std::size_t>(p.tokens) * p.heads;
  const auto q = draw(nq), kv = draw(nkv), dout = draw(nq);

  s.options = opt;
  s.fingerprint = km::fingerprint(ka::Policy::fma_chain, opt.libm);
  std::vector<float> o(nq), lse(nl), lse_excl(nl), dq(nq), dkv(nkv), dsink(p.heads, 0.0f);
  const auto t0 = std::chrono::steady_clock::now();
  km::reference_forward(opt.libm, p, q.data(), kv.data(), o.data(), lse.data(), lse_excl.data(), opt.threads);
  const auto t1 = std::chrono::steady_clock::now();
  const auto o_stored = through_dtype(o, opt.dtype);
  km::reference_backward(opt.libm, p, q.data(), kv.data(), o_stored.data(), dout.data(), lse.data(), dq.data(),
                         dkv.data(), dsink.data(), opt.threads);
  const auto t2 = std::chrono::steady_clock::now();
  s.forward_seconds = std::chrono::duration<double>(t1 - t0).count();
  s.backward_seconds = std::chrono::duration<double>(t2 - t1).count();

  std::vector<double> ro(nq), rl(nl), rdq(nq), rdkv(nkv), rds(p.heads);
  const auto t3 = std::chrono::steady_clock::now();
  km::oracle_forward(opt.oracle, p, q.data(), kv.data(), ro.data(), rl.data(), opt.threads);
  km::oracle_backward(opt.oracle, p, q.data(), kv.data(), dout.data(), rdq.data(), rdkv.data(), rds.data(),
                      opt.threads);
  s.oracle_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t3).count();
  s.errors.push_back(error_of("o (fp32)", o, ro));
  s.errors.push_back(error_of(std::string("o (") + kn::dtype_name(opt.dtype) + ")", o_stored, ro));
  s.errors.push_back(error_of(opt.sink ? "lse (sink-inclusive)" : "lse", lse, rl));
  const std::string stored = std::string("(o as ") + kn::dtype_name(opt.dtype) + ")";
  s.errors.push_back(error_of("dq " + stored, dq, rdq));
  s.errors.push_back(error_of("dkv " + stored, dkv, rdkv));
  if (opt.sink) s.errors.push_back(error_of("d_sink " + stored, dsink, rds));
  return s;
}

nlohmann::ordered_json to_json(const SparseSummary& s) {
  const auto& o = s.options;
  nlohmann::ordered_json j;
  j["fingerprint"] = s.fingerprint;
  j["shape"] = {{"tokens", o.tokens}, {"heads", o.heads}, {"d", o.d},         {"topk", o.topk},
                {"pool", o.pool},     {"window", o.window}, {"sink", o.sink}, {"dtype", kn::dtype_name(o.dtype)}};
  j["lists"] = {{"holes", s.holes}, {"fully_masked_tokens", s.masked_tokens}, {"duplicates", 1}};
  j["seed"] = o.seed;
  j["oracle"] = ka::precision_name(o.oracle);
  j["seconds"] = {{"reference_forward", s.forward_seconds},
                  {"reference_backward", s.backward_seconds},
                  {"oracle", s.oracle_seconds}};
  auto& e = j["error_vs_oracle"];
  e = nlohmann::ordered_json::array();
  for (const auto& t : s.errors)
    e.push_back({{"tensor", t.name},
                 {"elements", t.elements},
                 {"max_abs", t.max_abs},
                 {"max_rel_normwise", t.max_rel_normwise},
                 {"cosine", t.cosine}});
  return j;
}

void print(std::ostream& out, const SparseSummary& s) {
  const auto& o = s.options;
  out << fmt::format("sparse MLA reference  T={} H={} D={} topk={} (window {} + pool {}) {} {}  inputs N(0,1) seed {}\n",
                     o.tokens, o.heads, o.d, o.topk, o.window, o.pool, o.sink ? "sink" : "no sink",
                     kn::dtype_name(o.dtype), o.seed);
  out << fmt::format("  lists      {} holes, {} fully masked token, 1 duplicate\n", s.holes, s.masked_tokens);
  out << fmt::format("  contract   {}\n", s.fingerprint);
  out << fmt::format("  time       forward {:.3f} s, backward {:.3f} s (CPU reference); oracle ({}) {:.3f} s\n",
                     s.forward_seconds, s.backward_seconds, ka::precision_name(o.oracle), s.oracle_seconds);
  out << fmt::format("  {:<22} {:>10} {:>12} {:>18} {:>12}\n", "tensor", "elements", "max |err|", "max |err|/max|ref|",
                     "1 - cosine");
  for (const auto& t : s.errors)
    out << fmt::format("  {:<22} {:>10} {:>12.3e} {:>18.3e} {:>12.3e}\n", t.name, t.elements, t.max_abs,
                       t.max_rel_normwise, 1.0 - t.cosine);
}

}  // namespace

Command add_sparse_mla_command(CLI::App& root) {
  auto opt = std::make_shared<SparseOptions>();
  auto json = std::make_shared<bool>(false);
  auto libm = std::make_shared<std::string>("nvcc");
  auto dtype = std::make_shared<std::string>("bf16");
  auto oracle = std::make_shared<std::string>("f64");
  CLI::App* app = root.add_subcommand(
      "sparse-mla",
      "DeepSeek-V4 sparse MLA (docs/kernels/sparse_mla.md): run the CPU reference on one shape (top-k slot lists "
      "with holes, K == V, sink) and measure its error against the high-precision oracle (o, lse; dq, dkv, d_sink).");
  app->add_option("--tokens", opt->tokens, "Query tokens T")->capture_default_str();
  app->add_option("--heads", opt->heads, "Query heads H")->capture_default_str();
  app->add_option("--d", opt->d, "Head dimension: 512 (128: the dense-equality instantiation)")->capture_default_str();
  app->add_option("--topk", opt->topk, "Slots per token")->capture_default_str();
  app->add_option("--window", opt->window, "Slots 0..window-1: the token's preceding rows")->capture_default_str();
  app->add_option("--pool", opt->pool, "Compressed pool rows after the T token rows (the other slots)")
      ->capture_default_str();
  app->add_flag("--sink,!--no-sink", opt->sink, "An attention sink per head (default on)");
  app->add_option("--libm", *libm, "exp/log of the binary32 core: nvcc or cr")
      ->check(CLI::IsMember({"nvcc", "cr"}))
      ->capture_default_str();
  app->add_option("--dtype", *dtype, "Input/output dtype: bf16 or f32")
      ->check(CLI::IsMember({"bf16", "f32"}))
      ->capture_default_str();
  app->add_option("--oracle", *oracle, "High-precision reference: f64 or mpfr (128-bit, slow)")
      ->check(CLI::IsMember({"f64", "mpfr"}))
      ->capture_default_str();
  app->add_option("--seed", opt->seed, "Random seed of the inputs and lists")->capture_default_str();
  app->add_option("--threads", opt->threads, "Worker threads (0: all cores)")->capture_default_str();
  app->add_flag("--json", *json, "Print one JSON object instead of the table");
  return {app, [=]() {
            opt->libm = *libm == "cr" ? ka::Libm::cr : ka::Libm::nvcc;
            opt->dtype = *dtype == "f32" ? kn::DType::f32 : kn::DType::bf16;
            opt->oracle = *oracle == "mpfr" ? ka::Precision::mpfr128 : ka::Precision::f64;
            const SparseSummary s = run(*opt);
            if (*json)
              std::cout << to_json(s).dump(2) << '\n';
            else
              print(std::cout, s);
            return kExitOk;
          }};
}

}  // namespace samebits::cli
