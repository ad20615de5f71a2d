// The sparse MLA CPU reference (docs/kernels/sparse_mla.md): an instance of
// the attention reference. Checks what the contract fixes — holes keep their
// slot and take part in nothing, fully masked rows, the sink and both lse
// conventions, duplicates, index errors, the contributor-major dkv — its
// accuracy against the oracle, and equality with the dense reference on
// causal lists (o, lse, dq; not dkv: §6 says why). Every bitwise check has a
// planted-change negative control.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "samebits/kernels/attention/reference_api.hpp"
#include "samebits/kernels/sparse_mla/reference_api.hpp"

namespace {

namespace sm = samebits::kernels::sparse_mla;
namespace at = samebits::kernels::attention;
using at::Libm;

std::uint32_t bits(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}
std::size_t mismatches(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  std::size_t c = 0;
  for (std::size_t i = 0; i < a.size(); ++i) c += bits(a[i]) != bits(b[i]);
  return c;
}
// The comparison finds a one-ulp change planted in a copy (negative control).
void require_control(const std::vector<float>& a) {
  std::vector<float> b = a;
  std::uint32_t x = bits(b[b.size() / 2]) ^ 1u;
  std::memcpy(&b[b.size() / 2], &x, 4);
  REQUIRE(mismatches(a, b) == 1);
}

struct Case {
  sm::Problem p;
  std::vector<float> q, kv, dout;
};

Case make(std::int64_t tokens, std::int64_t num_kv, int heads, int d, int topk, unsigned seed, bool sink) {
  Case c;
  c.p.tokens = tokens;
  c.p.num_kv = num_kv;
  c.p.heads = heads;
  c.p.d = d;
  c.p.topk = topk;
  c.p.scale = at::default_scale(d);
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::uniform_int_distribution<int> pick(0, static_cast<int>(num_kv - 1));
  c.p.indices.resize(tokens * topk);
  for (auto& i : c.p.indices) i = pick(rng);
  if (sink) {
    c.p.sink.resize(heads);
    for (auto& s : c.p.sink) s = nd(rng);
  }
  c.q.resize(tokens * heads * d);
  c.dout.resize(c.q.size());
  c.kv.resize(num_kv * d);
  for (auto* x : {&c.q, &c.kv, &c.dout})
    for (auto& e : *x) e = nd(rng);
  return c;
}

struct Out {
  std::vector<float> o, lse, lse_excl, dq, dkv, dsink;
};
Out run(const Case& c, Libm libm, unsigned threads = 0) {
  Out r;
  const auto& p = c.p;
  r.o.resize(c.q.size());
  r.lse.resize(p.tokens * p.heads);
  r.lse_excl.resize(r.lse.size());
  r.dq.resize(c.q.size());
  r.dkv.resize(c.kv.size());
  r.dsink.assign(p.heads, 0.0f);
  sm::reference_forward(libm, p, c.q.data(), c.kv.data(), r.o.data(), r.lse.data(), r.lse_excl.data(), threads);
  sm::reference_backward(libm, p, c.q.data(), c.kv.data(), r.o.data(), c.dout.data(), r.lse.data(), r.dq.data(),
                         r.dkv.data(), r.dsink.data(), threads);
  return r;
}

double rel_err(const std::vector<float>& a, const std::vector<double>& ref) {
  double m = 0, n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    m = std::max(m, std::fabs(a[i] - ref[i]));
    n = std::max(n, std::fabs(ref[i]));
  }
  return n > 0 ? m / n : m;
}

}  // namespace

TEST_CASE("sparse MLA reference: accurate against the binary64 and MPFR oracles", "[kernels][sparse_mla]") {
  Case c = make(40, 300, 4, 128, 80, 7, true);
  for (int i = 0; i < 80; i += 7) c.p.indices[3 * 80 + i] = -1;  // holes
  c.p.indices[5 * 80 + 10] = c.p.indices[5 * 80 + 11];            // a duplicate
  const Out r = run(c, Libm::cr);
  for (auto prec : {at::Precision::f64, at::Precision::mpfr128}) {
    std::vector<double> o(c.q.size()), lse(c.p.tokens * c.p.heads), dq(c.q.size()), dkv(c.kv.size()),
        dsink(c.p.heads);
    sm::oracle_forward(prec, c.p, c.q.data(), c.kv.data(), o.data(), lse.data());
    sm::oracle_backward(prec, c.p, c.q.data(), c.kv.data(), c.dout.data(), dq.data(), dkv.data(), dsink.data());
    INFO(at::precision_name(prec));
    CHECK(rel_err(r.o, o) < 1e-5);
    CHECK(rel_err(r.lse, lse) < 1e-6);
    CHECK(rel_err(r.dq, dq) < 1e-4);
    CHECK(rel_err(r.dkv, dkv) < 1e-4);
    CHECK(rel_err(r.dsink, dsink) < 1e-4);
  }
}

TEST_CASE("sparse MLA reference: thread count changes nothing", "[kernels][sparse_mla]") {
  const Case c = make(33, 100, 8, 64, 70, 3, true);
  const Out a = run(c, Libm::nvcc, 1), b = run(c, Libm::nvcc, 3);
  for (auto [x, y] : {std::pair{&a.o, &b.o}, {&a.lse, &b.lse}, {&a.dq, &b.dq}, {&a.dkv, &b.dkv}, {&a.dsink, &b.dsink}})
    CHECK(mismatches(*x, *y) == 0);
  require_control(a.dkv);
}

TEST_CASE("sparse MLA reference: a hole keeps its slot and takes part in nothing", "[kernels][sparse_mla]") {
  // Hole slots and kv rows no slot names hold NaN: a hole must read nothing.
  Case c = make(6, 400, 4, 64, 128, 11, false);
  for (int s = 5; s < 128; s += 9) c.p.indices[2 * 128 + s] = -1;
  const Out clean = run(c, Libm::nvcc);
  // Poison every kv row that no slot names: results unchanged.
  std::vector<bool> named(c.p.num_kv, false);
  for (auto i : c.p.indices)
    if (i >= 0) named[i] = true;
  Case poisoned = c;
  int poisoned_rows = 0;
  for (std::int64_t r = 0; r < c.p.num_kv; ++r)
    if (!named[r]) {
      for (int e = 0; e < c.p.d; ++e) poisoned.kv[r * c.p.d + e] = std::nanf("");
      ++poisoned_rows;
    }
  const Out dirty = run(poisoned, Libm::nvcc);
  CHECK(mismatches(clean.o, dirty.o) == 0);
  CHECK(mismatches(clean.dq, dirty.dq) == 0);
  // dkv of unnamed rows is +0 in both (the NaN inputs are never read).
  CHECK(mismatches(clean.dkv, dirty.dkv) == 0);
  require_control(clean.o);
  CHECK(poisoned_rows > 0);
}

TEST_CASE("sparse MLA reference: fully masked rows, with and without a sink", "[kernels][sparse_mla]") {
  for (bool sink : {false, true}) {
    Case c = make(4, 50, 4, 64, 64, 5, sink);
    for (int s = 0; s < 64; ++s) c.p.indices[1 * 64 + s] = -1;  // token 1: every slot a hole
    const Out r = run(c, Libm::cr);
    const std::size_t row = static_cast<std::size_t>(c.p.heads) * c.p.d;
    for (std::size_t i = row; i < 2 * row; ++i) {
      REQUIRE(bits(r.o[i]) == 0u);   // +0
      REQUIRE(bits(r.dq[i]) == 0u);  // +0
    }
    for (int h = 0; h < c.p.heads; ++h) {
      const float lse = r.lse[1 * c.p.heads + h], lse_excl = r.lse_excl[1 * c.p.heads + h];
      CHECK(bits(lse_excl) == 0xff800000u);                               // -inf
      CHECK(bits(lse) == (sink ? bits(c.p.sink[h]) : 0xff800000u));       // sigma, or -inf
    }
  }
}

TEST_CASE("sparse MLA reference: lse conventions computed apart", "[kernels][sparse_mla]") {
  Case c = make(10, 90, 4, 64, 64, 9, true);
  const Out with = run(c, Libm::cr);
  Case none = c;
  none.p.sink.clear();
  const Out without = run(none, Libm::cr);
  // Sink-exclusive lse and o before the sink are the no-sink run's lse.
  CHECK(mismatches(with.lse_excl, without.lse) == 0);
  CHECK(mismatches(without.lse_excl, without.lse) == 0);
  CHECK(mismatches(with.lse, without.lse) > 0);  // the sink counts in the inclusive one
  require_control(with.lse_excl);
}

TEST_CASE("sparse MLA reference: causal lists equal the dense reference (o, lse, dq)", "[kernels][sparse_mla]") {
  // attention.md as one instance: token t's list = keys 0..t then -1 tails;
  // dense causal with Hkv = 1, K = V = kv. dkv differs by contract (§6).
  for (int heads : {2, 5}) {
    const int T = 150, d = 128, topk = 192;
    Case c = make(T, T, heads, d, topk, 13, false);
    for (int t = 0; t < T; ++t)
      for (int s = 0; s < topk; ++s) c.p.indices[t * topk + s] = s <= t ? s : -1;
    const Out sp = run(c, Libm::nvcc);
    at::DenseProblem dp;
    dp.cu_q = {0, T};
    dp.cu_k = {0, T};
    dp.hq = heads;
    dp.hkv = 1;
    dp.d = d;
    dp.causal = true;
    dp.scale = c.p.scale;
    std::vector<float> o(c.q.size()), lse(T * heads), dq(c.q.size()), dk(c.kv.size()), dv(c.kv.size());
    at::reference_forward(Libm::nvcc, dp, c.q.data(), c.kv.data(), c.kv.data(), o.data(), lse.data());
    at::reference_backward(Libm::nvcc, dp, c.q.data(), c.kv.data(), c.kv.data(), o.data(), c.dout.data(), lse.data(),
                           dq.data(), dk.data(), dv.data());
    CHECK(mismatches(sp.o, o) == 0);
    CHECK(mismatches(sp.lse, lse) == 0);
    CHECK(mismatches(sp.dq, dq) == 0);
    require_control(sp.dq);
  }
}

TEST_CASE("sparse MLA reference: duplicates count per slot in dkv", "[kernels][sparse_mla]") {
  // kv row 7 is named by both tokens, twice each (duplicate slots count once
  // per slot): its dkv sums four contributors; against the oracle.
  Case c = make(2, 8, 3, 64, 64, 21, false);
  for (int t = 0; t < 2; ++t)
    for (int s = 0; s < 64; ++s) c.p.indices[t * 64 + s] = s < 2 ? 7 : (s % 7);
  const Out r = run(c, Libm::cr);
  std::vector<double> dq(c.q.size()), dkv(c.kv.size()), dsink(c.p.heads);
  sm::oracle_backward(at::Precision::f64, c.p, c.q.data(), c.kv.data(), c.dout.data(), dq.data(), dkv.data(),
                      dsink.data());
  CHECK(rel_err(r.dkv, dkv) < 1e-4);
  std::size_t nonzero = 0;
  for (int e = 0; e < c.p.d; ++e) nonzero += r.dkv[7 * c.p.d + e] != 0.0f;
  CHECK(nonzero == static_cast<std::size_t>(c.p.d));
}

TEST_CASE("sparse MLA reference: index errors are refused by name", "[kernels][sparse_mla]") {
  Case c = make(3, 10, 2, 64, 64, 1, false);
  c.p.indices[1 * 64 + 5] = 10;  // == num_kv
  REQUIRE_THROWS_WITH(run(c, Libm::nvcc), Catch::Contains("index 10 at token 1, slot 5"));
  c.p.indices[1 * 64 + 5] = -2;
  REQUIRE_THROWS_WITH(run(c, Libm::nvcc), Catch::Contains("index -2 at token 1, slot 5"));
  c.p.indices[1 * 64 + 5] = -1;
  c.p.sink = {1.0f};  // 1 entry for 2 heads
  REQUIRE_THROWS_WITH(run(c, Libm::nvcc), Catch::Contains("sink must hold heads entries"));
}
