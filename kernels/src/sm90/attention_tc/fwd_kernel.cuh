// kernels/src/sm90/attention_tc/fwd_kernel.cuh — the forward of the
// sm90-tensor-core policy (docs/kernels/attention-tc.md §3, §4, §11) on
// wgmma: the kernel whose bits the CPU reference reference_tc.hpp gives.
//
// One block: three warpgroups (384 threads). Warpgroups 0 and 1, the
// consumers, hold a tile of 128 query POSITIONS [128 t, 128 t + 127] of one
// (sequence, query head); warpgroup w holds positions 128 t + 64 w .. + 63
// (one wgmma m64). Warpgroup 2, the producer, only copies K and V. Tiles are aligned at
// positions, not rows: every valid row of a tile then visits the same key
// blocks (causal: blocks 0..t; not causal: all), which are exactly §3's —
// so no extra all-zero steps enter o under any model parameters (§7 "extra
// visits"). Tile rows that are no query row of the sequence are zero rows of
// Q; their results are never stored.
//
// Per key block b (keys 128 b .. 128 b + 127 of the sequence; K and V rows
// past the sequence's end zero-filled, §3, §11.1):
//   S = Q K^T      D/16 wgmma m64n128k16 over d ascending, the first with
//                  scale-d = 0 (§4.1, §11.3); A = Q, B = K from shared memory
//   t = mul(s, scale); block max over members (maxNum, quad shuffles);
//   p = exp(t - m_new) for members, +0 otherwise; later blocks rescale l and
//   o by alpha = exp(m - m_new); each thread adds its own columns of p into
//   its row sums in fragment order (§4.4, §11.5)
//   P^ = cvt.rn(p) in registers, the S fragment's layout being the A
//   fragment's (§11.6)
//   O = P^ V       8 wgmma m64nDk16 over the block's k16 key groups, A from
//                  registers, B = V from shared memory N-major; the first
//                  block's first step with scale-d = 0 (§11.4)
// then l = (l0 + l1) + (l2 + l3) by two quad shuffles, o = z(o / l),
// lse = m + log(l) (§4.5).
//
// Pipelining (the order of every rounding and accumulation is the one above;
// only independent work overlaps), as FlashAttention-3 builds it:
//   - within a consumer warpgroup: issue S of block b + 1, issue P V of block
//     b, then the softmax of block b + 1 (once its S has landed) while P V
//     runs, then o's rescale for block b + 1 (once P V has landed);
//   - between the consumers (ping-pong, kTcPingPong): they take
//     turns issuing their GEMMs (two named barriers), so that one's softmax
//     runs under the other's GEMMs;
//   - warp specialization: the producer copies K, V of block b into stage
//     b % 3 (TMA for a whole block, cp.async for the sequence's last: §27)
//     once every consumer warp has released the block that
//     was there (mbarrier empty[st]); the copies' landing completes full[st],
//     which the consumers wait on. No block-wide barrier after the set-up, so
//     the two consumers drift apart as the ping-pong needs. setmaxnreg gives
//     the consumers 224 registers and the producer 56.
//
// Shared memory: Q [128 x D] (the consumers copy it, mbarrier q_full) and three
// stages of K, V [128 x D], 16-bit operands in the 128-byte-swizzled layout
// (TcSwTile below), filled by TMA or cp.async (zero fill for rows outside the
// sequence), then the mbarriers.
#pragma once

#include <type_traits>

#include "portable/common/attention_common.cuh"
#include "sm90/attention_tc/tensor_maps.hpp"
#include "samebits/gpu/tensor_core.hpp"
#include "samebits/kernels/attention/tensor_core.hpp"

namespace samebits::kernels::attention::cuda {

inline constexpr int kTcWarpgroups = 2;
inline constexpr int kTcWgRows = 64;  // the m of wgmma
inline constexpr int kTcRows = kTcWarpgroups * kTcWgRows;
inline constexpr int kTcThreads = 128 * kTcWarpgroups;
// The forward is warp-specialized (attention-tc.md §13, §18): the two consumer
// warpgroups above compute, a third (the producer) only copies K and V.
// Registers move to the consumers (setmaxnreg): 2 x 128 x 224 + 128 x 56 = 64,512, the block's
// whole pool (below), the split with the fewest spills at D = 128 of those tried (ptxas -v: 224/56
// 52 bytes, 232/40 76, 240/24 132, 216/72 80; which code spills was not examined).
inline constexpr int kTcProducerThreads = 128;
inline constexpr int kTcFwdThreads = kTcThreads + kTcProducerThreads;
inline constexpr int kTcConsumerRegs = 224, kTcProducerRegs = 56;
// The registers a block holds from its launch: under __launch_bounds__(threads, 1) each thread
// gets floor(65536 / threads) rounded down to a multiple of 8 (168 at 384 threads); setmaxnreg
// only moves registers within that pool. A split asking for more than the pool deadlocks: a
// warpgroup's .inc waits for registers no .dec frees (a 240/32 backward hung so on the H100).
constexpr int tc_block_register_pool(int threads) { return (65536 / threads) / 8 * 8 * threads; }
static_assert(kTcThreads * kTcConsumerRegs + kTcProducerThreads * kTcProducerRegs <= tc_block_register_pool(kTcFwdThreads),
              "the split fits the block's registers");
inline constexpr int kTcKeys = tc::kBlock;
// The two consumer warpgroups take turns issuing GEMMs (FlashAttention-3's ping-pong; 4.6 %
// of the forward at S = 4096 on the H200, attention-tc.md).
inline constexpr bool kTcPingPong = true;
inline constexpr int kTcTurnBarrier = 1;  // named barriers 1 (warpgroup 0's turn) and 2 (warpgroup 1's)
static_assert(kTcKeys == 128, "one key block is the N of the S wgmma (m64n128k16)");
static_assert(kTcKeys % kTcRows == 0,
              "a position-aligned query tile lies inside one key block's span: all its rows visit the same blocks");
static_assert(tc::kGroup == 16 && tc::kQuad == 4 && tc::kChunk == 8, "the m64nNk16 fragment layout");

SAMEBITS_DEVICE_FUNC int floor_div(int a, int m) { return a >= 0 ? a / m : -((-a + m - 1) / m); }

// The 128-byte-swizzled layout of a [kRows x D] tile of 16-bit operands, both
// kernels' (the layout CUTLASS and FlashAttention-3 give wgmma: with the
// no-swizzle core matrices used before, 8 x 16-byte blocks of 128 contiguous
// bytes, the forward's wgmma reads took 3x the shared-memory wavefronts they
// need, attention-tc.md §18): D/64 panels of [kRows x 64],
// panel P at P * kRows * 128 B; in it row r at r * 128 B, and its 16-byte
// chunk c (elements 64 P + 8 c .. + 7) at ((c ^ r % 8) * 16) — the XOR the
// hardware applies to address bits 4-6 from bits 7-9 under swizzle mode 1,
// which is why tiles are 1024-aligned. As wgmma sees it
// (gpu::smem_descriptor_sw128):
//   Q as A, K as B (K-major, K = d): SBO (next 8 rows) 1024 B; k16 step kk
//     starts at + (kk / 4) panels + (kk % 4) * 32 B (k_step);
//   V as B of P V (MN-major, K = keys, N = d): LBO (next 64 of d) one panel,
//     SBO (next 8 keys) 1024 B; k16 step kk starts at + kk * 16 rows.
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
  static constexpr std::uint64_t kKeyStep = (16 * 128) >> 4;  // MN-major: 16 rows of K
};

// Rows [first, end) of a swizzled [kRows x D] tile from tensor rows row0 + r
// (head h), the other rows +0 (cp.async; one group per call site's commit).
// Chunk e is row e / (D/8), chunk e % (D/8): 8 lanes read one row's 128
// contiguous bytes and write one 128-byte row of a panel, conflict-free.
template <int D, int kRows = kTcKeys, int kThreads = kTcThreads>
SAMEBITS_DEVICE_FUNC void tc_stage_tile_sw(char* dst, const void* base, Strides st, std::int64_t row0, int first,
                                           int end, int h) {
  using T = TcSwTile<D, kRows>;
  const char* b = static_cast<const char*>(base);
  for (int e = gpu::threadIdx.x % kThreads; e < kRows * T::kChunks; e += kThreads) {
    const int r = e / T::kChunks, c = e % T::kChunks;
    const bool valid = r >= first && r < end;
    const char* src = valid ? b + ((row0 + r) * st.row + static_cast<std::int64_t>(h) * st.head + c * 8) * 2 : b;
    gpu::copy_async_16_or_zero(dst + T::offset(r, c), src, valid);
  }
}

// The same copies, unrolled, four threads a row: thread t copies rows r = t / 4 + kRowStep m
// (kRowStep = kThreads / 4, m = 0 .. kPasses - 1), chunks t % 4 + 4 k of each (k = 0 .. D/32 - 1),
// i.e. bytes 16 (t % 4) + 64 k: one 64-bit source address and one predicate a row, immediate
// offsets for the rest. Chunk t % 4 + 4 k lands in panel k / 2, 16-byte slot s ^ 4 (k % 2) with
// s = (t % 4) ^ (r % 8) (4 | 8, so t % 4 + 4 (k % 2) = t % 4 ^ 4 (k % 2)), and kRowStep % 8 == 0
// keeps r % 8 over the passes: two shared offsets a thread, the rest immediates. A warp's chunk
// step reads 8 rows x 64 contiguous bytes (whole 32-byte sectors) and writes 8 rows x 4 slots,
// each slot of the row line twice: 4 wavefronts for 512 bytes, the least there is.
// (The mapping before, 16 threads a row with a predicate and address per chunk, cost about 250
// instructions a warp per tile in the dK/dV pass and 550 per block in the forward's producer,
// against 8 and 32 copies: H100 profiles, attention-tc.md §21.)
template <int D, int kRows, int kThreads = kTcThreads>
SAMEBITS_DEVICE_FUNC void tc_stage_tile_sw_unrolled(char* dst, const void* base, Strides st, std::int64_t row0,
                                                    int first, int end, int h) {
  using T = TcSwTile<D, kRows>;
  constexpr int kPerRow = 4, kRowStep = kThreads / kPerRow, kPasses = kRows / kRowStep, kChunks = T::kChunks / kPerRow;
  static_assert(kThreads % kPerRow == 0 && kRows % kRowStep == 0 && kRowStep % 8 == 0 && T::kChunks % kPerRow == 0,
                "four threads a row, whole passes, a pass whole swizzle atoms");
  const char* b = static_cast<const char*>(base);
  const int t = static_cast<int>(gpu::threadIdx.x % kThreads), r0 = t / kPerRow, q = t % kPerRow, s = q ^ (r0 % 8);
  const int even = r0 * 128 + (s << 4), odd = r0 * 128 + ((s ^ 4) << 4);
  const char* src0 = b + ((row0 + r0) * st.row + static_cast<std::int64_t>(h) * st.head) * 2 + 16 * q;
  const std::int64_t step = kRowStep * st.row * 2;  // bytes from one pass's row to the next's
#pragma unroll
  for (int m = 0; m < kPasses; ++m) {
    const int r = r0 + m * kRowStep;
    const bool valid = r >= first && r < end;
    const char* src = valid ? src0 + m * step : b;
#pragma unroll
    for (int k = 0; k < kChunks; ++k)
      gpu::copy_async_16_or_zero(dst + (k % 2 ? odd : even) + (k / 2) * T::kPanelBytes + m * kRowStep * 128,
                                 valid ? src + 64 * k : b, valid);
  }
}

// A [kRows x D] tile by TMA (§27): D/64 boxes of [kRows x 64], each landing as one panel of
// TcSwTile (the 128-byte swizzle both describe), rows row0 .. row0 + kRows - 1 of head h, their
// bytes completing on bar. One thread issues it, after expecting the bytes (tc_tma_tile_bytes).
template <int D, int kRows>
SAMEBITS_DEVICE_FUNC void tc_tma_tile(char* dst, const gpu::TensorMap& map, std::int64_t row0, int h, std::uint64_t* bar) {
  using T = TcSwTile<D, kRows>;
#pragma unroll
  for (int panel = 0; panel < D / 64; ++panel)
    gpu::tma_load_3d(dst + panel * T::kPanelBytes, &map, 64 * panel, h, static_cast<int>(row0), bar);
}
template <int D, int kRows>
inline constexpr std::uint32_t tc_tma_tile_bytes = TcSwTile<D, kRows>::kBytes;
static_assert(kTcMapKeyRows == kTcKeys, "the K, V maps' box is one key block");

// The forward's shared memory: Q [128 x D] and three K, V stages, swizzled
// tiles from a 1024-aligned base (kBytes has the alignment's slack).
template <int D>
struct TcFwdLayout {
  using Tile = TcSwTile<D, kTcKeys>;
  static_assert(kTcRows == kTcKeys, "Q and K/V tiles share one tile shape");
  static constexpr int kStages = 3;  // block b in stage b % 3: b + 2 loading while b computes (b + 1 waits)
  static constexpr int kQ = 0, kStage0 = Tile::kBytes, kStageBytes = 2 * Tile::kBytes;  // K then V
  // mbarriers: full[st] (the producer's copies of a stage landed), empty[st] (every consumer
  // warp is done reading it), q_full (the consumers' copies of Q landed).
  static constexpr int kFull = kStage0 + kStages * kStageBytes, kEmpty = kFull + 8 * kStages,
                       kQFull = kEmpty + 8 * kStages;
  static constexpr int kAlign = 1024;
  static constexpr int kBytes = kQFull + 8 + kAlign;
  static_assert(kBytes <= 227 * 1024, "Q and three K/V stages fit an sm_90 block's shared memory");
  static_assert(kFull <= (1 << 18), "stage offsets step a descriptor's 14-bit address field");
};

// The dynamic shared array's first 1024-aligned byte (in the shared window).
SAMEBITS_DEVICE_FUNC char* align_shared_1024(char* p) {
  return p + ((1024u - (gpu::shared_address(p) & 1023u)) & 1023u);
}

// The kernels with a producer warpgroup (the forward, the backward's dq pass): their stage
// barriers — full[st] (each producer thread's copies of stage st landed), empty[st] (each
// consumer warp is done reading it), q_full (each consumer thread's copies of the query tile
// landed) — set up by thread 0 before the block's one barrier.
template <int kStages>
SAMEBITS_DEVICE_FUNC void tc_init_stage_barriers(std::uint64_t* full, std::uint64_t* empty, std::uint64_t* q_full) {
  for (int st = 0; st < kStages; ++st) {
    gpu::mbarrier_init(full + st, kTcProducerThreads);
    gpu::mbarrier_init(empty + st, kTcThreads / 32);
  }
  gpu::mbarrier_init(q_full, kTcThreads);
  gpu::fence_mbarrier_init();
}

// The producer's loop: K, V of key block b (rows past the sequence's end zero-filled, §11.1)
// into stage b % kStages once every consumer warp is done with block b - kStages there (its
// empty phase b / kStages - 1), announced on full when the copies land. P: ForwardParams or
// BackwardParams (k, v and their strides). A whole block (128 keys of the sequence) comes by TMA
// when the maps exist (§27): the producer's first thread expects its bytes on full and issues
// the boxes; every thread still arrives on full (its cp.async arrival, none pending), so the
// phase needs the same arrivals either way and completes once the bytes have landed too.
template <int D, int kStages, class P>
SAMEBITS_DEVICE_FUNC void tc_produce_kv(const P& p, const TcMaps& maps, const Sequence& seq, int g, int blocks,
                                        char* stage0, int stage_bytes, std::uint64_t* full, std::uint64_t* empty) {
  using Tile = TcSwTile<D, kTcKeys>;
  const bool issuer = gpu::threadIdx.x % kTcProducerThreads == 0;
  for (int b = 0; b < blocks; ++b) {
    const int st = b % kStages, end = gpu::min_int(kTcKeys, seq.lk - b * kTcKeys);
    if (b >= kStages) gpu::mbarrier_wait(empty + st, (b / kStages - 1) & 1);
    char* k_dst = stage0 + st * stage_bytes;
    const std::int64_t row0 = seq.k0 + std::int64_t{b} * kTcKeys;
    if (maps.kv && end == kTcKeys) {
      if (issuer) {
        gpu::fence_proxy_async_shared();  // the stage's earlier cp.async writes before TMA's
        gpu::mbarrier_expect_tx(full + st, 2 * tc_tma_tile_bytes<D, kTcKeys>);
        tc_tma_tile<D, kTcKeys>(k_dst, maps.k, row0, g, full + st);
        tc_tma_tile<D, kTcKeys>(k_dst + Tile::kBytes, maps.v, row0, g, full + st);
      }
    } else {
      tc_stage_tile_sw_unrolled<D, kTcKeys, kTcProducerThreads>(k_dst, p.k, p.k_stride, row0, 0, end, g);
      tc_stage_tile_sw_unrolled<D, kTcKeys, kTcProducerThreads>(k_dst + Tile::kBytes, p.v, p.v_stride, row0, 0, end, g);
    }
    gpu::copy_async_mbarrier_arrive(full + st);
  }
  gpu::copy_async_wait<0>();  // no copy outlives the thread
}

template <int D, class L, DType In, DType Out>
SAMEBITS_GLOBAL void SAMEBITS_LAUNCH_BOUNDS(kTcFwdThreads, 1) attention_tc_forward_kernel(
    const ForwardParams p, const SAMEBITS_GRID_CONSTANT TcMaps maps) {
  using Ly = TcFwdLayout<D>;
  using Tile = typename Ly::Tile;
  constexpr auto kFmt = tc::format_of(In);
  constexpr int kDv = D / 2;  // o accumulator registers (m64nDk16)
  extern SAMEBITS_SHARED float4 smem4[];
  char* smem = align_shared_1024(reinterpret_cast<char*>(smem4));

  const Sequence seq = sequence_of(p, gpu::blockIdx.z);
  if (seq.lq == 0) return;
  const int a0 = seq.lk - seq.lq;  // position of the sequence's row 0 (§2)
  const int t_first = floor_div(a0, kTcRows), t_last = floor_div(a0 + seq.lq - 1, kTcRows);
  const int t = t_last - static_cast<int>(gpu::blockIdx.x);  // heaviest tiles first
  if (t < t_first) return;
  const int h = gpu::blockIdx.y, g = h / (p.hq / p.hkv);
  const int tid = gpu::threadIdx.x, wg = gpu::warp_uniform(tid / 128), warp = (tid % 128) / 32, lane = tid % 32, quad = lane % 4;

  // Tile row j holds sequence row qi0 + j (position 128 t + j).
  const int qi0 = t * kTcRows - a0;
  const int q_first = gpu::max_int(0, -qi0), q_end = gpu::min_int(kTcRows, seq.lq - qi0);
  // Every valid row of the tile visits the same blocks: the last one's count.
  const int n_last = dense_list_length(qi0 + q_end - 1, seq.lq, seq.lk, p.causal);
  const int blocks = (n_last + kTcKeys - 1) / kTcKeys;

  // This thread's two rows (fragment rows g and g + 8 of its warp's 16).
  // (Recomputed at the store, not kept: registers are the forward's limit at D = 128.)
  auto tile_row = [&](int r) { return wg * kTcWgRows + warp * 16 + lane / 4 + 8 * r; };
  int n[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int j = tile_row(r);
    n[r] = j >= q_first && j < q_end ? dense_list_length(qi0 + j, seq.lq, seq.lk, p.causal) : 0;
  }

  char* sQ = smem + Ly::kQ;
  auto sK = [&](int st) { return smem + Ly::kStage0 + st * Ly::kStageBytes; };
  auto sV = [&](int st) { return smem + Ly::kStage0 + st * Ly::kStageBytes + Tile::kBytes; };
  auto bar = [&](int offset, int st) { return reinterpret_cast<std::uint64_t*>(smem + offset + 8 * st); };
  if (tid == 0) tc_init_stage_barriers<Ly::kStages>(bar(Ly::kFull, 0), bar(Ly::kEmpty, 0), bar(Ly::kQFull, 0));
  gpu::block_barrier();  // the last block-wide barrier: the roles part here

  // The producer: K, V of block b into stage b % 3 (tc_produce_kv).
  if (wg == kTcWarpgroups) {
    gpu::setmaxnreg_dec<kTcProducerRegs>();
    tc_produce_kv<D, Ly::kStages>(p, maps, seq, g, blocks, smem + Ly::kStage0, Ly::kStageBytes, bar(Ly::kFull, 0),
                                  bar(Ly::kEmpty, 0));
    return;
  }
  gpu::setmaxnreg_inc<kTcConsumerRegs>();
  // A consumer waits for block b's stage, then makes the copies visible to wgmma's reads.
  auto wait_full = [&](int b) {
    gpu::mbarrier_wait(bar(Ly::kFull, b % Ly::kStages), (b / Ly::kStages) & 1);
    gpu::fence_proxy_async_shared();
  };

  float o[kDv];
#pragma unroll
  for (int i = 0; i < kDv; ++i) o[i] = 0.0f;
  float m[2] = {0.0f, 0.0f}, l[2] = {0.0f, 0.0f};

  if (blocks > 0) {

    // Descriptors (TcSwTile); k16 step kk adds Tile::k_step(kk) (Q, K) or kk * kKeyStep (V) to
    // the start address field, stage st adds st * kStageBytes there (>> 4).
    const std::uint64_t dq0 = gpu::smem_descriptor_sw128(sQ + wg * kTcWgRows * 128, Tile::kPanelBytes, Tile::kAtomBytes);
    const std::uint64_t dk0 = gpu::smem_descriptor_sw128(sK(0), Tile::kPanelBytes, Tile::kAtomBytes);
    constexpr std::uint32_t kVLead = Tile::kPanelBytes, kVStride = Tile::kAtomBytes;
    const std::uint64_t dv0 = gpu::smem_descriptor_sw128(sV(0), kVLead, kVStride);
    constexpr std::uint64_t kStepV = Tile::kKeyStep, kStepStage = Ly::kStageBytes >> 4;

    // §4.1 S = Q K^T of block b into acc: D/16 k16 steps over d, the first with scale-d = 0.
    // Issued and committed; the caller waits.
    auto issue_s = [&](float(&acc)[kTcKeys / 2], int b) {
      const std::uint64_t dk = dk0 + static_cast<std::uint64_t>(b % Ly::kStages) * kStepStage;
#pragma unroll
      for (int i = 0; i < kTcKeys / 2; ++i) gpu::fence_operand(acc[i]);
      gpu::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk) gpu::wgmma_ss<kFmt, kTcKeys>(acc, dq0 + Tile::k_step(kk), dk + Tile::k_step(kk), kk > 0 ? 1 : 0);
      gpu::wgmma_commit();
    };

    // §4.2-4.4 for block b, its S in sc: t, the block max over members, p (in place); alpha
    // (the rescale of the running sums, applied to o by the caller once o is not in flight);
    // l folded. sc[i] is row 8 ((i/2) % 2) + g of the warp, key 8 (i/4) + 2 quad + i % 2 of
    // the block.
    //
    // `masked` (compile-time): false for a block that every valid row of the tile sees whole
    // (softmax_of below), where every element is a member; true otherwise. The masked form is
    // branch-free and gives the same bits as skipping non-members: max_num(m, NaN) = m, and a
    // non-member's exp argument is -inf, whose exp is +0 in both libms (nvcc: sat(-inf) = 0,
    // ex2(-inf) = +0, +0 times 2^k = +0; cr: exp(-inf) = +0), the very value §4.3 gives it.
    float alpha[2] = {1.0f, 1.0f};
    [[maybe_unused]] const float c2 = mul_rn(p.scale, log2e());  // §25 (base 2 only)
    auto softmax = [&](auto masked, int b, float(&sc)[kTcKeys / 2]) {
      constexpr bool kMasked = decltype(masked)::value;
      const int key0 = b * kTcKeys;
      auto member = [&](int i) {
        if constexpr (kMasked) return key0 + 8 * (i / 4) + 2 * quad + i % 2 < n[(i / 2) % 2];
        else return true;
      };
      // §25 base 2 (nvcc-fast): the maximum of the unscaled scores, p = exp2(fma(s, c, -mul(m, c))),
      // alpha = exp2(mul(sub(m, m_new), c)), c = mul(scale, log2 e): one fma and one MUFU.EX2 an
      // element. Natural: t = mul(s, scale), its maximum, p = exp(sub(t, m)).
      constexpr bool kBase2 = base2_softmax<L>;
      float mb[2] = {max_identity(), max_identity()};
#pragma unroll
      for (int i = 0; i < kTcKeys / 2; ++i) {
        const int r = (i / 2) % 2;
        if constexpr (!kBase2) sc[i] = mul_rn(sc[i], p.scale);
        mb[r] = max_num(mb[r], member(i) ? sc[i] : max_identity());
      }
      float m_new[2], m_c2[2];
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        mb[r] = max_num(mb[r], gpu::shuffle_xor(mb[r], 1));
        mb[r] = max_num(mb[r], gpu::shuffle_xor(mb[r], 2));
        m_new[r] = b > 0 ? max_num(m[r], mb[r]) : mb[r];
        if constexpr (kBase2) {
          alpha[r] = b > 0 ? L::exp2(mul_rn(sub_rn(m[r], m_new[r]), c2)) : 1.0f;
          m_c2[r] = -mul_rn(m_new[r], c2);
        } else {
          alpha[r] = b > 0 ? L::exp(sub_rn(m[r], m_new[r])) : 1.0f;
        }
      }
#pragma unroll
      for (int i = 0; i < kTcKeys / 2; ++i) {
        const int r = (i / 2) % 2;
        if constexpr (kBase2)
          sc[i] = L::exp2(member(i) ? fma_rn(sc[i], c2, m_c2[r]) : fp::from_bits(0xff800000u));
        else
          sc[i] = L::exp(member(i) ? sub_rn(sc[i], m_new[r]) : fp::from_bits(0xff800000u));
      }
      // §4.4 fold: rescale (later blocks), then the thread's columns chunk by chunk.
#pragma unroll
      for (int r = 0; r < 2; ++r) l[r] = b > 0 ? mul_rn(l[r], alpha[r]) : 0.0f;
#pragma unroll
      for (int c = 0; c < kTcKeys / 8; ++c) {
        l[0] = add_rn(add_rn(l[0], sc[4 * c]), sc[4 * c + 1]);
        l[1] = add_rn(add_rn(l[1], sc[4 * c + 2]), sc[4 * c + 3]);
      }
      m[0] = m_new[0];
      m[1] = m_new[1];
    };
    // Block b is whole for every valid row of the tile: its last key is a member of the first
    // valid row's list (lists grow with the row, §2). Rows outside the sequence compute on zero
    // rows of Q unmasked; their results are never stored.
    const int n_first = dense_list_length(qi0 + q_first, seq.lq, seq.lk, p.causal);
    auto softmax_of = [&](int b, float(&sc)[kTcKeys / 2]) {
      if ((b + 1) * kTcKeys <= n_first) softmax(std::false_type{}, b, sc);
      else softmax(std::true_type{}, b, sc);
    };
    // §4.4 P^ = rnd(p): register j of k16 step kk is (p[8kk + 2j], p[8kk + 2j + 1]) — rows g,
    // g+8, g, g+8 and keys 16kk + 2 quad (+8 for j >= 2): wgmma's A fragment.
    auto pack = [&](const float(&sc)[kTcKeys / 2], std::uint32_t(&pa)[kTcKeys / 16][4]) {
#pragma unroll
      for (int kk = 0; kk < kTcKeys / 16; ++kk)
#pragma unroll
        for (int j = 0; j < 4; ++j) pa[kk][j] = gpu::pack2<kFmt>(sc[8 * kk + 2 * j], sc[8 * kk + 2 * j + 1]);
    };

    // Block b: its P^ in pa (o already rescaled for it). Issued in this order, as
    // FlashAttention-3 overlaps them: S of block b + 1 into sn, then O += P^ V of block b; the
    // softmax of block b + 1 runs once its S has landed, while P V is still on the tensor cores;
    // then (after P V has landed: no instruction writes o or pa while a wgmma that reads them is
    // in flight) o is rescaled for block b + 1 and its P^ packed into pa. o's operations stay in
    // the contract's order: ... P_b V_b added, times alpha_{b+1}, P_{b+1} V_{b+1} added ...
    //
    // `next` (is there a block b + 1) is a compile-time constant: the last block is peeled off
    // the loop. With a run-time `next`, ptxas cannot prove that wait<1> retires S before the
    // softmax reads it and serializes every wgmma (C7514); attention-tc.md §18 measures it.
    auto block = [&](auto has_next, int b, float(&sn)[kTcKeys / 2], std::uint32_t(&pa)[kTcKeys / 16][4]) {
      constexpr bool next = decltype(has_next)::value;
      if constexpr (next) wait_full(b + 1);
      // Ping-pong (FlashAttention-3's inter-warpgroup order): warpgroup 0 issues its GEMMs, then
      // warpgroup 1, so that one's softmax runs while the other's GEMMs hold the tensor cores.
      // Each turn barrier completes once per block (warpgroup 1 skips its last hand-over).
      if constexpr (kTcPingPong) gpu::named_barrier_sync(kTcTurnBarrier + wg, kTcThreads);
      if constexpr (next) issue_s(sn, b + 1);
      // §4.4 o: the block's 8 k16 key groups in order; the very first step with scale-d = 0.
      const std::uint64_t dv = dv0 + static_cast<std::uint64_t>(b % Ly::kStages) * kStepStage;
#pragma unroll
      for (int i = 0; i < kDv; ++i) gpu::fence_operand(o[i]);
      gpu::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kTcKeys / 16; ++kk)
        gpu::wgmma_rs<kFmt, D, 1>(o, pa[kk], dv + kk * kStepV, (b > 0 || kk > 0) ? 1 : 0);
      gpu::wgmma_commit();
      if constexpr (kTcPingPong)
        if (wg == 0 || next) gpu::named_barrier_arrive(kTcTurnBarrier + (wg ^ 1), kTcThreads);
      if constexpr (next) {
        gpu::wgmma_wait<1>();  // S of block b + 1 (committed before P V)
#pragma unroll
        for (int i = 0; i < kTcKeys / 2; ++i) gpu::fence_operand(sn[i]);
        softmax_of(b + 1, sn);
      }
      gpu::wgmma_wait<0>();  // P V of block b: this warp is done with block b's stage
      if (lane == 0) gpu::mbarrier_arrive(bar(Ly::kEmpty, b % Ly::kStages));
#pragma unroll
      for (int i = 0; i < kDv; ++i) gpu::fence_operand(o[i]);
#pragma unroll
      for (int kk = 0; kk < kTcKeys / 16; ++kk)
#pragma unroll
        for (int j = 0; j < 4; ++j) gpu::fence_operand(pa[kk][j]);
      if constexpr (next) {
        // §4.4: alpha = 1 when m did not change, and o times 1 is o (NaN aside, whose payload
        // the output's rounding makes canonical anyway): a warp whose 16 rows all kept their
        // maximum skips the 64 multiplies (often, late in long rows).
        if (!gpu::warp_all(alpha[0] == 1.0f && alpha[1] == 1.0f)) {
#pragma unroll
          for (int i = 0; i < kDv; ++i) o[i] = mul_rn(o[i], alpha[(i / 2) % 2]);
        }
        pack(sn, pa);
      }
    };

    // Prologue: Q (the consumers' copies), block 0; S and softmax of block 0.
    tc_stage_tile_sw<D>(sQ, p.q, p.q_stride, seq.q0 + qi0, q_first, q_end, h);
    gpu::copy_async_mbarrier_arrive(bar(Ly::kQFull, 0));
    gpu::mbarrier_wait(bar(Ly::kQFull, 0), 0);
    wait_full(0);

    float s[kTcKeys / 2];
#pragma unroll
    for (int i = 0; i < kTcKeys / 2; ++i) s[i] = 0.0f;
    std::uint32_t pa[kTcKeys / 16][4];
    issue_s(s, 0);
    gpu::wgmma_wait<0>();
#pragma unroll
    for (int i = 0; i < kTcKeys / 2; ++i) gpu::fence_operand(s[i]);
    softmax_of(0, s);
    pack(s, pa);

    if constexpr (kTcPingPong)
      if (wg == 1) gpu::named_barrier_arrive(kTcTurnBarrier, kTcThreads);  // warpgroup 0 goes first
    for (int b = 0; b + 1 < blocks; ++b) block(std::true_type{}, b, s, pa);
    block(std::false_type{}, blocks - 1, s, pa);

    // §4.5 l = (l0 + l1) + (l2 + l3): lane q adds lane q ^ 1's, then lane q ^ 2's
    // (IEEE addition commutes: the four lanes get the same bits).
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      l[r] = add_rn(l[r], gpu::shuffle_xor(l[r], 1));
      l[r] = add_rn(l[r], gpu::shuffle_xor(l[r], 2));
    }
  }

  // §4.5-4.6 finish and store, each element rounded once; empty lists: o = +0, lse = -inf.
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int j = tile_row(r);
    if (j < q_first || j >= q_end) continue;
    const std::int64_t row = seq.q0 + qi0 + j;
    const bool empty = blocks == 0;
    // §25 base 2: m is the unscaled scores' maximum; lse = add(mul(m, scale), log(l)).
    const float m_nat = base2_softmax<L> ? mul_rn(m[r], p.scale) : m[r];
    const float lse = empty ? fp::from_bits(0xff800000u) : add_rn(m_nat, L::log(l[r]));
    const std::int64_t base = row * p.o_stride.row + static_cast<std::int64_t>(h) * p.o_stride.head;
#pragma unroll
    for (int i = 0; i < kDv; ++i) {
      if ((i / 2) % 2 != r) continue;
      const int col = 8 * (i / 4) + 2 * quad + i % 2;
      const float v = empty ? 0.0f : tc::zero_canonical(div_rn(o[i], l[r]));
      store_from_f32(p.o, Out, base + col, v);
    }
    if (quad == 0) p.lse[row * p.hq + h] = canonical(lse);
  }
}

}  // namespace samebits::kernels::attention::cuda
