#include "samebits/oracle/filter.hpp"

#include <cmath>

namespace samebits::oracle {

double double_reference(Func f, double x) {
  switch (f) {
    case Func::exp: return std::exp(x);
    case Func::exp2: return std::exp2(x);
    case Func::exp10: return ::exp10(x);
    case Func::log: return std::log(x);
    case Func::log2: return std::log2(x);
    case Func::log10: return std::log10(x);
  }
  return NAN;
}

FilterResult filter_reference(Func f, float x) {
  const bool exp_family = f == Func::exp || f == Func::exp2 || f == Func::exp10;
  if (exp_family) {
    if (x <= -200.0f) return {true, 0.0f, 0.0};
    if (x >= 200.0f) return {true, INFINITY, 0x1p128};
  }
  const double y = double_reference(f, static_cast<double>(x));
  if (!std::isnormal(y)) return {};  // 0 (log 1), or anything unexpected
  const double a = std::fabs(y) * kFilterWindow;
  const double lo = y - a, hi = y + a;
  // Conversion double -> float is IEEE round to nearest even, with gradual
  // underflow and overflow to inf (MXCSR default: no FTZ/DAZ on the host).
  const float rlo = static_cast<float>(lo), rhi = static_cast<float>(hi);
  if (rlo != rhi) return {};
  double approx = y;
  if (std::fabs(approx) >= 0x1p128) approx = std::copysign(0x1p128, approx);
  return {true, rlo, approx, std::ilogb(lo) == std::ilogb(hi)};
}

}  // namespace samebits::oracle
