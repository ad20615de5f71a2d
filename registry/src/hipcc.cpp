// hipcc: clang's AMDGPU lowering (gfx942, gfx950), host path with a model of
// v_exp_f32 / v_log_f32 (docs/libm/hipcc.md), scored also with the model one
// ulp up and down.
#include <string>

#include "fma_dispatch.hpp"
#include "personalities.hpp"
#include "samebits/libm/hipcc.hpp"

namespace samebits::registry::detail {
namespace {

// Template wrappers, one per (mode, clang version, model direction, function),
// compiled for FMA hardware where the host has it.
template <hipcc::Mode M, hipcc::Clang V, int Dir>
struct Hipcc {
  using F = hipcc::Functions<M, V, hipcc::CrModel<Dir>>;
#define SAMEBITS_HIPCC_WRAP(ATTR, SUFFIX)                                          \
  static ATTR float expf##SUFFIX(float x) { return F::expf(x); }                   \
  static ATTR float exp2f##SUFFIX(float x) { return F::exp2f(x); }                 \
  static ATTR float exp10f##SUFFIX(float x) { return F::exp10f(x); }               \
  static ATTR float logf##SUFFIX(float x) { return F::logf(x); }                   \
  static ATTR float log2f##SUFFIX(float x) { return F::log2f(x); }                 \
  static ATTR float log10f##SUFFIX(float x) { return F::log10f(x); }               \
  static ATTR float triton_expf##SUFFIX(float x) { return F::triton_expf(x); }       \
  static ATTR float triton_logf##SUFFIX(float x) { return F::triton_logf(x); }
  SAMEBITS_HIPCC_WRAP(, )
#if SAMEBITS_REGISTRY_FMA_VARIANTS
  SAMEBITS_HIPCC_WRAP(SAMEBITS_REGISTRY_FMA_ATTR, _fma)
#endif
#undef SAMEBITS_HIPCC_WRAP
};

// Fills t with the functions of Hipcc<M, V, Dir>: all six, or (clang19) the
// two where clang 19 differs from clang 22, or (triton) tl.exp and tl.log.
enum class HipccSet { all, clang19, triton };
template <hipcc::Mode M, hipcc::Clang V, int Dir>
void hipcc_fill(FloatFn* t, HipccSet set) {
  using H = Hipcc<M, V, Dir>;
  auto put = [&](Func f, FloatFn fn) { t[static_cast<int>(f)] = fn; };
  if (set == HipccSet::triton) {
    put(Func::exp, SAMEBITS_PICK(H::triton_expf));
    put(Func::log, SAMEBITS_PICK(H::triton_logf));
    return;
  }
  put(Func::log, SAMEBITS_PICK(H::logf));
  put(Func::log10, SAMEBITS_PICK(H::log10f));
  if (set == HipccSet::clang19) return;
  put(Func::exp, SAMEBITS_PICK(H::expf));
  put(Func::exp2, SAMEBITS_PICK(H::exp2f));
  put(Func::exp10, SAMEBITS_PICK(H::exp10f));
  put(Func::log2, SAMEBITS_PICK(H::log2f));
}

template <hipcc::Mode M, hipcc::Clang V>
Implementation hipcc_impl(std::string name, std::string description, HipccSet set) {
  Implementation h;
  h.name = std::move(name);
  h.description = std::move(description);
  h.provenance = "structure-exact, not bit-verified against AMD hardware (v_exp_f32/v_log_f32 modelled as correctly rounded)";
  hipcc_fill<M, V, 0>(h.fn, set);
  ModelVariant up, down;
  up.label = "v_exp/v_log modelled 1 ulp up";
  down.label = "v_exp/v_log modelled 1 ulp down";
  hipcc_fill<M, V, +1>(up.fn, set);
  hipcc_fill<M, V, -1>(down.fn, set);
  h.model_variants = {up, down};
  return h;
}

}  // namespace

void add_hipcc(std::vector<Implementation>& v) {
  using hipcc::Clang;
  using hipcc::Mode;
  v.push_back(hipcc_impl<Mode::ieee, Clang::v22>(
      "hipcc", "clang 22 HIP expf ... log10f for gfx942/gfx950, HIP defaults: host path of samebits::hipcc", HipccSet::all));
  v.push_back(hipcc_impl<Mode::afn, Clang::v22>("hipcc:afn", "the same under -ffast-math / -fapprox-func", HipccSet::all));
  v.push_back(hipcc_impl<Mode::daz, Clang::v22>("hipcc:daz", "the same under -fgpu-flush-denormals-to-zero", HipccSet::all));
  v.push_back(hipcc_impl<Mode::ieee, Clang::v19>("hipcc:clang19", "clang 19's logf, log10f (where it differs from clang 22)",
                                                 HipccSet::clang19));
  v.push_back(hipcc_impl<Mode::ieee, Clang::v22>("hipcc:triton", "Triton's tl.exp and tl.log on AMD (exp2 of x log2(e); logf)",
                                                 HipccSet::triton));
}

}  // namespace samebits::registry::detail
