// kernels/src/sm90/common/softmax.cuh — the softmax's row statistics on a
// wgmma accumulator fragment (fragment.cuh: two rows a thread, a row's columns
// spread over the 4 threads of a quad), in the contract's operations and
// order (docs/kernels/attention-tc.md §4.2-§4.5, §25; sparse_mla.md §3 is the
// same softmax over slot lists):
//
//   TcOnlineSoftmax  the forward's online softmax over key blocks: the block
//                    max over members (maxNum, quad shuffles), p = exp(t - m)
//                    in place, alpha = exp(m - m_new) for o's rescale, the row
//                    sums in fragment order, and their quad fold at the end.
//   tc_exp_member    p of one element given its exponent argument, +0 for a
//                    non-member: the backward's recomputed p (§5.2) and the
//                    forward's, one form.
//
// Membership comes from the caller (a functor of the fragment element): key
// lists in attention (positions < a row's list length), gathered slots in
// sparse MLA (a valid top-k index). Masked or not is a compile-time choice:
// the masked form is branch-free and gives the same bits as skipping
// non-members (max_num(m, NaN) = m; exp(-inf) = +0 in both libms, the value
// the contract gives a non-member).
//
// L: a libm policy (exp, log; exp2 and kBase2Softmax for nvcc-fast, §25:
// FlashAttention-3's base 2, p = exp2(fma(s, c, -mul(m, c))), c = mul(scale,
// log2 e), one fma and one MUFU.EX2 an element; natural: t = mul(s, scale),
// p = exp(sub(t, m))).
#pragma once

#include <type_traits>

#include "portable/common/attention_common.cuh"
#include "samebits/gpu/tensor_core.hpp"
#include "samebits/gpu/thread.hpp"

namespace samebits::kernels::hopper {

// p of one element (§4.3, §5.2): exp (exp2 in base 2) of x for a member, of -inf (+0) for a
// non-member. x is a value, or a functor giving it that is called for a member only (so the
// argument's arithmetic stays under the member's branch, as written in the contract's form).
template <class L, bool kBase2, class X>
SAMEBITS_DEVICE_FUNC float tc_exp_member(bool member, X x) {
  float arg;
  if constexpr (std::is_invocable_v<X>) arg = member ? x() : fp::from_bits(0xff800000u);
  else arg = member ? x : fp::from_bits(0xff800000u);
  if constexpr (kBase2) return L::exp2(arg);
  else return L::exp(arg);
}

// §5.2 ds = mul(p, sub(dp, delta)) (the caller selects +0 for a non-member: p = +0 there, and
// +0 times a finite dp - delta is selected to +0 anyway).
SAMEBITS_DEVICE_FUNC float tc_ds(float p, float dp, float delta) { return gpu::mul_rn(p, gpu::sub_rn(dp, delta)); }

// Rows of kN columns a block (kN / 2 fragment registers), two a thread. State between blocks: m
// (the running maximum: of t natural, of the unscaled s in base 2, §25), l (this thread's
// partial row sums, its columns only until finish()) and alpha (the last update's rescale).
template <class L, int kN>
struct TcOnlineSoftmax {
  static constexpr bool kBase2 = attention::base2_softmax<L>;
  static constexpr int kRegs = kN / 2;
  // (l before m: the order the kernels' registers were measured in — a member order changes the
  // compiled code's register numbering, not its operations.)
  float l[2] = {0.0f, 0.0f}, m[2] = {0.0f, 0.0f};
  float alpha[2] = {1.0f, 1.0f};

  // §4.2-4.4 for block b (b = 0: the first; its S in sc): t (natural form: sc scaled in place),
  // the block max over members, p in place, alpha, l rescaled then this thread's columns added
  // chunk by chunk. member(i): whether element i is a member (constant true when unmasked).
  // c2 = mul(scale, log2 e) (base 2 only).
  template <class Member>
  SAMEBITS_DEVICE_FUNC void update(int b, float (&sc)[kRegs], const float& scale, float c2, Member member) {
    float mb[2] = {attention::cuda::max_identity(), attention::cuda::max_identity()};
#pragma unroll
    for (int i = 0; i < kRegs; ++i) {
      const int r = (i / 2) % 2;
      if constexpr (!kBase2) sc[i] = gpu::mul_rn(sc[i], scale);
      mb[r] = gpu::max_num(mb[r], member(i) ? sc[i] : attention::cuda::max_identity());
    }
    float m_new[2], m_c2[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      mb[r] = gpu::max_num(mb[r], gpu::shuffle_xor(mb[r], 1));
      mb[r] = gpu::max_num(mb[r], gpu::shuffle_xor(mb[r], 2));
      m_new[r] = b > 0 ? gpu::max_num(m[r], mb[r]) : mb[r];
      if constexpr (kBase2) {
        alpha[r] = b > 0 ? L::exp2(gpu::mul_rn(gpu::sub_rn(m[r], m_new[r]), c2)) : 1.0f;
        m_c2[r] = -gpu::mul_rn(m_new[r], c2);
      } else {
        alpha[r] = b > 0 ? L::exp(gpu::sub_rn(m[r], m_new[r])) : 1.0f;
      }
    }
#pragma unroll
    for (int i = 0; i < kRegs; ++i) {
      const int r = (i / 2) % 2;
      if constexpr (kBase2)
        sc[i] = L::exp2(member(i) ? gpu::fma_rn(sc[i], c2, m_c2[r]) : fp::from_bits(0xff800000u));
      else
        sc[i] = L::exp(member(i) ? gpu::sub_rn(sc[i], m_new[r]) : fp::from_bits(0xff800000u));
    }
    // §4.4 fold: rescale (later blocks), then the thread's columns chunk by chunk.
#pragma unroll
    for (int r = 0; r < 2; ++r) l[r] = b > 0 ? gpu::mul_rn(l[r], alpha[r]) : 0.0f;
#pragma unroll
    for (int c = 0; c < kN / 8; ++c) {
      l[0] = gpu::add_rn(gpu::add_rn(l[0], sc[4 * c]), sc[4 * c + 1]);
      l[1] = gpu::add_rn(gpu::add_rn(l[1], sc[4 * c + 2]), sc[4 * c + 3]);
    }
    m[0] = m_new[0];
    m[1] = m_new[1];
  }

  // §4.4: o times alpha (the last update's), o's fragment rows being the softmax's. alpha = 1
  // when m did not change, and o times 1 is o (NaN aside, whose payload the output's rounding
  // makes canonical anyway): a warp whose 16 rows all kept their maximum skips the multiplies
  // (often, late in long rows).
  template <int kO>
  SAMEBITS_DEVICE_FUNC void rescale(float (&o)[kO]) const {
    if (!gpu::warp_all(alpha[0] == 1.0f && alpha[1] == 1.0f)) {
#pragma unroll
      for (int i = 0; i < kO; ++i) o[i] = gpu::mul_rn(o[i], alpha[(i / 2) % 2]);
    }
  }

  // §4.5 l = (l0 + l1) + (l2 + l3): lane q adds lane q ^ 1's, then lane q ^ 2's (IEEE addition
  // commutes: the four lanes get the same bits).
  SAMEBITS_DEVICE_FUNC void finish() {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      l[r] = gpu::add_rn(l[r], gpu::shuffle_xor(l[r], 1));
      l[r] = gpu::add_rn(l[r], gpu::shuffle_xor(l[r], 2));
    }
  }

  // §25: row r's maximum in the natural scale (base 2 keeps the unscaled scores' maximum: times
  // scale). lse = add(m_natural, log(l)) (§4.5).
  SAMEBITS_DEVICE_FUNC float m_natural(int r, const float& scale) const { return kBase2 ? gpu::mul_rn(m[r], scale) : m[r]; }
};

}  // namespace samebits::kernels::hopper
