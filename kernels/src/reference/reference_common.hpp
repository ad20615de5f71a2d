// Internal to kernels/src/reference: the dense problem as reference.hpp's
// row lists and tensors.
#pragma once

#include "samebits/kernels/attention/reference.hpp"
#include "samebits/kernels/attention/reference_api.hpp"

namespace samebits::kernels::attention {
namespace detail {

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

}  // namespace detail
}  // namespace samebits::kernels::attention
