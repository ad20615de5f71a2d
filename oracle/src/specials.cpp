#include "samebits/oracle/specials.hpp"

#include <cmath>

#include "samebits/libm/fp/bits.hpp"
#include "samebits/oracle/reference.hpp"

namespace samebits::oracle {
namespace {

// Largest encoding b in [lo, hi] with pred(b) true, given pred(lo) true and
// pred monotone (true then false) along the encodings.
template <class Pred>
std::uint32_t last_true(std::uint32_t lo, std::uint32_t hi, Pred pred) {
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo + 1) / 2;
    if (pred(mid)) lo = mid; else hi = mid - 1;
  }
  return lo;
}

float cr_at(Func f, std::uint32_t b) { return cr_mpfr(f, fp::from_bits(b)); }

}  // namespace

std::vector<SpecialInput> special_inputs(Func f) {
  std::vector<SpecialInput> v = {
      {"+0", 0x00000000u},
      {"-0", 0x80000000u},
      {"+inf", fp::kPosInf},
      {"-inf", fp::kNegInf},
      {"+qNaN", 0x7fc00000u},
      {"-qNaN", 0xffc00000u},
      {"sNaN", 0x7fa00000u},
      {"qNaN payload 0x12345", 0x7fc12345u},
      {"min subnormal 0x1p-149", fp::kMinSubnormal},
      {"-min subnormal", fp::kMinSubnormal | fp::kSignMask},
      {"max subnormal", fp::kMaxSubnormal},
      {"min normal 0x1p-126", fp::kMinNormal},
      {"max finite", fp::kMaxFinite},
      {"-max finite", fp::kMaxFinite | fp::kSignMask},
      {"1", fp::to_bits(1.0f)},
      {"-1", fp::to_bits(-1.0f)},
  };
  const bool exp_family = f == Func::exp || f == Func::exp2 || f == Func::exp10;
  if (exp_family) {
    // Overflow: the last x >= 0 with a finite result, and the next float.
    const std::uint32_t big = fp::to_bits(200.0f);
    const std::uint32_t xo =
        last_true(0u, big, [&](std::uint32_t b) { return std::isfinite(cr_at(f, b)); });
    v.push_back({"overflow: last finite", xo});
    v.push_back({"overflow: first inf", xo + 1});
    // Underflow, on negative x (encodings grow as x decreases): the last x
    // with a nonzero result, the first with +0, and the last normal result.
    const std::uint32_t small = fp::to_bits(-200.0f);
    const std::uint32_t xu = last_true(0x80000000u, small, [&](std::uint32_t b) {
      return cr_at(f, b) != 0.0f;
    });
    v.push_back({"underflow: last nonzero", xu});
    v.push_back({"underflow: first zero", xu + 1});
    const std::uint32_t xn = last_true(0x80000000u, small, [&](std::uint32_t b) {
      return cr_at(f, b) >= 0x1p-126f;
    });
    v.push_back({"last normal result", xn});
    v.push_back({"first subnormal result", xn + 1});
    if (f != Func::exp) {  // b^k is exact for small integers k
      v.push_back({"exact: x = 3", fp::to_bits(3.0f)});
      v.push_back({"exact: x = -2", fp::to_bits(-2.0f)});
    }
  } else {
    v.push_back({"exact: x = 1 (result +0)", fp::to_bits(1.0f)});
    v.push_back({"x = 2", fp::to_bits(2.0f)});
    v.push_back({"x = 10", fp::to_bits(10.0f)});
    v.push_back({"x = 1000", fp::to_bits(1000.0f)});
    v.push_back({"x = 0x1p-100", fp::to_bits(0x1p-100f)});
    v.push_back({"next after 1", 0x3f800001u});
    v.push_back({"next before 1", 0x3f7fffffu});
  }
  return v;
}

}  // namespace samebits::oracle
