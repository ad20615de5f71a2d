// samebits/libm/fp/environment.hpp — samebits::fp::IeeeEnvironment, a scoped
// guard that gives the library the floating-point environment its bits assume.
//
// On the host, the arithmetic of every personality obeys the calling thread's
// floating-point control state, which a program may have changed: the
// rounding direction (fesetround), flush-to-zero and denormals-are-zero
// (x86 MXCSR.FTZ/DAZ, set by _mm_setcsr or at startup by code built with
// GCC's -Ofast / -ffast-math / -funsafe-math-optimizations, which links
// crtfastmath.o; aarch64 FPCR.FZ), and unmasked exception traps
// (feenableexcept). samebits::cr ignores FTZ/DAZ (subnormals are handled with
// integers); everything else changes results or stops the process
// (docs/libm/hardening.md measures each mode on every function). Checking the
// mode in every call would cost more than the call (stmxcsr: about 15 ns per
// read on the AMD EPYC host, throughput; cr::expf 2.3x slower), so instead
// call the functions inside
//
//     { const samebits::fp::IeeeEnvironment ieee; ... samebits::cr::expf(x) ... }
//
// which saves the control state, installs round to nearest, no flushing and
// all exceptions masked, and restores the saved state (exception flags
// included) when it goes out of scope. Cost: two control-register writes per
// scope, not per call. Compilers do not model the control register: memory
// accesses stay inside the scope (its instructions clobber memory), but
// arithmetic on values held in registers may be moved across its edges (GCC 12
// computed x * x after the restore, measured). So read inputs from memory and
// write results to memory inside the scope (a loop over arrays does), or pin
// register values: y = ieee.pin(f(ieee.pin(x))). GPU device code needs no guard: its instructions carry
// their own rounding and flushing modes; in a device pass this is empty.
#pragma once

#include <cstdint>

#include "samebits/libm/arch/barrier.hpp"
#include "samebits/libm/platform.hpp"

#if defined(SAMEBITS_HOST_PASS) && !defined(SAMEBITS_HOST_X86) && !defined(SAMEBITS_HOST_AARCH64)
#  include <cfenv>
#endif

namespace samebits::fp {

#if defined(SAMEBITS_DEVICE_PASS)

class IeeeEnvironment {
 public:
  SAMEBITS_HOST_DEVICE IeeeEnvironment() {}
  static SAMEBITS_FUNC float pin(float x) { return x; }
};

#elif defined(SAMEBITS_HOST_X86) && !defined(SAMEBITS_COMPILER_MSVC)

// MXCSR: bits 0-5 exception flags, 6 DAZ, 7-12 exception masks, 13-14
// rounding control (00 = nearest), 15 FTZ. 0x1f80 is the power-on state.
class IeeeEnvironment {
 public:
  static constexpr std::uint32_t kIeeeControl = 0x1f80u;  // all masked, nearest, no FTZ/DAZ
  IeeeEnvironment() {
    __asm__ volatile("stmxcsr %0" : "=m"(saved_));
    const std::uint32_t want = kIeeeControl;
    __asm__ volatile("ldmxcsr %0" : : "m"(want) : "memory");
  }
  ~IeeeEnvironment() { __asm__ volatile("ldmxcsr %0" : : "m"(saved_) : "memory"); }
  IeeeEnvironment(const IeeeEnvironment&) = delete;
  IeeeEnvironment& operator=(const IeeeEnvironment&) = delete;
  // Ties a register value to this point between the scope's edges (a value
  // barrier: volatile asm, kept in order with the mode switches).
  static float pin(float x) { return arch::opaque(x); }

 private:
  std::uint32_t saved_;
};

#elif defined(SAMEBITS_HOST_AARCH64) && !defined(SAMEBITS_COMPILER_MSVC)

// FPCR: 0 FIZ, 1 AH, 2 NEP (FEAT_AFP: flush inputs, alternate handling),
// 8-12 and 15 trap enables, 19 FZ16, 22-23 rounding mode (00 = nearest),
// 24 FZ (flush to zero), 25 DN (default NaN), 26 AHP: all cleared. FPSR (the
// flags) is saved and restored beside it.
class IeeeEnvironment {
 public:
  IeeeEnvironment() {
    __asm__ volatile("mrs %0, fpcr" : "=r"(saved_fpcr_));
    __asm__ volatile("mrs %0, fpsr" : "=r"(saved_fpsr_));
    const std::uint64_t want = saved_fpcr_ & ~std::uint64_t{0x07c89f07u};
    __asm__ volatile("msr fpcr, %0" : : "r"(want) : "memory");
  }
  ~IeeeEnvironment() {
    __asm__ volatile("msr fpcr, %0" : : "r"(saved_fpcr_) : "memory");
    __asm__ volatile("msr fpsr, %0" : : "r"(saved_fpsr_) : "memory");
  }
  IeeeEnvironment(const IeeeEnvironment&) = delete;
  IeeeEnvironment& operator=(const IeeeEnvironment&) = delete;
  // Ties a register value to this point between the scope's edges (a value
  // barrier: volatile asm, kept in order with the mode switches).
  static float pin(float x) { return arch::opaque(x); }

 private:
  std::uint64_t saved_fpcr_;
  std::uint64_t saved_fpsr_;
};

#else

// Other hosts: the standard environment (rounding and traps; a flush-to-zero
// mode outside <cfenv> is not reset here).
class IeeeEnvironment {
 public:
  IeeeEnvironment() {
    std::feholdexcept(&saved_);  // saves, clears flags, masks every trap
    std::fesetround(FE_TONEAREST);
  }
  ~IeeeEnvironment() { std::fesetenv(&saved_); }
  IeeeEnvironment(const IeeeEnvironment&) = delete;
  IeeeEnvironment& operator=(const IeeeEnvironment&) = delete;
  // Ties a register value to this point between the scope's edges (a value
  // barrier: volatile asm, kept in order with the mode switches).
  static float pin(float x) { return arch::opaque(x); }

 private:
  std::fenv_t saved_;
};

#endif

}  // namespace samebits::fp
