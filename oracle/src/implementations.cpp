#include "samebits/oracle/implementations.hpp"

#include <gnu/libc-version.h>

#include <cmath>

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
