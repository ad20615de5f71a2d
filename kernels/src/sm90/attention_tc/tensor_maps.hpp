// kernels/src/sm90/attention_tc/tensor_maps.hpp — the TMA tensor maps the
// tensor-core kernels copy their whole tiles with (docs/kernels/attention-tc.md
// §27), built on the host by the launchers (and by the emulated test) and
// passed to the kernels as one __grid_constant__ argument.
//
// A map copies only tiles that lie whole inside one sequence (a key block of
// 128 keys, a 64-row query tile, a written D^S tile): its box spans the whole
// packed tensor, so a tile that straddles a sequence's end would bring the
// next sequence's rows where the contract has zero rows (§7: +0 x inf is NaN).
// Those tiles, and every tile when a map cannot be made (a base or stride not
// 16-byte aligned, more than 2^31 - 1 rows, no driver entry point), are
// copied by cp.async as before: the
// same bytes land in the same swizzled layout (TcSwTile), so the bits cannot
// depend on which copy ran.
#pragma once

#include <cstdint>

#include "samebits/gpu/tensor_map.hpp"
#include "samebits/kernels/attention/params.hpp"

namespace samebits::kernels::attention::cuda {

struct TcMaps {
  gpu::TensorMap k, v;     // box [128 rows x 1 head x 64 d]: one panel of a key block
  gpu::TensorMap q, dout;  // box [64 rows x 1 head x 64 d]: one panel of a dK/dV-pass query tile
  gpu::TensorMap ds;       // the stored D^S tiles as [rows of 128 B]: box 128 rows (one tile)
  gpu::TensorMap ds_half;  // the same, box 64 rows: one warpgroup's half of a tile (the dK/dV pass's stores)
  bool kv = false, q_dout = false, ds_tiles = false;  // which maps exist (both of a pair, or none)
  bool ds_halves = false;
};

// A [rows, heads, d] tensor of 16-bit elements (strides in elements), box [box_rows x 1 x 64].
inline bool tc_tile_map(gpu::TensorMap& m, const void* base, Strides st, std::int64_t rows, int heads, int d,
                        int box_rows) {
  if (rows <= 0 || rows > 0x7fffffff || heads <= 0 || st.row < 0 || st.head < 0) return false;
  gpu::TensorMapShape s;
  s.base = base;
  s.dims[0] = static_cast<std::uint64_t>(d);
  s.dims[1] = static_cast<std::uint64_t>(heads);
  s.dims[2] = static_cast<std::uint64_t>(rows);
  s.strides[0] = static_cast<std::uint64_t>(st.head) * 2;
  s.strides[1] = static_cast<std::uint64_t>(st.row) * 2;
  s.box[0] = gpu::kTensorMapBoxInner;
  s.box[1] = 1;
  s.box[2] = static_cast<std::uint32_t>(box_rows);
  return gpu::encode_tensor_map(m, s);
}

inline constexpr int kTcMapKeyRows = 128;  // kTcKeys (attention_tc_fwd_kernel.cuh checks it)
inline constexpr int kTcMapQueryRows = 64;  // kTcBwdRows (attention_tc_bwd_kernel.cuh checks it)

template <class P>
bool tc_kv_maps(TcMaps& m, const P& p) {
  return tc_tile_map(m.k, p.k, p.k_stride, p.total_k, p.hkv, p.d, kTcMapKeyRows) &&
         tc_tile_map(m.v, p.v, p.v_stride, p.total_k, p.hkv, p.d, kTcMapKeyRows);
}

// with_tma = false: no maps, every tile by cp.async (the emulated tests' second path).
inline TcMaps tc_forward_maps(const ForwardParams& p, bool with_tma = true) {
  TcMaps m;
  if (with_tma) m.kv = tc_kv_maps(m, p);
  return m;
}

inline TcMaps tc_backward_maps(const BackwardParams& p, bool with_tma = true) {
  TcMaps m;
  if (!with_tma) return m;
  m.kv = tc_kv_maps(m, p);
  m.q_dout = tc_tile_map(m.q, p.q, p.q_stride, p.total_q, p.hq, p.d, kTcMapQueryRows) &&
             tc_tile_map(m.dout, p.dout, p.dout_stride, p.total_q, p.hq, p.d, kTcMapQueryRows);
  // D^S tiles: [128 keys x 64 query rows] of 16-bit elements, a key's 128 bytes contiguous, tiles
  // back to back — a [rows, 1, 64] tensor whose box of 128 rows is one tile (TcDsTile's layout
  // after the swizzle).
  if (p.ds_workspace != nullptr) {
    const std::int64_t rows = p.ds_workspace_bytes / 128;
    m.ds_tiles = tc_tile_map(m.ds, p.ds_workspace, Strides{64, 64}, rows, 1, 64, kTcMapKeyRows);
    m.ds_halves = tc_tile_map(m.ds_half, p.ds_workspace, Strides{64, 64}, rows, 1, 64, kTcMapKeyRows / 2);
  }
  return m;
}

}  // namespace samebits::kernels::attention::cuda
