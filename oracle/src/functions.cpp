#include "samebits/oracle/functions.hpp"

#include <cmath>

namespace samebits::oracle {

std::string_view name(Func f) {
  switch (f) {
    case Func::exp: return "expf";
    case Func::exp2: return "exp2f";
    case Func::exp10: return "exp10f";
    case Func::log: return "logf";
    case Func::log2: return "log2f";
    case Func::log10: return "log10f";
  }
  return "?";
}

std::optional<Func> parse_func(std::string_view s) {
  for (Func f : kAllFuncs) {
    std::string_view n = name(f);
    if (s == n || s == n.substr(0, n.size() - 1)) return f;
  }
  return std::nullopt;
}

static bool is_exp_family(Func f) {
  return f == Func::exp || f == Func::exp2 || f == Func::exp10;
}

SpecialCase classify(Func f, float x) {
  if (std::isnan(x)) return {ExactKind::nan, 0.0f};
  if (is_exp_family(f)) {
    if (std::isinf(x)) return x > 0 ? SpecialCase{ExactKind::pos_inf, 0.0f}
                                    : SpecialCase{ExactKind::exact, 0.0f};  // b^-inf = +0
    return {ExactKind::real, 0.0f};
  }
  // log family
  if (x == 0.0f) return {ExactKind::neg_inf, 0.0f};  // both +0 and -0: pole, -inf
  if (x < 0.0f) return {ExactKind::nan, 0.0f};       // includes -inf
  if (std::isinf(x)) return {ExactKind::pos_inf, 0.0f};
  return {ExactKind::real, 0.0f};
}

}  // namespace samebits::oracle
