// tests/device/mma/mma_classes.hpp — the input classes of the MMA probe
// (mma_probe.cu) and of the host cross-check (tests/libm/mma/): pure integer
// functions of (seed, class, format, tile, position), host and device, so that
// the host regenerates exactly the inputs the device used.
//
// A tile is one instruction's worth of inputs: A (64 x 16), B (16 x N), C
// (64 x N); element (i, j) of D is the dot product of A's row i with B's column
// j plus C(i, j). Rows share A and columns share B, so a class that needs a
// relation between the terms of one dot product (cancelling pairs, a zero
// against a large partner, a chosen quarter of k) builds it from per-row,
// per-column and per-tile choices that hold for every (i, j).
#pragma once

#include <cstdint>

#include "samebits/libm/mma/sm90.hpp"
#include "samebits/libm/platform.hpp"

namespace samebits::mma::probe {

using sm90::Format;

enum class Class : int {
  identity = 0,     // A = a 0/1 selector (k == i % 16), B = distinct integers: D(i, n) = B(i % 16, n),
                    // exact in every candidate; a wrong fragment or descriptor layout shows which element was read
  exact_small,      // small integers: exact in every candidate (a harness and layout check)
  narrow,           // exponents in [-4, 4], random significands and signs
  wide,             // exponents over the format's whole normal range
  spread,           // exponents spread over ~40 (bf16) / ~24 (fp16) binades: partial truncation
  cancel,           // pairs that cancel exactly or to the last bit, plus small tail terms
  c_big,            // |C| 2^8 .. 2^40 above the products
  c_small,          // |C| 2^5 .. 2^60 below the products, subnormal C, +-0
  subnormal,        // subnormal operands and products below 2^-126 (bf16), subnormal C
  zeros,            // zero operands against large partners, all-zero sums, signed zeros
  special,          // inf, NaN (quiet and signalling, payloads), +-0, +-max sprinkled
  bits,             // uniformly random encodings (A, B 16-bit, C 32-bit)
  overflow,         // sums near and beyond 2^128 (bf16); C near the fp32 maximum
  chain,            // a half or a quarter of k holds large cancelling pairs, the rest small
  tiny,             // bf16: products on the 2^-149 grid near 2^-142 .. 2^-132 (per-tile scale) with smaller
                    // ones whose bits lie below or across the floor's unit 2^-158; mixed signs; C mostly
                    // +-0: the alignment exponent below, at and above its floor (-133); fp16: subnormal
                    // operands (its products cannot get there)
  count
};

inline constexpr int kClassCount = static_cast<int>(Class::count);

inline const char* class_name(Class c) {
  switch (c) {
    case Class::identity: return "identity";
    case Class::exact_small: return "exact_small";
    case Class::narrow: return "narrow";
    case Class::wide: return "wide";
    case Class::spread: return "spread";
    case Class::cancel: return "cancel";
    case Class::c_big: return "c_big";
    case Class::c_small: return "c_small";
    case Class::subnormal: return "subnormal";
    case Class::zeros: return "zeros";
    case Class::special: return "special";
    case Class::bits: return "bits";
    case Class::overflow: return "overflow";
    case Class::chain: return "chain";
    case Class::tiny: return "tiny";
    default: return "?";
  }
}

SAMEBITS_FUNC constexpr std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Inputs of one tile. Every element is a pure function of its position.
struct Gen {
  std::uint64_t base;
  Class cls;
  Format fmt;

  SAMEBITS_FUNC Gen(std::uint64_t seed, Class c, Format f, std::uint64_t tile)
      : base(mix64(seed ^ mix64((static_cast<std::uint64_t>(c) << 8 | static_cast<std::uint64_t>(f)) ^
                                mix64(tile + 0x5eed)))),
        cls(c), fmt(f) {}

  // Random 64-bit word for (tag, x, y); tags keep the streams apart.
  SAMEBITS_FUNC std::uint64_t r(std::uint32_t tag, std::uint32_t x, std::uint32_t y) const {
    return mix64(base + ((static_cast<std::uint64_t>(tag) << 48) ^ (static_cast<std::uint64_t>(x) << 24) ^ y));
  }
  SAMEBITS_FUNC static int uni(std::uint64_t w, int lo, int hi) {  // [lo, hi]
    return lo + static_cast<int>(w % static_cast<std::uint64_t>(hi - lo + 1));
  }

  // ---- format helpers ----
  SAMEBITS_FUNC int frac() const { return fmt == Format::bf16 ? 7 : 10; }
  SAMEBITS_FUNC int emin() const { return fmt == Format::bf16 ? -126 : -14; }
  SAMEBITS_FUNC int emaxn() const { return fmt == Format::bf16 ? 127 : 15; }
  // Normal number with exponent e clamped to the normal range.
  SAMEBITS_FUNC std::uint16_t normal(bool neg, int e, std::uint64_t w) const {
    e = e < emin() ? emin() : (e > emaxn() ? emaxn() : e);
    const int bias = fmt == Format::bf16 ? 127 : 15;
    const std::uint32_t fr = static_cast<std::uint32_t>(w) & ((1u << frac()) - 1u);
    return static_cast<std::uint16_t>((neg ? 0x8000u : 0u) | (static_cast<std::uint32_t>(e + bias) << frac()) | fr);
  }
  SAMEBITS_FUNC std::uint16_t subnormal16(bool neg, std::uint64_t w) const {
    std::uint32_t fr = static_cast<std::uint32_t>(w) & ((1u << frac()) - 1u);
    if (fr == 0) fr = 1;
    return static_cast<std::uint16_t>((neg ? 0x8000u : 0u) | fr);
  }
  SAMEBITS_FUNC std::uint16_t zero16(bool neg) const { return neg ? 0x8000u : 0u; }
  SAMEBITS_FUNC std::uint16_t inf16(bool neg) const {
    return static_cast<std::uint16_t>((neg ? 0x8000u : 0u) | (fmt == Format::bf16 ? 0x7f80u : 0x7c00u));
  }
  SAMEBITS_FUNC std::uint16_t max16(bool neg) const {
    return static_cast<std::uint16_t>((neg ? 0x8000u : 0u) | (fmt == Format::bf16 ? 0x7f7fu : 0x7bffu));
  }
  SAMEBITS_FUNC std::uint16_t nan16(std::uint64_t w) const {  // quiet or signalling, random payload and sign
    const std::uint32_t inf = fmt == Format::bf16 ? 0x7f80u : 0x7c00u;
    const std::uint32_t mant = (1u << frac()) - 1u;
    std::uint32_t m = static_cast<std::uint32_t>(w >> 8) & mant;
    if (m == 0) m = 1;
    return static_cast<std::uint16_t>(((w & 1) ? 0x8000u : 0u) | inf | m);
  }
  SAMEBITS_FUNC static std::uint32_t normal32(bool neg, int e, std::uint64_t w) {
    e = e < -126 ? -126 : (e > 127 ? 127 : e);
    return (neg ? 0x80000000u : 0u) | (static_cast<std::uint32_t>(e + 127) << 23) | (static_cast<std::uint32_t>(w) & 0x7fffffu);
  }
  SAMEBITS_FUNC static std::uint32_t subnormal32(bool neg, std::uint64_t w) {
    std::uint32_t m = static_cast<std::uint32_t>(w) & 0x7fffffu;
    if (m == 0) m = 1;
    return (neg ? 0x80000000u : 0u) | m;
  }
  SAMEBITS_FUNC static bool bit(std::uint64_t w, int n) { return ((w >> n) & 1u) != 0; }
  // The integer v in [1, 256] (exact in bf16 and fp16).
  SAMEBITS_FUNC std::uint16_t integer16(int v) const {
    int e = 0;
    while ((v >> (e + 1)) != 0) ++e;
    const std::uint32_t m = (static_cast<std::uint32_t>(v) << frac()) >> e;  // 1.m * 2^frac
    return static_cast<std::uint16_t>(normal(false, e, 0) | (m & ((1u << frac()) - 1u)));
  }

  // Per-tile exponent bases (products near 2^(ea0 + eb0)).
  SAMEBITS_FUNC int ea0() const {
    return fmt == Format::bf16 ? uni(r(1, 0, 0), -20, 20) : uni(r(1, 0, 0), -4, 6);
  }
  SAMEBITS_FUNC int eb0() const {
    return fmt == Format::bf16 ? uni(r(2, 0, 0), -20, 20) : uni(r(2, 0, 0), -4, 6);
  }

  // ---- A(i, k) ----
  SAMEBITS_FUNC std::uint16_t a(int i, int k) const {
    const std::uint64_t w = r(10, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(k));
    const bool bf = fmt == Format::bf16;
    switch (cls) {
      case Class::identity: return k == i % 16 ? integer16(1) : zero16(false);
      case Class::exact_small: {  // +-1 .. +-4
        const int v = 1 + static_cast<int>(w % 4);
        const int e = v >= 4 ? 2 : (v >= 2 ? 1 : 0);
        const std::uint32_t fr = v == 3 ? (1u << (frac() - 1)) : 0u;  // 3 = 1.5 * 2
        return static_cast<std::uint16_t>(normal(bit(w, 8), e, 0) | fr);
      }
      case Class::narrow: return normal(bit(w, 40), uni(w >> 8, -4, 4), w >> 20);
      case Class::wide: return normal(bit(w, 40), uni(w >> 8, emin(), emaxn()), w >> 20);
      case Class::spread: return normal(bit(w, 40), ea0() - uni(w >> 8, 0, bf ? 20 : 12), w >> 20);
      case Class::cancel: {
        if (k >= 14) {  // tail pair: small, unrelated
          return normal(bit(w, 40), ea0() - uni(w >> 8, bf ? 10 : 4, bf ? 45 : 18), w >> 20);
        }
        const int m = k / 2;
        const std::uint64_t wp = r(11, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(m));
        const std::uint16_t first = normal(bit(wp, 40), ea0() + uni(wp >> 8, -3, 3), wp >> 20);
        if ((k & 1) == 0) return first;
        // Second of the pair: the exact negation, or the negation with the last bit flipped.
        const std::uint16_t neg = static_cast<std::uint16_t>(first ^ 0x8000u);
        return bit(wp, 50) ? static_cast<std::uint16_t>(neg ^ 1u) : neg;
      }
      case Class::c_big:
      case Class::c_small:
      case Class::special: return normal(bit(w, 40), ea0() + uni(w >> 8, -3, 3), w >> 20);
      case Class::subnormal:
        if (bf) return (w % 10 < 3) ? subnormal16(bit(w, 40), w >> 20) : normal(bit(w, 40), uni(w >> 8, -90, -55), w >> 20);
        return (w % 2 == 0) ? subnormal16(bit(w, 40), w >> 20) : normal(bit(w, 40), uni(w >> 8, -14, -8), w >> 20);
      case Class::zeros: {
        const int mode = static_cast<int>(r(3, 0, 0) % 3);
        if (mode == 0) {  // zero against a large partner for k in a per-tile set, small terms elsewhere
          if (bit(r(4, 0, 0), k)) return zero16(bit(w, 40));
          return normal(bit(w, 40), bf ? uni(w >> 8, -40, -20) : uni(w >> 8, -14, -8), w >> 20);
        }
        if (mode == 1) {  // half the rows all zeros with one sign per row; others narrow
          const std::uint64_t wr = r(5, static_cast<std::uint32_t>(i), 0);
          if (bit(wr, 0)) return zero16(bit(wr, 1));
          return normal(bit(w, 40), uni(w >> 8, -4, 4), w >> 20);
        }
        return (w % 4 == 0) ? zero16(bit(w, 40)) : normal(bit(w, 41), uni(w >> 8, -4, 4), w >> 20);
      }
      case Class::bits: return static_cast<std::uint16_t>(w >> 16);
      case Class::overflow:
        return bf ? normal(bit(w, 40), uni(w >> 8, 58, 66), w >> 20) : normal(bit(w, 40), uni(w >> 8, 10, 15), w >> 20);
      case Class::chain: {
        // Per tile: the "big" region is half 0 or 1 (patterns 0, 1) or quarter 0..3 (2..5).
        const int pat = static_cast<int>(r(6, 0, 0) % 6);
        const bool big = pat < 2 ? (k / 8 == pat) : (k / 4 == pat - 2);
        if (!big) return normal(bit(w, 40), ea0() + uni(w >> 8, -3, 3), w >> 20);
        const int m = k / 2;
        const std::uint64_t wp = r(12, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(m));
        const std::uint16_t first = normal(bit(wp, 40), ea0() + (bf ? uni(wp >> 8, 18, 30) : uni(wp >> 8, 7, 9)), wp >> 20);
        return (k & 1) == 0 ? first : static_cast<std::uint16_t>(first ^ 0x8000u);
      }
      case Class::tiny:
        if (!bf) return (w % 2 == 0) ? subnormal16(bit(w, 40), w >> 20) : normal(bit(w, 40), uni(w >> 8, -14, -10), w >> 20);
        // A quarter "big": products on the 2^-149 grid near 2^(tiny_a0 + tiny_b0) (three fraction
        // bits), below 2^-133 in most tiles; the rest "small": products near 2^tiny_small(), whose
        // bits lie below the floor's unit (2^-158) or straddle it.
        if (w % 4 == 0) return static_cast<std::uint16_t>(normal(bit(w, 40), tiny_a0() + uni(w >> 8, -1, 0), 0) |
                                                           ((w >> 20) & 0x70u));
        return normal(bit(w, 40), tiny_small() - tiny_b0() - uni(w >> 8, 0, 3), w >> 20);
      default: return 0;
    }
  }

  // Per-tile exponent bases of the tiny class (bf16).
  SAMEBITS_FUNC int tiny_a0() const { return uni(r(8, 0, 0), -71, -66); }
  SAMEBITS_FUNC int tiny_b0() const { return uni(r(9, 0, 0), -71, -66); }
  SAMEBITS_FUNC int tiny_small() const { return bit(r(13, 0, 0), 0) ? -160 : -157; }

  // ---- B(k, j) ----
  SAMEBITS_FUNC std::uint16_t b(int k, int j) const {
    const std::uint64_t w = r(20, static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(j));
    const bool bf = fmt == Format::bf16;
    switch (cls) {
      case Class::identity: return integer16(k + 1 + 16 * (j % 16));
      case Class::exact_small: {
        const int v = 1 + static_cast<int>(w % 4);
        const int e = v >= 4 ? 2 : (v >= 2 ? 1 : 0);
        const std::uint32_t fr = v == 3 ? (1u << (frac() - 1)) : 0u;
        return static_cast<std::uint16_t>(normal(bit(w, 8), e, 0) | fr);
      }
      case Class::narrow: return normal(bit(w, 40), uni(w >> 8, -4, 4), w >> 20);
      case Class::wide: return normal(bit(w, 40), uni(w >> 8, emin(), emaxn()), w >> 20);
      case Class::spread: return normal(bit(w, 40), eb0() - uni(w >> 8, 0, bf ? 20 : 12), w >> 20);
      case Class::cancel: {
        if (k >= 14) return normal(bit(w, 40), eb0() + uni(w >> 8, -3, 3), w >> 20);
        // Both members of a pair share b, or (1 in 4) the second has its last bit flipped.
        const int m = k / 2;
        const std::uint64_t wp = r(21, static_cast<std::uint32_t>(m), static_cast<std::uint32_t>(j));
        const std::uint16_t v = normal(bit(wp, 40), eb0() + uni(wp >> 8, -3, 3), wp >> 20);
        return ((k & 1) != 0 && wp % 4 == 0) ? static_cast<std::uint16_t>(v ^ 1u) : v;
      }
      case Class::c_big:
      case Class::c_small:
      case Class::special: return normal(bit(w, 40), eb0() + uni(w >> 8, -3, 3), w >> 20);
      case Class::subnormal:
        if (bf) return (w % 10 < 3) ? subnormal16(bit(w, 40), w >> 20) : normal(bit(w, 40), uni(w >> 8, -90, -55), w >> 20);
        return (w % 2 == 0) ? subnormal16(bit(w, 40), w >> 20) : normal(bit(w, 40), uni(w >> 8, -14, -8), w >> 20);
      case Class::zeros: {
        const int mode = static_cast<int>(r(3, 0, 0) % 3);
        if (mode == 0) {
          if (bit(r(4, 0, 0), k)) return normal(bit(w, 40), bf ? uni(w >> 8, 60, 127) : uni(w >> 8, 8, 15), w >> 20);
          return normal(bit(w, 40), bf ? uni(w >> 8, -40, -20) : uni(w >> 8, -14, -8), w >> 20);
        }
        if (mode == 1) {  // one sign per column for the zero rows' products
          const std::uint64_t wc = r(7, static_cast<std::uint32_t>(j), 0);
          return normal(bit(wc, 0), uni(w >> 8, -4, 4), w >> 20);
        }
        return (w % 4 == 0) ? zero16(bit(w, 40)) : normal(bit(w, 41), uni(w >> 8, -4, 4), w >> 20);
      }
      case Class::bits: return static_cast<std::uint16_t>(w >> 16);
      case Class::overflow:
        return bf ? normal(bit(w, 40), uni(w >> 8, 58, 66), w >> 20) : normal(bit(w, 40), uni(w >> 8, 10, 15), w >> 20);
      case Class::chain: {
        const int pat = static_cast<int>(r(6, 0, 0) % 6);
        const bool big = pat < 2 ? (k / 8 == pat) : (k / 4 == pat - 2);
        if (!big) return normal(bit(w, 40), eb0() + uni(w >> 8, -3, 3), w >> 20);
        const int m = k / 2;
        const std::uint64_t wp = r(22, static_cast<std::uint32_t>(m), static_cast<std::uint32_t>(j));
        return normal(bit(wp, 40), eb0() + (bf ? uni(wp >> 8, 18, 30) : uni(wp >> 8, 7, 9)), wp >> 20);
      }
      case Class::tiny:
        if (!bf) return (w % 2 == 0) ? subnormal16(bit(w, 40), w >> 20) : normal(bit(w, 40), uni(w >> 8, -14, -10), w >> 20);
        return static_cast<std::uint16_t>(normal(bit(w, 40), tiny_b0() + uni(w >> 8, -1, 0), 0) | ((w >> 20) & 0x70u));
      default: return 0;
    }
  }

  // ---- Specials overlay (class special): applied to A and B after a()/b() ----
  SAMEBITS_FUNC std::uint16_t special16(std::uint16_t v, std::uint64_t w) const {
    if (w % 32 != 0) return v;
    switch ((w >> 8) % 7) {
      case 0: return inf16(false);
      case 1: return inf16(true);
      case 2: return nan16(w >> 16);
      case 3: return zero16(false);
      case 4: return zero16(true);
      case 5: return max16(bit(w, 30));
      default: return static_cast<std::uint16_t>((nan16(w >> 16) & ~(1u << (frac() - 1))) | 1u);  // signalling
    }
  }
  SAMEBITS_FUNC std::uint16_t A(int i, int k) const {
    const std::uint16_t v = a(i, k);
    return cls == Class::special ? special16(v, r(30, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(k))) : v;
  }
  SAMEBITS_FUNC std::uint16_t B(int k, int j) const {
    const std::uint16_t v = b(k, j);
    return cls == Class::special ? special16(v, r(31, static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(j))) : v;
  }

  // ---- C(i, j) (fp32 encoding) ----
  SAMEBITS_FUNC std::uint32_t C(int i, int j) const {
    const std::uint64_t w = r(40, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j));
    const bool neg = bit(w, 40);
    const int ep = ea0() + eb0();  // products' exponent scale
    const bool bf = fmt == Format::bf16;
    switch (cls) {
      case Class::identity: return 0u;
      case Class::exact_small: {  // nonzero integer in [-64, 64]
        const int v = 1 + static_cast<int>((w >> 8) % 64);
        int e = 0;
        while ((v >> (e + 1)) != 0) ++e;
        const std::uint32_t m = (static_cast<std::uint32_t>(v) << (23 - e)) & 0x7fffffu;
        return (neg ? 0x80000000u : 0u) | (static_cast<std::uint32_t>(e + 127) << 23) | m;
      }
      case Class::narrow: return (w % 10 == 0) ? (neg ? 0x80000000u : 0u) : normal32(neg, uni(w >> 8, -6, 10), w >> 20);
      case Class::wide: return normal32(neg, uni(w >> 8, -126, 127), w >> 20);
      case Class::spread:
        return (w % 7 == 0) ? (neg ? 0x80000000u : 0u) : normal32(neg, ep + uni(w >> 8, bf ? -45 : -29, 3), w >> 20);
      case Class::cancel: {
        const int sel = static_cast<int>(w % 4);
        if (sel <= 1) return neg ? 0x80000000u : 0u;
        if (sel == 2) return normal32(neg, ep - uni(w >> 8, 10, 40), w >> 20);
        return normal32(neg, ep + uni(w >> 8, -3, 3), w >> 20);
      }
      case Class::c_big: return normal32(neg, ep + uni(w >> 8, 8, 40), w >> 20);
      case Class::c_small: {
        const int sel = static_cast<int>(w % 20);
        if (sel == 0) return neg ? 0x80000000u : 0u;
        if (sel <= 2) return subnormal32(neg, w >> 20);
        return normal32(neg, ep - uni(w >> 8, 5, 60), w >> 20);
      }
      case Class::subnormal: {
        const int sel = static_cast<int>(w % 10);
        if (sel < 4) return neg ? 0x80000000u : 0u;
        if (sel < 7) return subnormal32(neg, w >> 20);
        return normal32(neg, bf ? uni(w >> 8, -126, -110) : uni(w >> 8, -50, -20), w >> 20);
      }
      case Class::zeros: {
        const int mode = static_cast<int>(r(3, 0, 0) % 3);
        if (w % 2 == 0) return neg ? 0x80000000u : 0u;
        if (mode == 0) return normal32(neg, bf ? uni(w >> 8, -90, -40) : uni(w >> 8, -30, -16), w >> 20);
        return normal32(neg, uni(w >> 8, -6, 8), w >> 20);
      }
      case Class::special: {
        if (w % 8 != 0) return normal32(neg, ep + uni(w >> 8, -6, 6), w >> 20);
        switch ((w >> 8) % 6) {
          case 0: return neg ? fp::kNegInf : fp::kPosInf;
          case 1: return 0x7fc00000u | (static_cast<std::uint32_t>(w >> 20) & 0x3fffffu) | (neg ? 0x80000000u : 0u);
          case 2: return 0x7f800000u | ((static_cast<std::uint32_t>(w >> 20) & 0x3fffffu) | 1u);  // signalling
          case 3: return neg ? 0x80000000u : 0u;
          case 4: return (neg ? 0x80000000u : 0u) | fp::kMaxFinite;
          default: return subnormal32(neg, w >> 20);
        }
      }
      case Class::bits: return static_cast<std::uint32_t>(w >> 12);
      case Class::overflow: {
        const int sel = static_cast<int>(w % 3);
        if (sel == 0) return (neg ? 0x80000000u : 0u) | (fp::kMaxFinite - static_cast<std::uint32_t>((w >> 8) % 4096));
        if (sel == 1) return normal32(neg, bf ? uni(w >> 8, 120, 127) : 127, w >> 20);
        return normal32(neg, uni(w >> 8, -6, 10), w >> 20);
      }
      case Class::chain: return (w % 2 == 0) ? (neg ? 0x80000000u : 0u) : normal32(neg, ep - uni(w >> 8, 0, 5), w >> 20);
      case Class::tiny: {  // mostly zero: a nonzero C sits at >= -126, above the floor
        const int sel = static_cast<int>(w % 10);
        if (sel < 7) return neg ? 0x80000000u : 0u;
        return subnormal32(neg, (w >> 20) & (sel == 9 ? 0x7fffffu : 0x3ffu));
      }
      default: return 0;
    }
  }
};

}  // namespace samebits::mma::probe
