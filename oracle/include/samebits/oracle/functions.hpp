// samebits/oracle/functions.hpp — the univariate binary32 functions the
// oracle knows, and what each one owes at its special inputs.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace samebits::oracle {

enum class Func : std::uint8_t { exp, exp2, exp10, log, log2, log10 };

inline constexpr std::array<Func, 6> kAllFuncs = {Func::exp,  Func::exp2, Func::exp10,
                                                  Func::log,  Func::log2, Func::log10};

// "expf", "exp2f", ... (the C name of the binary32 function).
std::string_view name(Func f);
// Accepts "expf" and "exp"; nullopt for anything else.
std::optional<Func> parse_func(std::string_view s);

// What the exact result of f(x) is, decided from the input alone (no MPFR):
// this is what separates a wrong class from a large error.
enum class ExactKind : std::uint8_t {
  nan,       // invalid operation or NaN input: a NaN is due
  pos_inf,   // an exact +inf (f(+inf) = +inf)
  neg_inf,   // an exact -inf (log of +-0: a pole)
  exact,     // an exactly representable finite result known in advance (exp(-inf) = +0)
  real,      // a real number, possibly outside binary32's range
};
struct SpecialCase {
  ExactKind kind;
  float value;  // for ExactKind::exact
};
SpecialCase classify(Func f, float x);

}  // namespace samebits::oracle
