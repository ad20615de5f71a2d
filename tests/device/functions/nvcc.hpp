// The functions of tests/device/nvcc_*.cu: X(functor type, name, samebits expression, CUDA's own
// expression, CUDA's name). NS is samebits::nvcc (default build) or samebits::nvcc::ftz (-ftz=true
// build); the fast:: ones exist in the default build only, the fast::ftz:: ones in the ftz build
// (CUDA's __expf ... under -ftz=true: what -use_fast_math makes of expf ...).
#pragma once
#include <samebits/libm/nvcc.hpp>
#define SAMEBITS_NVCC_FUNCTIONS(X, NS, PREFIX)                                   \
  X(NExpf, PREFIX "expf", NS::expf(x), ::expf(x), "expf")                        \
  X(NExp2f, PREFIX "exp2f", NS::exp2f(x), ::exp2f(x), "exp2f")                   \
  X(NExp10f, PREFIX "exp10f", NS::exp10f(x), ::exp10f(x), "exp10f")              \
  X(NLogf, PREFIX "logf", NS::logf(x), ::logf(x), "logf")                        \
  X(NLog2f, PREFIX "log2f", NS::log2f(x), ::log2f(x), "log2f")                   \
  X(NLog10f, PREFIX "log10f", NS::log10f(x), ::log10f(x), "log10f")
#define SAMEBITS_NVCC_FAST_FUNCTIONS(X)                                                               \
  X(NFastExpf, "nvcc::fast::expf", samebits::nvcc::fast::expf(x), __expf(x), "__expf")                \
  X(NFastExp10f, "nvcc::fast::exp10f", samebits::nvcc::fast::exp10f(x), __exp10f(x), "__exp10f")      \
  X(NFastLogf, "nvcc::fast::logf", samebits::nvcc::fast::logf(x), __logf(x), "__logf")                \
  X(NFastLog2f, "nvcc::fast::log2f", samebits::nvcc::fast::log2f(x), __log2f(x), "__log2f")
#define SAMEBITS_NVCC_FAST_FTZ_FUNCTIONS(X)                                                                  \
  X(NFastFtzExpf, "nvcc::fast::ftz::expf", samebits::nvcc::fast::ftz::expf(x), __expf(x), "__expf")           \
  X(NFastFtzExp10f, "nvcc::fast::ftz::exp10f", samebits::nvcc::fast::ftz::exp10f(x), __exp10f(x), "__exp10f") \
  X(NFastFtzLogf, "nvcc::fast::ftz::logf", samebits::nvcc::fast::ftz::logf(x), __logf(x), "__logf")           \
  X(NFastFtzLog2f, "nvcc::fast::ftz::log2f", samebits::nvcc::fast::ftz::log2f(x), __log2f(x), "__log2f")
