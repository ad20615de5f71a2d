// glibc (the host's libm) and samebits::cr, host build.
#include <gnu/libc-version.h>

#include <cmath>

#include "fma_dispatch.hpp"
#include "personalities.hpp"
#include "samebits/libm/cr.hpp"

namespace samebits::registry::detail {
namespace {

// Out-of-line wrappers: the compiler may not fold or vectorise a call through
// a pointer into something other than glibc's own entry point.
float glibc_expf(float x) { return ::expf(x); }
float glibc_exp2f(float x) { return ::exp2f(x); }
float glibc_exp10f(float x) { return ::exp10f(x); }
float glibc_logf(float x) { return ::logf(x); }
float glibc_log2f(float x) { return ::log2f(x); }
float glibc_log10f(float x) { return ::log10f(x); }

#define SAMEBITS_CR_WRAPPERS(ATTR, SUFFIX)                                      \
  ATTR float cr_expf##SUFFIX(float x) { return samebits::cr::expf(x); }       \
  ATTR float cr_exp2f##SUFFIX(float x) { return samebits::cr::exp2f(x); }     \
  ATTR float cr_exp10f##SUFFIX(float x) { return samebits::cr::exp10f(x); }   \
  ATTR float cr_logf##SUFFIX(float x) { return samebits::cr::logf(x); }       \
  ATTR float cr_log2f##SUFFIX(float x) { return samebits::cr::log2f(x); }     \
  ATTR float cr_log10f##SUFFIX(float x) { return samebits::cr::log10f(x); }
SAMEBITS_CR_WRAPPERS(, )
#if SAMEBITS_REGISTRY_FMA_VARIANTS
SAMEBITS_CR_WRAPPERS(SAMEBITS_REGISTRY_FMA_ATTR, _fma)
#endif

}  // namespace

void add_host(std::vector<Implementation>& v) {
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
}

}  // namespace samebits::registry::detail
