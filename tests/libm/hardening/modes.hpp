// tests/libm/hardening/modes.hpp — the run-time floating-point modes a
// hostile caller may leave set, by name.
#pragma once

#include <cfenv>
#include <cstring>

#include <samebits/libm/platform.hpp>

#if defined(SAMEBITS_HOST_X86)
#  include <xmmintrin.h>
#endif

namespace samebits::hardening {

// Names: none, ftz, daz, ftz+daz, upward, downward, toward-zero, nearest,
// traps (invalid, divide-by-zero, overflow unmasked), traps-all (and
// underflow, inexact). false: unknown, or not available on this host.
inline bool set_mode(const char* m) {
  auto is = [&](const char* n) { return std::strcmp(m, n) == 0; };
  if (is("none")) return true;
#if defined(SAMEBITS_HOST_X86)
  if (is("ftz")) return _mm_setcsr(_mm_getcsr() | 0x8000u), true;
  if (is("daz")) return _mm_setcsr(_mm_getcsr() | 0x0040u), true;
  if (is("ftz+daz")) return _mm_setcsr(_mm_getcsr() | 0x8040u), true;
#endif
  if (is("upward")) return std::fesetround(FE_UPWARD) == 0;
  if (is("downward")) return std::fesetround(FE_DOWNWARD) == 0;
  if (is("toward-zero")) return std::fesetround(FE_TOWARDZERO) == 0;
  if (is("nearest")) return std::fesetround(FE_TONEAREST) == 0;
#if defined(__GLIBC__)
  if (is("traps")) return feenableexcept(FE_INVALID | FE_DIVBYZERO | FE_OVERFLOW) != -1;
  if (is("traps-all")) return feenableexcept(FE_ALL_EXCEPT) != -1;
#endif
  return false;
}

// The current mode, as "ieee" or the list of what differs from it.
inline const char* mode_name() {
  static thread_local char buf[96];
  buf[0] = 0;
  auto add = [&](const char* w) {
    if (buf[0]) std::strcat(buf, "+");
    std::strcat(buf, w);
  };
#if defined(SAMEBITS_HOST_X86)
  const unsigned csr = _mm_getcsr();
  if (csr & 0x8000u) add("ftz");
  if (csr & 0x0040u) add("daz");
  if ((csr & 0x1f80u) != 0x1f80u) add("traps");
#elif defined(__GLIBC__)
  if (fegetexcept() != 0) add("traps");
#endif
  switch (std::fegetround()) {
    case FE_TONEAREST: break;
    case FE_UPWARD: add("upward"); break;
    case FE_DOWNWARD: add("downward"); break;
    case FE_TOWARDZERO: add("toward-zero"); break;
    default: add("rounding?");
  }
  return buf[0] ? buf : "ieee";
}

}  // namespace samebits::hardening
