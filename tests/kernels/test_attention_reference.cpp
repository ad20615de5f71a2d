// The CPU reference of docs/kernels/attention.md: its conversions, its
// accuracy against the high-precision oracle, and the invariances the
// contract gives by construction (prefill = chunked = decode, batch, head
// split), each compared by encoding with a planted-change negative control.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "samebits/kernels/attention/reference_api.hpp"
#include "samebits/kernels/dtype.hpp"

#include "bitwise.hpp"

namespace {

using namespace samebits::kernels;
using namespace samebits::kernels::attention;

using samebits::tests::bits;
using samebits::tests::mismatches;

struct Inputs {
  DenseProblem p;
  std::vector<float> q, k, v, dout;
};

Inputs make(std::vector<std::int32_t> lq, std::vector<std::int32_t> lk, int hq, int hkv, int d, bool causal,
            unsigned seed) {
  Inputs in;
  for (std::size_t s = 0; s < lq.size(); ++s) {
    in.p.cu_q.push_back(in.p.cu_q.back() + lq[s]);
    in.p.cu_k.push_back(in.p.cu_k.back() + lk[s]);
  }
  in.p.hq = hq;
  in.p.hkv = hkv;
  in.p.d = d;
  in.p.causal = causal;
  in.p.scale = default_scale(d);
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  in.q.resize(in.p.rows() * hq * d);
  in.dout.resize(in.q.size());
  in.k.resize(in.p.kv_rows() * hkv * d);
  in.v.resize(in.k.size());
  for (auto* x : {&in.q, &in.k, &in.v, &in.dout})
    for (auto& e : *x) e = nd(rng);
  return in;
}

struct Outputs {
  std::vector<float> o, lse, dq, dk, dv;
};

Outputs run(const Inputs& in, Libm libm, unsigned threads = 0) {
  Outputs r;
  r.o.resize(in.q.size());
  r.lse.resize(in.p.rows() * in.p.hq);
  r.dq.resize(in.q.size());
  r.dk.resize(in.k.size());
  r.dv.resize(in.k.size());
  reference_forward(libm, in.p, in.q.data(), in.k.data(), in.v.data(), r.o.data(), r.lse.data(), threads);
  reference_backward(libm, in.p, in.q.data(), in.k.data(), in.v.data(), r.o.data(), in.dout.data(), r.lse.data(),
                     r.dq.data(), r.dk.data(), r.dv.data(), threads);
  return r;
}

double rel_err(const std::vector<float>& a, const std::vector<double>& ref) {
  double m = 0, n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    m = std::max(m, std::fabs(a[i] - ref[i]));
    n = std::max(n, std::fabs(ref[i]));
  }
  return m / n;
}

}  // namespace

TEST_CASE("bf16 and fp16 rounding: nearest even, canonical NaN, subnormals kept", "[kernels][dtype]") {
  // Every binary16 value widens exactly and rounds back to itself (NaN to canonical).
  for (std::uint32_t h = 0; h < 0x10000u; ++h) {
    const float f = f16_to_f32(static_cast<std::uint16_t>(h));
    const bool nan = (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu);
    CHECK(f32_to_f16(f) == (nan ? kCanonicalNaN16 : h));
    const float b = bf16_to_f32(static_cast<std::uint16_t>(h));
    const bool bnan = (h & 0x7f80u) == 0x7f80u && (h & 0x7fu);
    CHECK(f32_to_bf16(b) == (bnan ? kCanonicalNaN16 : h));
  }
#if defined(__FLT16_MANT_DIG__)
  // Against the compiler's own _Float16 conversion on a strided sample of all
  // binary32 encodings (every 4099th) plus the midpoints around each binade.
  std::size_t bad = 0;
  for (std::uint64_t u = 0; u <= 0xffffffffu; u += 4099) {
    float x;
    const std::uint32_t b = static_cast<std::uint32_t>(u);
    std::memcpy(&x, &b, 4);
    if (x != x) continue;
    const _Float16 h = static_cast<_Float16>(x);
    std::uint16_t hb;
    std::memcpy(&hb, &h, 2);
    bad += f32_to_f16(x) != hb;
  }
  CHECK(bad == 0);
#endif
  // bf16: ties to even at the half-way point, and carry into the exponent.
  CHECK(f32_to_bf16(samebits::fp::from_bits(0x3f808000u)) == 0x3f80);  // tie, even stays
  CHECK(f32_to_bf16(samebits::fp::from_bits(0x3f818000u)) == 0x3f82);  // tie, odd rounds up
  CHECK(f32_to_bf16(samebits::fp::from_bits(0x7f7fffffu)) == 0x7f80);  // overflow to inf
  CHECK(f32_to_bf16(samebits::fp::from_bits(0xffc00001u)) == kCanonicalNaN16);
  CHECK(bits(canonical(samebits::fp::from_bits(0xffc00001u))) == kCanonicalNaN32);
  CHECK(bits(canonical(-0.0f)) == 0x80000000u);
}

TEST_CASE("reference is accurate: binary32 core vs binary64 and MPFR oracles", "[kernels][attention]") {
  for (const bool causal : {false, true}) {
    for (const int d : {64, 128}) {
      const Inputs in = make({37, 5}, {37, 70}, 4, 2, d, causal, 7);
      for (const Libm libm : {Libm::nvcc, Libm::cr}) {
        const Outputs r = run(in, libm);
        const std::size_t nq = in.q.size(), nk = in.k.size(), nl = r.lse.size();
        std::vector<double> o(nq), lse(nl), dq(nq), dk(nk), dv(nk);
        oracle_forward(Precision::f64, in.p, in.q.data(), in.k.data(), in.v.data(), o.data(), lse.data());
        oracle_backward(Precision::f64, in.p, in.q.data(), in.k.data(), in.v.data(), in.dout.data(), dq.data(),
                        dk.data(), dv.data());
        INFO("causal " << causal << " d " << d << " libm " << libm_name(libm));
        CHECK(rel_err(r.o, o) < 2e-6);
        CHECK(rel_err(r.lse, lse) < 2e-6);
        CHECK(rel_err(r.dq, dq) < 1e-5);
        CHECK(rel_err(r.dk, dk) < 1e-5);
        CHECK(rel_err(r.dv, dv) < 1e-5);
      }
    }
  }
  // The binary64 oracle agrees with the MPFR one far below binary32's ulp.
  const Inputs in = make({20}, {20}, 2, 1, 64, true, 3);
  std::vector<double> a(in.q.size()), b(in.q.size()), la(20 * 2), lb(20 * 2);
  oracle_forward(Precision::f64, in.p, in.q.data(), in.k.data(), in.v.data(), a.data(), la.data());
  oracle_forward(Precision::mpfr128, in.p, in.q.data(), in.k.data(), in.v.data(), b.data(), lb.data());
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  CHECK(m < 1e-13);
}

TEST_CASE("reference: the result does not depend on the thread count", "[kernels][attention]") {
  const Inputs in = make({100, 33}, {120, 33}, 6, 3, 64, true, 11);
  const Outputs a = run(in, Libm::nvcc, 1), b = run(in, Libm::nvcc, 0);
  CHECK(mismatches(a.o.data(), b.o.data(), a.o.size()) == 0);
  CHECK(mismatches(a.dk.data(), b.dk.data(), a.dk.size()) == 0);
  CHECK(mismatches(a.dq.data(), b.dq.data(), a.dq.size()) == 0);
}

TEST_CASE("reference: prefill == chunked prefill == decode, per row (forward, dq)", "[kernels][attention]") {
  const int S = 150, hq = 4, hkv = 2, d = 64;
  const Inputs full = make({S}, {S}, hq, hkv, d, true, 5);
  const Outputs ref = run(full, Libm::nvcc);
  for (const int chunk : {1, 64, 100}) {
    std::size_t bad = 0;
    for (int start = 0; start < S; start += chunk) {
      const int n = std::min(chunk, S - start);
      // Queries start .. start+n-1 against keys 0 .. start+n-1 (a KV cache).
      Inputs part;
      part.p = full.p;
      part.p.cu_q = {0, n};
      part.p.cu_k = {0, start + n};
      part.q.assign(full.q.begin() + static_cast<std::ptrdiff_t>(start) * hq * d,
                    full.q.begin() + static_cast<std::ptrdiff_t>(start + n) * hq * d);
      part.dout.assign(full.dout.begin() + static_cast<std::ptrdiff_t>(start) * hq * d,
                       full.dout.begin() + static_cast<std::ptrdiff_t>(start + n) * hq * d);
      part.k.assign(full.k.begin(), full.k.begin() + static_cast<std::ptrdiff_t>(start + n) * hkv * d);
      part.v.assign(full.v.begin(), full.v.begin() + static_cast<std::ptrdiff_t>(start + n) * hkv * d);
      const Outputs r = run(part, Libm::nvcc);
      bad += mismatches(r.o.data(), ref.o.data() + static_cast<std::ptrdiff_t>(start) * hq * d, r.o.size());
      bad += mismatches(r.lse.data(), ref.lse.data() + static_cast<std::ptrdiff_t>(start) * hq, r.lse.size());
      bad += mismatches(r.dq.data(), ref.dq.data() + static_cast<std::ptrdiff_t>(start) * hq * d, r.dq.size());
    }
    INFO("chunk " << chunk);
    CHECK(bad == 0);
  }
  // Negative control: one ulp in one key changes some output.
  Inputs planted = full;
  planted.k[3 * hkv * d + 5] = std::nextafter(planted.k[3 * hkv * d + 5], 1e30f);
  const Outputs r = run(planted, Libm::nvcc);
  CHECK(mismatches(r.o.data(), ref.o.data(), r.o.size()) > 0);
}

TEST_CASE("reference: batch composition and head split change nothing", "[kernels][attention]") {
  const int hq = 6, hkv = 3, d = 64;
  const Inputs packed = make({40, 90, 1}, {40, 130, 7}, hq, hkv, d, true, 9);
  const Outputs all = run(packed, Libm::cr);
  // Sequence 1 alone.
  Inputs alone;
  alone.p = packed.p;
  alone.p.cu_q = {0, 90};
  alone.p.cu_k = {0, 130};
  auto slice = [](const std::vector<float>& x, std::int64_t row0, std::int64_t rows, std::int64_t width) {
    return std::vector<float>(x.begin() + row0 * width, x.begin() + (row0 + rows) * width);
  };
  alone.q = slice(packed.q, 40, 90, hq * d);
  alone.dout = slice(packed.dout, 40, 90, hq * d);
  alone.k = slice(packed.k, 40, 130, hkv * d);
  alone.v = slice(packed.v, 40, 130, hkv * d);
  const Outputs one = run(alone, Libm::cr);
  CHECK(mismatches(one.o.data(), all.o.data() + 40 * hq * d, one.o.size()) == 0);
  CHECK(mismatches(one.dq.data(), all.dq.data() + 40 * hq * d, one.dq.size()) == 0);
  CHECK(mismatches(one.dk.data(), all.dk.data() + 40 * hkv * d, one.dk.size()) == 0);
  CHECK(mismatches(one.dv.data(), all.dv.data() + 40 * hkv * d, one.dv.size()) == 0);

  // Kv head 1 alone (query heads 2, 3): a tensor-parallel shard.
  Inputs shard;
  shard.p = packed.p;
  shard.p.hq = 2;
  shard.p.hkv = 1;
  auto heads = [](const std::vector<float>& x, std::int64_t rows, int h_all, int h0, int hn, int dd) {
    std::vector<float> r;
    for (std::int64_t i = 0; i < rows; ++i)
      r.insert(r.end(), x.begin() + (i * h_all + h0) * dd, x.begin() + (i * h_all + h0 + hn) * dd);
    return r;
  };
  const std::int64_t rows = packed.p.rows(), kv_rows = packed.p.kv_rows();
  shard.q = heads(packed.q, rows, hq, 2, 2, d);
  shard.dout = heads(packed.dout, rows, hq, 2, 2, d);
  shard.k = heads(packed.k, kv_rows, hkv, 1, 1, d);
  shard.v = heads(packed.v, kv_rows, hkv, 1, 1, d);
  const Outputs s = run(shard, Libm::cr);
  CHECK(mismatches(s.o.data(), heads(all.o, rows, hq, 2, 2, d).data(), s.o.size()) == 0);
  CHECK(mismatches(s.dq.data(), heads(all.dq, rows, hq, 2, 2, d).data(), s.dq.size()) == 0);
  CHECK(mismatches(s.dk.data(), heads(all.dk, kv_rows, hkv, 1, 1, d).data(), s.dk.size()) == 0);
  CHECK(mismatches(s.dv.data(), heads(all.dv, kv_rows, hkv, 1, 1, d).data(), s.dv.size()) == 0);
}

TEST_CASE("reference: empty lists and non-finite keys outside a row's list", "[kernels][attention]") {
  // Causal with Lq > Lk: the first Lq - Lk rows see no key.
  const int hq = 2, hkv = 1, d = 64;
  Inputs in = make({10}, {4}, hq, hkv, d, true, 13);
  const Outputs r = run(in, Libm::nvcc);
  for (int row = 0; row < 6; ++row) {
    for (int h = 0; h < hq; ++h) {
      CHECK(bits(r.lse[row * hq + h]) == 0xff800000u);
      for (int e = 0; e < d; ++e) {
        CHECK(bits(r.o[(row * hq + h) * d + e]) == 0u);
        CHECK(bits(r.dq[(row * hq + h) * d + e]) == 0u);
      }
    }
  }
  // NaN and inf in key rows 60.. (outside the lists of rows 0..59) leave rows
  // 0..59 bitwise unchanged.
  Inputs clean = make({100}, {100}, hq, hkv, d, true, 17);
  Inputs dirty = clean;
  for (std::size_t i = 60 * hkv * d; i < dirty.k.size(); ++i) {
    dirty.k[i] = (i % 2) ? NAN : INFINITY;
    dirty.v[i] = (i % 3) ? -INFINITY : NAN;
  }
  const Outputs a = run(clean, Libm::nvcc), b = run(dirty, Libm::nvcc);
  CHECK(mismatches(a.o.data(), b.o.data(), 60 * hq * d) == 0);
  CHECK(mismatches(a.lse.data(), b.lse.data(), 60 * hq) == 0);
  std::size_t finite = 0;
  for (int i = 0; i < 60 * hq * d; ++i) finite += std::isfinite(b.o[i]);
  CHECK(finite == static_cast<std::size_t>(60 * hq * d));
}
