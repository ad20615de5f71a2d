// kernels/src/portable/attention/bwd_fold_kernel.cuh — §5 the head fold: per key
// row j, kv head g and column d, R = A[h_0]; R = add(R, A[h_1]); ... in head
// order over the group, then dk = mul(R_K, scale), dv = R_V, each rounded
// once. One thread per (j, g, d): consecutive threads take consecutive d.
// kZeroRule (the sm90-tensor-core policy, attention-tc.md §7): dk, dv are
// written zero_canonical(...) — +0 for either zero — before the rounding.
#pragma once

#include "portable/common/attention_common.cuh"

namespace samebits::kernels::attention::cuda {

template <int D, DType Grad, bool kZeroRule = false>
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kThreads) attention_bwd_fold_kernel(const BackwardParams p) {
  const std::int64_t task = static_cast<std::int64_t>(gpu::blockIdx.x) * kThreads + gpu::threadIdx.x;
  if (task >= p.total_k * p.hkv * D) return;
  const int d = static_cast<int>(task % D);
  const std::int64_t jg = task / D;
  const int g = static_cast<int>(jg % p.hkv);
  const std::int64_t j = jg / p.hkv;
  const int group = p.hq / p.hkv;
  const std::int64_t a = (j * p.hq + static_cast<std::int64_t>(g) * group) * D + d;
  float rk = p.accum_k[a], rv = p.accum_v[a];
  for (int hh = 1; hh < group; ++hh) {
    rk = add_rn(rk, p.accum_k[a + static_cast<std::int64_t>(hh) * D]);
    rv = add_rn(rv, p.accum_v[a + static_cast<std::int64_t>(hh) * D]);
  }
  store_from_f32(p.dk, Grad, j * p.dk_stride.row + static_cast<std::int64_t>(g) * p.dk_stride.head + d,
                 kZeroRule ? zero_canonical(mul_rn(rk, p.scale)) : mul_rn(rk, p.scale));
  store_from_f32(p.dv, Grad, j * p.dv_stride.row + static_cast<std::int64_t>(g) * p.dv_stride.head + d,
                 kZeroRule ? zero_canonical(rv) : rv);
}

}  // namespace samebits::kernels::attention::cuda
