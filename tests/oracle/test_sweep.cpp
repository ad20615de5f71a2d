// Tier 1: the sweep engine — determinism across thread counts, scoring of
// results computed elsewhere, range parsing, and negative controls (a planted
// one-ulp error, a planted NaN, a planted -0 are each counted exactly once).
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "samebits/libm/fp/bits.hpp"
#include "samebits/oracle/reference.hpp"
#include "samebits/oracle/sweep.hpp"
#include "samebits/registry/implementations.hpp"

using namespace samebits;
using namespace samebits::oracle;
using samebits::registry::find_implementation;

namespace {

bool same(const SweepResult& a, const SweepResult& b) {
  return a.inputs == b.inputs && a.correctly_rounded == b.correctly_rounded &&
         a.not_correctly_rounded == b.not_correctly_rounded && a.wrong_class == b.wrong_class &&
         a.max_ulp == b.max_ulp && a.max_ulp_input == b.max_ulp_input && a.histogram == b.histogram &&
         a.wrong_class_inputs == b.wrong_class_inputs && a.mpfr_fallbacks == b.mpfr_fallbacks;
}

SweepOptions quiet(std::vector<EncodingRange> ranges, unsigned threads) {
  SweepOptions o;
  o.ranges = std::move(ranges);
  o.threads = threads;
  o.special_table = false;
  return o;
}

}  // namespace

TEST_CASE("a sweep gives the same result for any thread count", "[sweep]") {
  const auto* glibc = find_implementation("glibc");
  REQUIRE(glibc);
  for (Func f : {Func::exp, Func::log}) {
    FunctionSubject s(glibc->get(f));
    // 2^22 inputs across [-128, 128] for exp, (0, 4) for log, strided so that
    // chunks straddle ranges.
    const auto ranges = f == Func::exp ? parse_range("-128:128") : parse_range("0x00000000:0x40800000");
    std::vector<EncodingRange> strided = ranges;
    for (auto& r : strided) r.stride = 97;
    const SweepResult one = sweep(f, s, quiet(strided, 1));
    CHECK(one.inputs > 10000);
    for (unsigned t : {2u, 3u, 7u}) {
      INFO("threads " << t);
      CHECK(same(one, sweep(f, s, quiet(strided, t))));
    }
  }
}

TEST_CASE("a correctly rounded subject scores perfect; planted errors are caught exactly", "[sweep][negative-control]") {
  // The subject is MPFR itself over a small range, so everything is known.
  const auto ranges = parse_range("0x3f000000:0x3f004000");  // [0.5, 0.5 + 2^-9]: 16,385 inputs
  const std::uint32_t planted = 0x3f001234u;
  const float px = fp::from_bits(planted);
  for (Func f : {Func::exp, Func::log10}) {
    INFO(name(f));
    FunctionSubject exact([f](float x) { return cr_mpfr(f, x); });
    const SweepResult clean = sweep(f, exact, quiet(ranges, 2));
    CHECK(clean.inputs == 16385);
    CHECK(clean.correctly_rounded == 16385);
    CHECK(clean.not_correctly_rounded == 0);
    CHECK(clean.wrong_class == 0);
    CHECK_FALSE(clean.max_ulp.has_value());

    FunctionSubject one_ulp([f, px](float x) {
      const float y = cr_mpfr(f, x);
      return fp::to_bits(x) == fp::to_bits(px) ? fp::from_bits(fp::to_bits(y) + 1) : y;
    });
    const SweepResult r1 = sweep(f, one_ulp, quiet(ranges, 2));
    CHECK(r1.not_correctly_rounded == 1);
    CHECK(r1.wrong_class == 0);
    REQUIRE(r1.max_ulp.has_value());
    CHECK(r1.max_ulp_input == planted);
    CHECK(*r1.max_ulp > 0.5);
    CHECK(*r1.max_ulp <= 1.5);
    CHECK(r1.histogram[1] + r1.histogram[2] == 1);

    FunctionSubject nan_out([f, px](float x) {
      return fp::to_bits(x) == fp::to_bits(px) ? NAN : cr_mpfr(f, x);
    });
    const SweepResult r2 = sweep(f, nan_out, quiet(ranges, 2));
    CHECK(r2.wrong_class == 1);
    CHECK(r2.not_correctly_rounded == 0);
    REQUIRE(r2.wrong_class_inputs.size() == 1);
    CHECK(r2.wrong_class_inputs[0] == planted);
  }
}

TEST_CASE("wrong class and sign-of-zero cases are scored as documented", "[sweep]") {
  // log(+-0) is an exact -inf: any finite value there is the wrong class.
  CHECK(score_one(Func::log, 0.0f, -0x1.fffffep127f, true).outcome == Outcome::wrong_class);
  CHECK(score_one(Func::log, 0.0f, -INFINITY, true).outcome == Outcome::correctly_rounded);
  CHECK(score_one(Func::log, -1.0f, 0.0f, true).outcome == Outcome::wrong_class);
  CHECK(score_one(Func::log, -1.0f, fp::from_bits(0xffc00001u), true).outcome == Outcome::correctly_rounded);
  CHECK(score_one(Func::exp, 1.0f, NAN, true).outcome == Outcome::wrong_class);
  // exp(-inf) = +0: -0 is not correctly rounded, although it is 0 ulp away.
  const Score z = score_one(Func::exp, -INFINITY, -0.0f, true);
  CHECK(z.outcome == Outcome::not_correctly_rounded);
  CHECK(z.ulp == 0.0);
  // log(1) = +0 (reached through MPFR: the filter declines an exact zero).
  CHECK(score_one(Func::log, 1.0f, -0.0f, true).outcome == Outcome::not_correctly_rounded);
  // An overflowing result: inf is correct, the largest float is 1 ulp off.
  CHECK(score_one(Func::exp, 100.0f, INFINITY, true).outcome == Outcome::correctly_rounded);
  const Score m = score_one(Func::exp, 100.0f, 0x1.fffffep127f, true);
  CHECK(m.outcome == Outcome::not_correctly_rounded);
  CHECK(m.ulp == 1.0);
}

TEST_CASE("results computed elsewhere score like the function that made them", "[sweep]") {
  const auto* glibc = find_implementation("glibc");
  const EncodingRange r{0x3f800000u, 0x3f800000u + 200000u, 1};
  std::vector<float> outputs(r.size());
  for (std::uint64_t i = 0; i < r.size(); ++i) outputs[i] = glibc->get(Func::log)(fp::from_bits(r.at(i)));
  BufferSubject buffer(r, outputs.data());
  FunctionSubject fn(glibc->get(Func::log));
  SweepOptions o = quiet({r}, 2);
  o.special_table = true;
  const SweepResult a = sweep(Func::log, buffer, o);
  const SweepResult b = sweep(Func::log, fn, o);
  CHECK(same(a, b));
  // The buffer covers only its range: only the special inputs inside it are tabled.
  for (const auto& s : a.specials) CHECK(buffer.covers(s.input));
  CHECK(a.specials.size() < b.specials.size());
}

TEST_CASE("ranges parse as documented and reject nonsense", "[sweep][range]") {
  auto one = parse_range("1:2");
  REQUIRE(one.size() == 1);
  CHECK(one[0].first == 0x3f800000u);
  CHECK(one[0].last == 0x40000000u);
  auto enc = parse_range("0x00000000:0x000000ff");
  REQUIRE(enc.size() == 1);
  CHECK(enc[0].size() == 256);
  auto both = parse_range("-1:1");  // [-1, -0] and [+0, 1]
  REQUIRE(both.size() == 2);
  CHECK(both[0].first == 0u);
  CHECK(both[0].last == 0x3f800000u);
  CHECK(both[1].first == 0x80000000u);
  CHECK(both[1].last == 0xbf800000u);
  auto neg = parse_range("-2:-1");
  REQUIRE(neg.size() == 1);
  CHECK(neg[0].first == 0xbf800000u);
  CHECK(neg[0].last == 0xc0000000u);
  auto zero = parse_range("0:0");  // both zeros
  REQUIRE(zero.size() == 2);
  CHECK(parse_range("-inf:inf").size() == 2);
  CHECK_THROWS_AS(parse_range("2:1"), std::invalid_argument);
  CHECK_THROWS_AS(parse_range("0x10:0x01"), std::invalid_argument);
  CHECK_THROWS_AS(parse_range("a:b"), std::invalid_argument);
  CHECK_THROWS_AS(parse_range("1"), std::invalid_argument);
  CHECK_THROWS_AS(parse_range("1:2:3"), std::invalid_argument);
  CHECK_THROWS_AS(parse_range("0x1:1.5"), std::invalid_argument);
  CHECK_THROWS_AS(parse_range("nan:1"), std::invalid_argument);
  CHECK_THROWS_AS(parse_range("0x123456789:0x123456789"), std::invalid_argument);
}
