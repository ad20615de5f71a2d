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
//   Policy the arithmetic policy (§7): the block size and the product steps
//         (the scores, the fold of a block into l and o, dq's accumulation).
//         FmaChain (below, the default) is fma-chain/1: dot products and p·v,
//         ds·k, p·dO, ds·q as sequential fma chains, B = 64.
//         tc::Reference (reference_tc.hpp) is sm90-tensor-core/1
//         (attention-tc.md); it shares the block loop, the online softmax,
//         the finish and delta below, and brings its own dK/dV.
// FmaChain's loops are written so that a compiler can vectorize ACROSS
// independent chains (keys, or d) while each chain stays sequential, which
// keeps the binary32 core fast enough for S = 4096.
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

// Context-parallel hand-over (§5, §8): the per-query-head dK/dV accumulators
// [kv_rows, hq, d]. The chains start from k_in / v_in (null: +0) and, when
// k_out / v_out are given, their values before the head fold are kept there
// (what a part hands on to the part holding the next query rows).
template <class T>
struct AccumHandover {
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
  // Key row at key position x of r's sequence, in r's list or not; -1 past
  // the sequence's last key (attention-tc.md: such positions are zero rows).
  std::int64_t key_row(std::int64_t r, int x) const {
    const int s = seq_of_row[r];
    return x < cu_k[s + 1] - cu_k[s] ? cu_k[s] + x : -1;
  }
};

namespace detail {

template <class T>
T max_ignoring_nan(T a, T b) {  // IEEE maxNum; a zero's sign is unobservable (§4.2)
  if (a != a) return b;
  if (b != b) return a;
  return b > a ? b : a;
}

// The backward's p = e^(s scale - lse) in that form: natural exp(sub(mul(s, scale), lse)); base 2
// exp2(fma(s, mul(scale, log2 e), -mul(lse, log2 e))) (attention-tc.md §25; the high-precision
// arithmetics have no kBase2Softmax and compute e^x either way).
template <class A, class T>
T softmax_p(T s, T scale, T lse) {
  if constexpr (base2_softmax<A>) {
    return A::exp2(A::fma(s, A::mul(scale, A::log2e()), -A::mul(lse, A::log2e())));
  } else {
    return A::exp(A::sub(A::mul(s, scale), lse));
  }
}

// Runs f(i) for i in [0, n) on `threads` workers. Every output element is
// written by exactly one f(i), whose operations are fixed: the result does
// not depend on the thread count or the schedule.
void parallel_for(std::int64_t n, unsigned threads, void (*f)(std::int64_t, void*), void* ctx);

template <class F>
void parallel_for(std::int64_t n, unsigned threads, F& f) {
  parallel_for(n, threads, [](std::int64_t i, void* c) { (*static_cast<F*>(c))(i); }, &f);
}

// Members of block b (of kB positions) of row r: key rows, in position order.
template <int kB = kBlock, class Lists>
int block_members(const Lists& lists, std::int64_t r, int n, int b, std::int64_t* mem, int* pos) {
  int nm = 0;
  const int end = std::min(n, (b + 1) * kB);
  for (int p = b * kB; p < end; ++p) {
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

// ---- the fma-chain policy (§7) ------------------------------------------------
//
// What a policy gives the shared loops below:
//   kBlock                 list positions per block;
//   Forward<A, Lists>      one row's forward state: scores(b, nm, mem, s) (the
//                          members' s), start() (first non-empty block),
//                          rescale(alpha) (later blocks), fold(b, nm, mem, pos, p)
//                          (the block into l and o), sum() (the finished l),
//                          o() (the accumulator, d values);
//   Dq<A, Lists>           one row's dq state: scores(...), dps(...) (the
//                          members' dp), fold(b, nm, mem, pos, ds), acc();
//   out(x)                 what an output element is written as (before its
//                          one rounding to the output dtype).
// Row states are built with (policy, lists, tensors, row, query head, kv head).
struct FmaChain {
  static constexpr int kBlock = attention::kBlock;

  template <class A>
  static typename A::T out(typename A::T x) { return x; }

  template <class A, class Lists>
  struct Forward {
    using T = typename A::T;
    const Tensors<T>& in;
    const int d, g;
    std::vector<T> kT, o_;
    const T* vrow[kBlock];
    const T* krow[kBlock];
    const T* q;
    T l{};
    Forward(const FmaChain&, const Lists&, const Tensors<T>& t, std::int64_t r, int h, int g_)
        : in(t), d(t.d), g(g_), kT(static_cast<std::size_t>(t.d) * kBlock), o_(t.d, T(0)),
          q(t.q + (r * t.hq + h) * t.d) {}
    void scores(int, int nm, const std::int64_t* mem, T* s) {
      for (int c = 0; c < nm; ++c) {
        krow[c] = in.k + (mem[c] * in.hkv + g) * d;
        vrow[c] = in.v + (mem[c] * in.hkv + g) * d;
      }
      detail::dots<A>(q, krow, nm, d, kT.data(), s);
    }
    void start() { l = T(0); }  // o is +0 already
    void rescale(const T& alpha) {
      l = A::mul(l, alpha);
      for (int e = 0; e < d; ++e) o_[e] = A::mul(o_[e], alpha);
    }
    void fold(int, int nm, const std::int64_t*, const int*, const T* p) {
      for (int c = 0; c < nm; ++c) {
        l = A::add(l, p[c]);
        const T pc = p[c];
        const T* vr = vrow[c];
        for (int e = 0; e < d; ++e) o_[e] = A::fma(pc, vr[e], o_[e]);
      }
    }
    T sum() const { return l; }
    T* o() { return o_.data(); }
  };

  template <class A, class Lists>
  struct Dq {
    using T = typename A::T;
    const Tensors<T>& in;
    const int d, g;
    std::vector<T> kT, acc_;
    const T* krow[kBlock];
    const T* vrow[kBlock];
    Dq(const FmaChain&, const Lists&, const Tensors<T>& t, std::int64_t, int, int g_)
        : in(t), d(t.d), g(g_), kT(static_cast<std::size_t>(t.d) * kBlock), acc_(t.d, T(0)) {}
    void scores(int, int nm, const std::int64_t* mem, const T* q, T* s) {
      for (int c = 0; c < nm; ++c) {
        krow[c] = in.k + (mem[c] * in.hkv + g) * d;
        vrow[c] = in.v + (mem[c] * in.hkv + g) * d;
      }
      detail::dots<A>(q, krow, nm, d, kT.data(), s);
    }
    void dps(int, int nm, const std::int64_t*, const T* dout, T* dp) {
      detail::dots<A>(dout, vrow, nm, d, kT.data(), dp);
    }
    // §5.3: one chain over the members in list order.
    void fold(int, int nm, const std::int64_t*, const int*, const T* ds) {
      for (int c = 0; c < nm; ++c) {
        const T* kr = krow[c];
        for (int e = 0; e < d; ++e) acc_[e] = A::fma(ds[c], kr[e], acc_[e]);
      }
    }
    const T* acc() const { return acc_.data(); }
  };
};

// ---- forward -------------------------------------------------------------

template <class A, class Lists, class Policy = FmaChain>
void forward(const Lists& lists, const Tensors<typename A::T>& in, const ForwardOut<typename A::T>& out,
             unsigned threads = 0, const Policy& policy = {}) {
  using T = typename A::T;
  constexpr int kB = Policy::kBlock;
  const int d = in.d, hq = in.hq, group = in.hq / in.hkv;
  auto row = [&](std::int64_t task) {
    const std::int64_t r = task / hq;
    const int h = static_cast<int>(task % hq), g = h / group;
    typename Policy::template Forward<A, Lists> st(policy, lists, in, r, h, g);
    T s[kB], t[kB], p[kB];
    std::int64_t mem[kB];
    int pos[kB];
    T m(0);
    bool started = false;
    const int n = lists.size(r);
    for (int b = 0; b * kB < n; ++b) {
      const int nm = detail::block_members<kB>(lists, r, n, b, mem, pos);
      if (nm == 0) continue;  // an empty block changes nothing (§1)
      st.scores(b, nm, mem, s);
      T m_new, alpha{};
      if constexpr (base2_softmax<A>) {
        // attention-tc.md §25: m is the unscaled scores' maximum; p = exp2(fma(s, c, -mul(m, c))),
        // c = mul(scale, log2 e); the rescale exp2(mul(sub(m, m_new), c)).
        T mb = s[0];
        for (int c = 1; c < nm; ++c) mb = detail::max_ignoring_nan(mb, s[c]);
        m_new = started ? detail::max_ignoring_nan(m, mb) : mb;
        const T c2 = A::mul(in.scale, A::log2e()), m_c2 = A::mul(m_new, c2);
        for (int c = 0; c < nm; ++c) p[c] = A::exp2(A::fma(s[c], c2, -m_c2));
        if (started) alpha = A::exp2(A::mul(A::sub(m, m_new), c2));
      } else {
        T mb = A::mul(s[0], in.scale);
        t[0] = mb;
        for (int c = 1; c < nm; ++c) {
          t[c] = A::mul(s[c], in.scale);
          mb = detail::max_ignoring_nan(mb, t[c]);
        }
        m_new = started ? detail::max_ignoring_nan(m, mb) : mb;
        for (int c = 0; c < nm; ++c) p[c] = A::exp(A::sub(t[c], m_new));
        if (started) alpha = A::exp(A::sub(m, m_new));
      }
      if (started) st.rescale(alpha);
      else st.start();
      st.fold(b, nm, mem, pos, p);
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
      T l = st.sum();
      T* o = st.o();
      if constexpr (base2_softmax<A>) m = A::mul(m, in.scale);  // §25: lse in natural units
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
      for (int e = 0; e < d; ++e) o_out[e] = Policy::template out<A>(A::div(o[e], l));
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
template <class A, class Lists, class Policy = FmaChain>
void backward_dq(const Lists& lists, const Tensors<typename A::T>& in, const BackwardIn<typename A::T>& bin,
                 const std::vector<typename A::T>& delta, typename A::T* dq_out, unsigned threads,
                 PdsRecord<typename A::T> record = {}, const Policy& policy = {}) {
  using T = typename A::T;
  constexpr int kB = Policy::kBlock;
  const int d = in.d, hq = in.hq, hkv = in.hkv, group = hq / hkv;
  auto dq_task = [&](std::int64_t task) {
    const std::int64_t r = task / hq;
    const int h = static_cast<int>(task % hq), g = h / group;
    const T* q = in.q + task * d;
    const T* dout = bin.dout + task * d;
    const T lse = bin.lse[task], dl = delta[task];
    typename Policy::template Dq<A, Lists> st(policy, lists, in, r, h, g);
    T s[kB], dp[kB], ds[kB];
    std::int64_t mem[kB];
    int pos[kB];
    const int n = lists.size(r);
    for (int b = 0; b * kB < n; ++b) {
      const int nm = detail::block_members<kB>(lists, r, n, b, mem, pos);
      if (nm == 0) continue;
      st.scores(b, nm, mem, q, s);
      st.dps(b, nm, mem, dout, dp);
      for (int c = 0; c < nm; ++c) {
        const T p = detail::softmax_p<A>(s[c], in.scale, lse);
        ds[c] = A::mul(p, A::sub(dp[c], dl));
        if (record.p) {
          record.p[task * record.stride + pos[c]] = p;
          record.ds[task * record.stride + pos[c]] = ds[c];
        }
      }
      st.fold(b, nm, mem, pos, ds);
    }
    T* dq = dq_out + task * d;
    const T* acc = st.acc();
    // +0 * scale = +0 for empty lists
    for (int e = 0; e < d; ++e) dq[e] = Policy::template out<A>(A::mul(acc[e], in.scale));
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

namespace detail {

// One query head's accumulators of kv row j: from the hand-over, or +0.
template <class T>
void start_accumulators(const AccumHandover<T>& hand, std::int64_t j, int hq, int h, int d, std::vector<T>& ak,
                        std::vector<T>& av) {
  const std::int64_t at = (j * hq + h) * d;
  for (int e = 0; e < d; ++e) ak[e] = hand.k_in ? hand.k_in[at + e] : T(0);
  for (int e = 0; e < d; ++e) av[e] = hand.v_in ? hand.v_in[at + e] : T(0);
}

// Keeps them for the next part, and folds them into the kv group's sums in
// head order: R = A[h_0], then R = add(R, A[h]) (§5).
template <class A, class T>
void hand_on_and_fold(const AccumHandover<T>& hand, std::int64_t j, int hq, int h, int hh, int d, const std::vector<T>& ak,
                      const std::vector<T>& av, std::vector<T>& rk, std::vector<T>& rv) {
  const std::int64_t at = (j * hq + h) * d;
  if (hand.k_out)
    for (int e = 0; e < d; ++e) hand.k_out[at + e] = ak[e];
  if (hand.v_out)
    for (int e = 0; e < d; ++e) hand.v_out[at + e] = av[e];
  if (hh == 0) {
    rk = ak;
    rv = av;
  } else {
    for (int e = 0; e < d; ++e) rk[e] = A::add(rk[e], ak[e]);
    for (int e = 0; e < d; ++e) rv[e] = A::add(rv[e], av[e]);
  }
}

}  // namespace detail

template <class A, class Lists>
void backward(const Lists& lists, const Tensors<typename A::T>& in, const BackwardIn<typename A::T>& bin,
              const BackwardOut<typename A::T>& out, unsigned threads = 0, const AccumHandover<typename A::T>& hand = {}) {
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
      detail::start_accumulators(hand, j, hq, h, d, ak, av);
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
          const T p = detail::softmax_p<A>(s[x], in.scale, bin.lse[task_row]);
          const T ds = A::mul(p, A::sub(dp[x], delta[task_row]));
          const T* qr = qrow[x];
          const T* dor = orow[x];
          for (int e = 0; e < d; ++e) av[e] = A::fma(p, dor[e], av[e]);
          for (int e = 0; e < d; ++e) ak[e] = A::fma(ds, qr[e], ak[e]);
        }
      }
      detail::hand_on_and_fold<A>(hand, j, hq, h, hh, d, ak, av, rk, rv);
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
