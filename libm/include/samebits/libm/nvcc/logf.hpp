// samebits/libm/nvcc/logf.hpp — the logarithms as nvcc 13 (sm_90) computes
// them: samebits::nvcc::{logf, log2f, log10f} (default flags),
// samebits::nvcc::ftz::{...} (-ftz=true), samebits::nvcc::fast::{logf,
// log2f} (__logf, __log2f). Read off `nvcc -arch=sm_90 -O3 -ptx
// tests/libm/nvcc/cuda_functions.cu`; derivation in docs/libm/nvcc.md.
//
// logf / log2f: no MUFU, a binary32 FMA polynomial:
//   subnormal x (x < 2^-126) is scaled by 2^23, and -23 added to the exponent;
//   e = (bits(x) - OFF) & 0xFF800000     OFF = 0x3F2AAAAB (logf), 0x3F3504F3 (log2f)
//   m = bits(x) - e;  f = m - 1;  E = fma(e as integer, 2^-23, -23 or 0)
//   logf : y = fma(E, ln2, fma(f * p(f), f, f)),       p of 9 coefficients
//   log2f: y = E + fma(f, log2(e), f * (f * p(f))),    p of 10 coefficients
//   x >= inf or NaN (unsigned encodings): fma(x, inf, inf);  x == +-0: -inf
// log10f = logf's y times log10(e) (0x3EDE5BD9), before the zero test.
//
// Device path: inline PTX (arch/nvptx.hpp). Host path: the same operations in
// IEEE binary32 (nvcc/host_ops.hpp); logf / log2f / log10f involve no MUFU, the
// intrinsics use the model of MUFU lg2 (nvcc/mufu_model.hpp; link
// samebits_mufu_model).
#pragma once

#include <cstdint>

#include "samebits/libm/arch/nvptx.hpp"
#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/nvcc/host_ops.hpp"

namespace samebits::nvcc {
namespace detail {

// The common front end: the (possibly scaled) input xs, its encoding, the
// exponent E and f = m - 1.
struct LogArgs {
  float xs;
  std::int32_t ix;
  float e;
  float f;
};

#if defined(SAMEBITS_DEVICE_NVIDIA)
namespace ops = arch::nvptx;
#else
namespace ops = host;
#endif

template <bool Ftz>
SAMEBITS_FUNC LogArgs log_reduce(float x, std::int32_t off_neg) {
  float xs, e23;
  const float scaled = ops::mul<Ftz>(x, fp::from_bits(0x4B000000u));  // x 2^23
  std::int32_t ix, ie, im;
#if defined(SAMEBITS_DEVICE_NVIDIA)
  if constexpr (Ftz) {
    asm("{ .reg .pred %%sbp; setp.lt.ftz.f32 %%sbp, %2, 0f00800000; selp.f32 %0, %3, %2, %%sbp; "
        "selp.f32 %1, 0fC1B80000, 0f00000000, %%sbp; }"
        : "=f"(xs), "=f"(e23) : "f"(x), "f"(scaled));
  } else {
    asm("{ .reg .pred %%sbp; setp.lt.f32 %%sbp, %2, 0f00800000; selp.f32 %0, %3, %2, %%sbp; "
        "selp.f32 %1, 0fC1B80000, 0f00000000, %%sbp; }"
        : "=f"(xs), "=f"(e23) : "f"(x), "f"(scaled));
  }
  std::int32_t t;
  asm("mov.b32 %0, %1;" : "=r"(ix) : "f"(xs));
  asm("add.s32 %0, %1, %2;" : "=r"(t) : "r"(ix), "r"(off_neg));
  asm("and.b32 %0, %1, -8388608;" : "=r"(ie) : "r"(t));  // & 0xFF800000
  asm("sub.s32 %0, %1, %2;" : "=r"(im) : "r"(ix), "r"(ie));
#else
  const bool sub = host::setp_lt<Ftz>(x, fp::from_bits(0x00800000u));
  xs = sub ? scaled : x;
  e23 = sub ? -23.0f : 0.0f;
  ix = static_cast<std::int32_t>(fp::to_bits(xs));
  ie = static_cast<std::int32_t>((static_cast<std::uint32_t>(ix) + static_cast<std::uint32_t>(off_neg)) & 0xFF800000u);
  im = static_cast<std::int32_t>(static_cast<std::uint32_t>(ix) - static_cast<std::uint32_t>(ie));
#endif
  const float m = fp::from_bits(static_cast<std::uint32_t>(im));
  const float e = ops::fma_rn<Ftz>(ops::cvt_rn_f32_s32(ie), fp::from_bits(0x34000000u), e23);  // e 2^-23
  const float f = ops::add<Ftz>(m, fp::from_bits(0xBF800000u));                                // m - 1
  return {xs, ix, e, f};
}

// inf and NaN (encodings >= 0x7f800000 as unsigned): x * inf + inf.
template <bool Ftz>
SAMEBITS_FUNC float log_nonfinite(float y, const LogArgs& a) {
#if defined(SAMEBITS_DEVICE_NVIDIA)
  if constexpr (Ftz) {
    asm("{ .reg .pred %%sbq; setp.lt.u32 %%sbq, %1, 2139095040; @!%%sbq fma.rn.ftz.f32 %0, %2, 0f7F800000, 0f7F800000; }"
        : "+f"(y) : "r"(a.ix), "f"(a.xs));
  } else {
    asm("{ .reg .pred %%sbq; setp.lt.u32 %%sbq, %1, 2139095040; @!%%sbq fma.rn.f32 %0, %2, 0f7F800000, 0f7F800000; }"
        : "+f"(y) : "r"(a.ix), "f"(a.xs));
  }
  return y;
#else
  if (static_cast<std::uint32_t>(a.ix) < 0x7f800000u) return y;
  // x * inf + inf for +inf, NaN, and every negative x (their encodings are
  // >= 0x80000000): +inf for +inf, otherwise a NaN. The GPU's NaN is assumed
  // to be the canonical 0x7fffffff that NVIDIA arithmetic returns; the
  // host's fma would propagate the input's payload instead. Verified only
  // as a class so far (docs/libm/nvcc.md).
  if (fp::to_bits(a.xs) == 0x7f800000u) return a.xs;
  return fp::from_bits(0x7fffffffu);
#endif
}

// x == +-0: -inf.
template <bool Ftz>
SAMEBITS_FUNC float log_zero(float y, const LogArgs& a) {
#if defined(SAMEBITS_DEVICE_NVIDIA)
  float out;
  if constexpr (Ftz) {
    asm("{ .reg .pred %%sbz; setp.eq.ftz.f32 %%sbz, %1, 0f00000000; selp.f32 %0, 0fFF800000, %2, %%sbz; }"
        : "=f"(out) : "f"(a.xs), "f"(y));
  } else {
    asm("{ .reg .pred %%sbz; setp.eq.f32 %%sbz, %1, 0f00000000; selp.f32 %0, 0fFF800000, %2, %%sbz; }"
        : "=f"(out) : "f"(a.xs), "f"(y));
  }
  return out;
#else
  return host::setp_eq<Ftz>(a.xs, 0.0f) ? fp::from_bits(0xFF800000u) : y;
#endif
}

template <bool Ftz>
SAMEBITS_FUNC float logf_unfinished(const LogArgs& a) {
  const float f = a.f;
  float p = ops::fma_rn<Ftz>(fp::from_bits(0xBE055027u), f, fp::from_bits(0x3E1039F6u));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0xBDF8CDCCu));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0x3E0F2955u));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0xBE2AD8B9u));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0x3E4CED0Bu));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0xBE7FFF22u));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0x3EAAAA78u));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0xBF000000u));
  const float r = ops::fma_rn<Ftz>(ops::mul<Ftz>(f, p), f, f);
  return log_nonfinite<Ftz>(ops::fma_rn<Ftz>(a.e, fp::from_bits(0x3F317218u), r), a);  // + e ln2
}

template <bool Ftz>
SAMEBITS_FUNC float logf(float x) {
  const LogArgs a = log_reduce<Ftz>(x, -0x3F2AAAAB);
  return log_zero<Ftz>(logf_unfinished<Ftz>(a), a);
}

template <bool Ftz>
SAMEBITS_FUNC float log10f(float x) {
  const LogArgs a = log_reduce<Ftz>(x, -0x3F2AAAAB);
  return log_zero<Ftz>(ops::mul<Ftz>(logf_unfinished<Ftz>(a), fp::from_bits(0x3EDE5BD9u)), a);
}

template <bool Ftz>
SAMEBITS_FUNC float log2f(float x) {
  const LogArgs a = log_reduce<Ftz>(x, -0x3F3504F3);
  const float f = a.f;
  float p = ops::fma_rn<Ftz>(fp::from_bits(0x3DC6B27Fu), f, fp::from_bits(0xBE2C7F30u));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0x3E2FCF2Au));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0xBE374E43u));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0x3E520BF4u));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0xBE763C8Bu));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0x3E93BF99u));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0xBEB8AA49u));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0x3EF6384Au));
  p = ops::fma_rn<Ftz>(p, f, fp::from_bits(0xBF38AA3Bu));
  const float ff = ops::mul<Ftz>(f, ops::mul<Ftz>(f, p));
  const float r = ops::fma_rn<Ftz>(f, fp::from_bits(0x3FB8AA3Bu), ff);  // f log2(e) + f^2 p
  return log_zero<Ftz>(log_nonfinite<Ftz>(ops::add<Ftz>(a.e, r), a), a);
}

}  // namespace detail

SAMEBITS_FUNC float logf(float x) { return detail::logf<false>(x); }
SAMEBITS_FUNC float log2f(float x) { return detail::log2f<false>(x); }
SAMEBITS_FUNC float log10f(float x) { return detail::log10f<false>(x); }

namespace ftz {
SAMEBITS_FUNC float logf(float x) { return detail::logf<true>(x); }
SAMEBITS_FUNC float log2f(float x) { return detail::log2f<true>(x); }
SAMEBITS_FUNC float log10f(float x) { return detail::log10f<true>(x); }
}  // namespace ftz

// The intrinsics: MUFU lg2, then (for __logf) one multiply by ln 2 rounded
// to binary32 (mul.f32, not ftz). Device path: lg2.approx.f32; host path:
// the measured model of the H200's MUFU lg2 (nvcc/mufu_model.hpp).
namespace fast {
SAMEBITS_FUNC float logf(float x) {
  return detail::ops::mul<false>(detail::ops::lg2_approx<false>(x), fp::from_bits(0x3F317218u));
}
SAMEBITS_FUNC float log2f(float x) { return detail::ops::lg2_approx<false>(x); }
}  // namespace fast

}  // namespace samebits::nvcc

