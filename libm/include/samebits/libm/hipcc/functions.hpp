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
//   samebits::hipcc::triton::expf(x)  Triton's tl.exp / tl.log on AMD
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
  // Triton on AMD (../shared/FACTS.md): tl.exp = a multiply by log2(e), then
  // llvm.exp2.f32 (exp2f's lowering); tl.log = llvm.log.f32 (logf's).
  static SAMEBITS_FUNC float triton_expf(float x) {
    return O::result(x, detail::exp2<O, M, V>(O::mul(x, fp::from_bits(0x3fb8aa3bu))));
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
namespace triton {
SAMEBITS_FUNC float expf(float x) { return Functions<Mode::ieee>::triton_expf(x); }
SAMEBITS_FUNC float logf(float x) { return Functions<Mode::ieee>::logf(x); }
}  // namespace triton

#undef SAMEBITS_HIPCC_FUNCTIONS

}  // namespace samebits::hipcc
