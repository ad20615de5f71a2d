// samebits/libm/hipcc/functions.hpp — samebits::hipcc, the binary32 exp/log
// family as clang (HIP, AMDGPU backend) computes it for gfx942 and gfx950.
//
// On an AMD GPU (HIP device pass) these are clang's instruction sequences
// around v_exp_f32 / v_log_f32. Everywhere else (host, NVIDIA) they are the
// same operations in IEEE binary32 with a Model of v_exp_f32 / v_log_f32
// (default: correctly rounded, hipcc/models.hpp): results there are
// STRUCTURE-EXACT, NOT BIT-VERIFIED AGAINST AMD HARDWARE.
//
//   samebits::hipcc::expf(x)          clang 22, HIP defaults (IEEE denormals, no fast-math)
//   samebits::hipcc::afn::expf(x)     -ffast-math / -fapprox-func
//   samebits::hipcc::daz::expf(x)     -fgpu-flush-denormals-to-zero
//   samebits::hipcc::clang19::logf(x) where clang 19 differs (logf, log10f)
//   samebits::hipcc::triton::expf(x)  Triton 3.6's tl.exp / tl.log on AMD (triton::logf)
//   samebits::hipcc::Functions<Mode, Clang, Model>::expf(x)   any combination
#pragma once

#include "samebits/libm/hipcc/expf.hpp"
#include "samebits/libm/hipcc/logf.hpp"
#include "samebits/libm/hipcc/models.hpp"
#include "samebits/libm/hipcc/ops.hpp"
#include "samebits/libm/platform.hpp"

namespace samebits::hipcc {

template <Mode M = Mode::ieee, Clang V = Clang::v22, class Model = CrModel<0>>
struct Functions {
  using O = detail::OpsFor<M, Model>;
  static SAMEBITS_FUNC float expf(float x) { return O::result(x, detail::exp<O, M>(x)); }
  static SAMEBITS_FUNC float exp2f(float x) { return O::result(x, detail::exp2<O, M, V>(x)); }
  static SAMEBITS_FUNC float exp10f(float x) { return O::result(x, detail::exp10<O, M>(x)); }
  static SAMEBITS_FUNC float logf(float x) { return O::result(x, detail::log<O, M, V>(x)); }
  static SAMEBITS_FUNC float log2f(float x) { return O::result(x, detail::log2<O, M, V>(x)); }
  static SAMEBITS_FUNC float log10f(float x) { return O::result(x, detail::log10<O, M, V>(x)); }
  // Triton 3.6 on AMD, read off its own gfx942/gfx950 code (docs/libm/triton.md,
  // tests/data/triton/): tl.exp = a multiply by log2(e) then
  // llvm.exp2.f32, and LLVM contracts that multiply into exp2's range shift:
  //   t = x log2(e) (only for the test t < -126);
  //   y = ldexp(v_exp(fma(x, log2(e), t < -126 ? 64 : 0)), t < -126 ? -64 : 0).
  // The fma differs from exp2f(x log2(e)) only where the shift is taken (subnormal
  // results). tl.log = llvm.log.f32 = logf's lowering. Only the ieee form (Triton's
  // AMD default) was read off; other modes instantiate the same arithmetic.
  static SAMEBITS_FUNC float triton_expf(float x) {
    const float log2e = fp::from_bits(0x3fb8aa3bu);
    const bool c = O::lt(O::mul(x, log2e), fp::from_bits(0xc2fc0000u));  // x log2(e) < -126
    const float y = O::v_exp(O::fma(x, log2e, c ? 64.0f : 0.0f));
    return O::result(x, O::ldexp(y, c ? -64 : 0));
  }
  // tl.log: logf's lowering (clang 22's ldexp scaling), but Triton's LLVM also
  // contracts the tail h + l (h = y ln2_hi) into fma(y, ln2_hi, l): the form
  // clang 19 emits for HIP. Read off Triton 3.6's own gfx942/gfx950 code.
  static SAMEBITS_FUNC float triton_logf(float x) {
    bool c;
    const float y = detail::log2_scaled<O, Clang::v22>(x, c);
    const float r = detail::times_log_b_2<O, Clang::v19>(y, 0x3f317217u, 0x3377d1cfu);
    return O::result(x, O::sub(r, c ? fp::from_bits(0x41b17218u) : 0.0f));  // 32 ln 2
  }
};

#define SAMEBITS_HIPCC_FUNCTIONS(F)                                   \
  SAMEBITS_FUNC float expf(float x) { return F::expf(x); }             \
  SAMEBITS_FUNC float exp2f(float x) { return F::exp2f(x); }           \
  SAMEBITS_FUNC float exp10f(float x) { return F::exp10f(x); }         \
  SAMEBITS_FUNC float logf(float x) { return F::logf(x); }             \
  SAMEBITS_FUNC float log2f(float x) { return F::log2f(x); }           \
  SAMEBITS_FUNC float log10f(float x) { return F::log10f(x); }

SAMEBITS_HIPCC_FUNCTIONS(Functions<Mode::ieee>)
namespace afn {
SAMEBITS_HIPCC_FUNCTIONS(Functions<Mode::afn>)
}
namespace daz {
SAMEBITS_HIPCC_FUNCTIONS(Functions<Mode::daz>)
}
namespace clang19 {
SAMEBITS_FUNC float logf(float x) { return Functions<Mode::ieee, Clang::v19>::logf(x); }
SAMEBITS_FUNC float log10f(float x) { return Functions<Mode::ieee, Clang::v19>::log10f(x); }
namespace daz {
SAMEBITS_FUNC float logf(float x) { return Functions<Mode::daz, Clang::v19>::logf(x); }
SAMEBITS_FUNC float log10f(float x) { return Functions<Mode::daz, Clang::v19>::log10f(x); }
}  // namespace daz
}  // namespace clang19
namespace triton {  // Triton 3.6 read off its own AMDGCN (tests/data/triton/)
SAMEBITS_FUNC float expf(float x) { return Functions<Mode::ieee>::triton_expf(x); }
SAMEBITS_FUNC float logf(float x) { return Functions<Mode::ieee>::triton_logf(x); }
}  // namespace triton

#undef SAMEBITS_HIPCC_FUNCTIONS

}  // namespace samebits::hipcc
