// Host tests of samebits::mma::sm90 (libm/include/samebits/libm/mma/sm90.hpp):
// hand-derived cases with their expected encodings, and a cross-check of the
// fast model against an independent exact evaluation (mma_reference.hpp) on
// the probe's input classes, with negative controls. Every comparison is of
// encodings (bits).
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

#include "mma_candidates.hpp"
#include "mma_classes.hpp"
#include "mma_reference.hpp"
#include "samebits/libm/mma/sm90.hpp"

namespace sm90 = samebits::mma::sm90;
namespace ref = samebits::mma::reference;
namespace probe = samebits::mma::probe;
using sm90::Format;
using sm90::Params;

namespace {

using Vec = std::array<std::uint16_t, 16>;

std::string hex32(std::uint32_t x) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", x);
  return buf;
}

// Expected encodings are compared as hex strings so that a failure prints both.
#define CHECK_BITS(got, want) CHECK(hex32(got) == hex32(want))

Params with_f(int f) { Params p; p.frac_bits = f; return p; }
Params with_group(int g) { Params p; p.group = g; return p; }

std::uint32_t fast(Format f, const Vec& a, const Vec& b, std::uint32_t c, const Params& p = Params{}) {
  return sm90::dot_add(f, a.data(), b.data(), 16, c, p);
}
std::uint32_t slow(Format f, const Vec& a, const Vec& b, std::uint32_t c, const Params& p = Params{}) {
  return ref::dot_add(f, a.data(), b.data(), 16, c, p);
}
// Both evaluations must agree; returns the fast one.
std::uint32_t both(Format f, const Vec& a, const Vec& b, std::uint32_t c, const Params& p = Params{}) {
  const std::uint32_t x = fast(f, a, b, c, p), y = slow(f, a, b, c, p);
  CHECK(hex32(x) == hex32(y));
  return x;
}
std::uint32_t both_dot(Format f, const Vec& a, const Vec& b, const Params& p = Params{}) {
  const std::uint32_t x = sm90::dot(f, a.data(), b.data(), 16, p), y = ref::dot(f, a.data(), b.data(), 16, p);
  CHECK(hex32(x) == hex32(y));
  return x;
}

// bf16 encodings used below (exact values in the comments).
constexpr std::uint16_t kOne = 0x3f80;       // 1.0
constexpr std::uint16_t kOneHalf = 0x3fc0;   // 1.5
constexpr std::uint16_t kM2m25 = 0xb300;     // -0x1p-25
constexpr std::uint16_t kM2m26 = 0xb280;     // -0x1p-26
constexpr std::uint16_t k2p100 = 0x7180;     // 0x1p100
constexpr std::uint16_t kM2p100 = 0xf180;    // -0x1p100
constexpr std::uint16_t k2m26 = 0x3280;      // 0x1p-26
constexpr std::uint16_t k2m76 = 0x1980;      // 0x1p-76 (field 51)
constexpr std::uint16_t k2m70 = 0x1c80;      // 0x1p-70 (field 57)
constexpr std::uint16_t kMinSub = 0x0001;    // 0x1p-133, the smallest bf16 subnormal
constexpr std::uint16_t kNegZero = 0x8000;   // -0
constexpr std::uint16_t kInf = 0x7f80, kNegInf = 0xff80, kQNaN = 0x7fc1, kSNaN = 0xff81;

}  // namespace

TEST_CASE("mma model: exact sums", "[mma]") {
  Vec a{}, b{};
  a[0] = a[1] = kOne;
  b[0] = b[1] = kOne;
  CHECK_BITS(both(Format::bf16, a, b, 0x00000000u), 0x40000000u);  // 1 + 1 = 2
  // 16 products 1.5 * 1.5 = 2.25 plus C = 3 (0x40400000): 36 + 3 = 39 = 0x421c0000.
  a.fill(kOneHalf);
  b.fill(kOneHalf);
  CHECK_BITS(both(Format::bf16, a, b, 0x40400000u), 0x421c0000u);
  // fp16: 16 * (1 + 2^-10)^2 = 16 + 2^-5 + 2^-16: exact in fp32 (ulp 2^-19 at 16).
  a.fill(0x3c01);
  b.fill(0x3c01);
  CHECK_BITS(both(Format::f16, a, b, 0x00000000u), 0x41804008u);
}

TEST_CASE("mma model: a term truncated away (F = 24, 25, 26; RZ vs RN)", "[mma]") {
  Vec a{}, b{};
  a[0] = kOne;
  b[0] = b[1] = kOne;
  // 1 - 2^-25: one unit at F = 25 (kept), dropped at F = 24; RZ gives 0x1.fffffep-1.
  a[1] = kM2m25;
  CHECK_BITS(both(Format::bf16, a, b, 0, with_f(24)), 0x3f800000u);
  CHECK_BITS(both(Format::bf16, a, b, 0, with_f(25)), 0x3f7fffffu);
  CHECK_BITS(both(Format::bf16, a, b, 0, with_f(26)), 0x3f7fffffu);
  Params rn;
  rn.rounding = sm90::Rounding::nearest_even;  // a tie between 0x3f7fffff and 1.0: even is 1.0
  CHECK_BITS(both(Format::bf16, a, b, 0, rn), 0x3f800000u);
  // 1 - 2^-26: kept only at F = 26.
  a[1] = kM2m26;
  CHECK_BITS(both(Format::bf16, a, b, 0, with_f(24)), 0x3f800000u);
  CHECK_BITS(both(Format::bf16, a, b, 0, with_f(25)), 0x3f800000u);
  CHECK_BITS(both(Format::bf16, a, b, 0, with_f(26)), 0x3f7fffffu);
}

TEST_CASE("mma model: truncation is toward zero per term, not floor", "[mma]") {
  Vec a{}, b{};
  a[0] = b[0] = kOne;
  // C = -0x1p-30: below the unit 2^-25, its magnitude floors to 0: D = 1.0
  // (IEEE RZ of 1 - 2^-30 would be 0x3f7fffff).
  CHECK_BITS(both(Format::bf16, a, b, 0xb0800000u), 0x3f800000u);
  // C = -0x1p-24 = -2 units: 1 - 2^-24 = 0x3f7fffff exactly.
  CHECK_BITS(both(Format::bf16, a, b, 0xb3800000u), 0x3f7fffffu);
  // C = +0x1p-30 also vanishes: 1.0.
  CHECK_BITS(both(Format::bf16, a, b, 0x30800000u), 0x3f800000u);
}

TEST_CASE("mma model: massive cancellation, and where a group boundary falls", "[mma]") {
  Vec a{}, b{};
  // 2^200 - 2^200 + 1*1 (product 2 at position 2): emax = 200, the 1.0 sits 200
  // binades below the unit: truncated; S = 0 -> +0.
  a[0] = k2p100; b[0] = k2p100;
  a[1] = kM2p100; b[1] = k2p100;
  a[2] = kOne; b[2] = kOne;
  CHECK_BITS(both(Format::bf16, a, b, 0), 0x00000000u);
  // The same 1*1 at position 8: one group of 16 still loses it; groups of 8
  // (steps 0..7 then 8..15 through fp32) keep it: 0x3f800000.
  a[2] = b[2] = 0;
  a[8] = kOne; b[8] = kOne;
  CHECK_BITS(both(Format::bf16, a, b, 0), 0x00000000u);
  CHECK_BITS(both(Format::bf16, a, b, 0, with_group(8)), 0x3f800000u);
  CHECK_BITS(both(Format::bf16, a, b, 0, with_group(4)), 0x3f800000u);
  // fp16: 2^15*2^15 - 2^15*2^15 + 2^-14 * 1: same story (0x7800 = 0x1p15, 0x0400 = 0x1p-14).
  Vec h{}, g{};
  h[0] = 0x7800; g[0] = 0x7800;
  h[1] = 0xf800; g[1] = 0x7800;
  h[8] = 0x0400; g[8] = 0x3c00;
  CHECK_BITS(both(Format::f16, h, g, 0), 0x00000000u);
  CHECK_BITS(both(Format::f16, h, g, 0, with_group(8)), 0x38800000u);  // 2^-14
}

TEST_CASE("mma model: C much larger and much smaller than the products", "[mma]") {
  Vec a{}, b{};
  a.fill(kOne);
  b.fill(kOne);
  // C = 2^26: unit 2^1, each product 1.0 truncates to 0: D = 2^26 = 0x4c800000
  // (the exact 2^26 + 16 = 0x4c800002 is an fp32).
  CHECK_BITS(both(Format::bf16, a, b, 0x4c800000u), 0x4c800000u);
  // C = 2^20: unit 2^-5, products kept: 2^20 + 16 = 0x49800080 (ulp 2^-3).
  CHECK_BITS(both(Format::bf16, a, b, 0x49800000u), 0x49800080u);
  // C = 2^-30 under 16 products of 1: dropped, D = 16 = 0x41800000.
  CHECK_BITS(both(Format::bf16, a, b, 0x30800000u), 0x41800000u);
}

TEST_CASE("mma model: C joined with the first group or after the products", "[mma]") {
  Vec a{}, b{};
  a.fill(k2m26);
  b.fill(kOne);
  Params after;
  after.c_join = sm90::CJoin::after_products;
  // C = 1: fused with C, each 2^-26 is below the unit 2^-25: D = 1.0.
  CHECK_BITS(both(Format::bf16, a, b, 0x3f800000u), 0x3f800000u);
  // Products first: 16 * 2^-26 = 2^-22 exactly, then 1 + 2^-22 = 0x3f800002.
  CHECK_BITS(both(Format::bf16, a, b, 0x3f800000u, after), 0x3f800002u);
}

TEST_CASE("mma model: product alignment exponent, raw (ea + eb) or normalized", "[mma]") {
  Vec a{}, b{};
  a[0] = kOneHalf; b[0] = kOneHalf;  // 2.25: raw exponent 0, normalized 1
  a[1] = kM2m25; b[1] = kOne;        // -2^-25: one unit below emax = 0, none below emax = 1
  CHECK_BITS(both(Format::bf16, a, b, 0), 0x400fffffu);  // 2.25 - 2^-25 -> RZ 0x1.1ffffcp+1
  Params norm;
  norm.product_exponent = sm90::ProductExponent::normalized;
  CHECK_BITS(both(Format::bf16, a, b, 0, norm), 0x40100000u);  // 2.25
}

TEST_CASE("mma model: subnormal products and results", "[mma]") {
  Vec a{}, b{};
  // 2^-70 * 2^-70 = 2^-140 = 2^9 * 2^-149: subnormal fp32 0x00000200.
  a[0] = k2m70; b[0] = k2m70;
  CHECK_BITS(both(Format::bf16, a, b, 0), 0x00000200u);
  // The smallest bf16 subnormal times 1: 2^-133 = 0x00010000.
  a[0] = kMinSub; b[0] = kOne;
  CHECK_BITS(both(Format::bf16, a, b, 0), 0x00010000u);
  // Eight products 2^-76 * 2^-76 = 2^-152 onto C = +0. Default (zero terms
  // ignored, emax = -152 raised to the floor -133): unit 2^-158, each product
  // 2^6 units, the sum 2^-149 exact: 0x00000001; the same with no floor.
  // With C = +0 at -126 (format_min, fixed_m126) the unit is 2^-151 and each
  // product truncates to 0: +0.
  a.fill(0); b.fill(0);
  for (int i = 0; i < 8; ++i) { a[i] = k2m76; b[i] = k2m76; }
  CHECK_BITS(both(Format::bf16, a, b, 0), 0x00000001u);
  Params no_floor;
  no_floor.emax_floor = sm90::kNoExponentFloor;
  CHECK_BITS(both(Format::bf16, a, b, 0, no_floor), 0x00000001u);
  Params fixed;
  fixed.zero_exponent = sm90::ZeroExponent::fixed_m126;
  CHECK_BITS(both(Format::bf16, a, b, 0, fixed), 0x00000000u);
  Params fmin;
  fmin.zero_exponent = sm90::ZeroExponent::format_min;
  CHECK_BITS(both(Format::bf16, a, b, 0, fmin), 0x00000000u);
  // Where the floor shows: 2^-67 * 2^-68 = 2^-135 and four products
  // 2^-80 * -2^-79 = -2^-159. emax = -135: with the floor -133 the unit is
  // 2^-158 and each -2^-159 (half a unit) truncates to 0: 2^-135 = 0x00004000.
  // With no floor the unit is 2^-160, the sum 2^-135 - 2^-157 is exact, and RZ
  // onto the 2^-149 grid gives 2^-135 - 2^-149 = 0x00003fff. A floor of -134
  // (unit 2^-159) keeps them too: 0x00003fff.
  a.fill(0); b.fill(0);
  a[0] = 0x1e00; b[0] = 0x1d80;  // 2^-67 (field 60) * 2^-68 (field 59)
  for (int i = 1; i <= 4; ++i) { a[i] = 0x1780; b[i] = 0x9800; }  // 2^-80 (field 47) * -2^-79 (field 48)
  CHECK_BITS(both(Format::bf16, a, b, 0), 0x00004000u);
  CHECK_BITS(both(Format::bf16, a, b, 0, no_floor), 0x00003fffu);
  Params floor134;
  floor134.emax_floor = -134;
  CHECK_BITS(both(Format::bf16, a, b, 0, floor134), 0x00003fffu);
  // A single -2^-152: nonzero S whose RZ result is zero. Under ZeroSign::ieee
  // it keeps its sign (-0, as IEEE RZ); under positive (the default,
  // measured) it is +0.
  a.fill(0); b.fill(0);
  a[0] = static_cast<std::uint16_t>(k2m76 | 0x8000u); b[0] = k2m76;
  Params ieee;
  ieee.zero_sign = sm90::ZeroSign::ieee;
  CHECK_BITS(both(Format::bf16, a, b, 0, ieee), 0x80000000u);
  CHECK_BITS(both(Format::bf16, a, b, 0), 0x00000000u);
  // The reading the H100 records replaced: zero terms ignored, no floor, a
  // tiny sum keeping its sign.
  Params replaced = no_floor;
  replaced.zero_sign = sm90::ZeroSign::ieee;
  // Measured on the H100 (docs/kernels/mma.md §6.3, the probe's records in
  // docs/kernels/results/h100/2026-12-06/last/mma.jsonl.gz): dot products of
  // bf16 subnormal-range operands where that reading missed by one unit or by
  // the sign of zero. The hardware's bits (hw) are what the default model
  // gives.
  struct Recorded {
    Vec a, b;
    std::uint32_t c;
    bool scale_d;  // false: scale-d = 0 (sm90::dot)
    std::uint32_t hw;
  } const recorded[] = {
      {{0x0003, 0x9f59, 0x805d, 0x98a1, 0x9e2e, 0x9779, 0x007d, 0x000c, 0x1d16, 0x8039, 0x802c, 0x17b5, 0x1680, 0x179a, 0x95b7, 0x2251},
       {0xa2af, 0x156d, 0x22b2, 0x1f82, 0x004f, 0x006b, 0x967d, 0x1c10, 0x1c0b, 0x133d, 0x183e, 0x1c3d, 0x9f72, 0x0065, 0x1f91, 0x14f4},
       0x00000000u, false, 0x0000020eu},  // wgmma_scale_d0 zero-ignored+zsign-positive,no-C tile 111
      {{0x1f57, 0xa116, 0x007f, 0x0004, 0x1c73, 0x9edc, 0x9ef9, 0xa19f, 0x2409, 0x8039, 0xa23b, 0x0027, 0x14f9, 0x004e, 0x9723, 0x8066},
       {0x9a33, 0x9944, 0x0009, 0x990e, 0x9306, 0x1a04, 0x005a, 0x9414, 0x8010, 0x1e6c, 0x98b9, 0x1480, 0x9d33, 0x18f9, 0x2084, 0x9bfb},
       0x80000000u, true, 0x0000295du},  // wgmma zero-ignored+zsign-positive tile 3
      {{0x23f0, 0x8052, 0x22c4, 0x96d1, 0x9bce, 0x006b, 0x13de, 0x16ac, 0x1626, 0x13eb, 0x800e, 0x800b, 0x801b, 0x0075, 0x21fc, 0x8053},
       {0x001b, 0x967f, 0x8017, 0x13fc, 0x128c, 0x1599, 0x8069, 0x131e, 0x987e, 0x8033, 0x1e35, 0x1332, 0x0035, 0x0036, 0x801b, 0xa0a9},
       0x00000000u, true, 0x00000000u},  // wgmma zero-ignored+zsign-positive tile 190
  };
  for (const Recorded& r : recorded) {
    CHECK_BITS(r.scale_d ? both(Format::bf16, r.a, r.b, r.c) : both_dot(Format::bf16, r.a, r.b), r.hw);
    // The reading it replaced misses each one.
    CHECK(hex32(r.scale_d ? both(Format::bf16, r.a, r.b, r.c, replaced)
                          : both_dot(Format::bf16, r.a, r.b, replaced)) != hex32(r.hw));
  }
  // The same product with a subnormal C = 0x1p-149 (exponent -126 like every
  // subnormal): unit 2^-151, the product truncates to 0, D = C.
  CHECK_BITS(both(Format::bf16, a, b, 0x00000001u), 0x00000001u);
}

TEST_CASE("mma model: a zero against a large partner (ZeroExponent)", "[mma]") {
  // bf16: 0 * 2^100 has exponent -126 + 100 = -26 under format_min: the
  // unit becomes 2^-51 and the product 2^-40 * 2^-20 = 2^-60 truncates to 0.
  Vec a{}, b{};
  a[0] = 0x0000; b[0] = k2p100;         // +0 * 2^100
  a[1] = 0x2b80; b[1] = 0x3580;         // 2^-40 * 2^-20 = 2^-60 (0x2b80: field 87; 0x3580: field 107)
  // format_min: emax = max(-26, -60, C=+0 at -126) = -26, unit 2^-51: 2^-60 -> 0: +0.
  Params fmin;
  fmin.zero_exponent = sm90::ZeroExponent::format_min;
  CHECK_BITS(both(Format::bf16, a, b, 0, fmin), 0x00000000u);
  CHECK_BITS(both(Format::bf16, a, b, 0), 0x21800000u);  // the default (ignored): 2^-60
  Params ignored;
  ignored.zero_exponent = sm90::ZeroExponent::ignored;
  CHECK_BITS(both(Format::bf16, a, b, 0, ignored), 0x21800000u);  // 2^-60
  Params fixed;
  fixed.zero_exponent = sm90::ZeroExponent::fixed_m126;
  CHECK_BITS(both(Format::bf16, a, b, 0, fixed), 0x21800000u);
  // fp16: 0 * 2^15 sits at -14 + 15 = 1; the product 2^-14 * 2^-14 = 2^-28 is
  // 29 binades below: unit 2^-24, truncated: +0 (ignored: 2^-28 = 0x31800000).
  Vec h{}, g{};
  h[0] = 0x0000; g[0] = 0x7800;
  h[1] = 0x0400; g[1] = 0x0400;
  CHECK_BITS(both(Format::f16, h, g, 0, fmin), 0x00000000u);
  CHECK_BITS(both(Format::f16, h, g, 0, ignored), 0x31800000u);
  CHECK_BITS(both(Format::f16, h, g, 0), 0x31800000u);
}

TEST_CASE("mma model: signed zeros (the documented assumption, ZeroSign)", "[mma]") {
  Vec a{}, b{};
  a.fill(kNegZero);  // every product -0 * +0 = -0
  Params positive;  // the default
  Params ieee;
  ieee.zero_sign = sm90::ZeroSign::ieee;
  // ieee: all terms negative zeros -> -0; one +0 term (C) -> +0.
  CHECK_BITS(both(Format::bf16, a, b, 0x80000000u, ieee), 0x80000000u);
  CHECK_BITS(both(Format::bf16, a, b, 0x00000000u, ieee), 0x00000000u);
  CHECK_BITS(both(Format::bf16, a, b, 0x80000000u, positive), 0x00000000u);
  // scale-d = 0 is a +0 accumulator (measured): +0 under both rules. The
  // other reading, no C term at all, gives -0 under ieee.
  CHECK_BITS(both_dot(Format::bf16, a, b, ieee), 0x00000000u);
  CHECK_BITS(both_dot(Format::bf16, a, b, positive), 0x00000000u);
  CHECK_BITS(sm90::detail::chain(Format::bf16, a.data(), b.data(), 16, false, 0u, ieee), 0x80000000u);
  CHECK_BITS(ref::dot_no_c(Format::bf16, a.data(), b.data(), 16, ieee), 0x80000000u);
  // An exact cancellation 1 - 1 with C = -0: +0 (not every term is a zero).
  Vec x{}, y{};
  x[0] = kOne; y[0] = kOne;
  x[1] = 0xbf80; y[1] = kOne;
  CHECK_BITS(both(Format::bf16, x, y, 0x80000000u), 0x00000000u);
}

TEST_CASE("mma model: inf and NaN give the IEEE sum's class; NaN is 0x7fffffff", "[mma]") {
  Vec a{}, b{};
  a.fill(kOne);
  b.fill(kOne);
  Vec t = a;
  t[3] = kInf;
  CHECK_BITS(both(Format::bf16, t, b, 0), 0x7f800000u);            // inf + finite
  CHECK_BITS(both(Format::bf16, t, b, 0xff800000u), 0x7fffffffu);  // inf + (-inf)
  t[4] = kNegInf;
  CHECK_BITS(both(Format::bf16, t, b, 0), 0x7fffffffu);  // inf - inf among products
  Vec z = a;
  z[5] = kInf;
  Vec w = b;
  w[5] = 0x0000;
  CHECK_BITS(both(Format::bf16, z, w, 0), 0x7fffffffu);  // inf * 0
  Vec n = a;
  n[7] = kQNaN;
  CHECK_BITS(both(Format::bf16, n, b, 0), 0x7fffffffu);
  n[7] = kSNaN;
  CHECK_BITS(both(Format::bf16, n, b, 0), 0x7fffffffu);
  CHECK_BITS(both(Format::bf16, a, b, 0xffc12345u), 0x7fffffffu);  // NaN C, payload dropped
  CHECK_BITS(both(Format::bf16, a, b, 0xff800000u), 0xff800000u);  // -inf C + finite
  // fp16 inf (0x7c00) and NaN (0x7e00).
  Vec h{}, g{};
  h[0] = 0x7c00; g[0] = 0xbc00;  // inf * -1
  CHECK_BITS(both(Format::f16, h, g, 0), 0xff800000u);
  h[1] = 0x7e00; g[1] = 0x3c00;
  CHECK_BITS(both(Format::f16, h, g, 0), 0x7fffffffu);
}

TEST_CASE("mma model: overflow beyond fp32 (Overflow)", "[mma]") {
  Vec a{}, b{};
  a[0] = 0x7f00;  // 0x1p127
  b[0] = 0x4080;  // 4.0: the product 2^129 is a finite term
  Params sat;
  sat.overflow = sm90::Overflow::saturate;
  CHECK_BITS(both(Format::bf16, a, b, 0), 0x7f800000u);
  CHECK_BITS(both(Format::bf16, a, b, 0, sat), 0x7f7fffffu);
  // Two terms that cancel back into range: 2^129 - 2^129 + 1 -> the 1 is
  // truncated (emax 129): +0, no overflow.
  a[1] = 0xff00; b[1] = 0x4080;
  a[2] = kOne; b[2] = kOne;
  CHECK_BITS(both(Format::bf16, a, b, 0), 0x00000000u);
  // Near 2^128: bf16 max + fp32 max overflows; bf16 max alone is 0x7f7f0000.
  Vec x{}, y{};
  x[0] = 0x7f7f;  // 0x1.fcp127 (bf16 max)
  y[0] = kOne;
  CHECK_BITS(both(Format::bf16, x, y, 0x7f7fffffu), 0x7f800000u);  // 0x1.fcp127 + 0x1.fffffep127 >= 2^128
  CHECK_BITS(both(Format::bf16, x, y, 0x00000000u), 0x7f7f0000u);
}

TEST_CASE("mma model: invalid arguments fail closed, naming the argument", "[mma]") {
  Vec a{}, b{};
  Params p;
  p.group = 3;
  CHECK(std::string(sm90::invalid_argument(p, 16)).rfind("group", 0) == 0);
  CHECK_BITS(sm90::dot_add(Format::bf16, a.data(), b.data(), 16, 0, p), sm90::kNaN);
  CHECK_THROWS_WITH(sm90::dot_add_or_throw(Format::bf16, a.data(), b.data(), 16, 0, p),
                    Catch::Contains("group"));
  p = Params{};
  p.frac_bits = 0;
  CHECK_THROWS_WITH(sm90::dot_or_throw(Format::bf16, a.data(), b.data(), 16, p), Catch::Contains("frac_bits"));
  CHECK_THROWS_WITH(sm90::dot_or_throw(Format::bf16, a.data(), b.data(), 17, Params{}), Catch::Contains("k:"));
  CHECK(sm90::invalid_argument(Params{}, 16) == nullptr);
  CHECK(sm90::invalid_argument(Params{}, 8) != nullptr);  // group 16 > k = 8
  CHECK(sm90::invalid_argument(with_group(8), 8) == nullptr);
}

// ---------------------------------------------------------------------------
// Random cross-check on the probe's classes
// ---------------------------------------------------------------------------
namespace {

struct Sample {
  Vec a, b;
  std::uint32_t c;
};

Sample draw(Format f, probe::Class cls, std::uint64_t s) {
  const std::uint64_t tile = s / 8;  // 8 dot products per tile: many tiles, so every per-tile mode occurs
  const probe::Gen g(0x1234, cls, f, tile);
  const std::uint64_t w = probe::mix64(s * 0x9e37 + 11);
  const int i = static_cast<int>(w % 64), j = static_cast<int>((w >> 8) % 64);
  Sample x{};
  for (int k = 0; k < 16; ++k) {
    x.a[static_cast<std::size_t>(k)] = g.A(i, k);
    x.b[static_cast<std::size_t>(k)] = g.B(k, j);
  }
  x.c = g.C(i, j);
  return x;
}

enum class Mode { with_c, no_c, plus_zero_c };  // dot_add(c), dot(), dot_add(+0)

// Mismatches of fast(params_fast) against slow(params_slow) over n samples per
// (format, class); per-class counts are written into `per_class` when given.
long long cross(const Params& pf, const Params& ps, int n, Mode mode, std::array<long long, probe::kClassCount>* per_class = nullptr) {
  long long bad = 0;
  for (Format f : {Format::bf16, Format::f16}) {
    for (int c = 0; c < probe::kClassCount; ++c) {
      for (int s = 0; s < n; ++s) {
        const Sample x = draw(f, static_cast<probe::Class>(c), static_cast<std::uint64_t>(s));
        const std::uint32_t cv = mode == Mode::plus_zero_c ? 0u : x.c;
        const std::uint32_t u = mode == Mode::no_c ? sm90::dot(f, x.a.data(), x.b.data(), 16, pf)
                                                   : sm90::dot_add(f, x.a.data(), x.b.data(), 16, cv, pf);
        const std::uint32_t v = mode == Mode::no_c ? ref::dot(f, x.a.data(), x.b.data(), 16, ps)
                                                   : ref::dot_add(f, x.a.data(), x.b.data(), 16, cv, ps);
        if (u != v) {
          if (bad < 3 && per_class == nullptr)
            UNSCOPED_INFO("class " << probe::class_name(static_cast<probe::Class>(c)) << " fast " << hex32(u) << " ref " << hex32(v));
          ++bad;
          if (per_class) ++(*per_class)[static_cast<std::size_t>(c)];
        }
      }
    }
  }
  return bad;
}

int samples_per_class() {
  // SAMEBITS_MMA_SAMPLES overrides (the default keeps the test near a minute on one core).
  if (const char* e = std::getenv("SAMEBITS_MMA_SAMPLES")) return std::atoi(e);
  return 16000;
}

}  // namespace

TEST_CASE("mma model: fast == exact reference on the probe's classes (base and every variant)", "[mma][cross]") {
  const int n = samples_per_class();
  CHECK(cross(Params{}, Params{}, n, Mode::with_c) == 0);
  CHECK(cross(Params{}, Params{}, n / 4, Mode::no_c) == 0);
  for (int i = 1; i < probe::kCandidates; ++i) {
    INFO("candidate " << probe::candidate_name(i));
    CHECK(cross(probe::candidate(i), probe::candidate(i), n / 8, Mode::with_c) == 0);
  }
  for (int i = 0; i < probe::kD0Candidates; ++i) {
    INFO("scale-d=0 candidate " << probe::d0_candidate_name(i));
    CHECK(cross(probe::d0_candidate(i), probe::d0_candidate(i), n / 16, probe::d0_plus_zero_c(i) ? Mode::plus_zero_c : Mode::no_c) == 0);
  }
}

TEST_CASE("mma model: negative controls — each variant differs from base on its class", "[mma][cross]") {
  // The cross-check above can fail: a fast model with another parameter
  // differs from the reference's base on many inputs, and the class meant to
  // expose that parameter does expose it.
  const int n = samples_per_class() / 8;
  for (int i = 1; i < probe::kCandidates; ++i) {
    std::array<long long, probe::kClassCount> per{};
    const long long bad = cross(probe::candidate(i), Params{}, n, Mode::with_c, &per);
    std::ostringstream line;
    line << probe::candidate_name(i) << " vs base:";
    for (int c = 0; c < probe::kClassCount; ++c)
      line << ' ' << probe::class_name(static_cast<probe::Class>(c)) << '=' << per[static_cast<std::size_t>(c)];
    WARN(line.str());
    CHECK(bad > 0);
  }
  // F = 24 and 26 are caught on the classes built for truncation.
  std::array<long long, probe::kClassCount> per{};
  cross(with_f(24), Params{}, n, Mode::with_c, &per);
  CHECK(per[static_cast<std::size_t>(probe::Class::spread)] > 0);
  CHECK(per[static_cast<std::size_t>(probe::Class::c_big)] > 0);
  per = {};
  cross(with_f(26), Params{}, n, Mode::with_c, &per);
  CHECK(per[static_cast<std::size_t>(probe::Class::spread)] > 0);
  // The alignment floor (-133) is caught on the class built for it, by its neighbours on both sides.
  for (const int floor : {sm90::kNoExponentFloor, -134, -132}) {
    Params p;
    p.emax_floor = floor;
    per = {};
    cross(p, Params{}, n, Mode::with_c, &per);
    INFO("emax_floor " << floor);
    CHECK(per[static_cast<std::size_t>(probe::Class::tiny)] > 0);
  }
  // The identity and exact_small classes give the same bits under every
  // candidate, with and without C (the probe's layout check rests on this).
  for (int i = 1; i < probe::kCandidates; ++i) {
    per = {};
    cross(probe::candidate(i), Params{}, n, Mode::with_c, &per);
    INFO("candidate " << probe::candidate_name(i));
    CHECK(per[static_cast<std::size_t>(probe::Class::identity)] == 0);
    CHECK(per[static_cast<std::size_t>(probe::Class::exact_small)] == 0);
  }
  for (int i = 1; i < probe::kD0Candidates; ++i) {
    per = {};
    cross(probe::d0_candidate(i), Params{}, n, probe::d0_plus_zero_c(i) ? Mode::plus_zero_c : Mode::no_c, &per);
    INFO("scale-d=0 candidate " << probe::d0_candidate_name(i));
    CHECK(per[static_cast<std::size_t>(probe::Class::identity)] == 0);
    CHECK(per[static_cast<std::size_t>(probe::Class::exact_small)] == 0);
  }
  // The identity class really is the selector: D(i, n) = (i % 16 + 1) + 16 (n % 16).
  for (Format f : {Format::bf16, Format::f16}) {
    const probe::Gen g(7, probe::Class::identity, f, 3);
    for (int i = 0; i < 64; i += 5) {
      for (int nn = 0; nn < 64; nn += 3) {
        Vec a{}, b{};
        for (int k = 0; k < 16; ++k) {
          a[static_cast<std::size_t>(k)] = g.A(i, k);
          b[static_cast<std::size_t>(k)] = g.B(k, nn);
        }
        const float want = static_cast<float>(i % 16 + 1 + 16 * (nn % 16));
        std::uint32_t want_bits;
        std::memcpy(&want_bits, &want, 4);
        CHECK_BITS(fast(f, a, b, g.C(i, nn)), want_bits);
      }
    }
  }
}
