// kernels/src/sm90/common/warp_specialized.cuh — a block's threads and its
// warp-specialised split (attention-tc.md §13, §18, as FlashAttention-3 builds
// it): consumer warpgroups 0 .. kConsumerWarpgroups - 1 compute, one producer
// warpgroup after them only copies tiles into a stage ring (pipeline.cuh), and
// setmaxnreg moves registers from the producer to the consumers. Roles and
// registers only: the arithmetic is the consumers', in the contract's order.
#pragma once

#include "sm90/common/pipeline.cuh"
#include "samebits/gpu/tensor_core.hpp"
#include "samebits/gpu/thread.hpp"

namespace samebits::kernels::hopper {

// Where a thread is: its warpgroup, warp in it, lane, and quad lane (the wgmma fragment's
// column pair, fragment.cuh).
struct TcThread {
  int tid, wg, warp, lane, quad;
  // The row (of the warpgroups' kWgRows-row parts, warpgroup after warpgroup) of the thread's
  // fragment row r (fragment.cuh): 16 warp + lane / 4 + 8 r within its warpgroup's.
  template <int kWgRows>
  SAMEBITS_DEVICE_FUNC int row(int r) const { return wg * kWgRows + warp * 16 + lane / 4 + 8 * r; }
};
// kUniformWg: wg through warp_uniform (lane 0's value, so that the compiler may keep warpgroup
// branches and descriptors uniform). Not everywhere: the dK/dV pass measured it slower (it
// says why).
template <bool kUniformWg>
SAMEBITS_DEVICE_FUNC TcThread tc_thread(int tid) {
  TcThread t;
  t.tid = tid;
  if constexpr (kUniformWg) t.wg = gpu::warp_uniform(tid / 128);
  else t.wg = tid / 128;
  t.warp = (tid % 128) / 32;
  t.lane = tid % 32;
  t.quad = t.lane % 4;
  return t;
}

// The registers a block holds from its launch: under __launch_bounds__(threads, 1) each thread
// gets floor(65536 / threads) rounded down to a multiple of 8 (168 at 384 threads); setmaxnreg
// only moves registers within that pool. A split asking for more than the pool deadlocks: a
// warpgroup's .inc waits for registers no .dec frees (a 240/32 backward hung so on the H100).
constexpr int tc_block_register_pool(int threads) { return (65536 / threads) / 8 * 8 * threads; }

// kConsumerWarpgroups consumer warpgroups and one producer warpgroup, registers kConsumerRegs /
// kProducerRegs a thread. split(): the barriers (a stage ring and the consumers' own copy
// barrier) are set up by thread 0 before the block's last block-wide barrier; then the roles
// part: true on the producer warpgroup (which copies, then leaves), false on the consumers. From
// there the two roles meet only at the ring's barriers, so consumers may drift apart (the
// forward's ping-pong needs it).
template <int kConsumerWarpgroups, int kConsumerRegs, int kProducerRegs>
struct TcWarpSpecialized {
  static constexpr int kConsumerThreads = 128 * kConsumerWarpgroups, kProducerThreads = 128;
  static constexpr int kThreads = kConsumerThreads + kProducerThreads;
  static_assert(kConsumerRegs % 8 == 0 && kProducerRegs % 8 == 0 && kProducerRegs >= 24 && kConsumerRegs <= 256,
                "setmaxnreg takes multiples of 8 in 24 .. 256");
  static_assert(kConsumerThreads * kConsumerRegs + kProducerThreads * kProducerRegs <= tc_block_register_pool(kThreads),
                "the split fits the block's registers");

  template <class Ring>
  SAMEBITS_DEVICE_FUNC static bool split(const TcThread& th, const Ring& ring, const TcCopyBarrier& own) {
    if (th.tid == 0) {
      ring.init(kProducerThreads, kConsumerThreads / 32);
      own.init(kConsumerThreads);
      gpu::fence_mbarrier_init();
    }
    gpu::block_barrier();  // the last block-wide barrier: the roles part here
    if (th.wg == kConsumerWarpgroups) {
      gpu::setmaxnreg_dec<kProducerRegs>();
      return true;
    }
    gpu::setmaxnreg_inc<kConsumerRegs>();
    return false;
  }
};

}  // namespace samebits::kernels::hopper
