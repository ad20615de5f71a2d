// samebits::hipcc, host path (IEEE binary32 with the correctly rounded model
// of v_exp_f32 / v_log_f32). What can be checked without AMD hardware:
//   - consequences of the sequences that hold exactly under the model
//     (exp2f and log2f are the model itself on most inputs, the special
//     values, the NaN convention, the perturbed models);
//   - the bits do not depend on the compiler flags: this file is built twice
//     (project flags, and -O3 -ffp-contract=fast -march=native), and each
//     build compares its own inlined copy with the oracle library's, which is
//     always built with the project's flags.
// Device paths are certified separately (AMD: dataflow against clang's own
// code; NVIDIA: the H200 run), docs/libm/hipcc.md.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "samebits/libm.hpp"
#include "samebits/registry/implementations.hpp"

namespace {

using samebits::fp::from_bits;
using samebits::fp::to_bits;
using samebits::oracle::Func;

std::uint32_t bits_of(float x) { return to_bits(x); }

}  // namespace

TEST_CASE("hipcc: exp2f and log2f are the v_exp / v_log model where the sequence adds nothing", "[hipcc]") {
  std::uint64_t checked = 0;
  for (std::uint64_t u = 0; u < (1ull << 32); u += 65521) {
    const float x = from_bits(static_cast<std::uint32_t>(u));
    if (std::isnan(x)) continue;
    if (x >= -126.0f) {
      REQUIRE(bits_of(samebits::hipcc::exp2f(x)) == bits_of(samebits::cr::exp2f(x)));
      ++checked;
    }
    if (x >= 0x1p-126f && std::isfinite(x)) {
      REQUIRE(bits_of(samebits::hipcc::log2f(x)) == bits_of(samebits::cr::log2f(x)));
      ++checked;
    }
  }
  CHECK(checked > 60000);
}

TEST_CASE("hipcc: special values and the NaN convention", "[hipcc]") {
  const float inf = from_bits(0x7f800000u);
  CHECK(bits_of(samebits::hipcc::expf(inf)) == 0x7f800000u);
  CHECK(bits_of(samebits::hipcc::expf(-inf)) == 0u);
  CHECK(bits_of(samebits::hipcc::expf(0.0f)) == 0x3f800000u);
  CHECK(bits_of(samebits::hipcc::logf(0.0f)) == 0xff800000u);
  CHECK(bits_of(samebits::hipcc::logf(-0.0f)) == 0xff800000u);
  CHECK(bits_of(samebits::hipcc::logf(inf)) == 0x7f800000u);
  CHECK(bits_of(samebits::hipcc::logf(1.0f)) == 0u);
  CHECK(bits_of(samebits::hipcc::log2f(8.0f)) == bits_of(3.0f));
  // An invalid operation gives 0x7fc00000; a NaN input comes out quieted.
  CHECK(bits_of(samebits::hipcc::logf(-1.0f)) == 0x7fc00000u);
  CHECK(bits_of(samebits::hipcc::log10f(-inf)) == 0x7fc00000u);
  CHECK(bits_of(samebits::hipcc::expf(from_bits(0xff812345u))) == 0xffc12345u);
  CHECK(bits_of(samebits::hipcc::afn::logf(from_bits(0x7f800001u))) == 0x7fc00001u);
  // Subnormal inputs: scaled (IEEE mode) or read as zero (daz).
  CHECK(std::isfinite(samebits::hipcc::logf(0x1p-149f)));
  CHECK(bits_of(samebits::hipcc::daz::logf(0x1p-149f)) == 0xff800000u);
  CHECK(bits_of(samebits::hipcc::daz::exp2f(-130.0f)) == 0u);  // v_exp's subnormal result flushed
  CHECK(bits_of(samebits::hipcc::exp2f(-130.0f)) == bits_of(0x1p-130f));
}

TEST_CASE("hipcc: the perturbed models move inexact results by exactly one ulp", "[hipcc]") {
  using Up = samebits::hipcc::CrModel<+1>;
  using Down = samebits::hipcc::CrModel<-1>;
  const float y = samebits::cr::exp2f(0.3f);
  CHECK(bits_of(Up::v_exp<false>(0.3f)) == bits_of(y) + 1);
  CHECK(bits_of(Down::v_exp<false>(0.3f)) == bits_of(y) - 1);
  CHECK(bits_of(Up::v_exp<false>(5.0f)) == bits_of(32.0f));  // exact: not moved
  const float l = samebits::cr::log2f(0.3f);                // negative
  CHECK(bits_of(Up::v_log<false>(0.3f)) == bits_of(l) - 1);  // toward +inf: smaller magnitude
  CHECK(bits_of(Down::v_log<false>(0.3f)) == bits_of(l) + 1);
  CHECK(bits_of(Up::v_log<false>(0.25f)) == bits_of(-2.0f));
}

TEST_CASE("hipcc: these flags give the bits of the project's build (oracle library)", "[hipcc]") {
  struct Case {
    const char* impl;
    Func f;
    float (*ours)(float);
  };
  const Case cases[] = {
      {"hipcc", Func::exp, samebits::hipcc::expf},          {"hipcc", Func::exp2, samebits::hipcc::exp2f},
      {"hipcc", Func::exp10, samebits::hipcc::exp10f},      {"hipcc", Func::log, samebits::hipcc::logf},
      {"hipcc", Func::log2, samebits::hipcc::log2f},        {"hipcc", Func::log10, samebits::hipcc::log10f},
      {"hipcc:afn", Func::exp, samebits::hipcc::afn::expf}, {"hipcc:afn", Func::exp10, samebits::hipcc::afn::exp10f},
      {"hipcc:afn", Func::log, samebits::hipcc::afn::logf}, {"hipcc:daz", Func::exp, samebits::hipcc::daz::expf},
      {"hipcc:daz", Func::log, samebits::hipcc::daz::logf}, {"hipcc:clang19", Func::log, samebits::hipcc::clang19::logf},
      {"hipcc:triton", Func::exp, samebits::hipcc::triton::expf},
      {"hipcc:triton", Func::log, samebits::hipcc::triton::logf},
  };
  for (const Case& c : cases) {
    const auto* impl = samebits::registry::find_implementation(c.impl);
    REQUIRE(impl != nullptr);
    const auto lib = impl->get(c.f);
    REQUIRE(lib != nullptr);
    std::uint64_t differ = 0, n = 0;
    for (std::uint64_t u = 0; u < (1ull << 32); u += 4099, ++n)
      differ += bits_of(c.ours(from_bits(static_cast<std::uint32_t>(u)))) != bits_of(lib(from_bits(static_cast<std::uint32_t>(u))));
    INFO(c.impl << " function " << static_cast<int>(c.f) << ": " << differ << " of " << n << " differ");
    CHECK(differ == 0);
  }
}
