// samebits/libm/hipcc/logf.hpp — logf, log2f, log10f as clang's AMDGPU backend
// lowers them for gfx942 and gfx950 (read off clang-22 and clang-19; derivation
// in docs/libm/hipcc.md). Constants are binary32 encodings.
//
// ieee, afn: a subnormal x (x < 2^-126, negative x included) is scaled by 2^32
// (ldexp in clang 22, a multiply by 2^32 in clang 19: both exact) and 32 (times
// log_b 2) subtracted at the end; daz: no scaling (v_log reads a subnormal as 0).
// log2: y = v_log(x) alone. log and log10 (ieee, daz) multiply y by log_b(2) =
// C_hi + C_lo in extended precision: h = y C_hi, e = fma(y, C_hi, -h) (exact),
// l = fma(y, C_lo, e), then clang 22 returns h + l and clang 19 fma(y, C_hi, l)
// (which counts e twice: the two differ in the last bit on some inputs);
// |y| = inf passes through unchanged. afn: one fma, y log_b(2) + offset.
#pragma once

#include <cstdint>

#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/hipcc/expf.hpp"
#include "samebits/libm/hipcc/ops.hpp"
#include "samebits/libm/platform.hpp"

namespace samebits::hipcc::detail {

// v_log of x scaled out of the subnormal range; c: whether it was.
template <class O, Clang V>
SAMEBITS_FUNC float log2_scaled(float x, bool& c) {
  c = O::lt(x, fp::from_bits(0x00800000u));  // x < 2^-126
  if constexpr (V == Clang::v19) return O::v_log(O::mul(x, c ? 0x1p32f : 1.0f));
  else return O::v_log(O::ldexp(x, c ? 32 : 0));
}

// y log_b(2) in extended precision; |y| = inf unchanged.
template <class O, Clang V>
SAMEBITS_FUNC float times_log_b_2(float y, std::uint32_t c_hi, std::uint32_t c_lo) {
  const float h = O::mul(y, fp::from_bits(c_hi));
  const float e = O::fma(y, fp::from_bits(c_hi), neg<O>(h));
  const float l = O::fma(y, fp::from_bits(c_lo), e);
  const float r = V == Clang::v19 ? O::fma(y, fp::from_bits(c_hi), l) : O::add(h, l);
  return O::finite_abs(y) ? r : y;  // NaN: y
}

template <class O, Mode M, Clang V>
SAMEBITS_FUNC float log_b(float x, std::uint32_t c_hi, std::uint32_t c_lo, std::uint32_t c_afn, std::uint32_t off) {
  if constexpr (M == Mode::daz) {
    return times_log_b_2<O, V>(O::v_log(x), c_hi, c_lo);
  } else {
    bool c;
    const float y = log2_scaled<O, V>(x, c);
    if constexpr (M == Mode::afn) return O::fma(y, fp::from_bits(c_afn), c ? neg<O>(fp::from_bits(off)) : 0.0f);
    else return O::sub(times_log_b_2<O, V>(y, c_hi, c_lo), c ? fp::from_bits(off) : 0.0f);
  }
}

template <class O, Mode M, Clang V>
SAMEBITS_FUNC float log(float x) {  // off = 32 ln 2
  return log_b<O, M, V>(x, 0x3f317217u, 0x3377d1cfu, 0x3f317218u, 0x41b17218u);
}
template <class O, Mode M, Clang V>
SAMEBITS_FUNC float log10(float x) {  // off = 32 log10(2)
  return log_b<O, M, V>(x, 0x3e9a209au, 0x3284fbcfu, 0x3e9a209bu, 0x411a209bu);
}
template <class O, Mode M, Clang V>
SAMEBITS_FUNC float log2(float x) {
  if constexpr (M == Mode::daz) {
    return O::v_log(x);
  } else {
    bool c;
    const float y = log2_scaled<O, V>(x, c);
    return O::sub(y, c ? 32.0f : 0.0f);
  }
}

}  // namespace samebits::hipcc::detail
