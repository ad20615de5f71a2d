// samebits/kernels/dtype.hpp — the element types the kernels accept, and the
// two conversions the contract allows: exact widening to binary32, and one
// rounding (to nearest, ties to even) from binary32 with canonical NaN.
//
// The same integer code runs on the host and the GPU, so the CPU reference
// and the kernels round outputs identically by construction, whatever the
// hardware's own cvt would do with NaN payloads (docs/kernels/attention.md §6).
#pragma once

#include <cstdint>

#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/platform.hpp"

namespace samebits::kernels {

// Codes are part of the C ABI (samebits/kernels/c_api.h): never renumber.
enum class DType : std::int32_t { f32 = 0, bf16 = 1, f16 = 2 };

SAMEBITS_FUNC constexpr int dtype_size(DType t) { return t == DType::f32 ? 4 : 2; }
inline constexpr const char* dtype_name(DType t) {
  return t == DType::f32 ? "float32" : t == DType::bf16 ? "bfloat16" : t == DType::f16 ? "float16" : "unknown";
}

// Canonical NaN encodings (what NVIDIA's cvt writes; every output NaN is
// rewritten to these).
inline constexpr std::uint32_t kCanonicalNaN32 = 0x7fffffffu;
inline constexpr std::uint16_t kCanonicalNaN16 = 0x7fffu;  // bf16 and fp16 alike

SAMEBITS_FUNC constexpr float bf16_to_f32(std::uint16_t h) {
  return fp::from_bits(static_cast<std::uint32_t>(h) << 16);
}

SAMEBITS_FUNC constexpr float f16_to_f32(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1f) return fp::from_bits(sign | 0x7f800000u | (m << 13));  // inf, NaN (payload kept)
  if (e != 0) return fp::from_bits(sign | ((e + 112u) << 23) | (m << 13));
  if (m == 0) return fp::from_bits(sign);
  // Subnormal half m * 2^-24: normalize (exact).
  int shift = 0;
  std::uint32_t mm = m;
  while ((mm & 0x400u) == 0) { mm <<= 1; ++shift; }
  return fp::from_bits(sign | ((113u - static_cast<std::uint32_t>(shift)) << 23) | ((mm & 0x3ffu) << 13));
}

// binary32 -> bf16, nearest even; overflow rounds to inf as IEEE says.
SAMEBITS_FUNC constexpr std::uint16_t f32_to_bf16(float x) {
  const std::uint32_t u = fp::to_bits(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) return kCanonicalNaN16;
  return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// binary32 -> IEEE binary16, nearest even, subnormals produced (not flushed).
SAMEBITS_FUNC constexpr std::uint16_t f32_to_f16(float x) {
  const std::uint32_t u = fp::to_bits(x);
  const std::uint32_t sign = (u >> 16) & 0x8000u, ax = u & 0x7fffffffu;
  if (ax > 0x7f800000u) return kCanonicalNaN16;
  if (ax >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // >= 65520: inf
  if (ax >= 0x38800000u) {  // normal half: rebias, round 23 -> 10 fraction bits
    const std::uint32_t r = ax - (112u << 23);
    return static_cast<std::uint16_t>(sign | ((r + 0xfffu + ((r >> 13) & 1u)) >> 13));
  }
  // Subnormal half (or zero): value / 2^-24, rounded to an integer.
  const std::uint32_t e = ax >> 23;
  if (e < 102) return static_cast<std::uint16_t>(sign);  // < 2^-25: rounds to zero
  const std::uint32_t mant = (ax & 0x7fffffu) | 0x800000u;
  const std::uint32_t shift = 126u - e;  // 14..24
  std::uint32_t q = mant >> shift;
  const std::uint32_t rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1u);
  if (rem > half || (rem == half && (q & 1u))) ++q;
  return static_cast<std::uint16_t>(sign | q);
}

SAMEBITS_FUNC constexpr float canonical(float x) {
  return (fp::to_bits(x) & 0x7fffffffu) > 0x7f800000u ? fp::from_bits(kCanonicalNaN32) : x;
}

// Load element i of a tensor of type t as binary32 (exact).
SAMEBITS_FUNC float load_as_f32(const void* base, DType t, std::int64_t i) {
  if (t == DType::f32) return static_cast<const float*>(base)[i];
  const std::uint16_t h = static_cast<const std::uint16_t*>(base)[i];
  return t == DType::bf16 ? bf16_to_f32(h) : f16_to_f32(h);
}

// Store binary32 x into element i of a tensor of type t: one rounding,
// canonical NaN.
SAMEBITS_FUNC void store_from_f32(void* base, DType t, std::int64_t i, float x) {
  if (t == DType::f32) {
    static_cast<float*>(base)[i] = canonical(x);
  } else {
    static_cast<std::uint16_t*>(base)[i] = t == DType::bf16 ? f32_to_bf16(x) : f32_to_f16(x);
  }
}

// Elements i and i + 1 (i even; base aligned to two elements) in one 4-byte (16-bit types) or 8-byte
// (f32) store: the values of store_from_f32(base, t, i, x) and store_from_f32(base, t, i + 1, y).
SAMEBITS_FUNC void store_pair_from_f32(void* base, DType t, std::int64_t i, float x, float y) {
  if (t == DType::f32) {
    struct alignas(8) Pair {
      float lo, hi;
    };
    static_cast<Pair*>(base)[i / 2] = Pair{canonical(x), canonical(y)};
  } else {
    const std::uint32_t lo = t == DType::bf16 ? f32_to_bf16(x) : f32_to_f16(x);
    const std::uint32_t hi = t == DType::bf16 ? f32_to_bf16(y) : f32_to_f16(y);
    static_cast<std::uint32_t*>(base)[i / 2] = lo | (hi << 16);
  }
}

}  // namespace samebits::kernels
