// The sparse MLA CUDA kernels' own source, run on the CPU by the fiber
// emulator (samebits/gpu/emulator.hpp), against the CPU reference bit for bit:
// the streamed and the 32/16-head forward, the whole backward pipeline (delta,
// d_sink, the streamed and the 16-head token kernel, contrib, pairs, a stable
// sort standing in for CUB's, offsets, dkv accumulate, finish), in chunks.
// Each kernel runs with its threads in forward, reverse and shuffled order
// between synchronization points; the results must not change (a missing
// barrier would make them). What this cannot see: the GPU's arithmetic and
// memory model (the device checks, tests/device/kernels/sparse_mla_check.cu).
// Every bitwise comparison has a planted one-bit negative control, and the
// emulator's own checks have theirs (a kernel missing a barrier gives
// order-dependent results; a divergent barrier is refused).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "samebits/gpu/emulator.hpp"
#include "samebits/kernels/sparse_mla/reference_api.hpp"
#include "portable/sparse_mla/bwd_streamed_kernel.cuh"

namespace samebits::kernels::sparse_mla::cuda {
alignas(16) gpu::float4 smem4[227 * 1024 / 16];  // the kernels' extern shared array
}

namespace {

namespace sk = samebits::kernels;
namespace sm = samebits::kernels::sparse_mla;
namespace smc = samebits::kernels::sparse_mla::cuda;
namespace ac = samebits::kernels::attention::cuda;
namespace emu = samebits::gpu::emulator;
using sk::DType;
using sk::attention::Libm;

std::uint32_t bits(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}
std::size_t mismatches(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  std::size_t c = 0;
  for (std::size_t i = 0; i < a.size(); ++i) c += bits(a[i]) != bits(b[i]);
  return c;
}
// The comparison finds a one-bit change planted in a copy (negative control).
void require_control(const std::vector<float>& a) {
  REQUIRE(!a.empty());
  std::vector<float> b = a;
  const std::uint32_t x = bits(b[b.size() / 2]) ^ 1u;
  std::memcpy(&b[b.size() / 2], &x, 4);
  REQUIRE(mismatches(a, b) == 1);
}

const emu::SharedRegion kShared{smc::smem4, sizeof smc::smem4};
const emu::Order kOrders[] = {emu::Order::forward, emu::Order::reverse, emu::Order::shuffled};

struct Case {
  sm::Problem p;
  std::vector<std::uint16_t> q, kv, dout;  // bf16
  std::vector<float> qf, kvf, doutf;        // the same values, widened
};

// T tokens over num_kv rows: per token a window of recent rows and pool rows,
// ~10% holes, a duplicate, token 1 fully masked, and (topk > 64) token 2's
// second block of 64 slots all holes (a block with no member is skipped).
Case make(std::int64_t T, std::int64_t num_kv, int heads, int d, int topk, unsigned seed, bool sink) {
  Case c;
  auto& p = c.p;
  p.tokens = T;
  p.num_kv = num_kv;
  p.heads = heads;
  p.d = d;
  p.topk = topk;
  p.scale = sk::attention::default_scale(d);
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::uniform_int_distribution<int> pick(0, static_cast<int>(num_kv - 1));
  std::uniform_int_distribution<int> pct(0, 99);
  p.indices.resize(T * topk);
  for (std::int64_t t = 0; t < T; ++t)
    for (int s = 0; s < topk; ++s) {
      int i = s < 16 ? static_cast<int>((t + num_kv - s) % num_kv) : pick(rng);
      if (pct(rng) < 10) i = -1;
      p.indices[t * topk + s] = i;
    }
  if (T > 1)
    for (int s = 0; s < topk; ++s) p.indices[1 * topk + s] = -1;
  if (T > 2 && topk > 64)
    for (int s = 64; s < 128 && s < topk; ++s) p.indices[2 * topk + s] = -1;
  if (topk > 5) p.indices[5] = p.indices[3] = (p.indices[3] < 0 ? 0 : p.indices[3]);  // a duplicate
  if (sink) {
    p.sink.resize(heads);
    for (auto& s : p.sink) s = nd(rng);
  }
  auto fill = [&](std::vector<std::uint16_t>& h, std::vector<float>& f, std::size_t n) {
    h.resize(n);
    f.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      h[i] = sk::f32_to_bf16(nd(rng));
      f[i] = sk::bf16_to_f32(h[i]);
    }
  };
  fill(c.q, c.qf, T * heads * d);
  fill(c.kv, c.kvf, num_kv * d);
  fill(c.dout, c.doutf, T * heads * d);
  return c;
}

struct Fwd {
  std::vector<float> o, lse, lse_excl;
  int error = 0;
};

template <int D, class L, DType In = DType::bf16>
Fwd forward(const Case& c, bool streamed, emu::Order order) {
  const auto& pr = c.p;
  Fwd r;
  r.o.assign(c.q.size(), 0.0f);
  r.lse.assign(pr.tokens * pr.heads, 0.0f);
  r.lse_excl.assign(r.lse.size(), 0.0f);
  sm::ForwardParams p;
  p.tokens = pr.tokens;
  p.num_kv = pr.num_kv;
  p.heads = pr.heads;
  p.d = D;
  p.topk = pr.topk;
  p.scale = pr.scale;
  p.in_dtype = In;
  p.libm = L::kLibm;
  p.indices = pr.indices.data();
  p.indices_row_stride = pr.topk;
  p.sink = pr.sink.empty() ? nullptr : pr.sink.data();
  p.error_flag = &r.error;
  p.q = In == DType::f32 ? static_cast<const void*>(c.qf.data()) : c.q.data();
  p.kv = In == DType::f32 ? static_cast<const void*>(c.kvf.data()) : c.kv.data();
  p.o = r.o.data();
  p.lse = r.lse.data();
  p.lse_excl = r.lse_excl.data();
  p.q_stride = {static_cast<std::int64_t>(pr.heads) * D, D};
  p.o_stride = p.q_stride;
  p.kv_row_stride = D;
  p.o_dtype = DType::f32;
  const unsigned T = static_cast<unsigned>(pr.tokens);
  if constexpr (In != DType::f32) {
    if (streamed) {
      emu::launch({T, static_cast<unsigned>((pr.heads + smc::kStreamHeads - 1) / smc::kStreamHeads), 1},
                  ac::kThreads, [&] { smc::sparse_mla_forward_streamed_kernel<D, L, In, DType::f32>(p); }, {kShared},
                  order);
      return r;
    }
  }
  emu::launch({T, static_cast<unsigned>((pr.heads + smc::kHeadsPerBlock - 1) / smc::kHeadsPerBlock), 1},
              ac::kThreads, [&] { smc::sparse_mla_forward_kernel<D, L, In, DType::f32>(p); }, {kShared}, order);
  return r;
}

struct Bwd {
  std::vector<float> dq, dkv, dsink, p, ds;  // p, ds: the last chunk's workspace
};

unsigned blocks_for(std::int64_t n) { return static_cast<unsigned>((n + ac::kThreads - 1) / ac::kThreads); }

// The launcher's sequence (sparse_mla_launch_bwd.cu) with a stable sort for CUB's.
template <int D, class L, DType In = DType::bf16>
Bwd backward(const Case& c, const Fwd& f, bool streamed, std::int64_t chunk, emu::Order order) {
  const auto& pr = c.p;
  Bwd r;
  r.dq.assign(c.q.size(), 0.0f);
  r.dkv.assign(c.kv.size(), 0.0f);
  r.dsink.assign(pr.heads, 0.0f);
  sm::BackwardParams b;
  b.tokens = pr.tokens;
  b.num_kv = pr.num_kv;
  b.heads = pr.heads;
  b.d = D;
  b.topk = pr.topk;
  b.scale = pr.scale;
  b.in_dtype = In;
  b.libm = L::kLibm;
  b.indices = pr.indices.data();
  b.indices_row_stride = pr.topk;
  b.sink = pr.sink.empty() ? nullptr : pr.sink.data();
  int error = 0;
  b.error_flag = &error;
  const bool f32 = In == DType::f32;
  b.q = f32 ? static_cast<const void*>(c.qf.data()) : c.q.data();
  b.kv = f32 ? static_cast<const void*>(c.kvf.data()) : c.kv.data();
  b.o = f.o.data();
  b.dout = f32 ? static_cast<const void*>(c.doutf.data()) : c.dout.data();
  b.lse = f.lse.data();
  b.dq = r.dq.data();
  b.dkv = r.dkv.data();
  b.dsink = r.dsink.data();
  b.q_stride = {static_cast<std::int64_t>(pr.heads) * D, D};
  b.o_stride = b.dout_stride = b.dq_stride = b.q_stride;
  b.kv_row_stride = b.dkv_row_stride = D;
  b.o_dtype = DType::f32;
  b.grad_dtype = DType::f32;
  const std::int64_t H = pr.heads, K = pr.topk, T = pr.tokens, N = pr.num_kv;
  std::vector<float> delta(T * H), accum(N * D, 0.0f), wp(chunk * H * K), wds(chunk * H * K), wc(chunk * K * D);
  std::vector<std::int32_t> keys(chunk * K), values(chunk * K), skeys(chunk * K), svalues(chunk * K), offsets(N + 1);
  smc::ChunkWorkspace w;
  w.p = wp.data();
  w.ds = wds.data();
  w.c = wc.data();
  w.keys = keys.data();
  w.values = values.data();
  w.sorted_keys = skeys.data();
  w.sorted_values = svalues.data();
  w.offsets = offsets.data();
  w.delta = delta.data();
  w.accum = accum.data();
  emu::launch({blocks_for(T * H), 1, 1}, ac::kThreads,
              [&] { smc::sparse_mla_bwd_delta_kernel<D, In, DType::f32>(b, delta.data()); }, {}, order);
  if (b.sink)
    emu::launch({blocks_for(H), 1, 1}, ac::kThreads, [&] { smc::sparse_mla_bwd_dsink_kernel<L>(b, delta.data()); }, {},
                order);
  for (std::int64_t t0 = 0; t0 < T; t0 += chunk) {
    w.t0 = t0;
    w.tokens = static_cast<int>(std::min(chunk, T - t0));
    const std::int64_t pairs = static_cast<std::int64_t>(w.tokens) * K;
    const unsigned nt = static_cast<unsigned>(w.tokens);
    bool done = false;
    if constexpr (In != DType::f32) {
      if (streamed) {
        emu::launch({nt, static_cast<unsigned>((H + smc::kStreamBwdHeads - 1) / smc::kStreamBwdHeads), 1},
                    ac::kThreads, [&] { smc::sparse_mla_bwd_token_streamed_kernel<D, L, In, DType::f32>(b, w); },
                    {kShared}, order);
        done = true;
      }
    }
    if (!done)
      emu::launch({nt, static_cast<unsigned>((H + smc::kBwdHeads - 1) / smc::kBwdHeads), 1}, ac::kThreads,
                  [&] { smc::sparse_mla_bwd_token_kernel<D, L, In, DType::f32>(b, w); }, {kShared}, order);
    emu::launch({static_cast<unsigned>(nt * ((K + 63) / 64) * (D / smc::kContribCols)), 1, 1}, ac::kThreads,
                [&] { smc::sparse_mla_bwd_contrib_kernel<D, In>(b, w); }, {kShared}, order);
    emu::launch({blocks_for(pairs), 1, 1}, ac::kThreads, [&] { smc::sparse_mla_bwd_pairs_kernel(b, w); }, {}, order);
    std::vector<std::int64_t> perm(pairs);
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(), [&](std::int64_t x, std::int64_t y) { return keys[x] < keys[y]; });
    for (std::int64_t i = 0; i < pairs; ++i) {
      skeys[i] = keys[perm[i]];
      svalues[i] = values[perm[i]];
    }
    emu::launch({blocks_for(N + 1), 1, 1}, ac::kThreads, [&] { smc::sparse_mla_bwd_offsets_kernel(b, w); }, {}, order);
    emu::launch({blocks_for(N * (D / 4)), 1, 1}, ac::kThreads, [&] { smc::sparse_mla_bwd_dkv_accum_kernel<D>(b, w); },
                {}, order);
  }
  emu::launch({blocks_for(N * D), 1, 1}, ac::kThreads,
              [&] { smc::sparse_mla_bwd_dkv_finish_kernel<D, DType::f32>(b, accum.data()); }, {}, order);
  r.p = wp;
  r.ds = wds;
  return r;
}

struct Ref {
  std::vector<float> o, lse, lse_excl, dq, dkv, dsink;
};
Ref reference(const Case& c, Libm libm) {
  Ref r;
  r.o.resize(c.qf.size());
  r.lse.resize(c.p.tokens * c.p.heads);
  r.lse_excl.resize(r.lse.size());
  r.dq.resize(c.qf.size());
  r.dkv.resize(c.kvf.size());
  r.dsink.assign(c.p.heads, 0.0f);
  sm::reference_forward(libm, c.p, c.qf.data(), c.kvf.data(), r.o.data(), r.lse.data(), r.lse_excl.data());
  sm::reference_backward(libm, c.p, c.qf.data(), c.kvf.data(), r.o.data(), c.doutf.data(), r.lse.data(), r.dq.data(),
                         r.dkv.data(), r.dsink.data());
  return r;
}

template <int D, class L>
void check_case(const Case& c, std::int64_t chunk) {
  const Ref ref = reference(c, L::kLibm);
  const Fwd f0 = forward<D, L>(c, true, emu::Order::forward);
  CHECK(f0.error == 0);
  CHECK(mismatches(f0.o, ref.o) == 0);
  CHECK(mismatches(f0.lse, ref.lse) == 0);
  CHECK(mismatches(f0.lse_excl, ref.lse_excl) == 0);
  require_control(f0.o);
  for (emu::Order order : kOrders) {
    INFO("order " << static_cast<int>(order));
    for (bool streamed : {true, false}) {
      INFO("streamed forward " << streamed);
      const Fwd f = forward<D, L>(c, streamed, order);
      CHECK(mismatches(f.o, f0.o) == 0);
      CHECK(mismatches(f.lse, f0.lse) == 0);
      CHECK(mismatches(f.lse_excl, f0.lse_excl) == 0);
    }
  }
  const Bwd b0 = backward<D, L>(c, f0, true, chunk, emu::Order::forward);
  CHECK(mismatches(b0.dq, ref.dq) == 0);
  CHECK(mismatches(b0.dkv, ref.dkv) == 0);
  if (!c.p.sink.empty()) CHECK(mismatches(b0.dsink, ref.dsink) == 0);
  require_control(b0.dq);
  require_control(b0.dkv);
  for (emu::Order order : kOrders) {
    INFO("order " << static_cast<int>(order));
    for (bool streamed : {true, false}) {
      INFO("streamed token kernel " << streamed);
      const Bwd b = backward<D, L>(c, f0, streamed, chunk, order);
      CHECK(mismatches(b.dq, b0.dq) == 0);
      CHECK(mismatches(b.dkv, b0.dkv) == 0);
      CHECK(mismatches(b.dsink, b0.dsink) == 0);
      CHECK(mismatches(b.p, b0.p) == 0);  // the workspace the contrib kernel reads, holes' +0 included
      CHECK(mismatches(b.ds, b0.ds) == 0);
    }
  }
}

}  // namespace

TEST_CASE("emulated sparse MLA kernels == CPU reference, D=128 (both libms, sink, holes, chunks)",
          "[kernels][sparse_mla][emulated]") {
  const Case c = make(9, 40, 80, 128, 130, 5, true);  // 80 heads: partial head groups; topk 130: a partial block
  check_case<128, ac::NvccExpLog>(c, 4);
  check_case<128, ac::CrExpLog>(c, 64);
}

TEST_CASE("emulated sparse MLA kernels == CPU reference, D=512, H=64 and 128", "[kernels][sparse_mla][emulated]") {
  check_case<512, ac::NvccExpLog>(make(4, 30, 64, 512, 64, 9, false), 2);
  check_case<512, ac::CrExpLog>(make(3, 200, 128, 512, 192, 13, true), 64);
}

TEST_CASE("emulated sparse MLA kernels, fp32 inputs (the 32/16-head kernels) == CPU reference",
          "[kernels][sparse_mla][emulated]") {
  // The same values as the bf16 case, given as fp32: the reference's inputs are identical.
  const Case c = make(5, 40, 80, 128, 130, 21, true);
  const Ref ref = reference(c, Libm::cr);
  for (emu::Order order : kOrders) {
    const Fwd f = forward<128, ac::CrExpLog, DType::f32>(c, false, order);
    CHECK(mismatches(f.o, ref.o) == 0);
    CHECK(mismatches(f.lse, ref.lse) == 0);
    CHECK(mismatches(f.lse_excl, ref.lse_excl) == 0);
    const Bwd b = backward<128, ac::CrExpLog, DType::f32>(c, f, false, 2, order);
    CHECK(mismatches(b.dq, ref.dq) == 0);
    CHECK(mismatches(b.dkv, ref.dkv) == 0);
    CHECK(mismatches(b.dsink, ref.dsink) == 0);
  }
}

TEST_CASE("emulated sparse MLA kernels: an out-of-range index raises the error flag and reads nothing",
          "[kernels][sparse_mla][emulated]") {
  Case c = make(3, 40, 64, 128, 64, 17, false);
  Case clean = c;
  c.p.indices[2 * 64 + 7] = 40;  // num_kv: out of range
  clean.p.indices[2 * 64 + 7] = -1;
  for (bool streamed : {true, false}) {
    const Fwd bad = forward<128, ac::NvccExpLog>(c, streamed, emu::Order::forward);
    const Fwd hole = forward<128, ac::NvccExpLog>(clean, streamed, emu::Order::forward);
    CHECK(bad.error > 0);
    CHECK(hole.error == 0);
    CHECK(mismatches(bad.o, hole.o) == 0);  // treated as a hole
  }
}

// ---- the emulator's own negative controls ------------------------------------------
namespace emu_controls {
alignas(16) samebits::gpu::float4 smem4[64];
// Thread t writes s[t], then (without a barrier when `barrier` is false) reads s[t ^ 1].
void neighbour_kernel(float* out, bool barrier) {
  float* s = reinterpret_cast<float*>(smem4);
  const unsigned t = samebits::gpu::threadIdx.x;
  s[t] = static_cast<float>(t);
  if (barrier) samebits::gpu::block_barrier();
  out[t] = s[t ^ 1u];
}
void divergent_kernel() {
  if (samebits::gpu::threadIdx.x < 16) samebits::gpu::block_barrier();
}
}  // namespace emu_controls

TEST_CASE("emulator: a missing barrier shows as order-dependent results; a divergent barrier is refused",
          "[emulator]") {
  const emu::SharedRegion sh{emu_controls::smem4, sizeof emu_controls::smem4};
  auto run = [&](bool barrier, emu::Order order) {
    std::vector<float> out(64);
    emu::launch({1, 1, 1}, 64, [&] { emu_controls::neighbour_kernel(out.data(), barrier); }, {sh}, order);
    return out;
  };
  CHECK(mismatches(run(true, emu::Order::forward), run(true, emu::Order::reverse)) == 0);
  CHECK(mismatches(run(false, emu::Order::forward), run(false, emu::Order::reverse)) > 0);
  CHECK_THROWS_AS(emu::launch({1, 1, 1}, 32, [] { emu_controls::divergent_kernel(); }), std::logic_error);
}
