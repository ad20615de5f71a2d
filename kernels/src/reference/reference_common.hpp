// Internal to kernels/src/reference: the dense problem as reference.hpp's
// row lists and tensors.
#pragma once

#include <stdexcept>

#include "samebits/kernels/attention/reference.hpp"
#include "samebits/kernels/attention/reference_api.hpp"

namespace samebits::kernels::attention {
namespace detail {

// The FMA-chain loops vectorize across independent chains; FMA hardware makes
// them fast (the bits are the same either way: fma is fma). The core is
// compiled with -mfma, so it refuses a CPU without FMA rather than fault.
inline void require_fma_cpu() {
#if defined(__x86_64__)
  if (!__builtin_cpu_supports("fma"))
    throw std::runtime_error("the attention CPU reference needs a CPU with FMA (x86-64-v3)");
#endif
}

inline DenseLists lists_of(const DenseProblem& p) {
  DenseLists l;
  l.cu_q = p.cu_q;
  l.cu_k = p.cu_k;
  l.causal = p.causal;
  l.prepare();
  return l;
}

template <class T>
Tensors<T> tensors_of(const DenseProblem& p, const T* q, const T* k, const T* v) {
  Tensors<T> t;
  t.hq = p.hq;
  t.hkv = p.hkv;
  t.d = p.d;
  t.rows = p.rows();
  t.kv_rows = p.kv_rows();
  t.scale = T(p.scale);
  t.q = q;
  t.k = k;
  t.v = v;
  return t;
}

// The sm90-tensor-core instance (attention_reference_tc.cpp); p passed
// check_policy.
void tc_forward(Libm libm, const DenseProblem& p, const float* q, const float* k, const float* v, float* o,
                float* lse, unsigned threads);
void tc_backward(Libm libm, const DenseProblem& p, const float* q, const float* k, const float* v, const float* o,
                 const float* dout, const float* lse, float* dq, float* dk, float* dv, unsigned threads,
                 const Handover& handover);

}  // namespace detail
}  // namespace samebits::kernels::attention
