// Kernels for certify.py: each function alone (k_F: load, call,
// store) and inside code that invites refolding (c_F: the input made by a
// multiply-add just before the call, the result consumed by a multiply-add
// just after; the compared region is bounded by opaque asm sources and a
// sink). Built twice per target and mode:
//   -DTHEIRS            clang's own: __builtin_expf ...
//   -DMODE=... -DVERSION=...   samebits::hipcc::Functions<MODE, VERSION>
// The OURS build also holds the negative controls, all in the refolding
// context: expf without its value barrier (x_nobarrier_expf) and with two
// operations in another order (x_swapped_expf), and logf with its finite test
// as it was before the code comparison (x_oldinf_logf: +inf behind a "+v"
// barrier, so in a VGPR: one v_mov_b32 more than clang's code).
#if !defined(THEIRS)
#include <samebits/libm.hpp>
using F = samebits::hipcc::Functions<samebits::hipcc::Mode::MODE, samebits::hipcc::Clang::VERSION>;
#define CALL(f, x) F::f(x)
#else
#define CALL(f, x) __builtin_##f(x)
#endif

#define SRC(v) \
  float v;     \
  __asm__ volatile("; SAMEBITS_SOURCE %0" : "=v"(v))
#define SINK(v) __asm__ volatile("; SAMEBITS_SINK %0" ::"v"(v))

#define KERNELS(f)                                                                          \
  extern "C" __attribute__((global)) void k_##f(float* p) { p[0] = CALL(f, p[0]); }       \
  extern "C" __attribute__((global)) void c_##f(float*) {                                  \
    SRC(a);                                                                                 \
    SRC(b);                                                                                 \
    SRC(c);                                                                                 \
    SRC(d);                                                                                 \
    SRC(e);                                                                                 \
    const float y = CALL(f, a * b + c);                                                     \
    SINK(y * d + e);                                                                        \
  }
KERNELS(expf)
KERNELS(exp2f)
KERNELS(exp10f)
KERNELS(logf)
KERNELS(log2f)
KERNELS(log10f)

#if !defined(THEIRS)
namespace {
using O = samebits::hipcc::amdgcn::Ops;
using samebits::hipcc::Mode;
struct NoBarrier : O {
  static __attribute__((device)) inline float mul(float a, float b) { return a * b; }
};
// The finite test as amdgcn_ops.hpp wrote it before, kept verbatim.
struct OldInf : O {
  static __attribute__((device)) inline bool finite_abs(float y) {
    return __builtin_fabsf(y) < samebits::arch::opaque(__builtin_inff());
  }
};
// exp_split with its two low-part fmas in the other order.
__attribute__((device)) inline float swapped_expf(float x) {
  using samebits::fp::from_bits;
  const float ph = O::mul(x, from_bits(0x3fb8aa3bu));
  const float e = O::rndne(ph);
  float pl = O::fma(x, from_bits(0x32a5705fu), -ph);
  pl = O::fma(x, from_bits(0x3fb8aa3bu), pl);
  const float t = O::add(O::sub(ph, e), pl);
  float y = O::ldexp(O::v_exp(t), O::cvt_i32(e));
  y = O::lt(x, from_bits(0xc2ce8ed0u)) ? 0.0f : y;
  return O::gt(x, from_bits(0x42b17218u)) ? from_bits(0x7f800000u) : y;
}
}  // namespace
extern "C" __attribute__((global)) void x_nobarrier_expf(float*) {
  SRC(a);
  SRC(b);
  SRC(c);
  SRC(d);
  SRC(e);
  const float y = samebits::hipcc::detail::exp<NoBarrier, Mode::MODE>(a * b + c);
  SINK(y * d + e);
}
extern "C" __attribute__((global)) void x_oldinf_logf(float*) {
  SRC(a);
  SRC(b);
  SRC(c);
  SRC(d);
  SRC(e);
  const float y = samebits::hipcc::detail::log<OldInf, Mode::MODE, samebits::hipcc::Clang::VERSION>(a * b + c);
  SINK(y * d + e);
}
extern "C" __attribute__((global)) void x_swapped_expf(float*) {
  SRC(a);
  SRC(b);
  SRC(c);
  SRC(d);
  SRC(e);
  const float y = swapped_expf(a * b + c);
  SINK(y * d + e);
}
#endif
