// kernels/src/sm90/common/fragment.cuh — a thread's part of a wgmma m64nN
// accumulator, and the A operand fragment made from it in registers
// (attention-tc.md §11.6). Layout only: which element is which row and
// column; the one rounding here (pack_a: cvt.rn to the operand format) is the
// contract's rounding of P and dS (§4.4, §5), applied once an element.
//
// The warpgroup's 64 rows are its 4 warps' 16; in a warp, the thread with lane
// l holds rows l/4 and l/4 + 8 (its rows 0 and 1) and, of each 8-column chunk
// c, columns 8c + 2 quad and + 1 (quad = l % 4): N/2 registers, element i at
// row (i/2) % 2, column 8 (i/4) + 2 quad + i % 2. That is also the A fragment
// of an m64nNk16 wgmma reading the same rows (register j of k16 step kk holds
// elements 8kk + 2j and + 1), so S's fragment becomes P^'s in place.
#pragma once

#include <cstdint>

#include "samebits/gpu/tensor_core.hpp"

namespace samebits::kernels::hopper {

struct TcFrag {
  SAMEBITS_DEVICE_FUNC static constexpr int row(int i) { return (i / 2) % 2; }  // the thread's row 0 or 1
  SAMEBITS_DEVICE_FUNC static constexpr int col(int i, int quad) { return 8 * (i / 4) + 2 * quad + i % 2; }
};

// x (an m64nN accumulator, N = 16 kK16) rounded to the operand format F, two elements a
// register: a[kk][j] = (x[8kk + 2j], x[8kk + 2j + 1]), the A fragment of k16 step kk.
template <gpu::Format F, int kK16>
SAMEBITS_DEVICE_FUNC void tc_pack_a(const float (&x)[8 * kK16], std::uint32_t (&a)[kK16][4]) {
#pragma unroll
  for (int kk = 0; kk < kK16; ++kk)
#pragma unroll
    for (int j = 0; j < 4; ++j) a[kk][j] = gpu::pack2<F>(x[8 * kk + 2 * j], x[8 * kk + 2 * j + 1]);
}

// wgmma operand fences (CUTLASS's warpgroup_fence_operand) over a whole fragment, in element order.
template <int N>
SAMEBITS_DEVICE_FUNC void tc_fence(float (&x)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) gpu::fence_operand(x[i]);
}
template <int K>
SAMEBITS_DEVICE_FUNC void tc_fence(std::uint32_t (&a)[K][4]) {
#pragma unroll
  for (int kk = 0; kk < K; ++kk)
#pragma unroll
    for (int j = 0; j < 4; ++j) gpu::fence_operand(a[kk][j]);
}
// x = +0, fenced (a fresh accumulator about to be wgmma's C).
template <int N>
SAMEBITS_DEVICE_FUNC void tc_zero_fenced(float (&x)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) {
    x[i] = 0.0f;
    gpu::fence_operand(x[i]);
  }
}

}  // namespace samebits::kernels::hopper
