// The functions of tests/device/hipcc_*.cu: X(functor type, name, expression of x).
#pragma once
#include <samebits/libm/hipcc.hpp>
#define SAMEBITS_HIPCC_FUNCTIONS(X)                                                  \
  X(HExpf, "hipcc::expf", samebits::hipcc::expf(x))                                  \
  X(HExp2f, "hipcc::exp2f", samebits::hipcc::exp2f(x))                               \
  X(HExp10f, "hipcc::exp10f", samebits::hipcc::exp10f(x))                            \
  X(HLogf, "hipcc::logf", samebits::hipcc::logf(x))                                  \
  X(HLog2f, "hipcc::log2f", samebits::hipcc::log2f(x))                               \
  X(HLog10f, "hipcc::log10f", samebits::hipcc::log10f(x))                            \
  X(HAfnExpf, "hipcc::afn::expf", samebits::hipcc::afn::expf(x))                     \
  X(HAfnExp2f, "hipcc::afn::exp2f", samebits::hipcc::afn::exp2f(x))                  \
  X(HAfnExp10f, "hipcc::afn::exp10f", samebits::hipcc::afn::exp10f(x))               \
  X(HAfnLogf, "hipcc::afn::logf", samebits::hipcc::afn::logf(x))                     \
  X(HAfnLog2f, "hipcc::afn::log2f", samebits::hipcc::afn::log2f(x))                  \
  X(HAfnLog10f, "hipcc::afn::log10f", samebits::hipcc::afn::log10f(x))               \
  X(HDazExpf, "hipcc::daz::expf", samebits::hipcc::daz::expf(x))                     \
  X(HDazExp2f, "hipcc::daz::exp2f", samebits::hipcc::daz::exp2f(x))                  \
  X(HDazExp10f, "hipcc::daz::exp10f", samebits::hipcc::daz::exp10f(x))               \
  X(HDazLogf, "hipcc::daz::logf", samebits::hipcc::daz::logf(x))                     \
  X(HDazLog2f, "hipcc::daz::log2f", samebits::hipcc::daz::log2f(x))                  \
  X(HDazLog10f, "hipcc::daz::log10f", samebits::hipcc::daz::log10f(x))               \
  X(H19Logf, "hipcc::clang19::logf", samebits::hipcc::clang19::logf(x))              \
  X(H19Log10f, "hipcc::clang19::log10f", samebits::hipcc::clang19::log10f(x))        \
  X(H19DazLogf, "hipcc::clang19::daz::logf", samebits::hipcc::clang19::daz::logf(x)) \
  X(H19DazLog10f, "hipcc::clang19::daz::log10f", samebits::hipcc::clang19::daz::log10f(x)) \
  X(HTritonExpf, "hipcc::triton::expf", samebits::hipcc::triton::expf(x))            \
  X(HTritonLogf, "hipcc::triton::logf", samebits::hipcc::triton::logf(x))
