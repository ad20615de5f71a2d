// samebits/kernels/attention/reference_tc.hpp — docs/kernels/attention-tc.md
// in code: the attention reference (reference.hpp) instantiated with the
// sm90-tensor-core policy. The block loop, the online softmax, the finish,
// delta and dq's structure are reference.hpp's; this header gives the policy's
// product steps (every product through samebits::mma::sm90, the tensor-core
// model, with the model's Params as an argument) and its own dK/dV order
// (16-row groups, §6). Nothing here repeats reference.hpp.
//
// Dense lists only (DenseLists: dense, causal, varlen): the policy's blocks
// are key positions of the sequence, and positions of a visited block that are
// not in a row's list still take part in its products (as +0 times their
// operand, §3), which needs the sequence's key rows (DenseLists::key_row).
// Binary32 arithmetic only (A = FloatArith<Libm>): the model works on
// encodings.
#pragma once

#include <cstdint>
#include <vector>

#include "samebits/kernels/attention/reference.hpp"
#include "samebits/kernels/attention/tensor_core.hpp"
#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/mma/sm90.hpp"

namespace samebits::kernels::attention::tc {

// The policy object: the operand format, the model's parameters, and the
// inputs as operand encodings (the same layouts as Tensors: q, dout
// [rows, hq, d]; k, v [kv_rows, hkv, d]), which the caller has checked to be
// exactly the given binary32 values (reference_tc.cpp).
struct Reference {
  static constexpr int kBlock = tc::kBlock;

  sm90::Format fmt = sm90::Format::bf16;
  sm90::Params params{};
  const std::uint16_t* q = nullptr;
  const std::uint16_t* k = nullptr;
  const std::uint16_t* v = nullptr;
  const std::uint16_t* dout = nullptr;  // backward only

  // A chain of model steps over `groups` k16 groups of a[16i..], b[16i..]:
  // fresh: the first step is dot (wgmma scale-d = 0), the later ones dot_add
  // onto the previous result; otherwise every step is dot_add, the first onto c.
  float chain(const std::uint16_t* a, const std::uint16_t* b, int groups, bool fresh, float c = 0.0f) const {
    std::uint32_t acc = fp::to_bits(c);
    for (int i = 0; i < groups; ++i) {
      const std::uint16_t* ai = a + i * kGroup;
      const std::uint16_t* bi = b + i * kGroup;
      acc = (fresh && i == 0) ? sm90::dot(fmt, ai, bi, kGroup, params) : sm90::dot_add(fmt, ai, bi, kGroup, acc, params);
    }
    return fp::from_bits(acc);
  }
  // §3 s = q . k and §5 dp = dO . v: a fresh chain over d in k16 steps.
  float row_dot(const std::uint16_t* x, const std::uint16_t* y, int d) const { return chain(x, y, d / kGroup, true); }

  // §7: outputs are written zero-canonical (then rounded once to their dtype).
  template <class A>
  static float out(float x) {
    return zero_canonical(x);
  }

  // Operand columns of a key block: col[e * kBlock + x] is element e of the
  // key row at position kBlock*b + x of r's sequence, +0 past its end (§3).
  template <class Lists>
  void block_columns(const Lists& lists, std::int64_t r, int b, const std::uint16_t* src, int heads, int g, int d,
                     std::uint16_t* col) const {
    for (int x = 0; x < kBlock; ++x) {
      const std::int64_t row = lists.key_row(r, b * kBlock + x);
      const std::uint16_t* kr = row < 0 ? nullptr : src + (row * heads + g) * d;
      for (int e = 0; e < d; ++e) col[e * kBlock + x] = kr ? kr[e] : std::uint16_t{0};
    }
  }
  // A value per block position: the members' at their positions, +0 elsewhere.
  static void spread(int b, int nm, const int* pos, const float* val, float* dst) {
    for (int x = 0; x < kBlock; ++x) dst[x] = 0.0f;
    for (int c = 0; c < nm; ++c) dst[pos[c] - b * kBlock] = val[c];
  }

  // ---- forward, one row (§3, §4) ------------------------------------------
  template <class A, class Lists>
  struct Forward {
    const Reference& pol;
    const Lists& lists;
    const Tensors<float>& in;
    const std::int64_t r;
    const int d, g;
    const std::uint16_t* q16;
    std::vector<float> o_;
    std::vector<std::uint16_t> vcol;  // [d][kBlock]
    float lq[kQuad] = {};
    bool fresh = true;
    Forward(const Reference& p, const Lists& ls, const Tensors<float>& t, std::int64_t r_, int h, int g_)
        : pol(p), lists(ls), in(t), r(r_), d(t.d), g(g_), q16(p.q + (r_ * t.hq + h) * t.d), o_(t.d, 0.0f),
          vcol(static_cast<std::size_t>(t.d) * kBlock) {}
    void scores(int, int nm, const std::int64_t* mem, float* s) {
      for (int c = 0; c < nm; ++c) s[c] = pol.row_dot(q16, pol.k + (mem[c] * in.hkv + g) * d, d);
    }
    void start() {
      for (float& x : lq) x = 0.0f;
      fresh = true;
    }
    void rescale(float alpha) {
      for (float& x : lq) x = A::mul(x, alpha);
      for (int e = 0; e < d; ++e) o_[e] = A::mul(o_[e], alpha);
    }
    void fold(int b, int nm, const std::int64_t*, const int* pos, const float* p) {
      float pf[kBlock];
      spread(b, nm, pos, p, pf);
      // §4 l: thread q of the quad adds its columns 8c + 2q, 8c + 2q + 1, chunk by chunk (fp32 p).
      for (int qd = 0; qd < kQuad; ++qd)
        for (int c = 0; c < kBlock / kChunk; ++c) {
          lq[qd] = A::add(lq[qd], pf[kChunk * c + 2 * qd]);
          lq[qd] = A::add(lq[qd], pf[kChunk * c + 2 * qd + 1]);
        }
      // §4 o: P rounded to the operand format, one chain per d over the block's k16 groups.
      std::uint16_t p16[kBlock];
      for (int x = 0; x < kBlock; ++x) p16[x] = to_operand(pol.fmt, pf[x]);
      pol.block_columns(lists, r, b, pol.v, in.hkv, g, d, vcol.data());
      for (int e = 0; e < d; ++e) o_[e] = pol.chain(p16, vcol.data() + e * kBlock, kBlock / kGroup, fresh, o_[e]);
      fresh = false;
    }
    float sum() const { return A::add(A::add(lq[0], lq[1]), A::add(lq[2], lq[3])); }
    float* o() { return o_.data(); }
  };

  // ---- dq, one row (§5) -----------------------------------------------------
  template <class A, class Lists>
  struct Dq {
    const Reference& pol;
    const Lists& lists;
    const Tensors<float>& in;
    const std::int64_t r;
    const int d, g;
    const std::uint16_t* q16;
    const std::uint16_t* do16;
    std::vector<float> acc_;
    std::vector<std::uint16_t> kcol;  // [d][kBlock]
    Dq(const Reference& p, const Lists& ls, const Tensors<float>& t, std::int64_t r_, int h, int g_)
        : pol(p), lists(ls), in(t), r(r_), d(t.d), g(g_), q16(p.q + (r_ * t.hq + h) * t.d),
          do16(p.dout + (r_ * t.hq + h) * t.d), acc_(t.d, 0.0f), kcol(static_cast<std::size_t>(t.d) * kBlock) {}
    void scores(int, int nm, const std::int64_t* mem, const float*, float* s) {
      for (int c = 0; c < nm; ++c) s[c] = pol.row_dot(q16, pol.k + (mem[c] * in.hkv + g) * d, d);
    }
    void dps(int, int nm, const std::int64_t* mem, const float*, float* dp) {
      for (int c = 0; c < nm; ++c) dp[c] = pol.row_dot(do16, pol.v + (mem[c] * in.hkv + g) * d, d);
    }
    // dS rounded; the block's partial a fresh chain over its k16 key groups;
    // dq_acc = add(dq_acc, partial), blocks in ascending order.
    void fold(int b, int nm, const std::int64_t*, const int* pos, const float* ds) {
      float dsf[kBlock];
      spread(b, nm, pos, ds, dsf);
      std::uint16_t ds16[kBlock];
      for (int x = 0; x < kBlock; ++x) ds16[x] = to_operand(pol.fmt, dsf[x]);
      pol.block_columns(lists, r, b, pol.k, in.hkv, g, d, kcol.data());
      for (int e = 0; e < d; ++e)
        acc_[e] = A::add(acc_[e], pol.chain(ds16, kcol.data() + e * kBlock, kBlock / kGroup, true));
    }
    const float* acc() const { return acc_.data(); }
  };
};

// ---- dK/dV (§6): per key row and query head, 16-row groups ------------------
//
// For key j (position x of its sequence, block b = x / Bk) and query head h:
// A_V and A_K start from the hand-over (or +0) and take one dot_add step per
// visited query group, in ascending order. Groups are 16 query positions
// aligned at position 0, a row's position being Lk - Lq + i; the visited
// groups run from the one holding the first row whose list has a member in
// block b to the one holding the sequence's last query row. Each step's 16
// products: p_ij (rounded) x dO_i[d] and ds_ij (rounded) x q_i[d]; p and ds are
// +0 for rows whose list does not hold j, and positions that are no query row
// of the sequence are zero rows.
template <class A>
void backward_dkv(const Reference& pol, const DenseLists& lists, const Tensors<float>& in,
                  const BackwardIn<float>& bin, const std::vector<float>& delta, const BackwardOut<float>& out,
                  const AccumHandover<float>& hand, unsigned threads) {
  const int d = in.d, hq = in.hq, hkv = in.hkv, group = hq / hkv;
  const std::size_t nseq = lists.cu_k.size() - 1;
  std::vector<std::int32_t> seq_of_key(static_cast<std::size_t>(in.kv_rows), 0);
  for (std::size_t s = 0; s < nseq; ++s)
    for (std::int32_t j = lists.cu_k[s]; j < lists.cu_k[s + 1]; ++j) seq_of_key[j] = static_cast<std::int32_t>(s);
  auto floor_div = [](std::int64_t a, std::int64_t m) { return a >= 0 ? a / m : -((-a + m - 1) / m); };

  auto dkv_task = [&](std::int64_t task) {
    const std::int64_t j = task / hkv;
    const int g = static_cast<int>(task % hkv);
    const int s = seq_of_key[j];
    const std::int64_t row0 = lists.cu_q[s];
    const int lq = lists.cu_q[s + 1] - lists.cu_q[s], lk = lists.cu_k[s + 1] - lists.cu_k[s];
    const int x = static_cast<int>(j - lists.cu_k[s]);
    const int b = x / kBlock;
    const std::int64_t a0 = std::int64_t{lk} - lq;  // position of the sequence's row 0
    // The first row whose list has a member in block b (dense lists: members
    // are positions 0 .. size - 1).
    int first = 0;
    while (first < lq && lists.size(row0 + first) <= b * kBlock) ++first;
    const std::int64_t g0 = floor_div(a0 + first, kRowGroup), g1 = floor_div(a0 + lq - 1, kRowGroup);
    const std::uint16_t* k16 = pol.k + task * d;
    const std::uint16_t* v16 = pol.v + task * d;
    std::vector<float> rk(d, 0.0f), rv(d, 0.0f), ak(d), av(d);
    std::vector<std::uint16_t> qcol(static_cast<std::size_t>(d) * kRowGroup), docol(qcol.size());
    for (int hh = 0; hh < group; ++hh) {
      const int h = g * group + hh;
      detail::start_accumulators(hand, j, hq, h, d, ak, av);
      for (std::int64_t G = first < lq ? g0 : g1 + 1; G <= g1; ++G) {
        std::uint16_t p16[kRowGroup], ds16[kRowGroup];
        for (int t = 0; t < kRowGroup; ++t) {
          const std::int64_t i = G * kRowGroup + t - a0;
          p16[t] = ds16[t] = 0;
          const bool row_in = i >= 0 && i < lq;
          const std::int64_t task_row = (row0 + i) * hq + h;
          const std::uint16_t* qr = row_in ? pol.q + task_row * d : nullptr;
          const std::uint16_t* dr = row_in ? pol.dout + task_row * d : nullptr;
          for (int e = 0; e < d; ++e) {
            qcol[e * kRowGroup + t] = qr ? qr[e] : std::uint16_t{0};
            docol[e * kRowGroup + t] = dr ? dr[e] : std::uint16_t{0};
          }
          if (!row_in || lists.size(row0 + i) <= x) continue;  // j not in the row's list: p = ds = +0
          // The row's p and ds for key j: the same operations as its dq pass.
          const float sc = pol.row_dot(qr, k16, d);
          const float p = detail::softmax_p<A>(sc, in.scale, bin.lse[task_row]);
          const float dp = pol.row_dot(dr, v16, d);
          const float ds = A::mul(p, A::sub(dp, delta[task_row]));
          p16[t] = to_operand(pol.fmt, p);
          ds16[t] = to_operand(pol.fmt, ds);
        }
        for (int e = 0; e < d; ++e) {
          av[e] = pol.chain(p16, docol.data() + e * kRowGroup, 1, false, av[e]);
          ak[e] = pol.chain(ds16, qcol.data() + e * kRowGroup, 1, false, ak[e]);
        }
      }
      detail::hand_on_and_fold<A>(hand, j, hq, h, hh, d, ak, av, rk, rv);
    }
    float* dk = out.dk + task * d;
    float* dv = out.dv + task * d;
    for (int e = 0; e < d; ++e) dk[e] = Reference::out<A>(A::mul(rk[e], in.scale));
    for (int e = 0; e < d; ++e) dv[e] = Reference::out<A>(rv[e]);
  };
  detail::parallel_for(in.kv_rows * hkv, threads, dkv_task);
}

// The forward and the whole backward (§4-§6): delta, dq, dK/dV.
template <class A>
void forward(const Reference& pol, const DenseLists& lists, const Tensors<float>& in, const ForwardOut<float>& out,
             unsigned threads = 0) {
  attention::forward<A>(lists, in, out, threads, pol);
}

template <class A>
void backward(const Reference& pol, const DenseLists& lists, const Tensors<float>& in, const BackwardIn<float>& bin,
              const BackwardOut<float>& out, unsigned threads = 0, const AccumHandover<float>& hand = {}) {
  const std::vector<float> delta = backward_delta<A>(in, bin, threads);
  backward_dq<A>(lists, in, bin, delta, out.dq, threads, {}, pol);
  backward_dkv<A>(pol, lists, in, bin, delta, out, hand, threads);
}

}  // namespace samebits::kernels::attention::tc
