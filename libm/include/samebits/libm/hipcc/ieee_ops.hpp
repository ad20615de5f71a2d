// samebits/libm/hipcc/ieee_ops.hpp — the AMDGPU instructions that clang's
// exp/log lowering uses, computed with IEEE binary32 arithmetic on the host
// and on NVIDIA GPUs (the paths without v_exp_f32 / v_log_f32, which come
// from a Model, hipcc/models.hpp).
//
// Every operation is pinned (arch/ieee.hpp): on NVIDIA each is one
// inline-PTX instruction without .ftz (so nvcc's -ftz=true, -use_fast_math
// and -fmad cannot change it); on the host products and sums pass through
// arch::opaque (so -ffp-contract=fast has nothing to fuse). Daz = true gives
// the preserve-sign denormal mode: subnormal inputs and results of every
// arithmetic instruction become zeros of the same sign.
#pragma once

#include <cstdint>

#include "samebits/libm/arch/ieee.hpp"
#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/fp/denormals.hpp"
#include "samebits/libm/hipcc/models.hpp"
#include "samebits/libm/platform.hpp"

namespace samebits::hipcc::ieee {

using arch::add_rn;
using arch::fma_rn;
using arch::mul_rn;
using arch::narrow_rn;
using arch::sub_rn;
using arch::widen;

// The instruction set of the sequences in hipcc/expf.hpp and hipcc/logf.hpp.
template <bool Daz, class Model>
struct Ops {
  static SAMEBITS_FUNC float in(float a) { return fp::flush_if<Daz>(a); }
  static SAMEBITS_FUNC float mul(float a, float b) { return in(mul_rn(in(a), in(b))); }
  static SAMEBITS_FUNC float add(float a, float b) { return in(add_rn(in(a), in(b))); }
  static SAMEBITS_FUNC float sub(float a, float b) { return in(sub_rn(in(a), in(b))); }
  static SAMEBITS_FUNC float fma(float a, float b, float c) { return in(fma_rn(in(a), in(b), in(c))); }
  // v_rndne_f32: to the nearest integer, ties to even, sign kept (-0.3 -> -0).
  // |a| < 2^23: (|a| + 2^23) - 2^23 rounds once, to nearest even; larger |a|,
  // inf and NaN are returned (NaN quieted by the caller's next operation).
  static SAMEBITS_FUNC float rndne(float a) {
    a = in(a);
    const std::uint32_t b = fp::to_bits(a);
    if ((b & 0x7fffffffu) >= 0x4b000000u) return a;
    const float m = sub_rn(add_rn(fp::from_bits(b & 0x7fffffffu), 0x1p23f), 0x1p23f);
    return fp::from_bits(fp::to_bits(m) | (b & fp::kSignMask));
  }
  // v_cvt_i32_f32: toward zero, saturating; NaN -> 0.
  static SAMEBITS_FUNC std::int32_t cvt_i32(float a) {
    a = in(a);
    const std::uint32_t ax = fp::to_bits(a) & 0x7fffffffu;
    if (ax > fp::kExponentMask) return 0;
    if (ax >= 0x4f000000u) return (fp::to_bits(a) >> 31) ? INT32_MIN : INT32_MAX;  // |a| >= 2^31
    return static_cast<std::int32_t>(a);
  }
  // v_ldexp_f32: a 2^n rounded once to nearest (exact in binary64 for the
  // clamped n, then one conversion).
  static SAMEBITS_FUNC float ldexp(float a, std::int32_t n) {
    n = n < -400 ? -400 : n > 400 ? 400 : n;
    const double s = fp::from_bits64(static_cast<std::uint64_t>(n + 1023) << 52);
    return in(narrow_rn(widen(in(a)) * s));  // a product of two binary64: exact here
  }
  static SAMEBITS_FUNC float v_exp(float a) { return Model::template v_exp<Daz>(a); }
  static SAMEBITS_FUNC float v_log(float a) { return Model::template v_log<Daz>(a); }
  static SAMEBITS_FUNC bool lt(float a, float b) { return in(a) < in(b); }
  static SAMEBITS_FUNC bool gt(float a, float b) { return in(a) > in(b); }
  static SAMEBITS_FUNC bool finite_abs(float y) { return (fp::to_bits(in(y)) & 0x7fffffffu) < fp::kExponentMask; }
  static SAMEBITS_FUNC float abs(float a) { return fp::from_bits(fp::to_bits(a) & 0x7fffffffu); }
  static SAMEBITS_FUNC float select(bool c, float a, float b) { return c ? a : b; }
  // NaN results as AMD's IEEE mode is expected to give them (not verified on
  // hardware): a NaN input comes out quieted, an invalid operation gives
  // 0x7fc00000. Host and NVIDIA arithmetic make other NaNs; this makes the
  // two paths agree.
  static SAMEBITS_FUNC float result(float x, float y) {
    const std::uint32_t bx = fp::to_bits(x), by = fp::to_bits(y);
    if ((by & 0x7fffffffu) <= fp::kExponentMask) return y;
    return fp::from_bits((bx & 0x7fffffffu) > fp::kExponentMask ? bx | fp::kQuietBit : 0x7fc00000u);
  }
};

}  // namespace samebits::hipcc::ieee
