// samebits/libm/nvcc/host_ops.hpp — the PTX instructions of arch/nvptx.hpp
// that nvcc's libdevice sequences use, computed on the host with IEEE
// binary32 arithmetic (fma included), for the host path of samebits::nvcc.
// The `.ftz` forms flush subnormal inputs and results to sign-preserving zero,
// as PTX defines them (fp/denormals.hpp).
//
// Every product here either ends an expression or feeds an fma as a factor,
// so -ffp-contract=fast has nothing to fuse. The MUFU instructions come from
// the measured models (nvcc/mufu_model.hpp, compiled in samebits_mufu_model):
// ex2.approx and lg2.approx.
#pragma once

#include <cstdint>

#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/fp/denormals.hpp"
#include "samebits/libm/nvcc/mufu_model.hpp"
#include "samebits/libm/platform.hpp"

namespace samebits::nvcc::host {

template <bool Ftz>
SAMEBITS_FUNC float in(float a) { return fp::flush_if<Ftz>(a); }

template <bool Ftz>
SAMEBITS_FUNC float fma_rn(float a, float b, float c) {
  return in<Ftz>(__builtin_fmaf(in<Ftz>(a), in<Ftz>(b), in<Ftz>(c)));
}
template <bool Ftz>
SAMEBITS_FUNC float add(float a, float b) { return in<Ftz>(in<Ftz>(a) + in<Ftz>(b)); }
template <bool Ftz>
SAMEBITS_FUNC float mul(float a, float b) { return in<Ftz>(in<Ftz>(a) * in<Ftz>(b)); }
SAMEBITS_FUNC float cvt_rn_f32_s32(std::int32_t a) { return static_cast<float>(a); }  // never subnormal
template <bool Ftz>
SAMEBITS_FUNC bool setp_lt(float a, float b) { return in<Ftz>(a) < in<Ftz>(b); }
template <bool Ftz>
SAMEBITS_FUNC bool setp_eq(float a, float b) { return in<Ftz>(a) == in<Ftz>(b); }

template <bool Ftz>
SAMEBITS_FUNC float neg(float a) { return in<Ftz>(-in<Ftz>(a)); }
// .sat: clamp to [0, 1]; NaN (and -0) give +0.
template <bool Ftz>
SAMEBITS_FUNC float sat(float a) {
  a = in<Ftz>(a);
  return a > 0.0f ? (a < 1.0f ? a : 1.0f) : 0.0f;
}
// fma.rm for operands whose exact a b + c is a binary64 (true of the one use,
// nvcc's expf: t in [0, 1] times 252 plus 0x1.800002p+23): the binary64
// result is exact, then rounded toward -inf to binary32 with integers.
template <bool Ftz>
SAMEBITS_FUNC float fma_rm(float a, float b, float c) {
  const double d = static_cast<double>(in<Ftz>(a)) * static_cast<double>(in<Ftz>(b)) + static_cast<double>(in<Ftz>(c));
  const float f = static_cast<float>(d);  // nearest; step down if above
  if (!(static_cast<double>(f) > d)) return in<Ftz>(f);
  const std::uint32_t fb = fp::to_bits(f);
  return in<Ftz>(fp::from_bits((fb & 0x7fffffffu) == 0 ? 0x80000001u : (fb >> 31) ? fb + 1 : fb - 1));
}

// Integer operations on encodings (two's complement, modulo 2^32).
SAMEBITS_FUNC std::int32_t mov_b32(float a) { return static_cast<std::int32_t>(fp::to_bits(a)); }
SAMEBITS_FUNC std::int32_t add_s32(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}
SAMEBITS_FUNC std::int32_t sub_s32(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) - static_cast<std::uint32_t>(b));
}
SAMEBITS_FUNC std::int32_t and_b32_exponent(std::int32_t a) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) & 0xFF800000u);
}

// The predicated idioms of arch/nvptx.hpp.
template <bool Ftz>
SAMEBITS_FUNC void select_subnormal_scaled(float x, float scaled, float& xs, float& e23) {
  const bool sub = setp_lt<Ftz>(x, fp::from_bits(0x00800000u));
  xs = sub ? scaled : x;
  e23 = sub ? -23.0f : 0.0f;
}
// x * inf + inf for +inf, NaN, and every negative x (their encodings are
// >= 0x80000000): +inf for +inf, otherwise a NaN. The GPU's NaN is assumed to
// be the canonical 0x7fffffff that NVIDIA arithmetic returns; the host's fma
// would propagate the input's payload instead. Verified only as a class so far
// (docs/libm/nvcc.md).
template <bool Ftz>
SAMEBITS_FUNC float fma_inf_inf_unless_below_inf(float y, std::int32_t ix, float xs) {
  if (static_cast<std::uint32_t>(ix) < 0x7f800000u) return y;
  if (fp::to_bits(xs) == 0x7f800000u) return xs;
  return fp::from_bits(0x7fffffffu);
}
template <bool Ftz>
SAMEBITS_FUNC float select_neg_inf_if_zero(float xs, float y) {
  return setp_eq<Ftz>(xs, 0.0f) ? fp::from_bits(0xFF800000u) : y;
}

// MUFU: host functions of samebits_mufu_model, so these are host-only too.
inline float ex2_approx_ftz(float a) { return model::ex2_approx_ftz(a); }
template <bool Ftz>
inline float ex2_approx(float a) { return Ftz ? model::ex2_approx_ftz(a) : model::ex2_approx(a); }
template <bool Ftz>
inline float lg2_approx(float a) { return Ftz ? model::lg2_approx_ftz(a) : model::lg2_approx(a); }
}  // namespace samebits::nvcc::host
