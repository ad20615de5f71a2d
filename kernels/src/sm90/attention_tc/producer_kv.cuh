// kernels/src/sm90/attention_tc/producer_kv.cuh — the producer warpgroup of
// the forward and the recomputing dq pass (FlashAttention-3's mainloop load):
// K and V of key block b (keys 128 b .. 128 b + 127 of the sequence, rows past
// its end zero-filled, §3, §11.1) into stage b % kStages of the ring
// (pipeline.cuh) once every consumer warp has released the block that was
// there. A whole block (128 keys of the sequence) comes by TMA when the maps
// exist (§27): the producer's first thread expects its bytes on full and
// issues the boxes; the sequence's last, partial block by cp.async. Every
// thread arrives on full either way (its cp.async arrival, none pending for a
// TMA block), so the phase needs the same arrivals either way and completes
// once the bytes have landed too.
#pragma once

#include "sm90/attention_tc/config.cuh"

namespace samebits::kernels::attention::cuda {

// P: ForwardParams or BackwardParams (k, v and their strides); g: the kv head. stage0: stage 0's
// K tile, V right after it; a stage every stage_bytes.
template <int D, class P, class Ring>
SAMEBITS_DEVICE_FUNC void tc_produce_kv(const P& p, const TcMaps& maps, const Sequence& seq, int g, int blocks,
                                        char* stage0, int stage_bytes, const Ring& ring) {
  constexpr int kStages = Ring::kStages;
  using Tile = TcSwTile<D, kTcKeys>;
  const bool issuer = gpu::threadIdx.x % kTcProducerThreads == 0;
  for (int b = 0; b < blocks; ++b) {
    const int st = b % kStages, end = gpu::min_int(kTcKeys, seq.lk - b * kTcKeys);
    if (b >= kStages) ring.wait_empty(st, b / kStages - 1);
    char* k_dst = stage0 + st * stage_bytes;
    const std::int64_t row0 = seq.k0 + std::int64_t{b} * kTcKeys;
    if (maps.kv && end == kTcKeys) {
      if (issuer) {
        ring.expect_tma(st, 2 * tc_tma_tile_bytes<D, kTcKeys>);
        tc_tma_tile<D, kTcKeys>(k_dst, maps.k, row0, g, ring.full(st));
        tc_tma_tile<D, kTcKeys>(k_dst + Tile::kBytes, maps.v, row0, g, ring.full(st));
      }
    } else {
      tc_stage_tile_sw_unrolled<D, kTcKeys, kTcProducerThreads>(k_dst, p.k, p.k_stride, row0, 0, end, g);
      tc_stage_tile_sw_unrolled<D, kTcKeys, kTcProducerThreads>(k_dst + Tile::kBytes, p.v, p.v_stride, row0, 0, end, g);
    }
    ring.arrive_full(st);
  }
  gpu::copy_async_wait<0>();  // no copy outlives the thread
}

}  // namespace samebits::kernels::attention::cuda
