// kernels/src/sm90/common/pipeline.cuh — shared-memory stages handed from the
// threads that copy them to the threads that read them, by mbarriers (the
// ring FlashAttention-3 and CUTLASS call a pipeline). Orders only: which copy
// lands before which read; no arithmetic, so no bit of a result depends on it.
//
// A ring of kStages stages: use u (the u-th tile through the ring, u = 0, 1,
// ...) goes into stage u % kStages, whose barriers then complete their phase
// u / kStages:
//   full[st]   every producer thread has arrived (its cp.async copies of the
//              stage landed, copy_async_mbarrier_arrive), and the stage's TMA
//              bytes, if any were expected on it, have landed;
//   empty[st]  every consumer warp is done reading it (one arrival a warp).
// The producer of use u waits for empty's phase u / kStages - 1 (the release of
// use u - kStages), copies, and arrives on full; a consumer waits for full's
// phase u / kStages, reads, and releases. Phases are told apart by parity, so
// a producer never runs more than kStages uses ahead (it waits on empty).
#pragma once

#include <cstdint>

#include "samebits/gpu/tensor_core.hpp"

namespace samebits::kernels::hopper {

// Where a warp-specialised kernel keeps its barriers, from byte kAt of its shared memory:
// full[kStages], empty[kStages], then q_full (TcCopyBarrier), 8 bytes each.
template <int kAt, int kStages>
struct TcStageBarrierLayout {
  static_assert(kAt % 8 == 0, "mbarriers are 8-byte aligned");
  static constexpr int kFull = kAt, kEmpty = kFull + 8 * kStages, kQFull = kEmpty + 8 * kStages, kEnd = kQFull + 8;
};

// The ring's operations, over Ring::full(st) and Ring::empty(st) (CRTP: the two ways below of
// addressing the same barriers).
template <class Ring, int kStages_>
struct TcStageOps {
  static constexpr int kStages = kStages_;
  SAMEBITS_DEVICE_FUNC const Ring& self() const { return static_cast<const Ring&>(*this); }

  // Consumers: wait for use u's copies, then make them visible to wgmma's (async proxy) reads.
  SAMEBITS_DEVICE_FUNC void wait_full(int use) const {
    gpu::mbarrier_wait(self().full(use % kStages), (use / kStages) & 1);
    gpu::fence_proxy_async_shared();
  }
  // A consumer warp is done with use u's stage (its wgmmas reading it have completed).
  SAMEBITS_DEVICE_FUNC void release(int use, int lane) const {
    if (lane == 0) gpu::mbarrier_arrive(self().empty(use % kStages));
  }
  // Producers: wait until stage st's occupant of round `round` (use round * kStages + st) was
  // released, i.e. empty[st]'s phase `round` completed.
  SAMEBITS_DEVICE_FUNC void wait_empty(int st, int round) const { gpu::mbarrier_wait(self().empty(st), round & 1); }
  // This thread's cp.async copies of stage st (issued so far) arrive on full[st] when they land.
  SAMEBITS_DEVICE_FUNC void arrive_full(int st) const { gpu::copy_async_mbarrier_arrive(self().full(st)); }
  // TMA: one thread expects the stage's bytes on full[st], then issues boxes completing on
  // full(st). The stage's earlier cp.async writes (a previous use's) come first in the async proxy.
  SAMEBITS_DEVICE_FUNC void expect_tma(int st, std::uint32_t bytes) const {
    gpu::fence_proxy_async_shared();
    gpu::mbarrier_expect_tx(self().full(st), bytes);
  }
};

// The ring as two barrier arrays (what a function handed the arrays sees): full[st] at full_ + st.
template <int kStages_>
struct TcStageRing : TcStageOps<TcStageRing<kStages_>, kStages_> {
  std::uint64_t* full_;
  std::uint64_t* empty_;
  SAMEBITS_DEVICE_FUNC TcStageRing(std::uint64_t* full, std::uint64_t* empty) : full_(full), empty_(empty) {}
  SAMEBITS_DEVICE_FUNC std::uint64_t* full(int st) const { return full_ + st; }
  SAMEBITS_DEVICE_FUNC std::uint64_t* empty(int st) const { return empty_ + st; }
  // One thread, before the block barrier that publishes the barriers (the caller fences them).
  SAMEBITS_DEVICE_FUNC void init(unsigned producer_threads, unsigned consumer_warps) const {
    for (int st = 0; st < kStages_; ++st) {
      gpu::mbarrier_init(full_ + st, producer_threads);
      gpu::mbarrier_init(empty_ + st, consumer_warps);
    }
  }
};

// The ring at fixed byte offsets of the kernel's shared memory (TcStageBarrierLayout): full[st] at
// smem + kFull + 8 st. (The same addresses as ring()'s; the two forms order their address
// arithmetic differently, and each kernel keeps the form its measured code was built with.)
template <int kStages_, int kFull, int kEmpty>
struct TcStagePipeline : TcStageOps<TcStagePipeline<kStages_, kFull, kEmpty>, kStages_> {
  char* smem;
  SAMEBITS_DEVICE_FUNC explicit TcStagePipeline(char* s) : smem(s) {}
  SAMEBITS_DEVICE_FUNC std::uint64_t* full(int st) const { return reinterpret_cast<std::uint64_t*>(smem + kFull + 8 * st); }
  SAMEBITS_DEVICE_FUNC std::uint64_t* empty(int st) const { return reinterpret_cast<std::uint64_t*>(smem + kEmpty + 8 * st); }
  SAMEBITS_DEVICE_FUNC TcStageRing<kStages_> ring() const { return {full(0), empty(0)}; }
  SAMEBITS_DEVICE_FUNC void init(unsigned producer_threads, unsigned consumer_warps) const {
    ring().init(producer_threads, consumer_warps);
  }
};

// A one-use barrier completed by `threads` threads' cp.async copies (a tile the consumers copy
// for themselves, e.g. the query tile): each arrives once, then waits for phase 0.
struct TcCopyBarrier {
  std::uint64_t* bar;
  SAMEBITS_DEVICE_FUNC void init(unsigned threads) const { gpu::mbarrier_init(bar, threads); }
  SAMEBITS_DEVICE_FUNC void arrive_and_wait() const {
    gpu::copy_async_mbarrier_arrive(bar);
    gpu::mbarrier_wait(bar, 0);
  }
};

}  // namespace samebits::kernels::hopper
