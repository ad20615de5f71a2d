#include "samebits/oracle/implementations.hpp"

#include <gnu/libc-version.h>

#include <cmath>

#include "samebits/libm.hpp"

namespace samebits::oracle {
namespace {

// Out-of-line wrappers: the compiler may not fold or vectorise a call through
// a pointer into something other than glibc's own entry point.
float glibc_expf(float x) { return ::expf(x); }
float glibc_exp2f(float x) { return ::exp2f(x); }
float glibc_exp10f(float x) { return ::exp10f(x); }
float glibc_logf(float x) { return ::logf(x); }
float glibc_log2f(float x) { return ::log2f(x); }
float glibc_log10f(float x) { return ::log10f(x); }

// samebits::cr twice: for the baseline ISA (on x86-64 without FMA hardware
// its fma is glibc's software fma: the same bits, slowly) and, on x86-64, for
// processors with FMA, picked at start-up, as glibc picks its own variants.
#define SAMEBITS_CR_WRAPPERS(ATTR, SUFFIX)                                      \
  ATTR float cr_expf##SUFFIX(float x) { return samebits::cr::expf(x); }       \
  ATTR float cr_exp2f##SUFFIX(float x) { return samebits::cr::exp2f(x); }     \
  ATTR float cr_exp10f##SUFFIX(float x) { return samebits::cr::exp10f(x); }   \
  ATTR float cr_logf##SUFFIX(float x) { return samebits::cr::logf(x); }       \
  ATTR float cr_log2f##SUFFIX(float x) { return samebits::cr::log2f(x); }     \
  ATTR float cr_log10f##SUFFIX(float x) { return samebits::cr::log10f(x); }
SAMEBITS_CR_WRAPPERS(, )
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
SAMEBITS_CR_WRAPPERS(__attribute__((target("fma"))), _fma)
bool host_has_fma() { return __builtin_cpu_supports("fma"); }
#define SAMEBITS_PICK(NAME) (host_has_fma() ? NAME##_fma : NAME)
#else
#define SAMEBITS_PICK(NAME) NAME
#endif

#define SAMEBITS_NVCC_WRAPPERS(ATTR, SUFFIX)                                                  \
  ATTR float nvcc_expf##SUFFIX(float x) { return samebits::nvcc::expf(x); }                 \
  ATTR float nvcc_exp2f##SUFFIX(float x) { return samebits::nvcc::exp2f(x); }               \
  ATTR float nvcc_exp10f##SUFFIX(float x) { return samebits::nvcc::exp10f(x); }             \
  ATTR float nvcc_ftz_expf##SUFFIX(float x) { return samebits::nvcc::ftz::expf(x); }        \
  ATTR float nvcc_ftz_exp2f##SUFFIX(float x) { return samebits::nvcc::ftz::exp2f(x); }      \
  ATTR float nvcc_ftz_exp10f##SUFFIX(float x) { return samebits::nvcc::ftz::exp10f(x); }    \
  ATTR float nvcc_fast_expf##SUFFIX(float x) { return samebits::nvcc::fast::expf(x); }      \
  ATTR float nvcc_fast_exp10f##SUFFIX(float x) { return samebits::nvcc::fast::exp10f(x); }  \
  ATTR float nvcc_fast_logf##SUFFIX(float x) { return samebits::nvcc::fast::logf(x); }      \
  ATTR float nvcc_fast_log2f##SUFFIX(float x) { return samebits::nvcc::fast::log2f(x); }    \
  ATTR float nvcc_logf##SUFFIX(float x) { return samebits::nvcc::logf(x); }                 \
  ATTR float nvcc_log2f##SUFFIX(float x) { return samebits::nvcc::log2f(x); }               \
  ATTR float nvcc_log10f##SUFFIX(float x) { return samebits::nvcc::log10f(x); }             \
  ATTR float nvcc_ftz_logf##SUFFIX(float x) { return samebits::nvcc::ftz::logf(x); }        \
  ATTR float nvcc_ftz_log2f##SUFFIX(float x) { return samebits::nvcc::ftz::log2f(x); }      \
  ATTR float nvcc_ftz_log10f##SUFFIX(float x) { return samebits::nvcc::ftz::log10f(x); }
SAMEBITS_NVCC_WRAPPERS(, )
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
SAMEBITS_NVCC_WRAPPERS(__attribute__((target("fma"))), _fma)
#endif

// samebits::hipcc: template wrappers, one per (mode, clang version, model
// direction, function), compiled for FMA hardware where the host has it.
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
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  SAMEBITS_HIPCC_WRAP(__attribute__((target("fma"))), _fma)
#endif
#undef SAMEBITS_HIPCC_WRAP
};

// Fills t with the functions of Hipcc<M, V, Dir>: all six, or (Only) the two
// where clang 19 differs from clang 22, or (Triton) tl.exp and tl.log.
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

std::vector<Implementation> build() {
  std::vector<Implementation> v;
  Implementation g;
  g.name = "glibc";
  g.description = "the host C library's binary32 functions";
  g.provenance = std::string("host glibc ") + gnu_get_libc_version();
  g.fn[static_cast<int>(Func::exp)] = glibc_expf;
  g.fn[static_cast<int>(Func::exp2)] = glibc_exp2f;
  g.fn[static_cast<int>(Func::exp10)] = glibc_exp10f;
  g.fn[static_cast<int>(Func::log)] = glibc_logf;
  g.fn[static_cast<int>(Func::log2)] = glibc_log2f;
  g.fn[static_cast<int>(Func::log10)] = glibc_log10f;
  v.push_back(g);
  Implementation c;
  c.name = "cr";
  c.description = "samebits::cr, correctly rounded, the same bits on every CPU and GPU";
  c.provenance = SAMEBITS_PICK(cr_expf) == cr_expf ? "samebits/libm/cr.hpp, host build"
                                                    : "samebits/libm/cr.hpp, host build with FMA";
  c.fn[static_cast<int>(Func::exp)] = SAMEBITS_PICK(cr_expf);
  c.fn[static_cast<int>(Func::exp2)] = SAMEBITS_PICK(cr_exp2f);
  c.fn[static_cast<int>(Func::exp10)] = SAMEBITS_PICK(cr_exp10f);
  c.fn[static_cast<int>(Func::log)] = SAMEBITS_PICK(cr_logf);
  c.fn[static_cast<int>(Func::log2)] = SAMEBITS_PICK(cr_log2f);
  c.fn[static_cast<int>(Func::log10)] = SAMEBITS_PICK(cr_log10f);
  v.push_back(c);
  // nvcc: the host path of samebits::nvcc — binary32 arithmetic as libdevice
  // does it, with MUFU.EX2 and MUFU lg2 from the models measured on the H200.
  constexpr const char* kModel = "bit-exact model of the H200 (sm_90)";
  Implementation n;
  n.name = "nvcc";
  n.description = "CUDA 13 (sm_90) expf, exp2f, exp10f, logf, log2f, log10f, default flags: host path of samebits::nvcc";
  n.provenance = kModel;
  n.fn[static_cast<int>(Func::exp)] = SAMEBITS_PICK(nvcc_expf);
  n.fn[static_cast<int>(Func::exp2)] = SAMEBITS_PICK(nvcc_exp2f);
  n.fn[static_cast<int>(Func::exp10)] = SAMEBITS_PICK(nvcc_exp10f);
  n.fn[static_cast<int>(Func::log)] = SAMEBITS_PICK(nvcc_logf);
  n.fn[static_cast<int>(Func::log2)] = SAMEBITS_PICK(nvcc_log2f);
  n.fn[static_cast<int>(Func::log10)] = SAMEBITS_PICK(nvcc_log10f);
  v.push_back(n);
  Implementation nf = n;
  nf.name = "nvcc:ftz";
  nf.description = "the same, as nvcc -ftz=true compiles them";
  nf.fn[static_cast<int>(Func::exp)] = SAMEBITS_PICK(nvcc_ftz_expf);
  nf.fn[static_cast<int>(Func::exp2)] = SAMEBITS_PICK(nvcc_ftz_exp2f);
  nf.fn[static_cast<int>(Func::exp10)] = SAMEBITS_PICK(nvcc_ftz_exp10f);
  nf.fn[static_cast<int>(Func::log)] = SAMEBITS_PICK(nvcc_ftz_logf);
  nf.fn[static_cast<int>(Func::log2)] = SAMEBITS_PICK(nvcc_ftz_log2f);
  nf.fn[static_cast<int>(Func::log10)] = SAMEBITS_PICK(nvcc_ftz_log10f);
  v.push_back(nf);
  Implementation nfast;
  nfast.name = "nvcc:fast";
  nfast.description = "CUDA's intrinsics __expf, __exp10f, __logf, __log2f (as expf, exp10f, logf, log2f)";
  nfast.provenance = kModel;
  nfast.fn[static_cast<int>(Func::exp)] = SAMEBITS_PICK(nvcc_fast_expf);
  nfast.fn[static_cast<int>(Func::exp10)] = SAMEBITS_PICK(nvcc_fast_exp10f);
  nfast.fn[static_cast<int>(Func::log)] = SAMEBITS_PICK(nvcc_fast_logf);
  nfast.fn[static_cast<int>(Func::log2)] = SAMEBITS_PICK(nvcc_fast_log2f);
  v.push_back(nfast);
  // Triton's NVIDIA lowerings, read off Triton 3.6's PTX and compared with
  // CUDA's functions on all 2^32 inputs on the H200 (0 mismatches):
  // tl.exp = __expf; tl.log = logf (its FMAs carry .ftz, the input scaling does
  // not, so subnormal inputs are not flushed and every result equals logf's).
  Implementation nt;
  nt.name = "nvcc:triton";
  nt.description = "Triton 3.6's tl.exp (= __expf) and tl.log (= logf) on NVIDIA, binary32";
  nt.provenance = kModel;
  nt.fn[static_cast<int>(Func::exp)] = SAMEBITS_PICK(nvcc_fast_expf);
  nt.fn[static_cast<int>(Func::log)] = SAMEBITS_PICK(nvcc_logf);
  v.push_back(nt);
  // hipcc: clang's AMDGPU lowering (gfx942, gfx950), host path with a model of
  // v_exp_f32 / v_log_f32 (docs/libm/hipcc.md).
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
  return v;
}

}  // namespace

const std::vector<Implementation>& implementations() {
  static const std::vector<Implementation> v = build();
  return v;
}

const Implementation* find_implementation(std::string_view name) {
  for (const auto& i : implementations())
    if (i.name == name) return &i;
  return nullptr;
}

}  // namespace samebits::oracle
