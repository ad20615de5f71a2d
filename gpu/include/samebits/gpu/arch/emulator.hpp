// samebits/gpu/arch/emulator.hpp — the thread-level primitives of
// arch/nvptx.hpp and arch/amdgpu.hpp for plain C++ (SAMEBITS_GPU_EMULATOR):
// the kernels' own source runs on the CPU, each block's threads as fibers
// (POSIX ucontext) on one OS thread, switched only at the block barrier and at
// lane exchanges. samebits/gpu/emulator.hpp launches a grid.
//
// What it checks: a kernel's logic (indices, tiles, barriers, the order of
// its arithmetic) with the very arithmetic the CPU reference uses (the pinned
// IEEE operations and the libm, host paths), so that a kernel's outputs can be
// compared with the reference bit for bit on a machine without a GPU. Between
// two synchronization points the fibers run one after another in an order
// the launch chooses (forward, reverse, shuffled): a missing barrier shows up
// as results that depend on that order. A barrier or lane exchange that not
// every thread of the block (group) reaches is reported as an error, as is a
// barrier after a thread has exited. Blocks run one after another, so a
// thread that waits on a flag (load_acquire_agent) for another block or
// thread to publish would wait forever: a wait that cannot end is reported as
// an error (kSpinLimit acquire loads of one address without a synchronization
// point), never a hang.
// What it cannot check: the GPU's own arithmetic and memory model (cp.async
// here is a plain copy; global memory is coherent), timing, occupancy.
#pragma once

#include <ucontext.h>

#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/platform.hpp"

namespace samebits::gpu::arch {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

namespace emu {

enum class Wait { none, block, group, poll, done };

struct Fiber {
  ucontext_t ctx{};
  Wait wait = Wait::none;
  Dim3 idx;
  unsigned linear = 0;
};

// Asynchronous register results (wgmma, emulator_sm90.hpp): a thread's
// operations issued into its open group, committed groups oldest first. An
// operation's results are computed at issue and held here; its destination
// registers hold a poison NaN until its group is waited for, when each takes
// its value (checked still poisoned: nothing wrote it meanwhile), and the
// source registers it read are checked unchanged (nothing overwrote them).
struct AsyncWrite {
  float* dst;                       // the destination registers (an accumulator array)
  std::vector<std::uint32_t> bits;  // their results
};
struct AsyncSource {
  const std::uint32_t* src;         // source registers read at issue (an A fragment)
  std::vector<std::uint32_t> bits;  // their values then
};
struct AsyncGroup {
  std::vector<AsyncWrite> writes;
  std::vector<AsyncSource> sources;
};
struct AsyncState {
  AsyncGroup open;
  std::vector<AsyncGroup> committed;
};

// TMA stores (emulator_sm90.hpp's tma_store_3d): a thread's stores issued into its open bulk
// group, committed groups oldest first. A store records what it reads (the shared addresses of
// its box's elements, their bits at issue) and where each goes; its group's wait_group checks the
// shared bytes unchanged (the hardware reads them at some time between the issue and the wait)
// and writes global memory.
struct BulkStore {
  std::vector<std::uint32_t> src;    // shared address of each element (swizzled)
  std::vector<unsigned char*> dst;   // its global address, nullptr outside the tensor (not written)
  std::vector<std::uint16_t> bits;   // its bits at issue
};
struct BulkState {
  std::vector<BulkStore> open;
  std::vector<std::vector<BulkStore>> committed;
};

// The block being emulated: its fibers, the scheduler's context, the lane
// exchange slots.
struct Block {
  std::vector<Fiber> fibers;
  ucontext_t sched{};
  Fiber* current = nullptr;
  const std::function<void()>* body = nullptr;
  std::vector<std::uint32_t> exchange;  // one slot per thread
  std::exception_ptr failure;           // what a fiber threw (the launch rethrows it)
  unsigned named_count[16] = {};        // named barriers (bar.sync / bar.arrive id, n): arrivals in the
  std::uint64_t named_gen[16] = {};     // current round, and completed rounds
  std::uint64_t arrivals = 0;           // mbarrier and named-barrier arrivals so far, and when polling waits were last
  std::uint64_t arrivals_seen = 0;      // released (a round of polls with none between cannot end)
  std::vector<int> regs;                // setmaxnreg: each thread's registers (empty until the first
  int regs_free = 0;                    // setmaxnreg), and the block's registers no thread holds
  std::vector<AsyncState> async;        // each thread's wgmma groups not yet waited for
  std::vector<BulkState> bulk;          // each thread's TMA stores not yet waited for
  std::vector<std::pair<const void*, std::int64_t>> mbar_tx;  // each mbarrier's pending TMA bytes
  const int* spin_addr = nullptr;       // the running fiber's acquire loads since it was resumed:
  std::uint64_t spins = 0;              // the last address, and how often in a row
};

// Acquire loads of one address in a row, by one thread between two of its
// synchronization points, that make a wait that cannot end: nothing else runs
// meanwhile, so the value can change only by the thread's own stores.
inline constexpr std::uint64_t kSpinLimit = std::uint64_t{1} << 20;

inline Block*& current_block() {
  static Block* b = nullptr;
  return b;
}
inline Dim3& thread_idx() {
  static Dim3 d;
  return d;
}
inline Dim3& block_idx() {
  static Dim3 d;
  return d;
}
inline Dim3& block_dim() {
  static Dim3 d;
  return d;
}
inline Dim3& grid_dim() {
  static Dim3 d;
  return d;
}

// Called by a fiber: wait at a synchronization point (back to the scheduler).
inline void yield(Wait w) {
  Block* b = current_block();
  Fiber* f = b->current;
  f->wait = w;
  swapcontext(&f->ctx, &b->sched);
}

}  // namespace emu

// ---- where a thread is (CUDA's names: objects whose x, y, z follow the running fiber)
struct IndexRef {
  const unsigned& x;
  const unsigned& y;
  const unsigned& z;
};
inline const IndexRef threadIdx{emu::thread_idx().x, emu::thread_idx().y, emu::thread_idx().z};
inline const IndexRef blockIdx{emu::block_idx().x, emu::block_idx().y, emu::block_idx().z};
inline const IndexRef blockDim{emu::block_dim().x, emu::block_dim().y, emu::block_dim().z};
inline const IndexRef gridDim{emu::grid_dim().x, emu::grid_dim().y, emu::grid_dim().z};
inline unsigned thread_x() { return emu::thread_idx().x; }
inline unsigned thread_y() { return emu::thread_idx().y; }
inline unsigned thread_z() { return emu::thread_idx().z; }
inline unsigned block_x() { return emu::block_idx().x; }
inline unsigned block_y() { return emu::block_idx().y; }
inline unsigned block_z() { return emu::block_idx().z; }
inline unsigned block_dim_x() { return emu::block_dim().x; }
inline unsigned block_dim_y() { return emu::block_dim().y; }
inline unsigned block_dim_z() { return emu::block_dim().z; }
inline unsigned grid_dim_x() { return emu::grid_dim().x; }
inline unsigned grid_dim_y() { return emu::grid_dim().y; }
inline unsigned grid_dim_z() { return emu::grid_dim().z; }

// __syncthreads.
inline void block_barrier() { emu::yield(emu::Wait::block); }

// ---- lane exchange: inside groups of 32 consecutive threads; every lane of
// the group takes part (checked: the group waits until all 32 arrive).
inline std::uint32_t exchange_lane(std::uint32_t v, unsigned src_lane) {
  emu::Block* b = emu::current_block();
  const unsigned me = b->current->linear;
  b->exchange[me] = v;
  emu::yield(emu::Wait::group);  // every lane's value is in
  const std::uint32_t r = b->exchange[(me & ~31u) | (src_lane & 31u)];
  emu::yield(emu::Wait::group);  // every lane has read before the slots are reused
  return r;
}
inline float shuffle_xor(float v, unsigned mask) {
  const unsigned lane = emu::current_block()->current->linear & 31u;
  return fp::from_bits(exchange_lane(fp::to_bits(v), lane ^ mask));
}
inline std::uint32_t shuffle_xor(std::uint32_t v, unsigned mask) {
  return exchange_lane(v, (emu::current_block()->current->linear & 31u) ^ mask);
}
inline float shuffle_in_group(float v, unsigned src) { return fp::from_bits(exchange_lane(fp::to_bits(v), src)); }

// ---- integer min / max
inline int min_int(int a, int b) { return a < b ? a : b; }
inline int max_int(int a, int b) { return a > b ? a : b; }

// ---- IEEE maxNum as PTX max.f32: the non-NaN operand when one is NaN; when
// both are, the canonical NaN 0x7fffffff.
inline float max_num(float a, float b) {
  if (a != a && b != b) return fp::from_bits(0x7fffffffu);
  if (a != a) return b;
  if (b != b) return a;
  return b > a ? b : a;
}

// ---- 16-byte vectors
struct alignas(16) float4 {
  float x, y, z, w;
};
struct alignas(16) uint4 {
  unsigned x, y, z, w;
};
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }

// ---- global memory: one OS thread, so plain accesses are coherent and atomic.
inline uint4 load_readonly(const uint4* p) { return *p; }
inline int load_acquire_agent(const int* p) {
  emu::Block* b = emu::current_block();
  if (b != nullptr) {
    if (b->spin_addr != p) {
      b->spin_addr = p;
      b->spins = 0;
    } else if (++b->spins == emu::kSpinLimit) {
      const Dim3 blk = emu::block_idx();
      throw std::logic_error("emulator: block (" + std::to_string(blk.x) + ", " + std::to_string(blk.y) + ", " +
                             std::to_string(blk.z) + "), thread " + std::to_string(b->current->linear) +
                             ": a wait that cannot end (" + std::to_string(emu::kSpinLimit) +
                             " acquire loads of one flag, value " + std::to_string(*p) +
                             ", while no other thread runs: blocks run one after another)");
    }
  }
  return *p;
}
inline void store_release_agent(int* p, int v) { *p = v; }
inline float4 load_coherent(const float* p) { return float4{p[0], p[1], p[2], p[3]}; }
inline void store_coherent(float* p, float4 v) {
  p[0] = v.x;
  p[1] = v.y;
  p[2] = v.z;
  p[3] = v.w;
}
inline int fetch_add_agent(int* p, int v) {
  const int old = *p;
  *p = old + v;
  return old;
}
inline void fence_agent() {}

// ---- global -> shared copies: a plain 16-byte copy (complete at once).
inline void copy_async_16(void* smem_dst, const void* gmem_src) { std::memcpy(smem_dst, gmem_src, 16); }
inline void copy_async_commit() {}
inline void copy_async_wait_all() {}

}  // namespace samebits::gpu::arch
