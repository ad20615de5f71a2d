// kernels/src/sm90/attention_tc/stored_ds.cuh — the stored D^S of the
// two-pass backward (BackwardParams::ds_workspace, docs/kernels/attention-tc.md
// §21, §27, §28): where a (key block, 64-row query tile)'s D^S = rnd(ds) lives
// in the workspace, the dK/dV pass's two writers (per-thread stores, or a TMA
// store of each warpgroup's half) and the dq pass's reader (its producer
// warpgroup). Bytes only: the dq pass reads back exactly the bits the dK/dV
// pass rounded, whichever copy moved them.
#pragma once

#include "sm90/attention_tc/config.cuh"
#include "sm90/attention_tc/tile_scheduler.cuh"

namespace samebits::kernels::attention::cuda {

// §21 stored D^S (BackwardParams::ds_workspace): the dK/dV pass writes the D^S of each (key block
// kb, 64-row query tile) it visits as one 16 KiB tile [128 keys x 64 query rows], row-major (a
// 128-byte row per key, the query rows contiguous); the dq pass copies it into the swizzled
// shared-memory tile TcDsTile and reads it as an M-major wgmma A operand. Tile (seq, rank, kb,
// h), rank = the query tile's index from the sequence's first (u - floor(a0 / 64)), at
// ((seq * tiles + rank) * blocks + kb) * hq + h, tiles and blocks from the longest sequences
// (backward_ds_workspace_bytes, which uses the same constants).
using TcDsTile = TcSwTile<kTcBwdRows, kTcKeys>;
static_assert(kTcBwdRows == 64 && kTcKeys == 128 && TcDsTile::kBytes == 16384,
              "backward_ds_workspace_bytes counts 16 KiB tiles of 64 query rows x 128 keys");
SAMEBITS_DEVICE_FUNC std::int64_t tc_ds_tile_index(const BackwardParams& p, int seq_index, int rank, int kb, int h) {
  const std::int64_t tiles = (std::int64_t{p.max_seqlen_q} + kTcBwdRows - 1) / kTcBwdRows + 1,
                     blocks = (std::int64_t{p.max_seqlen_k} + kTcKeys - 1) / kTcKeys;
  return ((seq_index * tiles + rank) * blocks + kb) * p.hq + h;
}
SAMEBITS_DEVICE_FUNC char* tc_ds_tile(const BackwardParams& p, int seq_index, int rank, int kb, int h) {
  return static_cast<char*>(p.ds_workspace) + tc_ds_tile_index(p, seq_index, rank, kb, h) * TcDsTile::kBytes;
}
static_assert(kTcMapKeyRows / 2 == kTcWgRows, "the ds_half map's box is one warpgroup's 64 keys of a tile");

// The dK/dV pass's writers of D^S of query tile u (rank u - u_seq0) of key block kb: the thread's
// dS^ A fragments da (register j of step kk: key row th.row(j % 2) of the block, query rows c,
// c + 1 with c = 16 kk + 8 (j / 2) + 2 quad, one 4-byte word). Rows outside the sequence and
// non-members hold +0, as the recomputing pass's dS.
struct TcDsWriter {
  const BackwardParams& p;
  const TcMaps& maps;
  const TcKeyBlock& w;
  const TcThread& th;
  const int& u_seq0;  // the sequence's first query tile: rank 0
  char* ds_half;      // this warpgroup's half of the (otherwise unused) shared dS^ tile
  bool wg_issuer;     // the warpgroup's first thread

  // The stored tile is not swizzled (the dq pass swizzles as it copies), so all 16 stores take
  // constant offsets from one address: a swizzled store needed 8 addresses, and the stall on
  // reusing their registers took 10 % of the pass's stall samples (H100, §21).
  template <int kGroups>
  SAMEBITS_DEVICE_FUNC void store(int u, const std::uint32_t (&da)[kGroups][4]) const {
    char* row = tc_ds_tile(p, w.seq_index, u - u_seq0, w.kb, w.h) + th.row<kTcWgRows>(0) * 128 + 4 * th.quad;
#pragma unroll
    for (int kk = 0; kk < kGroups; ++kk)
#pragma unroll
      for (int j = 0; j < 4; ++j)
        *reinterpret_cast<std::uint32_t*>(row + 8 * 128 * (j % 2) + ((2 * kk + j / 2) << 4)) = da[kk][j];
  }
  // §28: the same words by TMA when the map exists — each warpgroup writes its 64 key rows of the
  // tile into its half of the shared dS^ region as TcDsTile lays them out (128-byte swizzle: a
  // warp's 4-byte stores of one register fall in 32 distinct banks), and its first thread stores
  // the half with one box. The half is reused a tile later: that thread waits for the previous
  // box to have read it before the warpgroup's first barrier, and the second barrier (after every
  // writer's proxy fence) precedes the issue. The bytes in global memory are store()'s.
  template <int kGroups>
  SAMEBITS_DEVICE_FUNC void store_tma(int u, const std::uint32_t (&da)[kGroups][4]) const {
    if (wg_issuer) gpu::bulk_wait_group_read<0>();
    gpu::named_barrier_sync(kTcDsBarrier + th.wg, 128);
    const int key = th.warp * 16 + th.lane / 4;  // the register's key row in the half (+ 8 for odd j)
#pragma unroll
    for (int kk = 0; kk < kGroups; ++kk)
#pragma unroll
      for (int j = 0; j < 4; ++j)
        *reinterpret_cast<std::uint32_t*>(ds_half + TcDsTile::offset(key + 8 * (j % 2), 2 * kk + j / 2) + 4 * th.quad) =
            da[kk][j];
    gpu::fence_proxy_async_shared();  // st.shared before the TMA store reads it
    gpu::named_barrier_sync(kTcDsBarrier + th.wg, 128);
    if (wg_issuer) {
      const std::int64_t tile = tc_ds_tile_index(p, w.seq_index, u - u_seq0, w.kb, w.h);
      gpu::tma_store_3d(&maps.ds_half, 0, 0, static_cast<int>(tile * kTcKeys + th.wg * kTcWgRows), ds_half);
      gpu::bulk_commit_group();
    }
  }
};

// The dq pass's producer from stored D^S: K of key block b and the D^S tiles (b, 2t), (b, 2t + 1)
// (consumer warpgroup w's 64 query rows are the dK/dV pass's tile u = 2 t + w) into stage b %
// kStages once every consumer warp is done with block b - kStages there. By TMA (§27), issued by
// the producer's first thread after expecting their bytes: K when the block is whole (128 keys of
// the sequence), a D^S tile when it was written; the rest by cp.async (zero rows, zero tiles: a
// tile the dK/dV pass did not write has no row with a member in block b, and its rows' partials
// are never added). Every thread arrives on full either way.
// stage0: stage 0's K tile, its two D^S tiles after it (ds_bytes each); a stage every stage_bytes.
template <int D, class Ring>
SAMEBITS_DEVICE_FUNC void tc_produce_k_ds(const BackwardParams& p, const TcMaps& maps, const TcQueryTile& w,
                                          const TcThread& th, char* stage0, int stage_bytes, const Ring& ring) {
  using Tile = TcSwTile<D, kTcKeys>;
  constexpr int kStages = Ring::kStages, kDsBytes = TcDsTile::kBytes;
  const int u_seq0 = floor_div(w.a0, kTcBwdRows), u_last = floor_div(w.a0 + w.seq.lq - 1, kTcBwdRows);
  const bool issuer = th.tid % kTcProducerThreads == 0;
  for (int b = 0; b < w.blocks; ++b) {
    const int st = b % kStages, end = gpu::min_int(kTcKeys, w.seq.lk - b * kTcKeys);
    if (b >= kStages) ring.wait_empty(st, b / kStages - 1);
    char* dst = stage0 + st * stage_bytes;
    const std::int64_t row0 = w.seq.k0 + std::int64_t{b} * kTcKeys;
    // The dK/dV pass of block b wrote tiles u_first(b) .. u_last (its a_first, §6).
    const int u_first = floor_div(p.causal ? gpu::max_int(w.a0, b * kTcKeys) : w.a0, kTcBwdRows);
    auto written = [&](int wg) { return 2 * w.t + wg >= u_first && 2 * w.t + wg <= u_last; };
    const bool k_tma = maps.kv && end == kTcKeys;
    bool ds_tma[kTcWarpgroups];
    std::uint32_t tx = k_tma ? tc_tma_tile_bytes<D, kTcKeys> : 0u;
#pragma unroll
    for (int wg = 0; wg < kTcWarpgroups; ++wg) {
      ds_tma[wg] = maps.ds_tiles && written(wg);
      if (ds_tma[wg]) tx += kDsBytes;
    }
    if (issuer && tx > 0) {
      ring.expect_tma(st, tx);
      if (k_tma) tc_tma_tile<D, kTcKeys>(dst, maps.k, row0, w.g, ring.full(st));
#pragma unroll
      for (int wg = 0; wg < kTcWarpgroups; ++wg)
        if (ds_tma[wg]) {
          const std::int64_t tile = tc_ds_tile_index(p, w.seq_index, 2 * w.t + wg - u_seq0, b, w.h);
          tc_tma_tile<64, kTcKeys>(dst + Tile::kBytes + wg * kDsBytes, maps.ds, tile * kTcKeys, 0, ring.full(st));
        }
    }
    if (!k_tma) tc_stage_tile_sw_unrolled<D, kTcKeys, kTcProducerThreads>(dst, p.k, p.k_stride, row0, 0, end, w.g);
#pragma unroll
    for (int wg = 0; wg < kTcWarpgroups; ++wg) {
      if (ds_tma[wg]) continue;
      const int u = 2 * w.t + wg;
      const bool written = u >= u_first && u <= u_last;
      const char* src = written ? tc_ds_tile(p, w.seq_index, u - u_seq0, b, w.h) : static_cast<const char*>(p.ds_workspace);
      // 16-byte chunk e is chunk e % 8 of key row e / 8, into the swizzled tile (8 lanes a row).
      // A thread's chunks e0 + 128 i sit 16 rows apart, so their row % 8 and swizzle are e0's:
      // one address each side plus a constant step (the producer has 40 registers).
      static_assert((kTcProducerThreads / 8) % 8 == 0, "a thread's rows share their row % 8");
      constexpr int kStep = kTcProducerThreads * 16;
      const int e0 = th.tid % kTcProducerThreads;
      char* d = dst + Tile::kBytes + wg * kDsBytes + TcDsTile::offset(e0 / 8, e0 % 8);
      const char* s0 = written ? src + 16 * e0 : src;
#pragma unroll
      for (int i = 0; i < kDsBytes / kStep; ++i)
        gpu::copy_async_16_or_zero(d + i * kStep, written ? s0 + i * kStep : s0, written);
    }
    ring.arrive_full(st);
  }
  gpu::copy_async_wait<0>();  // no copy outlives the thread
}

}  // namespace samebits::kernels::attention::cuda
