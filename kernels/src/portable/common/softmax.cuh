// kernels/src/portable/common/softmax.cuh — the online softmax of one row, step by step
// (attention.md §4.2-4.6, and §5.2's recomputation in the backward), for the fma-chain
// kernels' layout: a thread holds 4 of a row's block scores (columns tx + 16 c), and the
// row's 16 threads are one 16-lane group of the warp. Each function is one step of the
// contract, with its operations in the contract's order; membership (§1) enters as a
// predicate (a select, never a multiply by zero).
#pragma once

#include "portable/common/rounded_ops.cuh"
#include "samebits/gpu/backend.hpp"
#include "samebits/gpu/thread.hpp"
#include "samebits/libm/fp/bits.hpp"

namespace samebits::kernels::attention::cuda {

// t = mul(s, scale) in place for the thread's 4 scores of the row (§3: the scale
// multiplies the finished dot), and the block max mb over the row's members across its
// 16 threads (§4.2): maxNum from its identity, a non-member left out. member(c): whether
// the thread's column c is a member.
template <class Member>
SAMEBITS_DEVICE_FUNC float scaled_block_max(float (&s)[4], float scale, Member member) {
  float mb = max_identity();
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    s[c] = mul_rn(s[c], scale);  // t = mul(s, scale)
    mb = member(c) ? max_num(mb, s[c]) : mb;
  }
#pragma unroll
  for (int off = 1; off < 16; off <<= 1) mb = max_num(mb, gpu::shuffle_xor(mb, off));
  return mb;
}

// m_new = started ? max(m, mb) : mb (§4.2).
SAMEBITS_DEVICE_FUNC float running_max(bool started, float m, float mb) { return started ? max_num(m, mb) : mb; }

// p = exp(sub(t, m_new)) for a member, +0 for a non-member (§4.3).
template <class L>
SAMEBITS_DEVICE_FUNC float block_prob(bool member, float t, float m_new) {
  return member ? L::exp(sub_rn(t, m_new)) : 0.0f;
}

// alpha = exp(sub(m, m_new)): the rescale at a block boundary (§4.4).
template <class L>
SAMEBITS_DEVICE_FUNC float rescale_factor(float m, float m_new) {
  return L::exp(sub_rn(m, m_new));
}

// acc[j] = mul(acc[j], alpha) for every column: the accumulator's rescale (§4.4).
template <int kCols>
SAMEBITS_DEVICE_FUNC void rescale_row(float (&acc)[kCols], float alpha) {
#pragma unroll
  for (int j = 0; j < kCols; ++j) acc[j] = mul_rn(acc[j], alpha);
}

// The backward's recomputation (§5.2): p = exp(sub(mul(s, scale), lse)) and
// ds = mul(p, sub(dp, delta)).
template <class L>
SAMEBITS_DEVICE_FUNC float prob_from_lse(float s, float scale, float lse) {
  return L::exp(sub_rn(mul_rn(s, scale), lse));
}
SAMEBITS_DEVICE_FUNC float dscore(float p, float dp, float delta) { return mul_rn(p, sub_rn(dp, delta)); }

// Row r's value held by its owner thread, lane r of this 16-lane half of the 32-lane
// group (the warp): the row sums l, summed by one owner thread per row, handed to the
// row's other threads at the end.
template <int RM>
SAMEBITS_DEVICE_FUNC void from_owners(float own, int tid, float (&x)[RM]) {
#pragma unroll
  for (int r = 0; r < RM; ++r) x[r] = gpu::shuffle_in_group(own, (tid & 16) + r);
}

// The finish of one row (§4.5-4.6): lse (sink-inclusive), lse_excl, and the l and sink
// rescale alpha that o is finished with. started: the list had a member; m, l: the
// running max and sum; sigma: the sink (has_sink).
struct RowFinish {
  float lse, lse_excl, l, alpha;
};
template <class L>
SAMEBITS_DEVICE_FUNC RowFinish finish_row(bool started, float m, float l, bool has_sink, float sigma) {
  RowFinish f{0.0f, 0.0f, l, 0.0f};
  if (!started) {
    f.lse_excl = fp::from_bits(0xff800000u);               // -inf: the list has no member
    f.lse = has_sink ? sigma : fp::from_bits(0xff800000u);  // with a sink: o = +0, lse = sigma
    return f;
  }
  f.lse_excl = add_rn(m, L::log(l));
  if (!has_sink) {
    f.lse = f.lse_excl;
    return f;
  }
  const float m_f = max_num(m, sigma);
  f.alpha = L::exp(sub_rn(m, m_f));
  f.l = add_rn(mul_rn(l, f.alpha), L::exp(sub_rn(sigma, m_f)));
  f.lse = add_rn(m_f, L::log(f.l));
  return f;
}

}  // namespace samebits::kernels::attention::cuda
