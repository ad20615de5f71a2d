// samebits/libm/hipcc/expf.hpp — expf, exp2f, exp10f as clang's AMDGPU
// backend lowers them for gfx942 and gfx950 (read off clang-22 and clang-19:
// libm/tools/dump_hipcc_sequences.sh, docs/libm/results/hipcc/; derivation in
// docs/libm/hipcc.md). Constants are binary32 encodings.
//
// expf, exp10f (every mode but afn): with L = L_hi + L_lo ~ log2(b),
//   ph = x L_hi; e = rndne(ph); pl = fma(x, L_hi, -ph) + x L_lo (one fma);
//   y = ldexp(v_exp((ph - e) + pl), int(e)),
// then x < lo -> +0 and x > hi -> +inf (NaN passes both tests). ph - e is exact
// and pl carries the rounding error of ph, so v_exp sees x L - e to about
// 2^-48 relative, in [-1/2, 1/2].
// exp2f (ieee, afn): x < -126 is shifted by 64 into v_exp's normal range and
// the result scaled back by 2^-64 (ldexp in clang 22, a multiply in clang 19:
// both one rounding of the same product); daz: v_exp alone.
// afn expf / exp10f: x below the subnormal-result threshold is shifted (by 64,
// resp. 32) and the result multiplied back by e^-64 (resp. 1e-32) as binary32;
// otherwise v_exp(x log2(e)), resp. v_exp(x 0x40549000) v_exp(x 0x3a2784bc).
#pragma once

#include <cstdint>

#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/hipcc/ops.hpp"
#include "samebits/libm/platform.hpp"

namespace samebits::hipcc::detail {

template <class O>
SAMEBITS_FUNC float neg(float a) { return fp::from_bits(fp::to_bits(a) ^ fp::kSignMask); }  // a source modifier

template <class O>
SAMEBITS_FUNC float exp_split(float x, std::uint32_t l_hi, std::uint32_t l_lo, std::uint32_t lo, std::uint32_t hi) {
  const float ph = O::mul(x, fp::from_bits(l_hi));
  const float e = O::rndne(ph);
  float pl = O::fma(x, fp::from_bits(l_hi), neg<O>(ph));
  const float d = O::sub(ph, e);
  pl = O::fma(x, fp::from_bits(l_lo), pl);
  const float t = O::add(d, pl);
  float y = O::ldexp(O::v_exp(t), O::cvt_i32(e));
  y = O::lt(x, fp::from_bits(lo)) ? 0.0f : y;                          // v_cmp_nlt + v_cndmask
  return O::gt(x, fp::from_bits(hi)) ? fp::from_bits(fp::kExponentMask) : y;  // v_cmp_ngt + v_cndmask
}

template <class O, Mode M, Clang V>
SAMEBITS_FUNC float exp2(float x) {
  if constexpr (M == Mode::daz) {
    return O::v_exp(x);
  } else {
    const bool c = O::lt(x, fp::from_bits(0xc2fc0000u));  // x < -126
    const float y = O::v_exp(O::add(x, c ? 64.0f : 0.0f));
    if constexpr (V == Clang::v19) return O::mul(y, c ? 0x1p-64f : 1.0f);
    else return O::ldexp(y, c ? -64 : 0);
  }
}

template <class O, Mode M>
SAMEBITS_FUNC float exp(float x) {
  if constexpr (M == Mode::afn) {
    const bool c = O::lt(x, fp::from_bits(0xc2aeac50u));  // e^x subnormal below
    const float xs = O::select(c, O::add(x, 64.0f), x);
    const float y = O::v_exp(O::mul(xs, fp::from_bits(0x3fb8aa3bu)));
    return O::select(c, O::mul(y, fp::from_bits(0x114b4ea4u)), y);  // e^-64
  } else {
    return exp_split<O>(x, 0x3fb8aa3bu, 0x32a5705fu, 0xc2ce8ed0u, 0x42b17218u);
  }
}

template <class O, Mode M>
SAMEBITS_FUNC float exp10(float x) {
  if constexpr (M == Mode::afn) {
    const bool c = O::lt(x, fp::from_bits(0xc217b818u));
    const float xs = O::select(c, O::add(x, 32.0f), x);
    const float a = O::v_exp(O::mul(xs, fp::from_bits(0x3a2784bcu)));
    const float b = O::v_exp(O::mul(xs, fp::from_bits(0x40549000u)));
    const float y = O::mul(b, a);
    return O::select(c, O::mul(y, fp::from_bits(0x0a4fb11fu)), y);  // 1e-32
  } else {
    return exp_split<O>(x, 0x40549a78u, 0x33979a37u, 0xc23369f4u, 0x421a209bu);
  }
}

}  // namespace samebits::hipcc::detail
