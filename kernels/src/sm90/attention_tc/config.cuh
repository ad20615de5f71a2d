// kernels/src/sm90/attention_tc/config.cuh — the tile configuration of the
// sm90-tensor-core attention kernels (docs/kernels/attention-tc.md §2, §11,
// §13): tile shapes, thread roles, register splits, named barriers, each
// checked against what the contract and wgmma's fragment layout need. The
// parts these kernels share with any sm90 wgmma kernel (sm90/common: the
// swizzled tile, its loads, the stage pipeline, the warp-specialised split,
// the fragment and the softmax's row statistics) are brought in by name here.
#pragma once

#include "portable/common/attention_common.cuh"
#include "sm90/attention_tc/tensor_maps.hpp"
#include "sm90/common/fragment.cuh"
#include "sm90/common/pipeline.cuh"
#include "sm90/common/smem_tile.cuh"
#include "sm90/common/softmax.cuh"
#include "sm90/common/tile_load.cuh"
#include "sm90/common/warp_specialized.cuh"
#include "samebits/gpu/tensor_core.hpp"
#include "samebits/kernels/attention/tensor_core.hpp"

namespace samebits::kernels::attention::cuda {

using hopper::align_shared_1024;
using hopper::tc_block_register_pool;
using hopper::tc_stage_tile_sw;
using hopper::tc_stage_tile_sw_unrolled;
using hopper::tc_thread;
using hopper::tc_tma_tile;
using hopper::tc_tma_tile_bytes;
using hopper::TcCopyBarrier;
using hopper::TcFrag;
using hopper::TcStageBarrierLayout;
using hopper::TcStagePipeline;
using hopper::TcStageRing;
using hopper::TcSwTile;
using hopper::TcThread;
using hopper::TcWarpSpecialized;

// ---- query tiles: the forward and the dq passes ------------------------------------------------
// Consumer warpgroups 0 and 1 hold a tile of 128 query POSITIONS [128 t, 128 t + 127];
// warpgroup w holds positions 128 t + 64 w .. + 63 (one wgmma m64). Tiles are aligned at
// positions, not rows: every valid row of a tile then visits the same key blocks (§3).
inline constexpr int kTcWarpgroups = 2;
inline constexpr int kTcWgRows = 64;  // the m of wgmma
inline constexpr int kTcRows = kTcWarpgroups * kTcWgRows;
inline constexpr int kTcThreads = 128 * kTcWarpgroups;
// The forward is warp-specialized (attention-tc.md §13, §18): the two consumer warpgroups
// compute, a third (the producer) only copies K and V. Registers move to the consumers
// (setmaxnreg): 2 x 128 x 224 + 128 x 56 = 64,512, the block's whole pool, the split with the
// fewest spills at D = 128 of those tried (ptxas -v: 224/56 52 bytes, 232/40 76, 240/24 132,
// 216/72 80; which code spills was not examined).
inline constexpr int kTcProducerThreads = 128;
inline constexpr int kTcFwdThreads = kTcThreads + kTcProducerThreads;
inline constexpr int kTcConsumerRegs = 224, kTcProducerRegs = 56;
using TcFwdWarps = TcWarpSpecialized<kTcWarpgroups, kTcConsumerRegs, kTcProducerRegs>;
// The dq pass: ptxas -v spills at D = 128 (bytes stored / loaded): 232/40 32 / 72, 224/56 88 /
// 112, 240/24 76 / 76; D = 64 none.
inline constexpr int kTcDqConsumerRegs = 232, kTcDqProducerRegs = 40;
using TcDqWarps = TcWarpSpecialized<kTcWarpgroups, kTcDqConsumerRegs, kTcDqProducerRegs>;
// The dq pass from stored D^S: the consumers hold dq_acc and one partial (2 x D/2); ptxas -v at
// D = 128: no spills.
inline constexpr int kTcDqStoredConsumerRegs = 232, kTcDqStoredProducerRegs = 40;
using TcDqStoredWarps = TcWarpSpecialized<kTcWarpgroups, kTcDqStoredConsumerRegs, kTcDqStoredProducerRegs>;
static_assert(TcFwdWarps::kThreads == kTcFwdThreads && TcFwdWarps::kConsumerThreads == kTcThreads &&
                  TcFwdWarps::kProducerThreads == kTcProducerThreads,
              "the launchers' block is the split's");

// ---- key blocks ----------------------------------------------------------------------------------
inline constexpr int kTcKeys = tc::kBlock;
inline constexpr int kTcHalfKeys = kTcKeys / 2;  // keys per S/dP step of the dq pass (N of m64n64k16)
static_assert(kTcKeys == 128, "one key block is the N of the S wgmma (m64n128k16)");
static_assert(kTcKeys % kTcRows == 0,
              "a position-aligned query tile lies inside one key block's span: all its rows visit the same blocks");
static_assert(tc::kGroup == 16 && tc::kQuad == 4 && tc::kChunk == 8, "the m64nNk16 fragment layout");
static_assert(kTcMapKeyRows == kTcKeys, "the K, V maps' box is one key block");

// ---- the dK/dV pass ------------------------------------------------------------------------------
// One block (two warpgroups) per key block; warpgroup w owns keys 64 w .. 64 w + 63. Query tiles
// of 64 positions.
inline constexpr int kTcBwdRows = 64;  // query positions per tile: 4 row groups of the dK/dV steps
inline constexpr int kTcBwdGroups = kTcBwdRows / tc::kRowGroup;
static_assert(kTcBwdRows % tc::kRowGroup == 0, "a tile is whole 16-row groups (§6)");
static_assert(kTcKeys % kTcBwdRows == 0, "a causal block's first attending position starts a tile");
static_assert(kTcKeys == 2 * kTcWgRows, "two warpgroups of 64 keys make a key block");
static_assert(kTcMapQueryRows == kTcBwdRows, "the Q, dO maps' box is one query tile");

// The library's backward is two passes: dK/dV (attention_tc_bwd_kernel), then dq
// (attention_tc_bwd_dq_kernel, or _dq_stored_kernel from stored D^S). The one-pass form (dq
// handed on between key blocks by flags) is gone (history: eca8000); the launcher's pipeline
// still takes the flag.
inline constexpr bool kTcBwdTwoPass = true;

// ---- named barriers (ids 1..15; 0 is the block barrier) ------------------------------------------
// The forward's ping-pong: the two consumer warpgroups take turns issuing GEMMs
// (FlashAttention-3's; 4.6 % of the forward at S = 4096 on the H200, attention-tc.md): barrier
// kTcTurnBarrier + w is warpgroup w's turn.
inline constexpr bool kTcPingPong = true;
inline constexpr int kTcTurnBarrier = 1;
// The dK/dV pass: warpgroup w hands its shared D^S half to the TMA store over barrier
// kTcDsBarrier + w (§28). Another kernel: the ids may coincide with the forward's.
inline constexpr int kTcDsBarrier = 1;

// floor(a / m) for m > 0 (positions before the sequence's row 0 are negative).
SAMEBITS_DEVICE_FUNC int floor_div(int a, int m) { return a >= 0 ? a / m : -((-a + m - 1) / m); }

}  // namespace samebits::kernels::attention::cuda
