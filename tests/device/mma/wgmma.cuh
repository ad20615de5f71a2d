// tests/device/mma/wgmma.cuh — the tensor-core instructions the MMA probe
// runs, as inline PTX (sm_90a): wgmma.mma_async m64nNk16 (A and B from shared
// memory through matrix descriptors, no swizzle) with scale-d as a run-time
// predicate, its fences, and mma.sync m16n8k16 row.col. bf16 and fp16 inputs,
// fp32 accumulators. Probe-local: the attention kernels will get their own
// wrappers in gpu/ (issue 19, deliverable 3).
//
// Shared-memory layout (PTX ISA, "Shared Memory Matrix Layout", K-major, no
// swizzle): the operand is cut into core matrices of 8 rows x 8 elements
// (8 x 16 bytes, rows contiguous, 128 bytes per core matrix). Here core
// matrix (row block r, k block kb) of A (64 x 16) starts at element
// r * 128 + kb * 64: the leading-dimension byte offset (next core matrix
// along K) is 128 B, the stride-dimension byte offset (next 8 rows) 256 B.
// B (16 x N, K-major: column n holds its 16 k values) is stored the same way
// with n in place of the row: element (k, n) at (n / 8) * 128 + (k / 8) * 64
// + (n % 8) * 8 + k % 8.
//
// Accumulator fragment (m64nNk16, f32): thread t of the warpgroup, warp
// w = t / 32, lane l = t % 32, g = l / 4, q = l % 4, holds N / 2 values;
// d[i] is element (16 w + g + 8 ((i / 2) % 2), 8 (i / 4) + 2 q + i % 2) —
// within each warp's 16 rows and each 8-column block, the m16n8 accumulator
// layout of mma.sync, which is how the probe compares the two element by
// element. The identity class of the probe checks this mapping on the device.
#pragma once

#include <cstdint>

#include "samebits/libm/mma/sm90.hpp"

namespace samebits::mma::probe {

using sm90::Format;

__host__ __device__ constexpr int a_index(int i, int k) { return (i / 8) * 128 + (k / 8) * 64 + (i % 8) * 8 + k % 8; }
__host__ __device__ constexpr int b_index(int k, int n) { return (n / 8) * 128 + (k / 8) * 64 + (n % 8) * 8 + k % 8; }
__host__ __device__ constexpr int frag_row(int warp, int lane, int i) { return 16 * warp + lane / 4 + 8 * ((i / 2) % 2); }
__host__ __device__ constexpr int frag_col(int lane, int i) { return 8 * (i / 4) + 2 * (lane % 4) + i % 2; }

__device__ __forceinline__ std::uint64_t smem_desc(const void* p, std::uint32_t lbo_bytes, std::uint32_t sbo_bytes) {
  const auto addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
  std::uint64_t d = 0;
  d |= static_cast<std::uint64_t>((addr & 0x3ffffu) >> 4);             // bits 0-13: start address
  d |= static_cast<std::uint64_t>((lbo_bytes & 0x3ffffu) >> 4) << 16;  // bits 16-29: leading byte offset
  d |= static_cast<std::uint64_t>((sbo_bytes & 0x3ffffu) >> 4) << 32;  // bits 32-45: stride byte offset
  return d;  // base offset 0, bits 62-63 = 0: no swizzle
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_wait_all() { asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory"); }
// Generic-proxy writes to shared memory made visible to the async proxy (wgmma's operand reads).
__device__ __forceinline__ void fence_proxy_async_shared() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

// D = A * B + D (scale_d != 0) or D = A * B (scale_d == 0), D in registers.
template <Format F, int N>
__device__ void wgmma_k16(float (&d)[N / 2], std::uint64_t da, std::uint64_t db, int scale_d);

template <>
__device__ __forceinline__ void wgmma_k16<Format::bf16, 8>(float (&d)[4], std::uint64_t da, std::uint64_t db,
                                                      int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3"
      "}, %4, %5, p, 1, 1, 0, 0;\n}\n"
      :
        "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "l"(da), "l"(db), "r"(scale_d)
      : "memory");
}
template <>
__device__ __forceinline__ void wgmma_k16<Format::bf16, 64>(float (&d)[32], std::uint64_t da, std::uint64_t db,
                                                      int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
      "}, %32, %33, p, 1, 1, 0, 0;\n}\n"
      :
        "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),
        "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]),
        "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]),
        "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db), "r"(scale_d)
      : "memory");
}
template <>
__device__ __forceinline__ void wgmma_k16<Format::f16, 8>(float (&d)[4], std::uint64_t da, std::uint64_t db,
                                                      int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {"
      "%0, %1, %2, %3"
      "}, %4, %5, p, 1, 1, 0, 0;\n}\n"
      :
        "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "l"(da), "l"(db), "r"(scale_d)
      : "memory");
}
template <>
__device__ __forceinline__ void wgmma_k16<Format::f16, 64>(float (&d)[32], std::uint64_t da, std::uint64_t db,
                                                      int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
      "}, %32, %33, p, 1, 1, 0, 0;\n}\n"
      :
        "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),
        "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]),
        "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]),
        "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db), "r"(scale_d)
      : "memory");
}

// mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}.{bf16,f16}.f32: a[0..3] =
// {A(g, 2q..2q+1), A(g+8, 2q..), A(g, 2q+8..), A(g+8, 2q+8..)} (low half first),
// b[0..1] = {B(2q..2q+1, g), B(2q+8..2q+9, g)}, c/d[0..3] = {(g, 2q), (g, 2q+1),
// (g+8, 2q), (g+8, 2q+1)}.
template <Format F>
__device__ __forceinline__ void mma_sync_k16(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                                             const float (&c)[4]) {
  if constexpr (F == Format::bf16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%10, %11, %12, %13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
          "f"(c[3]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%10, %11, %12, %13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
          "f"(c[3]));
  }
}

}  // namespace samebits::mma::probe
