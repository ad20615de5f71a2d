// kernels/src/sm90/common/smem_tile.cuh — the shared-memory tile every sm90
// tensor-core kernel feeds wgmma from: a [kRows x D] tile of 16-bit operands
// in the 128-byte-swizzled layout (the one CUTLASS and FlashAttention-3 give
// wgmma), its matrix descriptors, and the 1024-aligned base such tiles need.
// Layout only: no arithmetic, so nothing here can change a bit of any result
// (docs/kernels/attention-tc.md §11, §18). Reused as is by any wgmma kernel
// whose operands are 16-bit rows of 64-element panels (sparse MLA's D = 512
// rows: 8 panels).
#pragma once

#include <cstdint>

#include "samebits/gpu/backend.hpp"
#include "samebits/gpu/tensor_core.hpp"

namespace samebits::kernels::hopper {

// The 128-byte-swizzled layout of a [kRows x D] tile of 16-bit operands.
// (With the no-swizzle core matrices used before, 8 x 16-byte blocks of 128
// contiguous bytes, the forward's wgmma reads took 3x the shared-memory
// wavefronts they need, attention-tc.md §18.) D/64 panels of [kRows x 64],
// panel P at P * kRows * 128 B; in it row r at r * 128 B, and its 16-byte
// chunk c (elements 64 P + 8 c .. + 7) at ((c ^ r % 8) * 16) — the XOR the
// hardware applies to address bits 4-6 from bits 7-9 under swizzle mode 1,
// which is why tiles are 1024-aligned. As wgmma sees it
// (gpu::smem_descriptor_sw128(p, kPanelBytes, kAtomBytes)):
//   A or B K-major (K = the D axis): SBO (next 8 rows) 1024 B; k16 step kk
//     starts at + (kk / 4) panels + (kk % 4) * 32 B (k_step);
//   B (or A) MN-major (K = the rows axis, N = the D axis): LBO (next 64 of
//     the D axis) one panel, SBO (next 8 rows) 1024 B; k16 step kk starts at
//     + kk * 16 rows (kKeyStep).
// Both readings use the same descriptor; the wgmma's transpose flag picks one.
template <int D, int kRows>
struct TcSwTile {
  static_assert(D % 64 == 0 && kRows % 8 == 0, "whole 64-element panels and 8-row swizzle atoms");
  static constexpr int kChunks = D / 8;
  static constexpr int kPanelBytes = kRows * 128;
  static constexpr int kBytes = (D / 64) * kPanelBytes;
  static constexpr std::uint32_t kAtomBytes = 1024;  // 8 rows of 128 B: SBO
  SAMEBITS_DEVICE_FUNC static constexpr int offset(int r, int c) {
    return (c / 8) * kPanelBytes + r * 128 + (((c % 8) ^ (r % 8)) << 4);
  }
  SAMEBITS_DEVICE_FUNC static constexpr std::uint64_t k_step(int kk) {  // descriptor units (16 B)
    return static_cast<std::uint64_t>((kk / 4) * kPanelBytes + (kk % 4) * 32) >> 4;
  }
  static constexpr std::uint64_t kKeyStep = (16 * 128) >> 4;  // MN-major: 16 rows
};

// The dynamic shared array's first 1024-aligned byte (in the shared window).
SAMEBITS_DEVICE_FUNC char* align_shared_1024(char* p) {
  return p + ((1024u - (gpu::shared_address(p) & 1023u)) & 1023u);
}

}  // namespace samebits::kernels::hopper
