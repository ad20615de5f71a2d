// samebits/gpu/arch/emulator_sm90.hpp — the names of arch/nvptx_sm90.hpp for
// the fiber emulator (SAMEBITS_GPU_EMULATOR): the tensor-core kernels' source
// run on the CPU. wgmma's results are computed at issue (each thread its own
// accumulator elements, held until its commit group is waited for: the
// asynchrony below) with the tensor-core model (samebits::mma::sm90, under
// `params` below, tc::kHardwareParams by default) from shared memory read
// through the descriptor as the PTX ISA's canonical layouts say (no swizzle,
// or the 128-byte swizzle: emu_detail::at):
//   K-major (imm-trans 0): element (row, k) at start + (row/8)*SBO + (k/8)*LBO + (row%8)*16 + (k%8)*2
//   N-major (imm-trans-b 1): element (k, n) at start + (n/8)*SBO + (k/8)*LBO + (k%8)*16 + (n%8)*2
// and A fragments in registers gathered from the quad's lanes (lane
// exchanges). What this checks: that a kernel forms the products, groups,
// orders, scale-d flags, fragments and conversions its policy says, given
// that reading of the layouts, and that it waits for every result before it
// reads or overwrites what a pending wgmma owns. What it cannot: the hardware's reading of a
// descriptor and its arithmetic (tests/device/kernels/attention_tc_check.cu:
// its layout section and its grid).
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#include "samebits/gpu/tensor_map.hpp"
#include "samebits/libm/mma/sm90.hpp"

namespace samebits::gpu::arch::sm90 {

namespace emu_state {
// Descriptors hold shared addresses relative to this base (the emulating
// program's shared array; set it before a launch), as the hardware's hold
// shared-window addresses.
inline const void* shared_base = nullptr;
// The arithmetic the emulated tensor cores perform.
inline mma::sm90::Params params{};
// cvt.rn.{bf16,f16}.f32 (round to nearest even, fp16 overflow to inf, NaN
// canonical): the emulating program sets them (gpu/ sits below the kernels'
// dtype conversions, samebits/kernels/dtype.hpp).
inline std::uint16_t (*to_bf16)(float) = nullptr;
inline std::uint16_t (*to_f16)(float) = nullptr;
// TMA boxes copied so far (tma_load_3d) and stored (tma_store_3d): lets a test see that the TMA
// path ran.
inline std::uint64_t tma_boxes = 0;
inline std::uint64_t tma_stores = 0;
}  // namespace emu_state

inline std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(static_cast<const char*>(p) - static_cast<const char*>(emu_state::shared_base));
}

inline std::uint64_t smem_descriptor(const void* p, std::uint32_t lbo_bytes, std::uint32_t sbo_bytes) {
  const auto addr = static_cast<std::uint32_t>(static_cast<const char*>(p) -
                                               static_cast<const char*>(emu_state::shared_base));
  std::uint64_t d = 0;
  d |= static_cast<std::uint64_t>((addr & 0x3ffffu) >> 4);
  d |= static_cast<std::uint64_t>((lbo_bytes & 0x3ffffu) >> 4) << 16;
  d |= static_cast<std::uint64_t>((sbo_bytes & 0x3ffffu) >> 4) << 32;
  return d;
}

inline std::uint64_t smem_descriptor_sw128(const void* p, std::uint32_t lbo_bytes, std::uint32_t sbo_bytes) {
  return smem_descriptor(p, lbo_bytes, sbo_bytes) | (std::uint64_t{1} << 62);
}

// wgmma's asynchrony (emu::AsyncState): results wait in their commit group
// until wgmma_wait retires it; meanwhile the destination registers hold
// kPoison, so a kernel that reads an accumulator before waiting computes with
// a NaN (and fails its bitwise test), one that writes it or overwrites an A
// fragment register before waiting is reported when the group retires.
namespace emu_detail {
inline constexpr std::uint32_t kPoison = 0x7fdead00u;  // a quiet NaN no arithmetic here produces
inline emu::AsyncState& async_state() {
  emu::Block* b = emu::current_block();
  if (b->async.size() != b->fibers.size()) b->async.assign(b->fibers.size(), emu::AsyncState{});
  return b->async[b->current->linear];
}
// The newest pending results for destination d (the open group first), or nullptr.
inline const emu::AsyncWrite* newest_write(const emu::AsyncState& s, const float* d) {
  for (auto w = s.open.writes.rbegin(); w != s.open.writes.rend(); ++w)
    if (w->dst == d) return &*w;
  for (std::size_t g = s.committed.size(); g-- > 0;)
    for (auto w = s.committed[g].writes.rbegin(); w != s.committed[g].writes.rend(); ++w)
      if (w->dst == d) return &*w;
  return nullptr;
}
// Issue: the values d holds for this operation (a pending result chains on, as the hardware's
// accumulator does), then its results recorded in the open group and d poisoned.
template <int N>
void async_inputs(float (&d)[N / 2], float (&in)[N / 2]) {
  const emu::AsyncWrite* w = newest_write(async_state(), d);
  for (int i = 0; i < N / 2; ++i) in[i] = w ? fp::from_bits(w->bits[i]) : d[i];
}
template <int N>
void async_results(float (&d)[N / 2], const float (&out)[N / 2]) {
  emu::AsyncState& s = async_state();
  emu::AsyncWrite* w = nullptr;  // one entry per destination per group (a chain's steps update it)
  for (emu::AsyncWrite& x : s.open.writes)
    if (x.dst == d) w = &x;
  if (w == nullptr) w = &s.open.writes.emplace_back(emu::AsyncWrite{d, std::vector<std::uint32_t>(N / 2)});
  for (int i = 0; i < N / 2; ++i) {
    w->bits[i] = fp::to_bits(out[i]);
    d[i] = fp::from_bits(kPoison);
  }
}
inline void retire_oldest(emu::AsyncState& s) {
  const emu::AsyncGroup g = std::move(s.committed.front());
  s.committed.erase(s.committed.begin());
  for (const emu::AsyncSource& src : g.sources)
    for (std::size_t j = 0; j < src.bits.size(); ++j)
      if (src.src[j] != src.bits[j])
        throw std::logic_error("wgmma: an A-fragment register was overwritten before its group was waited for");
  for (const emu::AsyncWrite& w : g.writes) {
    for (std::size_t i = 0; i < w.bits.size(); ++i)
      if (fp::to_bits(w.dst[i]) != kPoison)
        throw std::logic_error("wgmma: an accumulator register was written before its group was waited for");
    if (newest_write(s, w.dst) != nullptr) continue;  // a newer pending operation owns it (chained)
    for (std::size_t i = 0; i < w.bits.size(); ++i) w.dst[i] = fp::from_bits(w.bits[i]);
  }
}
}  // namespace emu_detail

// wgmma.fence, commit_group and wait_group are .sync.aligned: a warp executes each converged, all
// 32 lanes together. Each is therefore a warp rendezvous here (as a lane exchange is), so no lane
// runs past one while another lane of its warp is still before it. Without it the emulator let the
// lanes of one warp drift apart across a pipeline's stages: in the stored-D^S dq pass lane 0 ran
// two stages ahead of lane 9 (it alone arrives on the empty barrier for its warp), the producer
// refilled the stage, and lane 9 waited forever on a phase parity that had come round again — a
// hang the hardware cannot reach (found by a shuffled-order test, attention-tc.md §12).
inline void wgmma_fence() { emu::yield(emu::Wait::group); }
inline void wgmma_commit() {
  emu::yield(emu::Wait::group);
  emu::AsyncState& s = emu_detail::async_state();
  s.committed.push_back(std::move(s.open));
  s.open = emu::AsyncGroup{};
}
// Groups retire oldest first until at most N remain pending (the open group is not one).
template <int N>
inline void wgmma_wait() {
  emu::yield(emu::Wait::group);
  emu::AsyncState& s = emu_detail::async_state();
  while (s.committed.size() > static_cast<std::size_t>(N)) emu_detail::retire_oldest(s);
}
inline void fence_proxy_async_shared() {}
inline void fence_operand(float&) {}
inline void fence_operand(std::uint32_t&) {}
// Lane 0's v (every lane of the 32-lane group takes part, as on the hardware's __shfl_sync).
inline int warp_uniform(int v) {
  return static_cast<int>(samebits::gpu::arch::exchange_lane(static_cast<std::uint32_t>(v), 0));
}
// pred in all 32 lanes of the group: a butterfly of exchanges, every lane ends with the AND.
inline bool warp_all(bool pred) {
  std::uint32_t v = pred ? 1u : 0u;
  for (unsigned mask = 1; mask < 32; mask <<= 1) v &= samebits::gpu::arch::shuffle_xor(v, mask);
  return v != 0;
}
// Named barriers as the hardware counts them: a round completes when `threads`
// threads have arrived (sync or arrive); the sync-ers wait for it (polling, as
// mbarrier waits do).
namespace emu_detail {
inline std::uint64_t named_arrive(int id, int threads) {
  emu::Block* b = emu::current_block();
  const std::uint64_t gen = b->named_gen[id];
  ++b->arrivals;
  if (++b->named_count[id] == static_cast<unsigned>(threads)) {
    b->named_count[id] = 0;
    ++b->named_gen[id];
  }
  return gen;
}
}  // namespace emu_detail
inline void named_barrier_sync(int id, int threads) {
  const std::uint64_t gen = emu_detail::named_arrive(id, threads);
  while (emu::current_block()->named_gen[id] == gen) emu::yield(emu::Wait::poll);
}
inline void named_barrier_arrive(int id, int threads) { emu_detail::named_arrive(id, threads); }

// mbarriers: the 8 bytes hold the arrivals the current phase still needs
// (low word) and the phase's parity (bit 31 of the high word) beside the
// count a phase needs (its low 31 bits). A wait polls: the fiber yields
// (Wait::poll) until another thread's arrival completes the phase; the
// launch reports a wait that no arrival can end. cp.async copies land at
// once, so their arrival is immediate.
// A phase also waits for its transaction bytes (expect_tx adds, a TMA copy's landing subtracts:
// emu::Block::mbar_tx): it completes when both its arrivals and its bytes are done. The
// kernels here always expect before they copy, so a count going below zero (a copy larger than
// expected) is reported, as is an arrival on a phase that has none pending.
namespace emu_detail {
inline std::uint32_t* mbar_words(std::uint64_t* bar) { return reinterpret_cast<std::uint32_t*>(bar); }
inline std::int64_t& mbar_tx(const std::uint64_t* bar) {
  auto& v = emu::current_block()->mbar_tx;
  for (auto& e : v)
    if (e.first == bar) return e.second;
  return v.emplace_back(bar, 0).second;
}
inline void mbar_complete_if_done(std::uint64_t* bar) {
  std::uint32_t* w = mbar_words(bar);
  if (w[0] == 0 && mbar_tx(bar) == 0) {
    w[1] ^= 0x80000000u;
    w[0] = w[1] & 0x7fffffffu;
  }
}
}  // namespace emu_detail
inline void mbarrier_init(std::uint64_t* bar, unsigned count) {
  std::uint32_t* w = emu_detail::mbar_words(bar);
  w[0] = count;
  w[1] = count & 0x7fffffffu;
  emu_detail::mbar_tx(bar) = 0;
}
inline void fence_mbarrier_init() {}
inline void mbarrier_arrive(std::uint64_t* bar) {
  std::uint32_t* w = emu_detail::mbar_words(bar);
  if (w[0] == 0) throw std::logic_error("mbarrier: an arrival on a phase with no arrivals pending");
  --w[0];
  emu_detail::mbar_complete_if_done(bar);
  ++emu::current_block()->arrivals;
}
inline void mbarrier_expect_tx(std::uint64_t* bar, std::uint32_t bytes) { emu_detail::mbar_tx(bar) += bytes; }
inline void mbarrier_wait(std::uint64_t* bar, unsigned parity) {
  // A wait is a point where the hardware may hold a thread while others run on, even when the
  // phase has already completed: yield once (still runnable), so that a schedule such as
  // Order::starve_last_warpgroup lets the other threads run ahead here — what a missing
  // hand-over lets them overwrite. Then poll: the phase of parity `parity` has completed once
  // the current phase's parity differs.
  emu::yield(emu::Wait::none);
  while ((emu_detail::mbar_words(bar)[1] >> 31) == (parity & 1u)) emu::yield(emu::Wait::poll);
}
inline void copy_async_mbarrier_arrive(std::uint64_t* bar) { mbarrier_arrive(bar); }

// A TMA box's elements, TMA's loads and stores alike: f(shared, global) for element (x, y, z) of
// the box at coordinates (c0, c1, c2) — shared: its address s0 + ((z box1 + y) box0 + x) 2 after the
// 128-byte swizzle, a ^ (((a >> 7) & 7) << 4); global: its address in the tensor, nullptr where
// the element lies outside it.
namespace emu_detail {
template <class F>
void for_each_box_element(const samebits::gpu::TensorMapShape& s, int c0, int c1, int c2, std::uint32_t s0, F f) {
  auto* base = static_cast<unsigned char*>(const_cast<void*>(s.base));
  for (std::uint32_t z = 0; z < s.box[2]; ++z)
    for (std::uint32_t y = 0; y < s.box[1]; ++y)
      for (std::uint32_t x = 0; x < s.box[0]; ++x) {
        const std::int64_t g0 = std::int64_t{c0} + x, g1 = std::int64_t{c1} + y, g2 = std::int64_t{c2} + z;
        const bool in = g0 >= 0 && g1 >= 0 && g2 >= 0 && static_cast<std::uint64_t>(g0) < s.dims[0] &&
                        static_cast<std::uint64_t>(g1) < s.dims[1] && static_cast<std::uint64_t>(g2) < s.dims[2];
        const std::uint32_t a = s0 + ((z * s.box[1] + y) * s.box[0] + x) * 2;
        f(a ^ (((a >> 7) & 7u) << 4),
          in ? base + g0 * 2 + g1 * static_cast<std::int64_t>(s.strides[0]) + g2 * static_cast<std::int64_t>(s.strides[1])
             : nullptr);
      }
}
}  // namespace emu_detail

// TMA (cp.async.bulk.tensor.3d, tile mode): the map holds its TensorMapShape (tensor_map.hpp's
// emulator branch). The box lands at once: element (x, y, z) of the box — coordinates (c0 + x,
// c1 + y, c2 + z), zero when any lies outside the tensor — at dst + ((z box1 + y) box0 + x) 2
// bytes, whose shared address a is then swizzled as the 128-byte mode does, a ^ (((a >> 7) & 7)
// << 4) (wgmma's reading, emu_detail::at, undoes it); then the box's bytes complete on bar.
// dst must be 1024-aligned: the swizzle's pattern repeats every 1024 bytes, and TcSwTile's
// tiles (what wgmma's descriptors describe) start there.
inline void tma_load_3d(void* dst, const void* map, int c0, int c1, int c2, std::uint64_t* bar) {
  samebits::gpu::TensorMapShape s;
  std::memcpy(&s, map, sizeof s);
  const std::uint32_t d0 = shared_address(dst);
  if (d0 % 1024 != 0) throw std::logic_error("tma_load_3d: destination not 1024-aligned (128-byte swizzle)");
  if (s.box[0] * 2 != 128) throw std::logic_error("tma_load_3d: the box's inner extent is not 128 bytes");
  auto* shared = static_cast<unsigned char*>(const_cast<void*>(emu_state::shared_base));
  emu_detail::for_each_box_element(s, c0, c1, c2, d0, [&](std::uint32_t sa, const unsigned char* g) {
    std::uint16_t v = 0;
    if (g != nullptr) std::memcpy(&v, g, 2);
    std::memcpy(shared + sa, &v, 2);
  });
  ++emu_state::tma_boxes;
  std::int64_t& tx = emu_detail::mbar_tx(bar);
  tx -= std::int64_t{s.box[0]} * s.box[1] * s.box[2] * 2;
  if (tx < 0) throw std::logic_error("tma_load_3d: more bytes landed than the mbarrier's phase expects");
  emu_detail::mbar_complete_if_done(bar);
  ++emu::current_block()->arrivals;
}
// TMA store (cp.async.bulk.tensor.3d.global.shared::cta.bulk_group, tile mode): the box at
// (c0, c1, c2) read from src in the 128-byte swizzle (for_each_box_element), written to the tensor
// where it lies inside (a TMA store writes nothing outside). The element's bits are taken at issue; the thread's
// bulk_wait_group(_read) that retires its group checks the shared bytes still hold them — the
// hardware reads them at some time in between, so a writer that had not finished before the
// issue (a missing fence or barrier) or one that overwrote them before the wait is reported —
// and writes global memory then.
namespace emu_detail {
inline emu::BulkState& bulk_state() {
  emu::Block* b = emu::current_block();
  if (b->bulk.size() != b->fibers.size()) b->bulk.assign(b->fibers.size(), emu::BulkState{});
  return b->bulk[b->current->linear];
}
inline void bulk_retire_oldest(emu::BulkState& s) {
  const std::vector<emu::BulkStore> g = std::move(s.committed.front());
  s.committed.erase(s.committed.begin());
  const auto* shared = static_cast<const unsigned char*>(emu_state::shared_base);
  for (const emu::BulkStore& st : g)
    for (std::size_t i = 0; i < st.src.size(); ++i) {
      std::uint16_t now;
      std::memcpy(&now, shared + st.src[i], 2);
      if (now != st.bits[i])
        throw std::logic_error(
            "tma_store_3d: its shared source changed between the store's issue and its wait_group "
            "(written after the issue, or overwritten before the wait)");
      if (st.dst[i] != nullptr) std::memcpy(st.dst[i], &now, 2);
    }
}
}  // namespace emu_detail
inline void tma_store_3d(const void* map, int c0, int c1, int c2, const void* src) {
  samebits::gpu::TensorMapShape s;
  std::memcpy(&s, map, sizeof s);
  const std::uint32_t s0 = shared_address(src);
  if (s0 % 1024 != 0) throw std::logic_error("tma_store_3d: source not 1024-aligned (128-byte swizzle)");
  if (s.box[0] * 2 != 128) throw std::logic_error("tma_store_3d: the box's inner extent is not 128 bytes");
  const auto* shared = static_cast<const unsigned char*>(emu_state::shared_base);
  emu::BulkStore st;
  emu_detail::for_each_box_element(s, c0, c1, c2, s0, [&](std::uint32_t sa, unsigned char* g) {
    std::uint16_t v;
    std::memcpy(&v, shared + sa, 2);
    st.src.push_back(sa);
    st.dst.push_back(g);
    st.bits.push_back(v);
  });
  ++emu_state::tma_stores;
  emu_detail::bulk_state().open.push_back(std::move(st));
}
inline void bulk_commit_group() {
  emu::BulkState& s = emu_detail::bulk_state();
  s.committed.push_back(std::move(s.open));
  s.open.clear();
}
// Groups retire oldest first until at most N remain (the open group is not one): .read (the
// shared source may be reused) and the full wait (the writes are done) alike here.
template <int N>
inline void bulk_wait_group_read() {
  emu::BulkState& s = emu_detail::bulk_state();
  while (s.committed.size() > static_cast<std::size_t>(N)) emu_detail::bulk_retire_oldest(s);
}
template <int N>
inline void bulk_wait_group() {
  bulk_wait_group_read<N>();
}

// setmaxnreg as a register pool: a block launched under __launch_bounds__(T, 1) (every kernel
// that reallocates) holds T x (65536 / T rounded down to a multiple of 8) registers, every
// thread starting with its share; .dec returns registers to the pool, .inc waits (polling)
// until the pool has what it asks, so a split that asks for more than the block holds is
// reported as a wait no arrival can end, as it hangs on the hardware.
namespace emu_detail {
inline int& thread_registers() {
  emu::Block* b = emu::current_block();
  if (b->regs.empty()) b->regs.assign(b->fibers.size(), 65536 / static_cast<int>(b->fibers.size()) / 8 * 8);
  return b->regs[b->current->linear];
}
}  // namespace emu_detail
template <int N>
inline void setmaxnreg_inc() {
  static_assert(N >= 24 && N <= 256 && N % 8 == 0, "setmaxnreg takes 24 .. 256 in steps of 8");
  int& mine = emu_detail::thread_registers();
  if (N < mine) throw std::logic_error("setmaxnreg.inc below the thread's current count");
  emu::Block* b = emu::current_block();
  while (b->regs_free < N - mine) emu::yield(emu::Wait::poll);
  b->regs_free -= N - mine;
  mine = N;
}
template <int N>
inline void setmaxnreg_dec() {
  static_assert(N >= 24 && N <= 256 && N % 8 == 0, "setmaxnreg takes 24 .. 256 in steps of 8");
  int& mine = emu_detail::thread_registers();
  if (N > mine) throw std::logic_error("setmaxnreg.dec above the thread's current count");
  emu::Block* b = emu::current_block();
  b->regs_free += mine - N;
  mine = N;
  ++b->arrivals;  // progress for a polling .inc
}

inline void load_coherent2(const float* p, float& x, float& y) {
  x = p[0];
  y = p[1];
}
inline void store_coherent2(float* p, float x, float y) {
  p[0] = x;
  p[1] = y;
}

inline void copy_async_16_or_zero(void* smem_dst, const void* gmem_src, bool valid) {
  if (valid) std::memcpy(smem_dst, gmem_src, 16);
  else std::memset(smem_dst, 0, 16);
}
inline void copy_async_4_or_zero(void* smem_dst, const void* gmem_src, bool valid) {
  if (valid) std::memcpy(smem_dst, gmem_src, 4);
  else std::memset(smem_dst, 0, 4);
}
template <int N>
inline void copy_async_wait() {}

inline std::uint32_t pack_bf16x2(float lo, float hi) {
  return std::uint32_t{emu_state::to_bf16(lo)} | (std::uint32_t{emu_state::to_bf16(hi)} << 16);
}
inline std::uint32_t pack_f16x2(float lo, float hi) {
  return std::uint32_t{emu_state::to_f16(lo)} | (std::uint32_t{emu_state::to_f16(hi)} << 16);
}

namespace emu_detail {

struct Desc {
  std::uint32_t start;  // shared address (from shared_base)
  std::uint32_t lbo, sbo;
  bool sw128;  // swizzle mode 1
};
inline Desc decode(std::uint64_t d) {
  return Desc{static_cast<std::uint32_t>((d & 0x3fffu) << 4), static_cast<std::uint32_t>(((d >> 16) & 0x3fffu) << 4),
              static_cast<std::uint32_t>(((d >> 32) & 0x3fffu) << 4), ((d >> 62) & 3u) == 1u};
}
inline std::uint16_t load16(std::uint32_t a) {
  std::uint16_t v;
  std::memcpy(&v, static_cast<const unsigned char*>(emu_state::shared_base) + a, 2);
  return v;
}
// Element (mn, k) of a K-major operand, or (k, mn) of an MN-major one (k < 16).
// No swizzle: core matrices of 8 x 16 bytes (LBO next 8 k, SBO next 8 mn in
// K-major; LBO next 8 k, SBO next 8 mn in MN-major). 128-byte swizzle: rows
// of 128 bytes, 8 to an atom, the address's bits 4-6 XOR its bits 7-9
// (K-major: SBO next 8 mn; MN-major: LBO next 64 mn, SBO next 8 k).
inline std::uint16_t at(const Desc& d, int mn, int k, bool mn_major) {
  if (d.sw128) {
    const std::uint32_t a = !mn_major ? d.start + (mn / 8) * d.sbo + (mn % 8) * 128 + k * 2
                                      : d.start + (mn / 64) * d.lbo + (k / 8) * d.sbo + (k % 8) * 128 + (mn % 64) * 2;
    return load16(a ^ (((a >> 7) & 7u) << 4));
  }
  if (!mn_major) return load16(d.start + (mn / 8) * d.sbo + (k / 8) * d.lbo + (mn % 8) * 16 + (k % 8) * 2);
  return load16(d.start + (mn / 8) * d.sbo + (k / 8) * d.lbo + (k % 8) * 16 + (mn % 8) * 2);
}
// The thread's accumulator element i of m64nNk16: row, column.
inline int frag_row(unsigned t, int i) { return 16 * static_cast<int>((t % 128) / 32) + static_cast<int>(t % 32) / 4 + 8 * ((i / 2) % 2); }
inline int frag_col(unsigned t, int i) { return 8 * (i / 4) + 2 * static_cast<int>(t % 4) + i % 2; }

template <int N>
void step(mma::sm90::Format f, float (&d)[N / 2], const std::uint16_t (*a)[16], const Desc& b, bool b_mn_major,
          int scale_d) {
  const unsigned t = emu::current_block()->current->linear;
  for (int i = 0; i < N / 2; ++i) {
    const int r = (i / 2) % 2, n = frag_col(t, i);
    std::uint16_t bk[16];
    for (int k = 0; k < 16; ++k) bk[k] = at(b, n, k, b_mn_major);
    const std::uint32_t res = scale_d ? mma::sm90::dot_add(f, a[r], bk, 16, fp::to_bits(d[i]), emu_state::params)
                                      : mma::sm90::dot(f, a[r], bk, 16, emu_state::params);
    d[i] = fp::from_bits(res);
  }
}

}  // namespace emu_detail

template <int N>
void wgmma_ss(mma::sm90::Format f, float (&d)[N / 2], std::uint64_t da, std::uint64_t db, int scale_d, bool trans_b,
              bool trans_a = false) {
  const unsigned t = emu::current_block()->current->linear;
  const emu_detail::Desc A = emu_detail::decode(da), B = emu_detail::decode(db);
  std::uint16_t a[2][16];
  for (int r = 0; r < 2; ++r)
    for (int k = 0; k < 16; ++k) a[r][k] = emu_detail::at(A, emu_detail::frag_row(t, 2 * r), k, trans_a);
  float acc[N / 2];
  emu_detail::async_inputs<N>(d, acc);
  emu_detail::step<N>(f, acc, a, B, trans_b, scale_d);
  emu_detail::async_results<N>(d, acc);
}

// A fragment: register j of lane (g, q) holds A(g + 8 (j % 2), 2q + 8 (j / 2) + {0, 1}), low half first.
template <int N>
void wgmma_rs(mma::sm90::Format f, float (&d)[N / 2], const std::uint32_t (&ra)[4], std::uint64_t db, int scale_d,
              bool trans_b) {
  const unsigned lane = emu::current_block()->current->linear & 31u, q = lane % 4;
  std::uint32_t regs[4][4];  // [quad lane][register]
  for (unsigned mask = 0; mask < 4; ++mask)
    for (int j = 0; j < 4; ++j) regs[q ^ mask][j] = mask == 0 ? ra[j] : shuffle_xor(ra[j], mask);
  std::uint16_t a[2][16];
  for (int qq = 0; qq < 4; ++qq)
    for (int j = 0; j < 4; ++j)
      for (int e = 0; e < 2; ++e)
        a[j % 2][2 * qq + 8 * (j / 2) + e] = static_cast<std::uint16_t>(regs[qq][j] >> (16 * e));
  float acc[N / 2];
  emu_detail::async_inputs<N>(d, acc);
  emu_detail::step<N>(f, acc, a, emu_detail::decode(db), trans_b, scale_d);
  emu_detail::async_results<N>(d, acc);
  emu_detail::async_state().open.sources.push_back(emu::AsyncSource{ra, {ra[0], ra[1], ra[2], ra[3]}});
}

}  // namespace samebits::gpu::arch::sm90
