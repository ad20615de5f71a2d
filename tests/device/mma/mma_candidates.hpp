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

// scale-d = 1: D = C + sum a*b. Base is the header's defaults (the reading after the
// H100 runs of 2026-12-06: zero terms ignored, emax >= -133, every zero result +0); the
// neighbours change one choice each; 14 is the first reading (zero terms at their format
// minimum, IEEE zero signs, no floor), which the probe must tell apart from base.
inline constexpr int kCandidates = 15;

SAMEBITS_FUNC constexpr Params candidate(int i) {
  Params p{};
  switch (i) {
    case 1: p.frac_bits = 24; break;
    case 2: p.frac_bits = 26; break;
    case 3: p.group = 8; break;
    case 4: p.group = 4; break;
    case 5: p.rounding = sm90::Rounding::nearest_even; break;
    case 6: p.c_join = sm90::CJoin::after_products; break;
    case 7: p.zero_exponent = sm90::ZeroExponent::fixed_m126; break;
    case 8: p.zero_exponent = sm90::ZeroExponent::format_min; break;
    case 9: p.product_exponent = sm90::ProductExponent::normalized; break;
    case 10: p.zero_sign = sm90::ZeroSign::ieee; break;
    case 11: p.overflow = sm90::Overflow::saturate; break;
    case 12: p.emax_floor = sm90::kNoExponentFloor; break;
    case 13: p.emax_floor = -132; break;
    case 14:
      p.zero_exponent = sm90::ZeroExponent::format_min;
      p.zero_sign = sm90::ZeroSign::ieee;
      p.emax_floor = sm90::kNoExponentFloor;
      break;
    default: break;
  }
  return p;
}

inline const char* candidate_name(int i) {
  static const char* const names[kCandidates] = {
      "base(F25,G16,RZ,C-first,zero-ignored,raw,zsign-positive,ovf-inf,floor-133)",
      "F24", "F26", "G8", "G4", "RN", "C-after-products", "zero@-126", "zero@fmt-min",
      "product-normalized", "zsign-ieee", "ovf-saturate", "no-floor", "floor-132",
      "first-reading(zero@fmt-min,zsign-ieee,no-floor)"};
  return (i >= 0 && i < kCandidates) ? names[i] : "?";
}

// scale-d = 0: D = sum a*b. Each candidate is a Params plus how the absent C
// enters: not at all (detail::chain without C) or as a +0 accumulator (what
// sm90::dot computes, as measured on the H100).
inline constexpr int kD0Candidates = 10;

SAMEBITS_FUNC constexpr Params d0_candidate(int i) {
  Params p{};
  switch (i / 2) {
    case 1: p.zero_exponent = sm90::ZeroExponent::fixed_m126; break;
    case 2: p.emax_floor = sm90::kNoExponentFloor; break;
    case 3: p.zero_sign = sm90::ZeroSign::ieee; break;
    case 4:
      p.zero_exponent = sm90::ZeroExponent::format_min;
      p.zero_sign = sm90::ZeroSign::ieee;
      p.emax_floor = sm90::kNoExponentFloor;
      break;
    default: break;
  }
  return p;
}
SAMEBITS_FUNC constexpr bool d0_plus_zero_c(int i) { return (i & 1) != 0; }

// The scale-d = 0 candidate i's result.
SAMEBITS_FUNC std::uint32_t d0_value(sm90::Format f, const std::uint16_t* a, const std::uint16_t* b, int i) {
  const Params p = d0_candidate(i);
  return d0_plus_zero_c(i) ? sm90::dot(f, a, b, 16, p) : sm90::detail::chain(f, a, b, 16, false, 0u, p);
}

inline const char* d0_candidate_name(int i) {
  static const char* const names[kD0Candidates] = {
      "base,no-C", "base,C=+0", "zero@-126,no-C", "zero@-126,C=+0",
      "no-floor,no-C", "no-floor,C=+0", "zsign-ieee,no-C", "zsign-ieee,C=+0",
      "first-reading,no-C", "first-reading,C=+0"};
  return (i >= 0 && i < kD0Candidates) ? names[i] : "?";
}

}  // namespace samebits::mma::probe
