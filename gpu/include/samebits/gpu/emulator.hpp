// samebits/gpu/emulator.hpp — runs a kernel's source on the CPU
// (SAMEBITS_GPU_EMULATOR; arch/emulator.hpp has the primitives and says what
// this checks and what it cannot):
//
//   #define SAMEBITS_GPU_EMULATOR 1      (before any samebits/gpu header)
//   namespace my::kernels { alignas(16) gpu::float4 smem4[N]; }  // the kernel's extern shared array
//   samebits::gpu::emulator::launch({grid_x, grid_y, grid_z}, 256,
//       [&] { my_kernel<...>(params); }, {{smem4, sizeof smem4}}, Order::reverse);
//
// Blocks run one after another (x fastest, then y, z); a block's threads are
// fibers switched at barriers and lane exchanges, run between them in the
// given order. Shared memory is filled with a NaN pattern (0x7fbadbad) before
// each block, so that a read of shared memory no thread wrote shows.
// Errors (a barrier not every thread reaches, a lane exchange a group does
// not complete, a barrier after a thread exited, a flag wait that cannot end,
// mbarrier waits that no arrival can complete)
// throw std::logic_error; an exception thrown by the kernel's code leaves its
// fiber and is rethrown by launch.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "samebits/gpu/arch.hpp"

#if !defined(SAMEBITS_GPU_EMU)
#  error "samebits/gpu/emulator.hpp: define SAMEBITS_GPU_EMULATOR before including samebits headers"
#endif

namespace samebits::gpu::emulator {

using arch::Dim3;

// The order in which the threads of a block run between two synchronization points.
// starve_last_warpgroup: forward, but the last 128 threads (a kernel's producer or
// writer warpgroup) run only when no other thread can: the others run as far ahead
// as their waits let them, which a missing wait in a hand-over protocol shows.
enum class Order { forward, reverse, shuffled, starve_last_warpgroup };

struct SharedRegion {
  void* base;
  std::size_t bytes;
};

namespace detail {

inline void trampoline() {
  arch::emu::Block* b = arch::emu::current_block();
  try {
    (*b->body)();
    const unsigned t = b->current->linear;  // wgmma results a thread never waited for: lost on a GPU
    if (t < b->async.size() && (!b->async[t].committed.empty() || !b->async[t].open.writes.empty()))
      throw std::logic_error("emulator: a thread exited with wgmma operations it never waited for");
    if (t < b->bulk.size() && (!b->bulk[t].committed.empty() || !b->bulk[t].open.empty()))
      throw std::logic_error("emulator: a thread exited with TMA stores it never waited for (cp.async.bulk.wait_group)");
  } catch (...) {  // carried to the scheduler's stack: no exception unwinds past a fiber's first frame
    b->failure = std::current_exception();
  }
  b->current->wait = arch::emu::Wait::done;
  swapcontext(&b->current->ctx, &b->sched);
}

// A fiber ready to run body from its start. Apart (not inlined): getcontext
// returns twice for the compiler, which must not see it in launch's loops.
[[gnu::noinline]] inline void prepare(arch::emu::Fiber& f, unsigned t, char* stack, std::size_t stack_bytes) {
  f.wait = arch::emu::Wait::none;
  f.idx = arch::Dim3{t, 0, 0};
  f.linear = t;
  getcontext(&f.ctx);
  f.ctx.uc_stack.ss_sp = stack;
  f.ctx.uc_stack.ss_size = stack_bytes;
  f.ctx.uc_link = nullptr;
  makecontext(&f.ctx, trampoline, 0);
}

}  // namespace detail

// Runs body once per thread of every block of the grid (1-D blocks of
// `threads` threads, a multiple of 32).
inline void launch(Dim3 grid, unsigned threads, const std::function<void()>& body,
                   std::initializer_list<SharedRegion> shared = {}, Order order = Order::forward,
                   std::uint64_t seed = 1, std::size_t stack_bytes = 256 * 1024) {
  using arch::emu::Wait;
  if (threads == 0 || threads % 32 != 0) throw std::logic_error("emulator: block size must be a multiple of 32");
  arch::emu::Block block;
  block.fibers.resize(threads);
  block.exchange.assign(threads, 0u);
  block.body = &body;
  std::vector<std::unique_ptr<char[]>> stacks(threads);
  for (auto& s : stacks) s.reset(new char[stack_bytes]);
  std::vector<unsigned> perm(threads);
  std::mt19937_64 rng(seed);
  arch::emu::current_block() = &block;
  arch::emu::grid_dim() = grid;
  arch::emu::block_dim() = Dim3{threads, 1, 1};
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        arch::emu::block_idx() = Dim3{bx, by, bz};
        for (const SharedRegion& r : shared) {
          const std::uint32_t poison = 0x7fbadbadu;
          auto* w = static_cast<std::uint32_t*>(r.base);
          std::fill(w, w + r.bytes / 4, poison);
        }
        for (unsigned t = 0; t < threads; ++t) detail::prepare(block.fibers[t], t, stacks[t].get(), stack_bytes);
        for (unsigned& c : block.named_count) c = 0;  // a block's named barriers start empty, as a CTA's do
        block.regs.clear();  // and its registers are its threads' launch shares (setmaxnreg)
        block.async.clear();  // and no wgmma in flight
        block.bulk.clear();   // nor TMA stores
        block.regs_free = 0;
        for (;;) {
          std::iota(perm.begin(), perm.end(), 0u);
          if (order == Order::reverse) std::reverse(perm.begin(), perm.end());
          if (order == Order::shuffled) std::shuffle(perm.begin(), perm.end(), rng);
          const unsigned starved_from = order == Order::starve_last_warpgroup && threads > 128 ? threads - 128 : threads;
          bool others_runnable = false;
          for (unsigned t = 0; t < starved_from; ++t) others_runnable = others_runnable || block.fibers[t].wait == Wait::none;
          for (unsigned t : perm) {
            arch::emu::Fiber& f = block.fibers[t];
            if (f.wait != Wait::none) continue;
            if (t >= starved_from && others_runnable) continue;
            block.current = &f;
            block.spin_addr = nullptr;
            arch::emu::thread_idx() = f.idx;
            swapcontext(&block.sched, &f.ctx);
            if (block.failure) {
              arch::emu::current_block() = nullptr;
              std::rethrow_exception(block.failure);
            }
          }
          // Every thread now waits or is done: release what is complete.
          unsigned done = 0, at_block = 0, at_poll = 0;
          for (const auto& f : block.fibers) {
            done += f.wait == Wait::done;
            at_block += f.wait == Wait::block;
            at_poll += f.wait == Wait::poll;
          }
          if (done == threads) break;
          bool released = false;
          for (unsigned g = 0; g < threads; g += 32) {
            bool all = true;
            for (unsigned l = 0; l < 32; ++l) all = all && block.fibers[g + l].wait == Wait::group;
            if (all) {
              for (unsigned l = 0; l < 32; ++l) block.fibers[g + l].wait = Wait::none;
              released = true;
            }
          }
          if (released) continue;
          if (at_block == threads) {
            for (auto& f : block.fibers) f.wait = Wait::none;
            continue;
          }
          // mbarrier waits: poll again after any arrival since they were last released.
          if (at_poll > 0 && block.arrivals != block.arrivals_seen) {
            block.arrivals_seen = block.arrivals;
            for (auto& f : block.fibers)
              if (f.wait == Wait::poll) f.wait = Wait::none;
            continue;
          }
          // Starved threads that could run: their turn comes now that no other can.
          if (std::any_of(block.fibers.begin(), block.fibers.end(), [](const auto& f) { return f.wait == Wait::none; }))
            continue;
          const std::string where = "block (" + std::to_string(bx) + ", " + std::to_string(by) + ", " +
                                    std::to_string(bz) + "): ";
          arch::emu::current_block() = nullptr;
          if (done > 0 && at_block > 0)
            throw std::logic_error("emulator: " + where + std::to_string(at_block) + " threads wait at a barrier after " +
                                   std::to_string(done) + " exited");
          if (at_poll > 0)
            throw std::logic_error("emulator: " + where + std::to_string(at_poll) +
                                   " threads poll for what no arrival can bring (mbarrier phases, named-barrier "
                                   "rounds, setmaxnreg registers)");
          throw std::logic_error("emulator: " + where +
                                 "threads wait at different synchronization points (a barrier or lane exchange "
                                 "not every thread reaches)");
        }
      }
  arch::emu::current_block() = nullptr;
}

}  // namespace samebits::gpu::emulator
