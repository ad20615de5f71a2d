// kernels/src/sm90/attention_tc/epilogue_bwd.cuh — where the backward's
// accumulators leave the registers (docs/kernels/attention-tc.md §5.3, §6, §7,
// §26, §27):
//   TcDkDvAccumulators  the dK/dV pass's per-head accumulators in the fp32
//                       workspace [total_k, hq, D]: loaded (handed-on values,
//                       context parallelism §8, or +0) before the mainloop,
//                       stored after it; the head fold and the zero rule
//                       (portable/attention/bwd_fold_kernel.cuh) finish them.
//   tc_store_dq         the dq passes' dq = z(mul(dq_acc, scale)), rounded once,
//                       straight from registers to p.dq (the pass is each
//                       row's one writer: no fp32 workspace, no finish kernel).
// Stores of finished values only; the one arithmetic (dq's mul and zero rule)
// is the contract's.
#pragma once

#include "sm90/attention_tc/config.cuh"
#include "sm90/attention_tc/tile_scheduler.cuh"

namespace samebits::kernels::attention::cuda {

// The thread's two key rows of the block (fragment rows r = 0, 1 of its warpgroup's 64 keys) in
// the [total_k, hq, D] dK/dV accumulators: accumulator element i is key key(i) of the block,
// column 8 (i/4) + 2 quad + i % 2. One 64-bit address per row (offset), not one per element (128
// live addresses made ptxas spill). load: the handed-on values (context parallelism, §8) or +0;
// store: to the fp32 workspace, which the head fold and the zero rule finish (§7).
template <int D>
struct TcDkDvAccumulators {
  static constexpr int kAcc = D / 2;  // dK, dV registers (m64nD)
  const BackwardParams& p;
  const TcKeyBlock& w;
  const TcThread& th;
  std::int64_t acc_row;  // p.hq * D: one key row of the accumulators

  SAMEBITS_DEVICE_FUNC int key(int i) const { return th.row<kTcWgRows>((i / 2) % 2); }
  SAMEBITS_DEVICE_FUNC std::int64_t offset(int r) const {
    return (w.seq.k0 + w.key0 + key(2 * r)) * acc_row + static_cast<std::int64_t>(w.h) * D + 2 * th.quad;
  }
  SAMEBITS_DEVICE_FUNC void load(float (&ak)[kAcc], float (&av)[kAcc]) const {
#pragma unroll
    for (int i = 0; i < kAcc; ++i) ak[i] = av[i] = 0.0f;
    if (p.accum_k_in != nullptr) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        if (key(2 * r) >= w.valid_keys) continue;
        const float* kin = p.accum_k_in + offset(r);
        const float* vin = p.accum_v_in + offset(r);
#pragma unroll
        for (int i = 0; i < kAcc; ++i) {
          if ((i / 2) % 2 != r) continue;
          ak[i] = kin[8 * (i / 4) + i % 2];
          av[i] = vin[8 * (i / 4) + i % 2];
        }
      }
    }
  }
  // Elements i, i + 1 are adjacent columns: one 8-byte store of the pair when both workspaces are
  // 8-aligned (the launcher's are), half the store instructions of 4-byte ones, whose queue held
  // 13 % of the dK/dV pass's stall samples at its end (ncu, H100, §27).
  SAMEBITS_DEVICE_FUNC void store(const float (&ak)[kAcc], const float (&av)[kAcc]) const {
    const bool pairs =
        ((reinterpret_cast<std::uintptr_t>(p.accum_k) | reinterpret_cast<std::uintptr_t>(p.accum_v)) & 7u) == 0;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      if (key(2 * r) >= w.valid_keys) continue;
      float* kout = p.accum_k + offset(r);
      float* vout = p.accum_v + offset(r);
#pragma unroll
      for (int i = 0; i < kAcc; i += 2) {
        if ((i / 2) % 2 != r) continue;
        if (pairs) {
          gpu::store_coherent2(kout + 8 * (i / 4), ak[i], ak[i + 1]);
          gpu::store_coherent2(vout + 8 * (i / 4), av[i], av[i + 1]);
        } else {
          kout[8 * (i / 4)] = ak[i];
          kout[8 * (i / 4) + 1] = ak[i + 1];
          vout[8 * (i / 4)] = av[i];
          vout[8 * (i / 4) + 1] = av[i + 1];
        }
      }
    }
  }
};

// dq of a dq-pass thread's two rows (tile rows row0 and row0 + 8, the fragment rows of its m64nD
// accumulator): z(mul(dq_acc, scale)) rounded once to the gradient dtype, for every valid row
// (q_first <= row < q_end) — the finish attention_bwd_dq_finish_kernel applies to the workspace
// (§5.3, §7), here from registers; they cost 63 us and 96 MB of traffic at Qwen3-8B's S = 4096
// (attention-tc.md §26). Element i: column 8 (i/4) + 2 quad + i % 2 of row row0 + 8 ((i/2) % 2).
template <int D>
SAMEBITS_DEVICE_FUNC void tc_store_dq(const BackwardParams& p, const Sequence& seq, int qi0, int q_first, int q_end,
                                      int h, int row0, int quad, const float (&acc)[D / 2]) {
  // Elements i, i + 1 are adjacent columns (2 quad + 8 (i / 4), + 1): one store of the pair when the
  // tensor allows (even strides, base aligned to two elements), half the instructions (§27).
  const bool pairs = p.dq_stride.row % 2 == 0 && p.dq_stride.head % 2 == 0 &&
                     reinterpret_cast<std::uintptr_t>(p.dq) % (p.grad_dtype == DType::f32 ? 8u : 4u) == 0;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int j = row0 + 8 * r;
    if (j < q_first || j >= q_end) continue;
    const std::int64_t row = (seq.q0 + qi0 + j) * p.dq_stride.row + static_cast<std::int64_t>(h) * p.dq_stride.head;
#pragma unroll
    for (int i = 0; i < D / 2; i += 2) {
      if ((i / 2) % 2 != r) continue;
      const std::int64_t e = row + 8 * (i / 4) + 2 * quad;
      const float x = zero_canonical(mul_rn(acc[i], p.scale)), y = zero_canonical(mul_rn(acc[i + 1], p.scale));
      if (pairs) {
        store_pair_from_f32(p.dq, p.grad_dtype, e, x, y);
      } else {
        store_from_f32(p.dq, p.grad_dtype, e, x);
        store_from_f32(p.dq, p.grad_dtype, e + 1, y);
      }
    }
  }
}

}  // namespace samebits::kernels::attention::cuda
