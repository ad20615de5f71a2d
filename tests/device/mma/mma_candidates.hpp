// tests/device/mma/mma_candidates.hpp — the candidate models the probe tests
// at once (host and device): the default Params of samebits/libm/mma/sm90.hpp
// ("base") and variants that each change one choice. A candidate with 0
// mismatches while its neighbours have many is what a measurement shows; the
// probe also counts, per class, the inputs on which each variant differs from
// base, so that a 0 is known to come from inputs that could tell them apart.
#pragma once

#include "samebits/libm/mma/sm90.hpp"
#include "samebits/libm/platform.hpp"

namespace samebits::mma::probe {

using sm90::Params;

// scale-d = 1: D = C + sum a*b.
// The last one combines two single changes: the best pair of the H100 run of 2026-12-06
// (zero products ignored for the alignment; an exact zero result is +0).
inline constexpr int kCandidates = 13;

SAMEBITS_FUNC constexpr Params candidate(int i) {
  Params p{};
  switch (i) {
    case 1: p.frac_bits = 24; break;
    case 2: p.frac_bits = 26; break;
    case 3: p.group = 8; break;
    case 4: p.group = 4; break;
    case 5: p.rounding = sm90::Rounding::nearest_even; break;
    case 6: p.c_join = sm90::CJoin::after_products; break;
    case 7: p.zero_exponent = sm90::ZeroExponent::ignored; break;
    case 8: p.zero_exponent = sm90::ZeroExponent::fixed_m126; break;
    case 9: p.product_exponent = sm90::ProductExponent::normalized; break;
    case 10: p.zero_sign = sm90::ZeroSign::positive; break;
    case 11: p.overflow = sm90::Overflow::saturate; break;
    case 12:
      p.zero_exponent = sm90::ZeroExponent::ignored;
      p.zero_sign = sm90::ZeroSign::positive;
      break;
    default: break;
  }
  return p;
}

inline const char* candidate_name(int i) {
  static const char* const names[kCandidates] = {
      "base(F25,G16,RZ,C-first,zero@fmt-min,raw,zsign-ieee,ovf-inf)",
      "F24", "F26", "G8", "G4", "RN", "C-after-products", "zero-ignored", "zero@-126",
      "product-normalized", "zsign-positive", "ovf-saturate", "zero-ignored+zsign-positive"};
  return (i >= 0 && i < kCandidates) ? names[i] : "?";
}

// scale-d = 0: D = sum a*b. Each candidate is a Params plus how the absent C
// enters: not at all (sm90::dot) or as a +0 accumulator (sm90::dot_add(.., 0)).
inline constexpr int kD0Candidates = 10;

SAMEBITS_FUNC constexpr Params d0_candidate(int i) {
  Params p{};
  switch (i / 2) {
    case 1: p.zero_exponent = sm90::ZeroExponent::ignored; break;
    case 2: p.zero_exponent = sm90::ZeroExponent::fixed_m126; break;
    case 3: p.zero_sign = sm90::ZeroSign::positive; break;
    case 4:
      p.zero_exponent = sm90::ZeroExponent::ignored;
      p.zero_sign = sm90::ZeroSign::positive;
      break;
    default: break;
  }
  return p;
}
SAMEBITS_FUNC constexpr bool d0_plus_zero_c(int i) { return (i & 1) != 0; }

inline const char* d0_candidate_name(int i) {
  static const char* const names[kD0Candidates] = {
      "base,no-C", "base,C=+0", "zero-ignored,no-C", "zero-ignored,C=+0",
      "zero@-126,no-C", "zero@-126,C=+0", "zsign-positive,no-C", "zsign-positive,C=+0",
      "zero-ignored+zsign-positive,no-C", "zero-ignored+zsign-positive,C=+0"};
  return (i >= 0 && i < kD0Candidates) ? names[i] : "?";
}

}  // namespace samebits::mma::probe
