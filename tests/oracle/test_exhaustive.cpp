// Tier 3 (exhaustive): every one of the 2^32 inputs. Registered in the
// `exhaustive` suite and kept out of the default run:
//   meson test -C build --setup exhaustive --suite exhaustive
// About 5 minutes per implementation on 2 cores.
#include <catch2/catch.hpp>

#include <iostream>

#include "samebits/cli/json.hpp"
#include "samebits/oracle/sweep.hpp"
#include "samebits/registry/implementations.hpp"

using namespace samebits::oracle;
using samebits::registry::find_implementation;

namespace {

SweepResult all_inputs(const char* impl, Func f) {
  const auto* i = find_implementation(impl);
  REQUIRE(i);
  FunctionSubject s(i->get(f));
  const SweepResult r = sweep(f, s, SweepOptions{});
  std::cout << impl << " " << samebits::cli::sweep_to_json(r).dump() << std::endl;
  return r;
}

}  // namespace

TEST_CASE("samebits::cr is correctly rounded on all 2^32 inputs", "[exhaustive][cr]") {
  for (Func f : kAllFuncs) {
    INFO(name(f));
    const SweepResult r = all_inputs("cr", f);
    CHECK(r.inputs == (1ull << 32));
    CHECK(r.not_correctly_rounded == 0);
    CHECK(r.wrong_class == 0);
  }
}

TEST_CASE("glibc binary32 functions stay within their documented bounds", "[exhaustive][glibc]") {
  // glibc's sysdeps/x86_64/fpu/libm-test-ulps (2.36) documents at most 1 ulp
  // for these float functions and 2 ulp for log10f; the figures measured on
  // this machine are in docs/accuracy.md.
  for (Func f : kAllFuncs) {
    INFO(name(f));
    const SweepResult r = all_inputs("glibc", f);
    CHECK(r.inputs == (1ull << 32));
    CHECK(r.correctly_rounded + r.not_correctly_rounded + r.wrong_class == r.inputs);
    CHECK(r.wrong_class == 0);
    if (r.max_ulp) CHECK(*r.max_ulp < (f == Func::log10 ? 2.5 : 1.0));
    for (const auto& sp : r.specials) CHECK(sp.score.outcome == Outcome::correctly_rounded);
  }
}
