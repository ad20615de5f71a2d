// Internal to kernels/src/reference: the sparse MLA problem as the attention
// reference's lists and tensors (K == V == kv, one kv head).
#pragma once

#include "samebits/kernels/attention/reference.hpp"
#include "samebits/kernels/sparse_mla/reference.hpp"
#include "samebits/kernels/sparse_mla/reference_api.hpp"

namespace samebits::kernels::sparse_mla::detail {

inline SlotLists lists_of(const Problem& p) { return SlotLists{p.indices.data(), p.tokens, p.topk}; }

// sink: [heads] in T, or null when the problem has none.
template <class T>
attention::Tensors<T> tensors_of(const Problem& p, const T* q, const T* kv, const T* sink) {
  attention::Tensors<T> t;
  t.hq = p.heads;
  t.hkv = 1;
  t.d = p.d;
  t.rows = p.tokens;
  t.kv_rows = p.num_kv;
  t.scale = T(p.scale);
  t.q = q;
  t.k = kv;
  t.v = kv;
  t.sink = sink;
  return t;
}

inline const float* sink_of(const Problem& p) { return p.sink.empty() ? nullptr : p.sink.data(); }

}  // namespace samebits::kernels::sparse_mla::detail
