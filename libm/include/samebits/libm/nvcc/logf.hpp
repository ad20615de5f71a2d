// samebits/libm/nvcc/logf.hpp — samebits::nvcc::logf, the function CUDA 13's
// logf() computes for sm_90 with default flags, as libdevice inlines it (read
// off `nvcc -arch=sm_90 -ptx`; docs/libm/nvcc.md). No MUFU: a binary32 FMA
// polynomial, so it is reproducible on any IEEE machine with fma.
//
//   subnormal x is scaled by 2^23 (and 23 subtracted from the exponent);
//   e = (bits(x) - 0x3F2AAAAB) & 0xFF800000     exponent, with m in [2/3, 4/3)
//   m = bits(x) - e;  f = m - 1;  E = e * 2^-23 (+ -23)
//   p = Horner(f) of degree 8;  r = fma(f * p, f, f)
//   y = fma(E, ln2, r);  inf and NaN: fma(x, inf, inf);  +-0: -inf
//
// Status: device path only (CUDA); the host path lands with the nvcc
// personality issue.
#pragma once

#include <cstdint>

#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/nvcc/ptx.hpp"

#if defined(SAMEBITS_DEVICE_NVIDIA)

namespace samebits::nvcc {

__device__ __forceinline__ float logf(float x) {
  float xs, e23;
  const float scaled = ptx::mul(x, fp::from_bits(0x4B000000u));  // x 2^23
  asm("{ .reg .pred %%sbp; setp.lt.f32 %%sbp, %2, 0f00800000; selp.f32 %0, %3, %2, %%sbp; "
      "selp.f32 %1, 0fC1B80000, 0f00000000, %%sbp; }"
      : "=f"(xs), "=f"(e23)
      : "f"(x), "f"(scaled));
  std::int32_t ix, t, ie, im;
  asm("mov.b32 %0, %1;" : "=r"(ix) : "f"(xs));
  asm("add.s32 %0, %1, -1059760811;" : "=r"(t) : "r"(ix));  // - 0x3F2AAAAB
  asm("and.b32 %0, %1, -8388608;" : "=r"(ie) : "r"(t));     // & 0xFF800000
  asm("sub.s32 %0, %1, %2;" : "=r"(im) : "r"(ix), "r"(ie));
  const float m = fp::from_bits(static_cast<std::uint32_t>(im));
  const float e = ptx::fma_rn(ptx::cvt_rn_f32_s32(ie), fp::from_bits(0x34000000u), e23);  // e 2^-23
  const float f = ptx::add(m, fp::from_bits(0xBF800000u));                                // m - 1
  float p = ptx::fma_rn(fp::from_bits(0xBE055027u), f, fp::from_bits(0x3E1039F6u));
  p = ptx::fma_rn(p, f, fp::from_bits(0xBDF8CDCCu));
  p = ptx::fma_rn(p, f, fp::from_bits(0x3E0F2955u));
  p = ptx::fma_rn(p, f, fp::from_bits(0xBE2AD8B9u));
  p = ptx::fma_rn(p, f, fp::from_bits(0x3E4CED0Bu));
  p = ptx::fma_rn(p, f, fp::from_bits(0xBE7FFF22u));
  p = ptx::fma_rn(p, f, fp::from_bits(0x3EAAAA78u));
  p = ptx::fma_rn(p, f, fp::from_bits(0xBF000000u));
  const float r = ptx::fma_rn(ptx::mul(f, p), f, f);
  float y = ptx::fma_rn(e, fp::from_bits(0x3F317218u), r);  // + e ln2
  // inf and NaN (encodings >= 0x7f800000 as unsigned): x * inf + inf.
  asm("{ .reg .pred %%sbq; setp.lt.u32 %%sbq, %1, 2139095040; @!%%sbq fma.rn.f32 %0, %2, 0f7F800000, 0f7F800000; }"
      : "+f"(y)
      : "r"(ix), "f"(xs));
  float out;
  asm("{ .reg .pred %%sbz; setp.eq.f32 %%sbz, %1, 0f00000000; selp.f32 %0, 0fFF800000, %2, %%sbz; }"
      : "=f"(out)
      : "f"(xs), "f"(y));
  return out;
}

}  // namespace samebits::nvcc

#endif  // SAMEBITS_DEVICE_NVIDIA
