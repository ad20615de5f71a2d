// samebits/kernels/attention/reference.hpp — docs/kernels/attention.md in code.
//
// This is the specification the GPU kernels must equal bit for bit: every
// operation below is one operation of the contract, in the contract's order,
// and nothing else. It is templated on
//   A     the arithmetic: a value type and its operations (fma, add, sub, mul,
//         div, exp, log). FloatArith<Libm> is the binary32 core the GPU must
//         equal (exp/log from samebits::nvcc or samebits::cr); ExactArith<T>
//         with T = double or a Boost.Multiprecision MPFR type is the
//         high-precision oracle (same structure, little rounding).
//   Lists the row lists (§1): dense / causal / varlen (DenseLists) or the
//         sparse MLA's top-k slots (sparse_mla.hpp) — one definition.
// The policy is fma-chain/1 (§7): dot products and p·v, ds·k, p·dO, ds·q as
// sequential fma chains, B = 64. Loops are written so that a compiler can
// vectorize ACROSS independent chains (keys, or d) while each chain stays
// sequential, which keeps the binary32 core fast enough for S = 4096.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "samebits/kernels/attention/contract.hpp"

namespace samebits::kernels::attention {

// Tensors of one call, contiguous: q, o, dO [rows, hq, d]; k, v [kv_rows,
// hkv, d]; lse [rows, hq]. Value type T (binary32 for the core).
template <class T>
struct Tensors {
  int hq = 0, hkv = 0, d = 0;
  std::int64_t rows = 0, kv_rows = 0;
  T scale{};
  const T* q = nullptr;
  const T* k = nullptr;
  const T* v = nullptr;
  const T* sink = nullptr;  // [hq] or null (§4.6)
};

template <class T>
struct ForwardOut {
  T* o = nullptr;         // [rows, hq, d]
  T* lse = nullptr;       // [rows, hq], sink-inclusive when there is a sink
  T* lse_excl = nullptr;  // [rows, hq] sink-exclusive (optional)
};

template <class T>
struct BackwardIn {
  const T* o = nullptr;    // as the caller stores it (widened exactly)
  const T* dout = nullptr;
  const T* lse = nullptr;
};

template <class T>
struct BackwardOut {
  T* dq = nullptr;     // [rows, hq, d]
  T* dk = nullptr;     // [kv_rows, hkv, d]
  T* dv = nullptr;     // [kv_rows, hkv, d]
  T* dsink = nullptr;  // [hq] (only with a sink)
};

// The dK/dV hand-over of a split of the query rows (§5): the per-head
// accumulators A_K, A_V [kv_rows, hq, d] that the part holding the earlier
// rows left (k_in, v_in; null: +0), and where this part's are written
// (k_out, v_out; null: not kept) — what the GPU backward takes as
// accum_k_in / accum_v_in and leaves in its workspace.
template <class T>
struct Handover {
  const T* k_in = nullptr;
  const T* v_in = nullptr;
  T* k_out = nullptr;
  T* v_out = nullptr;
};

// Dense, causal or not, varlen: row r of sequence s attends keys
// cu_k[s] .. cu_k[s] + n - 1 (n from dense_list_length).
struct DenseLists {
  std::vector<std::int32_t> cu_q, cu_k;
  bool causal = false;
  std::vector<std::int32_t> seq_of_row;  // filled by prepare()

  void prepare() {
    seq_of_row.assign(static_cast<std::size_t>(cu_q.back()), 0);
    for (std::size_t s = 0; s + 1 < cu_q.size(); ++s)
      for (std::int32_t r = cu_q[s]; r < cu_q[s + 1]; ++r) seq_of_row[r] = static_cast<std::int32_t>(s);
  }
  std::int64_t rows() const { return cu_q.back(); }
  int size(std::int64_t r) const {
    const int s = seq_of_row[r];
    return dense_list_length(static_cast<int>(r - cu_q[s]), cu_q[s + 1] - cu_q[s], cu_k[s + 1] - cu_k[s], causal);
  }
  // Key row at list position p (< size(r)); dense lists have no holes.
  std::int64_t at(std::int64_t r, int p) const { return cu_k[seq_of_row[r]] + p; }
};

namespace detail {

template <class T>
T max_ignoring_nan(T a, T b) {  // IEEE maxNum; a zero's sign is unobservable (§4.2)
  if (a != a) return b;
  if (b != b) return a;
  return b > a ? b : a;
}

// Runs f(i) for i in [0, n) on `threads` workers. Every output element is
// written by exactly one f(i), whose operations are fixed: the result does
// not depend on the thread count or the schedule.
void parallel_for(std::int64_t n, unsigned threads, void (*f)(std::int64_t, void*), void* ctx);

template <class F>
void parallel_for(std::int64_t n, unsigned threads, F& f) {
  parallel_for(n, threads, [](std::int64_t i, void* c) { (*static_cast<F*>(c))(i); }, &f);
}

// Members of block b of row r: key rows, in position order.
template <class Lists>
int block_members(const Lists& lists, std::int64_t r, int n, int b, std::int64_t* mem, int* pos) {
  int nm = 0;
  const int end = std::min(n, (b + 1) * kBlock);
  for (int p = b * kBlock; p < end; ++p) {
    const std::int64_t idx = lists.at(r, p);
    if (idx < 0) continue;  // a hole: no load, no arithmetic
    mem[nm] = idx;
    pos[nm] = p;
    ++nm;
  }
  return nm;
}

// s[c] = dot(x, rows[c]) for c < nm: each a chain from +0 over d, vectorized
// across c through a transposed copy (kT[d][c]).
template <class A, class T>
void dots(const T* x, const T* const* rows, int nm, int d, T* kT, T* s) {
  for (int e = 0; e < d; ++e)
    for (int c = 0; c < nm; ++c) kT[e * kBlock + c] = rows[c][e];
  for (int c = 0; c < nm; ++c) s[c] = T(0);
  for (int e = 0; e < d; ++e) {
    const T xe = x[e];
    const T* col = kT + e * kBlock;
    for (int c = 0; c < nm; ++c) s[c] = A::fma(xe, col[c], s[c]);
  }
}

}  // namespace detail

// ---- forward -------------------------------------------------------------

template <class A, class Lists>
void forward(const Lists& lists, const Tensors<typename A::T>& in, const ForwardOut<typename A::T>& out,
             unsigned threads = 0) {
  using T = typename A::T;
  const int d = in.d, hq = in.hq, group = in.hq / in.hkv;
  auto row = [&](std::int64_t task) {
    const std::int64_t r = task / hq;
    const int h = static_cast<int>(task % hq), g = h / group;
    const T* q = in.q + (r * hq + h) * d;
    std::vector<T> kT(static_cast<std::size_t>(d) * kBlock), o(d, T(0));
    T s[kBlock], t[kBlock], p[kBlock];
    const T* vrow[kBlock];
    const T* krow[kBlock];
    std::int64_t mem[kBlock];
    int pos[kBlock];
    T m(0), l(0);
    bool started = false;
    const int n = lists.size(r);
    for (int b = 0; b * kBlock < n; ++b) {
      const int nm = detail::block_members(lists, r, n, b, mem, pos);
      if (nm == 0) continue;  // an empty block changes nothing (§1)
      for (int c = 0; c < nm; ++c) {
        krow[c] = in.k + (mem[c] * in.hkv + g) * d;
        vrow[c] = in.v + (mem[c] * in.hkv + g) * d;
      }
      detail::dots<A>(q, krow, nm, d, kT.data(), s);
      T mb = A::mul(s[0], in.scale);
      t[0] = mb;
      for (int c = 1; c < nm; ++c) {
        t[c] = A::mul(s[c], in.scale);
        mb = detail::max_ignoring_nan(mb, t[c]);
      }
      const T m_new = started ? detail::max_ignoring_nan(m, mb) : mb;
      for (int c = 0; c < nm; ++c) p[c] = A::exp(A::sub(t[c], m_new));
      if (started) {
        const T alpha = A::exp(A::sub(m, m_new));
        l = A::mul(l, alpha);
        for (int e = 0; e < d; ++e) o[e] = A::mul(o[e], alpha);
      } else {
        l = T(0);  // o is +0 already
      }
      for (int c = 0; c < nm; ++c) {
        l = A::add(l, p[c]);
        const T pc = p[c];
        const T* vr = vrow[c];
        for (int e = 0; e < d; ++e) o[e] = A::fma(pc, vr[e], o[e]);
      }
      m = m_new;
      started = true;
    }
    T* o_out = out.o + (r * hq + h) * d;
    T lse, lse_excl;
    if (!started) {
      lse_excl = A::neg_inf();
      if (in.sink) {  // §4.6, empty list: o = +0, lse = sigma
        lse = in.sink[h];
      } else {
        lse = A::neg_inf();
      }
      for (int e = 0; e < d; ++e) o_out[e] = T(0);
    } else {
      lse_excl = A::add(m, A::log(l));
      if (in.sink) {
        const T sigma = in.sink[h];
        const T m_f = detail::max_ignoring_nan(m, sigma);
        const T alpha = A::exp(A::sub(m, m_f));
        l = A::add(A::mul(l, alpha), A::exp(A::sub(sigma, m_f)));
        for (int e = 0; e < d; ++e) o[e] = A::mul(o[e], alpha);
        m = m_f;
        lse = A::add(m, A::log(l));
      } else {
        lse = lse_excl;
      }
      for (int e = 0; e < d; ++e) o_out[e] = A::div(o[e], l);
    }
    out.lse[r * hq + h] = lse;
    if (out.lse_excl) out.lse_excl[r * hq + h] = lse_excl;
  };
  detail::parallel_for(lists.rows() * hq, threads, row);
}

// ---- backward ------------------------------------------------------------

// For every kv row, its contributors (query row, list position) in ascending
// (row, position) order: the order in which dK/dV accumulators advance (§5).
struct Contributors {
  std::vector<std::int64_t> offsets;  // kv_rows + 1
  std::vector<std::int64_t> row;
  std::vector<std::int32_t> pos;

  template <class Lists>
  static Contributors build(const Lists& lists, std::int64_t kv_rows) {
    Contributors c;
    c.offsets.assign(static_cast<std::size_t>(kv_rows) + 1, 0);
    const std::int64_t rows = lists.rows();
    for (std::int64_t r = 0; r < rows; ++r) {
      const int n = lists.size(r);
      for (int p = 0; p < n; ++p) {
        const std::int64_t j = lists.at(r, p);
        if (j >= 0) ++c.offsets[j + 1];
      }
    }
    for (std::int64_t j = 0; j < kv_rows; ++j) c.offsets[j + 1] += c.offsets[j];
    c.row.resize(static_cast<std::size_t>(c.offsets.back()));
    c.pos.resize(static_cast<std::size_t>(c.offsets.back()));
    std::vector<std::int64_t> fill(c.offsets.begin(), c.offsets.end() - 1);
    for (std::int64_t r = 0; r < rows; ++r) {
      const int n = lists.size(r);
      for (int p = 0; p < n; ++p) {
        const std::int64_t j = lists.at(r, p);
        if (j < 0) continue;
        c.row[fill[j]] = r;
        c.pos[fill[j]] = p;
        ++fill[j];
      }
    }
    return c;
  }
};

// The backward in its parts (§5), each a fixed order; backward() below is the
// dense instance, sparse_mla/reference.hpp takes the same parts with its own
// dkv order.

// §5.1 delta = rowsum(dO * o), a chain over d from +0, from the stored o.
template <class A>
std::vector<typename A::T> backward_delta(const Tensors<typename A::T>& in, const BackwardIn<typename A::T>& bin,
                                          unsigned threads) {
  using T = typename A::T;
  const int d = in.d;
  std::vector<T> delta(static_cast<std::size_t>(in.rows) * in.hq);
  auto delta_task = [&](std::int64_t task) {
    const T* dout = bin.dout + task * d;
    const T* o = bin.o + task * d;
    T acc(0);
    for (int e = 0; e < d; ++e) acc = A::fma(dout[e], o[e], acc);
    delta[task] = acc;
  };
  detail::parallel_for(in.rows * in.hq, threads, delta_task);
  return delta;
}

// §5.2-3 dq, per row; the list in order. When `record` is given, each
// member's p and ds are also kept, at [row, head, list position]
// (record_stride positions a (row, head)): the sparse instance's dkv takes
// them from there (the same values its recomputation would give).
template <class T>
struct PdsRecord {
  T* p = nullptr;
  T* ds = nullptr;
  int stride = 0;
};
template <class A, class Lists>
void backward_dq(const Lists& lists, const Tensors<typename A::T>& in, const BackwardIn<typename A::T>& bin,
                 const std::vector<typename A::T>& delta, typename A::T* dq_out, unsigned threads,
                 PdsRecord<typename A::T> record = {}) {
  using T = typename A::T;
  const int d = in.d, hq = in.hq, hkv = in.hkv, group = hq / hkv;
  auto dq_task = [&](std::int64_t task) {
    const std::int64_t r = task / hq;
    const int h = static_cast<int>(task % hq), g = h / group;
    const T* q = in.q + task * d;
    const T* dout = bin.dout + task * d;
    const T lse = bin.lse[task], dl = delta[task];
    std::vector<T> kT(static_cast<std::size_t>(d) * kBlock), acc(d, T(0));
    T s[kBlock], dp[kBlock];
    const T* krow[kBlock];
    const T* vrow[kBlock];
    std::int64_t mem[kBlock];
    int pos[kBlock];
    const int n = lists.size(r);
    for (int b = 0; b * kBlock < n; ++b) {
      const int nm = detail::block_members(lists, r, n, b, mem, pos);
      if (nm == 0) continue;
      for (int c = 0; c < nm; ++c) {
        krow[c] = in.k + (mem[c] * hkv + g) * d;
        vrow[c] = in.v + (mem[c] * hkv + g) * d;
      }
      detail::dots<A>(q, krow, nm, d, kT.data(), s);
      detail::dots<A>(dout, vrow, nm, d, kT.data(), dp);
      for (int c = 0; c < nm; ++c) {
        const T p = A::exp(A::sub(A::mul(s[c], in.scale), lse));
        const T ds = A::mul(p, A::sub(dp[c], dl));
        if (record.p) {
          record.p[task * record.stride + pos[c]] = p;
          record.ds[task * record.stride + pos[c]] = ds;
        }
        const T* kr = krow[c];
        for (int e = 0; e < d; ++e) acc[e] = A::fma(ds, kr[e], acc[e]);
      }
    }
    T* dq = dq_out + task * d;
    for (int e = 0; e < d; ++e) dq[e] = A::mul(acc[e], in.scale);  // +0 * scale = +0 for empty lists
  };
  detail::parallel_for(lists.rows() * hq, threads, dq_task);
}

// §5 d_sink[h]: over the rows in ascending order. Rows with an empty list
// have lse = sigma, so p_sigma = exp(+0) = 1 and they contribute delta —
// which is dO . o = dO . 0 = +0 (sparse_mla.md).
template <class A>
void backward_dsink(const Tensors<typename A::T>& in, const BackwardIn<typename A::T>& bin,
                    const std::vector<typename A::T>& delta, typename A::T* dsink) {
  using T = typename A::T;
  for (int h = 0; h < in.hq; ++h) {
    T acc(0);
    for (std::int64_t r = 0; r < in.rows; ++r) {
      const std::int64_t task = r * in.hq + h;
      const T ps = A::exp(A::sub(in.sink[h], bin.lse[task]));
      acc = A::add(acc, A::mul(ps, delta[task]));
    }
    dsink[h] = -acc;
  }
}

template <class A, class Lists>
void backward(const Lists& lists, const Tensors<typename A::T>& in, const BackwardIn<typename A::T>& bin,
              const BackwardOut<typename A::T>& out, unsigned threads = 0, Handover<typename A::T> hand = {}) {
  using T = typename A::T;
  const int d = in.d, hq = in.hq, hkv = in.hkv, group = hq / hkv;
  const std::vector<T> delta = backward_delta<A>(in, bin, threads);
  backward_dq<A>(lists, in, bin, delta, out.dq, threads);
  // §5 dK/dV: per kv row j and kv head g; per query head of the group one
  // accumulator pair over the contributors in (row, position) order; then
  // the heads folded in head order.
  const Contributors contrib = Contributors::build(lists, in.kv_rows);
  auto dkv_task = [&](std::int64_t task) {
    const std::int64_t j = task / hkv;
    const int g = static_cast<int>(task % hkv);
    const T* k = in.k + task * d;
    const T* v = in.v + task * d;
    const std::int64_t c0 = contrib.offsets[j], c1 = contrib.offsets[j + 1];
    std::vector<T> rk(d, T(0)), rv(d, T(0)), ak(d), av(d), qT(static_cast<std::size_t>(d) * kBlock);
    T s[kBlock], dp[kBlock];
    const T* qrow[kBlock];
    const T* orow[kBlock];
    for (int hh = 0; hh < group; ++hh) {
      const int h = g * group + hh;
      const std::int64_t a = (j * hq + h) * d;  // [kv_rows, hq, d]
      if (hand.k_in) {
        std::copy(hand.k_in + a, hand.k_in + a + d, ak.begin());
        std::copy(hand.v_in + a, hand.v_in + a + d, av.begin());
      } else {
        std::fill(ak.begin(), ak.end(), T(0));
        std::fill(av.begin(), av.end(), T(0));
      }
      for (std::int64_t c = c0; c < c1; c += kBlock) {
        const int nc = static_cast<int>(std::min<std::int64_t>(kBlock, c1 - c));
        for (int x = 0; x < nc; ++x) {
          const std::int64_t r = contrib.row[c + x];
          qrow[x] = in.q + (r * hq + h) * d;
          orow[x] = bin.dout + (r * hq + h) * d;
        }
        // s = dot(q_i, k_j), dp = dot(dO_i, v_j): the same chains as the row's
        // (the chain's operands are in the same order: x[d] * y[d]).
        detail::dots<A>(k, qrow, nc, d, qT.data(), s);
        detail::dots<A>(v, orow, nc, d, qT.data(), dp);
        for (int x = 0; x < nc; ++x) {
          const std::int64_t task_row = contrib.row[c + x] * hq + h;
          const T p = A::exp(A::sub(A::mul(s[x], in.scale), bin.lse[task_row]));
          const T ds = A::mul(p, A::sub(dp[x], delta[task_row]));
          const T* qr = qrow[x];
          const T* dor = orow[x];
          for (int e = 0; e < d; ++e) av[e] = A::fma(p, dor[e], av[e]);
          for (int e = 0; e < d; ++e) ak[e] = A::fma(ds, qr[e], ak[e]);
        }
      }
      if (hand.k_out) {
        std::copy(ak.begin(), ak.end(), hand.k_out + a);
        std::copy(av.begin(), av.end(), hand.v_out + a);
      }
      if (hh == 0) {
        rk = ak;
        rv = av;
      } else {
        for (int e = 0; e < d; ++e) rk[e] = A::add(rk[e], ak[e]);
        for (int e = 0; e < d; ++e) rv[e] = A::add(rv[e], av[e]);
      }
    }
    T* dk = out.dk + task * d;
    T* dv = out.dv + task * d;
    for (int e = 0; e < d; ++e) dk[e] = A::mul(rk[e], in.scale);
    for (int e = 0; e < d; ++e) dv[e] = rv[e];
  };
  detail::parallel_for(in.kv_rows * hkv, threads, dkv_task);

  if (in.sink && out.dsink) backward_dsink<A>(in, bin, delta, out.dsink);
}

}  // namespace samebits::kernels::attention
