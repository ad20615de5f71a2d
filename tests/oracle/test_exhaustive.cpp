// Tier 3 (exhaustive): every one of the 2^32 inputs of each glibc function.
// Registered in the `exhaustive` suite, kept out of the default run:
//   meson test -C build --setup exhaustive --suite exhaustive
// Asserts what glibc promises for these binary32 functions (every result
// within 1 ulp, no wrong class) and that the sweep accounts for every input.
#include <catch2/catch.hpp>

#include <iostream>

#include "samebits/oracle/implementations.hpp"
#include "samebits/oracle/sweep.hpp"

using namespace samebits::oracle;

TEST_CASE("glibc binary32 functions over all 2^32 inputs", "[exhaustive]") {
  const auto* glibc = find_implementation("glibc");
  REQUIRE(glibc);
  for (Func f : kAllFuncs) {
    FunctionSubject s(glibc->get(f));
    SweepOptions o;  // all encodings, all cores
    const SweepResult r = sweep(f, s, o);
    std::cout << to_json(r).dump() << std::endl;
    INFO(name(f));
    CHECK(r.inputs == (1ull << 32));
    CHECK(r.correctly_rounded + r.not_correctly_rounded + r.wrong_class == r.inputs);
    CHECK(r.wrong_class == 0);
    if (r.max_ulp) CHECK(*r.max_ulp < 1.0);
    for (const auto& sp : r.specials) CHECK(sp.score.outcome == Outcome::correctly_rounded);
  }
}
