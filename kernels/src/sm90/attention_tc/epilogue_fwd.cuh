// kernels/src/sm90/attention_tc/epilogue_fwd.cuh — the forward's finish and
// store (docs/kernels/attention-tc.md §4.5-4.6): per row of the thread inside
// the sequence (outside[r] false), o = z(o / l) rounded once to the output
// dtype, lse = m + log(l) (§25 base 2: mul(m, scale) + log(l)); an empty list
// (no visited block) gives o = +0, lse = -inf. Straight from the accumulator
// fragment to global memory, each element rounded once.
#pragma once

#include "sm90/attention_tc/config.cuh"
#include "sm90/attention_tc/tile_scheduler.cuh"

namespace samebits::kernels::attention::cuda {

template <int D, class L, DType Out, class Softmax>
SAMEBITS_DEVICE_FUNC void tc_fwd_epilogue(const ForwardParams& p, const TcQueryTile& w, const TcThread& th,
                                          const bool (&outside)[2], const float (&o)[D / 2], const Softmax& sm) {
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    // (The row is recomputed here, not kept: registers are the forward's limit at D = 128.)
    const int j = th.row<kTcWgRows>(r);
    if (outside[r]) continue;
    const std::int64_t row = w.seq.q0 + w.qi0 + j;
    const bool empty = w.blocks == 0;
    const float m_nat = sm.m_natural(r, p.scale);
    const float lse = empty ? fp::from_bits(0xff800000u) : add_rn(m_nat, L::log(sm.l[r]));
    const std::int64_t base = row * p.o_stride.row + static_cast<std::int64_t>(w.h) * p.o_stride.head;
#pragma unroll
    for (int i = 0; i < D / 2; ++i) {
      if ((i / 2) % 2 != r) continue;
      const int col = 8 * (i / 4) + 2 * th.quad + i % 2;
      const float v = empty ? 0.0f : tc::zero_canonical(div_rn(o[i], sm.l[r]));
      store_from_f32(p.o, Out, base + col, v);
    }
    if (th.quad == 0) p.lse[row * p.hq + w.h] = canonical(lse);
  }
}

}  // namespace samebits::kernels::attention::cuda
