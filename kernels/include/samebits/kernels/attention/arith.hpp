// samebits/kernels/attention/arith.hpp — the arithmetics the reference is
// instantiated with (reference.hpp).
//
// FloatArith<Libm>: binary32, one IEEE operation per call, exp/log from a
// samebits libm personality — the core the GPU kernels equal bit for bit.
// Products pass through a value barrier so that no -ffp-contract setting can
// fuse them into a later add; fma is the one fused operation and is written
// as such.
// ExactArith<T>: the same structure in a wide type (double, or a
// Boost.Multiprecision MPFR number): the high-precision oracle.
#pragma once

#include <cmath>
#include <limits>

#include "samebits/kernels/attention/contract.hpp"
#include "samebits/libm/arch/barrier.hpp"
#include "samebits/libm/cr.hpp"
#include "samebits/libm/nvcc.hpp"

namespace samebits::kernels::attention {

struct NvccLibm {
  static constexpr Libm kLibm = Libm::nvcc;
  static float exp(float x) { return samebits::nvcc::expf(x); }
  static float log(float x) { return samebits::nvcc::logf(x); }
};
struct CrLibm {
  static constexpr Libm kLibm = Libm::cr;
  static float exp(float x) { return samebits::cr::expf(x); }
  static float log(float x) { return samebits::cr::logf(x); }
};

// FlashAttention-3's softmax under nvcc -use_fast_math (attention-tc.md §23, §25): base 2, the
// scale folded into one fma (kBase2Softmax), exp2f, expf and logf as -use_fast_math makes them.
struct NvccFastLibm {
  static constexpr Libm kLibm = Libm::nvcc_fast;
  static constexpr bool kBase2Softmax = true;
  static float exp(float x) { return samebits::nvcc::fast::ftz::expf(x); }
  static float exp2(float x) { return samebits::nvcc::ftz::exp2f(x); }  // ex2.approx.ftz.f32
  static float log(float x) { return samebits::nvcc::fast::ftz::logf(x); }
};

template <class L>
struct FloatArith {
  using T = float;
  static float fma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
  static float add(float a, float b) { return a + b; }
  static float sub(float a, float b) { return a - b; }
  static float mul(float a, float b) { return arch::opaque(a * b); }
  static float div(float a, float b) { return a / b; }
  static float exp(float x) { return L::exp(x); }
  static float log(float x) { return L::log(x); }
  static float neg_inf() { return -std::numeric_limits<float>::infinity(); }
  // The base-2 softmax (attention-tc.md §25): only for a libm personality that defines it.
  static constexpr bool kBase2Softmax = base2_softmax<L>;
  static float exp2(float x)
    requires base2_softmax<L>
  {
    return L::exp2(x);
  }
  static float log2e() { return fp::from_bits(kLog2eBits); }
};

template <class W>
struct ExactArith {
  using T = W;
  static W fma(const W& a, const W& b, const W& c) { return a * b + c; }
  static W add(const W& a, const W& b) { return a + b; }
  static W sub(const W& a, const W& b) { return a - b; }
  static W mul(const W& a, const W& b) { return a * b; }
  static W div(const W& a, const W& b) { return a / b; }
  static W exp(const W& x) {
    using std::exp;
    return exp(x);
  }
  static W log(const W& x) {
    using std::log;
    return log(x);
  }
  static W neg_inf() { return -std::numeric_limits<W>::infinity(); }
};

}  // namespace samebits::kernels::attention
