// samebits/kernels/sparse_mla/reference.hpp — docs/kernels/sparse_mla.md in
// code: the attention reference (attention/reference.hpp) instantiated with
// top-k slot lists and K == V == kv, plus the one part the instance fixes
// differently, the contributor-major dkv order (§4). Shares the attention
// reference's code; nothing here repeats it.
#pragma once

#include <cstdint>
#include <vector>

#include "samebits/kernels/attention/reference.hpp"

namespace samebits::kernels::sparse_mla {

// Row t's list is its top-k row: slot p holds a kv row, or -1 (a hole: it
// keeps its position and takes part in no operation, §2). Every head of the
// token shares it. Indices are trusted here (the API validates them).
struct SlotLists {
  const std::int32_t* topk = nullptr;  // [tokens, k]
  std::int64_t tokens = 0;
  int k = 0;
  std::int64_t rows() const { return tokens; }
  int size(std::int64_t) const { return k; }
  std::int64_t at(std::int64_t r, int p) const { return topk[r * k + p]; }
};

// §4 dkv, contributor-major: for kv row r, A = +0; for each contributor
// (t, p) in ascending (t, p) order: over the heads in order, from +0,
//   gK[d] = fma(ds_{t,h,p}, q_{t,h}[d], gK[d]),  gV[d] = fma(p_{t,h,p}, dO_{t,h}[d], gV[d]);
// then c[d] = add(mul(gK[d], scale), gV[d]) and A[d] = add(A[d], c[d]).
// p and ds are the dq pass's values (`rec`, [t, h, slot]). dkv[r] = A (the
// caller rounds once).
template <class A>
void backward_dkv(const SlotLists& lists, const attention::Tensors<typename A::T>& in,
                  const attention::BackwardIn<typename A::T>& bin, const attention::PdsRecord<typename A::T>& rec,
                  typename A::T* dkv, unsigned threads) {
  using T = typename A::T;
  namespace at = attention;
  const int d = in.d, hq = in.hq;
  const at::Contributors contrib = at::Contributors::build(lists, in.kv_rows);
  auto task = [&](std::int64_t r) {
    std::vector<T> acc(d, T(0)), gk(d), gv(d);
    for (std::int64_t c = contrib.offsets[r]; c < contrib.offsets[r + 1]; ++c) {
      const std::int64_t t = contrib.row[c];
      const int slot = contrib.pos[c];
      std::fill(gk.begin(), gk.end(), T(0));
      std::fill(gv.begin(), gv.end(), T(0));
      for (int h = 0; h < hq; ++h) {
        const std::int64_t th = t * hq + h;
        const T p = rec.p[th * rec.stride + slot], ds = rec.ds[th * rec.stride + slot];
        const T* qr = in.q + th * d;
        const T* dor = bin.dout + th * d;
        for (int e = 0; e < d; ++e) gk[e] = A::fma(ds, qr[e], gk[e]);
        for (int e = 0; e < d; ++e) gv[e] = A::fma(p, dor[e], gv[e]);
      }
      for (int e = 0; e < d; ++e) acc[e] = A::add(acc[e], A::add(A::mul(gk[e], in.scale), gv[e]));
    }
    T* out = dkv + r * d;
    for (int e = 0; e < d; ++e) out[e] = acc[e];
  };
  at::detail::parallel_for(in.kv_rows, threads, task);
}

// The whole backward (§4): delta, dq over the slots in order, dkv, d_sink.
template <class A>
void backward(const SlotLists& lists, const attention::Tensors<typename A::T>& in,
              const attention::BackwardIn<typename A::T>& bin, typename A::T* dq, typename A::T* dkv,
              typename A::T* dsink, unsigned threads = 0) {
  namespace at = attention;
  using T = typename A::T;
  const auto delta = at::backward_delta<A>(in, bin, threads);
  // p and ds of every (token, head, slot), kept by the dq pass for dkv.
  const std::size_t n = static_cast<std::size_t>(lists.rows()) * in.hq * lists.k;
  std::vector<T> p(n, T(0)), ds(n, T(0));
  const at::PdsRecord<T> rec{p.data(), ds.data(), lists.k};
  at::backward_dq<A>(lists, in, bin, delta, dq, threads, rec);
  backward_dkv<A>(lists, in, bin, rec, dkv, threads);
  if (in.sink && dsink) at::backward_dsink<A>(in, bin, delta, dsink);
}

}  // namespace samebits::kernels::sparse_mla
