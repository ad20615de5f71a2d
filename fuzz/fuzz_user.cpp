// fuzz_user — fuzz your own float(float) function against the MPFR oracle,
// with inputs pushed toward special values (special_mutator.hpp). Built by
// fuzz/fuzz_my_function.sh, which compiles your source file with
//   -DSAMEBITS_USER_FUNCTION=<your function's name>  -DSAMEBITS_USER_MATH=<expf|exp2f|exp10f|logf|log2f|log10f>
// A finding: a result more than SAMEBITS_MAX_ULP ulps from the correctly
// rounded value (environment variable; default 0.5, i.e. correct rounding
// required), or of the wrong class (NaN for a number, infinite for finite,
// or the other way round). NaN results are compared as a class.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "samebits/libm/fp/bits.hpp"
#include "samebits/oracle/functions.hpp"
#include "samebits/oracle/reference.hpp"
#include "special_mutator.hpp"

float SAMEBITS_USER_FUNCTION(float x);

namespace {

#define SAMEBITS_STR2(x) #x
#define SAMEBITS_STR(x) SAMEBITS_STR2(x)

samebits::oracle::Func func() {
  static const auto f = samebits::oracle::parse_func(SAMEBITS_STR(SAMEBITS_USER_MATH));
  if (!f) {
    std::fprintf(stderr, "fuzz_user: unknown function '%s'\n", SAMEBITS_STR(SAMEBITS_USER_MATH));
    std::exit(2);
  }
  return *f;
}

double max_ulp() {
  static const double m = [] {
    const char* e = std::getenv("SAMEBITS_MAX_ULP");
    return e ? std::strtod(e, nullptr) : 0.5;
  }();
  return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using samebits::fp::from_bits;
  using samebits::fp::to_bits;
  for (std::size_t i = 0; i + 4 <= size && i < 4 * 64; i += 4) {
    std::uint32_t xb;
    std::memcpy(&xb, data + i, 4);
    const float x = from_bits(xb), got = SAMEBITS_USER_FUNCTION(x), want = samebits::oracle::cr_mpfr(func(), x);
    const bool bad_class = std::isnan(got) != std::isnan(want) || (std::isinf(got) != std::isinf(want) && !std::isnan(want));
    if (bad_class || (!std::isnan(want) && to_bits(got) != to_bits(want) &&
                      samebits::oracle::exact_ulp_error(func(), x, got) > max_ulp())) {
      std::fprintf(stderr, "finding: %s at x = 0x%08x (%a): got 0x%08x (%a), correctly rounded 0x%08x (%a)%s\n",
                   SAMEBITS_STR(SAMEBITS_USER_FUNCTION), xb, static_cast<double>(x), to_bits(got),
                   static_cast<double>(got), to_bits(want), static_cast<double>(want), bad_class ? ", wrong class" : "");
      std::abort();
    }
  }
  return 0;
}

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  return samebits::fuzz::mutate_toward_specials(data, size, max_size, seed);
}
