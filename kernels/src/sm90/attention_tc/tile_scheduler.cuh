// kernels/src/sm90/attention_tc/tile_scheduler.cuh — which work a block of
// the sm90 tensor-core kernels does (attention-tc.md §3, §6, §13, §14): one
// block one tile, no persistent loop (FlashAttention-3's SingleTileScheduler).
//
//   TcQueryTile   the forward and the dq passes: block (x, y, z) is sequence
//                 z, query head y, position tile t_last - x (the heaviest
//                 tiles — the longest lists under causal — first). Tiles are
//                 aligned at positions, so a sequence whose row 0 is not at a
//                 multiple of 128 positions spans one tile more than its rows
//                 fill (the launchers' grid has it).
//   TcKeyBlock    the dK/dV pass: block x is key block x / (hq num_seqs) of
//                 sequence (x % (hq num_seqs)) / hq, head x % hq — key block 0
//                 first (causal's heaviest); the blocks are independent.
// Scheduling only: which block computes a tile, never how (no bit depends on it).
#pragma once

#include "sm90/attention_tc/config.cuh"

namespace samebits::kernels::attention::cuda {

struct TcQueryTile {
  Sequence seq;
  int seq_index, a0, t, h, g;  // a0: position of the sequence's row 0 (§2); g: h's kv head
  // Tile row j holds sequence row qi0 + j; rows [q_first, q_end) lie in the sequence. Every valid
  // row of the tile visits the same key blocks, 0 .. blocks - 1 (the last row's list, §3).
  int qi0, q_first, q_end, blocks;

  // The block's tile; false when it has none (an empty sequence, or past its first tile).
  SAMEBITS_DEVICE_FUNC bool schedule(const ProblemParams& p) {
    seq_index = gpu::blockIdx.z;
    seq = sequence_of(p, seq_index);
    if (seq.lq == 0) return false;
    a0 = seq.lk - seq.lq;
    const int t_first = floor_div(a0, kTcRows), t_last = floor_div(a0 + seq.lq - 1, kTcRows);
    t = t_last - static_cast<int>(gpu::blockIdx.x);  // heaviest tiles first
    if (t < t_first) return false;
    h = gpu::blockIdx.y;
    g = h / (p.hq / p.hkv);
    return true;
  }
  // The tile's rows and key blocks.
  SAMEBITS_DEVICE_FUNC void extents(const ProblemParams& p) {
    qi0 = t * kTcRows - a0;
    q_first = gpu::max_int(0, -qi0);
    q_end = gpu::min_int(kTcRows, seq.lq - qi0);
    const int n_last = dense_list_length(qi0 + q_end - 1, seq.lq, seq.lk, p.causal);
    blocks = (n_last + kTcKeys - 1) / kTcKeys;
  }
};

struct TcKeyBlock {
  Sequence seq;
  int seq_index, kb, h, g, key0;  // key0: the block's first key in the sequence
  int valid_keys;                 // keys of the sequence in the block (<= 128)

  SAMEBITS_DEVICE_FUNC bool schedule(const ProblemParams& p) {
    const int ticket = static_cast<int>(gpu::blockIdx.x);
    const int per_block = p.hq * p.num_seqs;
    kb = ticket / per_block;
    h = ticket % p.hq;
    seq_index = (ticket % per_block) / p.hq;
    seq = sequence_of(p, seq_index);
    key0 = kb * kTcKeys;
    if (key0 >= seq.lk) return false;
    g = h / (p.hq / p.hkv);
    return true;
  }
};

}  // namespace samebits::kernels::attention::cuda
