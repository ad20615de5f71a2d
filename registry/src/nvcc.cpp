// nvcc: the host path of samebits::nvcc — binary32 arithmetic as libdevice
// does it, with MUFU.EX2 and MUFU lg2 from the models measured on the H200.
#include "fma_dispatch.hpp"
#include "personalities.hpp"
#include "samebits/libm/nvcc.hpp"

namespace samebits::registry::detail {
namespace {

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
#if SAMEBITS_REGISTRY_FMA_VARIANTS
SAMEBITS_NVCC_WRAPPERS(SAMEBITS_REGISTRY_FMA_ATTR, _fma)
#endif

}  // namespace

void add_nvcc(std::vector<Implementation>& v) {
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
}

}  // namespace samebits::registry::detail
