// samebits::cr, tier 1: special values, exact cases, thresholds, NaN bits.
// Every check compares encodings. Built twice: with the project's flags and
// with hostile ones (-O3 -ffp-contract=fast -march=native); see meson.build.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>

#include "samebits/libm.hpp"
#include "samebits/oracle/reference.hpp"
#include "samebits/oracle/specials.hpp"

using namespace samebits;
using oracle::Func;

namespace {

using Fn = float (*)(float);
struct Named {
  Func func;
  Fn fn;
};
const Named kCr[] = {{Func::exp, cr::expf},   {Func::exp2, cr::exp2f}, {Func::exp10, cr::exp10f},
                     {Func::log, cr::logf},   {Func::log2, cr::log2f}, {Func::log10, cr::log10f}};

std::uint32_t bits_of(Fn f, std::uint32_t x) { return fp::to_bits(f(fp::from_bits(x))); }

// What samebits::cr returns for a NaN result: the input quieted when the input
// is a NaN, the canonical 0x7fc00000 for an invalid operation.
std::uint32_t expected_bits(Func f, std::uint32_t x) {
  if (fp::is_nan_bits(x)) return x | fp::kQuietBit;
  return fp::to_bits(oracle::cr_mpfr(f, fp::from_bits(x)));
}

}  // namespace

TEST_CASE("cr: every special input of the oracle's table, encoding for encoding", "[cr][special]") {
  for (const Named& n : kCr) {
    INFO(oracle::name(n.func));
    for (const auto& s : oracle::special_inputs(n.func)) {
      INFO(s.label);
      CHECK(bits_of(n.fn, s.encoding) == expected_bits(n.func, s.encoding));
    }
  }
}

TEST_CASE("cr: NaN results are built from integers", "[cr][special][nan]") {
  for (const Named& n : kCr) {
    INFO(oracle::name(n.func));
    CHECK(bits_of(n.fn, 0x7fa00001u) == 0x7fe00001u);  // sNaN with payload: quieted, payload kept
    CHECK(bits_of(n.fn, 0xffc12345u) == 0xffc12345u);  // negative qNaN: unchanged
    CHECK(bits_of(n.fn, 0x7f800001u) == 0x7fc00001u);
  }
  for (Fn f : {cr::logf, cr::log2f, cr::log10f}) {
    CHECK(bits_of(f, 0xbf800000u) == fp::kCanonicalNaN);  // log(-1)
    CHECK(bits_of(f, fp::kNegInf) == fp::kCanonicalNaN);
    CHECK(bits_of(f, 0x80000001u) == fp::kCanonicalNaN);  // log(-min subnormal)
    CHECK(bits_of(f, 0x80000000u) == fp::kNegInf);        // log(-0) = -inf
  }
}

TEST_CASE("cr: exact cases", "[cr][special][exact]") {
  for (int k = -149; k <= 127; ++k) {
    INFO(k);
    CHECK(cr::exp2f(static_cast<float>(k)) == std::ldexp(1.0f, k));
    CHECK(cr::log2f(std::ldexp(1.0f, k)) == static_cast<float>(k));
  }
  CHECK(fp::to_bits(cr::exp2f(-150.0f)) == 0u);  // 2^-150: the tie between 0 and 2^-149 goes to +0
  float p = 1.0f;
  for (int k = 0; k <= 10; ++k, p *= 10.0f) {
    INFO(k);
    CHECK(cr::exp10f(static_cast<float>(k)) == p);  // 10^k is a float for k <= 10
    CHECK(cr::log10f(p) == static_cast<float>(k));
  }
  for (Fn f : {cr::logf, cr::log2f, cr::log10f}) CHECK(fp::to_bits(f(1.0f)) == 0u);  // +0
  for (Fn f : {cr::expf, cr::exp2f, cr::exp10f}) {
    CHECK(fp::to_bits(f(0.0f)) == 0x3f800000u);
    CHECK(fp::to_bits(f(-0.0f)) == 0x3f800000u);
  }
}

TEST_CASE("cr: every binade edge and its neighbours", "[cr][special][binade]") {
  for (const Named& n : kCr) {
    INFO(oracle::name(n.func));
    std::uint64_t bad = 0;
    for (std::uint32_t sign : {0u, 0x80000000u})
      for (std::uint32_t e = 0; e < 256; ++e)
        for (std::int32_t d : {-1, 0, 1}) {
          const std::uint32_t x = sign | ((e << 23) + static_cast<std::uint32_t>(d));
          if (bits_of(n.fn, x) != expected_bits(n.func, x)) ++bad;
        }
    CHECK(bad == 0);
  }
}
