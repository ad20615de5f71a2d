// The functions of tests/device/cr_*.cu: X(functor type, name, expression of x).
#pragma once
#include <samebits/libm/cr.hpp>
#define SAMEBITS_CR_FUNCTIONS(X)                      \
  X(CrExpf, "cr::expf", samebits::cr::expf(x))        \
  X(CrExp2f, "cr::exp2f", samebits::cr::exp2f(x))     \
  X(CrExp10f, "cr::exp10f", samebits::cr::exp10f(x))  \
  X(CrLogf, "cr::logf", samebits::cr::logf(x))        \
  X(CrLog2f, "cr::log2f", samebits::cr::log2f(x))     \
  X(CrLog10f, "cr::log10f", samebits::cr::log10f(x))
