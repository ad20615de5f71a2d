// The dense attention CUDA kernels' own source (kernels/src/cuda/attention_*),
// run on the CPU by the fiber emulator (samebits/gpu/emulator.hpp), against
// the CPU reference bit for bit: the forward at RM = 4 and 8 (the launcher's
// two tilings), and the whole backward as attention_launch_bwd.cu runs it (the
// workspace [delta | accum_k | accum_v | dq_accum | dq_flags] in one buffer,
// poisoned, then cleared where the launcher clears it; delta, the key-block
// kernel with its ticket counter and per-(query tile, head) dq flags, the
// head fold, dq's rounding). Problems: S in {1, 17, 100, 130}, causal or
// not, GQA 8/2, 4/4 and 6/3, varlen packs with empty sequences, chunked
// prefill (Lk > Lq) and Lq > Lk (rows with empty lists), D 64 and 128,
// inputs bf16 / f16 / f32, o and the gradients in the input dtype or f32, both
// libms, inputs read by the staged cp.async path (16-bit, 16-byte-readable),
// by load_tile's 16-byte words, or element by element (padded head strides,
// the pads NaN), NaN and inf in member rows.
// Each kernel runs with its threads in forward, reverse and shuffled order
// between synchronization points; the results must not change. Blocks run one
// after another in launch order, so the backward's flag waits must find their
// flag already published (the emulator reports a wait that cannot end).
// What this cannot see: the GPU's arithmetic and memory model (the device
// checks in tests/device/kernels/). Every bitwise comparison has a planted
// one-bit negative control.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "samebits/gpu/emulator.hpp"
#include "samebits/kernels/attention/reference_api.hpp"
#include "portable/attention/bwd_delta_kernel.cuh"
#include "portable/attention/bwd_fold_kernel.cuh"
#include "portable/attention/bwd_kernel.cuh"
#include "portable/attention/fwd_kernel.cuh"

namespace samebits::kernels::attention::cuda {
alignas(16) gpu::float4 smem4[227 * 1024 / 16];  // the kernels' extern shared array
}

namespace {

namespace sk = samebits::kernels;
namespace sa = samebits::kernels::attention;
namespace ac = samebits::kernels::attention::cuda;
namespace emu = samebits::gpu::emulator;
using sk::DType;
using sa::Libm;

const emu::Order kOrders[] = {emu::Order::forward, emu::Order::reverse, emu::Order::shuffled};
const char* order_name(emu::Order o) {
  return o == emu::Order::forward ? "forward" : o == emu::Order::reverse ? "reverse" : "shuffled";
}

std::uint32_t bits(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}
// The encoding an output element of dtype t gets from binary32 x (one
// rounding, canonical NaN: store_from_f32's).
std::uint32_t encode(DType t, float x) {
  return t == DType::f32 ? bits(sk::canonical(x)) : t == DType::bf16 ? sk::f32_to_bf16(x) : sk::f32_to_f16(x);
}
std::vector<std::uint32_t> encode_all(DType t, const std::vector<float>& x) {
  std::vector<std::uint32_t> e(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) e[i] = encode(t, x[i]);
  return e;
}
// The stored encodings of n elements of a contiguous tensor of dtype t.
std::vector<std::uint32_t> stored(const void* base, DType t, std::size_t n) {
  std::vector<std::uint32_t> e(n);
  for (std::size_t i = 0; i < n; ++i)
    e[i] = t == DType::f32 ? static_cast<const std::uint32_t*>(base)[i] : static_cast<const std::uint16_t*>(base)[i];
  return e;
}
std::vector<std::uint32_t> stored(const std::vector<float>& x) { return stored(x.data(), DType::f32, x.size()); }

std::size_t mismatches(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  REQUIRE(a.size() == b.size());
  std::size_t c = 0;
  for (std::size_t i = 0; i < a.size(); ++i) c += a[i] != b[i];
  return c;
}
// mismatches(a, b), after checking that the comparison finds a one-bit change
// planted in a copy of a (negative control).
std::size_t compare(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  REQUIRE(!a.empty());
  std::vector<std::uint32_t> c = a;
  c[c.size() / 2] ^= 1u;
  REQUIRE(mismatches(a, c) == 1);
  return mismatches(a, b);
}

// ---- problems ----------------------------------------------------------------

struct Shape {
  std::vector<int> lq, lk;  // per sequence
  int hq, hkv;
  bool causal;
  // Extra elements after each head's D in q, k, v, dO (NaN-filled): 0 keeps
  // them 16-byte readable (staged cp.async for 16-bit inputs, load_tile's
  // 16-byte words for f32); 2 makes every load element by element.
  int pad = 0;
  int slack = 0;         // added to max_seqlen_q / max_seqlen_k (upper bounds: blocks with no work)
  bool special = false;  // a NaN in one key row, an inf in one value row
  unsigned seed = 1;
};

std::string describe(const Shape& s) {
  std::string r = "lq {";
  for (int x : s.lq) r += std::to_string(x) + ",";
  r += "} lk {";
  for (int x : s.lk) r += std::to_string(x) + ",";
  r += "} hq " + std::to_string(s.hq) + " hkv " + std::to_string(s.hkv) + (s.causal ? " causal" : "") +
       " pad " + std::to_string(s.pad) + " slack " + std::to_string(s.slack) + (s.special ? " special" : "");
  return r;
}

// Storage of n elements of dtype t, 16-byte aligned, filled with a NaN that no
// kernel writes (outputs are canonical): an element left unwritten shows.
struct Buffer {
  DType t = DType::f32;
  std::size_t n = 0;
  std::vector<ac::uint4> mem;
  Buffer() = default;
  Buffer(DType type, std::size_t count) : t(type), n(count), mem((count * sk::dtype_size(type) + 15) / 16 + 1) {
    if (t == DType::f32) {
      auto* w = reinterpret_cast<std::uint32_t*>(mem.data());
      std::fill(w, w + mem.size() * 4, 0x7fbadbadu);
    } else {
      auto* w = reinterpret_cast<std::uint16_t*>(mem.data());
      std::fill(w, w + mem.size() * 8, std::uint16_t{0x7fbb});
    }
  }
  void* data() { return mem.data(); }
  const void* data() const { return mem.data(); }
  std::vector<std::uint32_t> enc() const { return stored(data(), t, n); }
  std::vector<float> widened() const {
    std::vector<float> f(n);
    for (std::size_t i = 0; i < n; ++i) f[i] = sk::load_as_f32(data(), t, static_cast<std::int64_t>(i));
    return f;
  }
};

// An input [rows, heads, D] of dtype t with head stride D + pad (the pads NaN,
// never read): the stored words and the logical elements widened (contiguous,
// what the reference takes).
struct Tensor {
  Buffer buf;
  std::int64_t rows = 0;
  int heads = 0, d = 0;
  sa::Strides st;
  std::vector<float> f;
  const void* data() const { return buf.data(); }
  void set(std::int64_t r, int h, int c, float x) {
    const std::int64_t i = r * st.row + static_cast<std::int64_t>(h) * st.head + c;
    sk::store_from_f32(buf.data(), buf.t, i, x);
    f[(r * heads + h) * d + c] = sk::load_as_f32(buf.data(), buf.t, i);
  }
};
Tensor make_tensor(DType t, std::int64_t rows, int heads, int d, int pad, std::mt19937& rng) {
  Tensor x;
  x.rows = rows;
  x.heads = heads;
  x.d = d;
  x.st = {static_cast<std::int64_t>(heads) * (d + pad), d + pad};
  x.buf = Buffer(t, static_cast<std::size_t>(rows * x.st.row));
  x.f.resize(static_cast<std::size_t>(rows * heads * d));
  std::normal_distribution<float> nd(0.0f, 1.0f);
  for (std::int64_t r = 0; r < rows; ++r)
    for (int h = 0; h < heads; ++h)
      for (int c = 0; c < d; ++c) x.set(r, h, c, nd(rng));
  return x;
}

struct Case {
  Shape s;
  sa::DenseProblem p;
  int max_q = 0, max_k = 0;
  Tensor q, k, v, dout;
};

Case make_case(const Shape& s, int d, DType in) {
  Case c;
  c.s = s;
  for (std::size_t i = 0; i < s.lq.size(); ++i) {
    c.p.cu_q.push_back(c.p.cu_q.back() + s.lq[i]);
    c.p.cu_k.push_back(c.p.cu_k.back() + s.lk[i]);
    c.max_q = std::max(c.max_q, s.lq[i]);
    c.max_k = std::max(c.max_k, s.lk[i]);
  }
  c.max_q += s.slack;
  c.max_k += s.slack;
  c.p.hq = s.hq;
  c.p.hkv = s.hkv;
  c.p.d = d;
  c.p.causal = s.causal;
  c.p.scale = sa::default_scale(d);
  std::mt19937 rng(s.seed);
  c.q = make_tensor(in, c.p.rows(), s.hq, d, s.pad, rng);
  c.k = make_tensor(in, c.p.kv_rows(), s.hkv, d, s.pad, rng);
  c.v = make_tensor(in, c.p.kv_rows(), s.hkv, d, s.pad, rng);
  c.dout = make_tensor(in, c.p.rows(), s.hq, d, s.pad, rng);
  if (s.special) {
    // Sequence 0: a NaN in key row Lk - 3 (causal: a member of the last rows'
    // lists only), an inf in value row 2.
    REQUIRE(s.lk[0] >= 3);
    c.k.set(s.lk[0] - 3, 0, 5, std::nanf(""));
    c.v.set(2, s.hkv - 1, 7, INFINITY);
  }
  return c;
}

void fill_problem(sa::ProblemParams& p, const Case& c, DType in, Libm libm) {
  p.cu_seqlens_q = c.p.cu_q.data();
  p.cu_seqlens_k = c.p.cu_k.data();
  p.num_seqs = static_cast<int>(c.s.lq.size());
  p.max_seqlen_q = c.max_q;
  p.max_seqlen_k = c.max_k;
  p.total_q = c.p.rows();
  p.total_k = c.p.kv_rows();
  p.hq = c.p.hq;
  p.hkv = c.p.hkv;
  p.d = c.p.d;
  p.causal = c.p.causal;
  p.scale = c.p.scale;
  p.in_dtype = in;
  p.libm = libm;
}

// ---- the reference -----------------------------------------------------------

struct Ref {
  std::vector<float> o, lse, dq, dk, dv;  // before their one rounding (lse: final)
};
// The forward, then the backward from o as stored in out_t (what the caller holds).
Ref reference(const Case& c, Libm libm, DType out_t) {
  Ref r;
  const std::size_t nq = c.q.f.size(), nk = c.k.f.size();
  r.o.resize(nq);
  r.lse.resize(static_cast<std::size_t>(c.p.rows() * c.p.hq));
  r.dq.resize(nq);
  r.dk.resize(nk);
  r.dv.resize(nk);
  sa::reference_forward(libm, c.p, c.q.f.data(), c.k.f.data(), c.v.f.data(), r.o.data(), r.lse.data());
  Buffer o_stored(out_t, nq);
  for (std::size_t i = 0; i < nq; ++i) sk::store_from_f32(o_stored.data(), out_t, static_cast<std::int64_t>(i), r.o[i]);
  const std::vector<float> o = o_stored.widened();
  sa::reference_backward(libm, c.p, c.q.f.data(), c.k.f.data(), c.v.f.data(), o.data(), c.dout.f.data(),
                         r.lse.data(), r.dq.data(), r.dk.data(), r.dv.data());
  return r;
}

// ---- the launchers, mirrored -------------------------------------------------

struct Fwd {
  Buffer o;
  std::vector<float> lse;
};

// attention_launch_fwd.cu's launch_rm: grid (query tiles of the longest
// sequence, hq, num_seqs); RM = 8 or 4 as use_tall_tiles chooses (both run here).
template <int D, int RM, class L, DType In, DType Out>
void launch_forward(const sa::ForwardParams& p, emu::Order order) {
  using Sm = ac::ForwardSmem<D, RM, In>;
  const emu::Dim3 grid{static_cast<unsigned>((p.max_seqlen_q + Sm::kRows - 1) / Sm::kRows),
                       static_cast<unsigned>(p.hq), static_cast<unsigned>(p.num_seqs)};
  if (grid.x == 0) return;
  emu::launch(grid, ac::kThreads, [&] { ac::attention_forward_kernel<D, RM, L, In, Out>(p); },
              {{ac::smem4, static_cast<std::size_t>(Sm::kBytes)}}, order);
}

template <int D, class L, DType In, DType Out>
Fwd forward(const Case& c, int rm, emu::Order order) {
  Fwd r;
  r.o = Buffer(Out, c.q.f.size());
  r.lse.assign(static_cast<std::size_t>(c.p.rows() * c.p.hq), samebits::fp::from_bits(0x7fbadbadu));
  sa::ForwardParams p;
  fill_problem(p, c, In, L::kLibm);
  p.tile_rows = 16 * rm;
  p.q = c.q.data();
  p.k = c.k.data();
  p.v = c.v.data();
  p.o = r.o.data();
  p.lse = r.lse.data();
  p.q_stride = c.q.st;
  p.k_stride = c.k.st;
  p.v_stride = c.v.st;
  p.o_stride = {static_cast<std::int64_t>(c.p.hq) * D, D};
  p.o_dtype = Out;
  if (rm == 8)
    launch_forward<D, 8, L, In, Out>(p, order);
  else
    launch_forward<D, 4, L, In, Out>(p, order);
  return r;
}

struct Bwd {
  Buffer dq, dk, dv;
  std::vector<float> delta, accum_k, accum_v;  // the workspace after the launch
  std::int64_t tickets = 0, blocks = 0;        // tickets taken, main-kernel blocks launched
};

unsigned blocks_for(std::int64_t n) { return static_cast<unsigned>((n + ac::kThreads - 1) / ac::kThreads); }
std::int64_t round_up_floats(std::int64_t n) { return (n + 63) / 64 * 64; }  // 256-byte parts

// attention_launch_bwd.cu's launch, in stream order, with the workspace laid
// out as the C ABI's (attention_validate.cpp: parts rounded up to 256 bytes).
// Departures from the launcher, for the negative controls only.
struct Planted {
  bool clear_dq_accum = true;  // false: dq's accumulators keep the workspace's poison
  int first_ticket = 0;        // the ticket counter's start (the launcher: 0)
};

template <int D, class L, DType In, DType OutO, DType Grad>
Bwd backward(const Case& c, const Fwd& f, emu::Order order, Planted planted = {}) {
  const std::int64_t tq = c.p.rows(), tk = c.p.kv_rows(), hq = c.p.hq, hkv = c.p.hkv;
  Bwd r;
  r.dq = Buffer(Grad, static_cast<std::size_t>(tq * hq * D));
  r.dk = Buffer(Grad, static_cast<std::size_t>(tk * hkv * D));
  r.dv = Buffer(Grad, static_cast<std::size_t>(tk * hkv * D));
  const std::int64_t n_delta = tq * hq, n_accum = tk * hq * D, n_dq = tq * hq * D, n_flags = tq * hq + 1;
  const std::int64_t o_accum_k = round_up_floats(n_delta), o_accum_v = o_accum_k + round_up_floats(n_accum),
                     o_dq = o_accum_v + round_up_floats(n_accum), o_flags = o_dq + round_up_floats(n_dq);
  Buffer ws(DType::f32, static_cast<std::size_t>(o_flags + round_up_floats(n_flags)));  // poisoned
  float* w = static_cast<float*>(ws.data());
  sa::BackwardParams p;
  fill_problem(p, c, In, L::kLibm);
  p.q = c.q.data();
  p.k = c.k.data();
  p.v = c.v.data();
  p.o = f.o.data();
  p.dout = c.dout.data();
  p.lse = f.lse.data();
  p.dq = r.dq.data();
  p.dk = r.dk.data();
  p.dv = r.dv.data();
  p.q_stride = c.q.st;
  p.k_stride = c.k.st;
  p.v_stride = c.v.st;
  p.dout_stride = c.dout.st;
  p.o_stride = p.dq_stride = {hq * D, D};
  p.dk_stride = p.dv_stride = {hkv * D, D};
  p.o_dtype = OutO;
  p.grad_dtype = Grad;
  p.delta = w;
  p.accum_k = w + o_accum_k;
  p.accum_v = w + o_accum_v;
  p.dq_accum = w + o_dq;
  p.dq_flags = reinterpret_cast<std::int32_t*>(w + o_flags);

  const std::int64_t rows_heads = tq * hq;
  std::memset(p.dq_flags, 0, static_cast<std::size_t>(rows_heads + 1) * sizeof(std::int32_t));
  p.dq_flags[rows_heads] = planted.first_ticket;
  if (tq > 0) {
    if (planted.clear_dq_accum) std::memset(p.dq_accum, 0, static_cast<std::size_t>(rows_heads) * D * sizeof(float));
    emu::launch({blocks_for(rows_heads), 1, 1}, ac::kThreads,
                [&] { ac::attention_bwd_delta_kernel<D, In, OutO>(p); }, {}, order);
  }
  if (tk > 0) {
    constexpr int kBytes = ac::BackwardSmem<D, In>::kBytes;
    r.blocks = static_cast<std::int64_t>((p.max_seqlen_k + ac::kTileKeys - 1) / ac::kTileKeys) * p.hq * p.num_seqs;
    REQUIRE(r.blocks <= 0x7fffffff);
    emu::launch({static_cast<unsigned>(r.blocks), 1, 1}, ac::kThreads, [&] { ac::attention_bwd_kernel<D, L, In>(p); },
                {{ac::smem4, static_cast<std::size_t>(kBytes)}}, order);
    emu::launch({blocks_for(tk * hkv * D), 1, 1}, ac::kThreads, [&] { ac::attention_bwd_fold_kernel<D, Grad>(p); }, {},
                order);
  }
  if (tq > 0)
    emu::launch({blocks_for(rows_heads * D), 1, 1}, ac::kThreads,
                [&] { ac::attention_bwd_dq_finish_kernel<D, Grad>(p); }, {}, order);
  r.tickets = p.dq_flags[rows_heads];
  r.delta.assign(p.delta, p.delta + n_delta);
  r.accum_k.assign(p.accum_k, p.accum_k + n_accum);
  r.accum_v.assign(p.accum_v, p.accum_v + n_accum);
  return r;
}

// ---- the check ---------------------------------------------------------------

template <int D, class L, DType In, DType Out, DType Grad>
void check(const Shape& s, bool all_orders = true) {
  INFO(describe(s) << " D " << D << " in " << sk::dtype_name(In) << " o " << sk::dtype_name(Out) << " grad "
                   << sk::dtype_name(Grad) << " libm " << sa::libm_name(L::kLibm));
  const Case c = make_case(s, D, In);
  // The load paths this case takes: 16-byte words (staged for 16-bit inputs)
  // without pads, element loads with them.
  CHECK(ac::vector_readable<In>(c.q.data(), c.q.st) == (s.pad == 0));
  CHECK(ac::vector_readable<In>(c.k.data(), c.k.st) == (s.pad == 0));
  const Ref ref = reference(c, L::kLibm, Out);
  if (s.special) {  // the NaN and the inf reach some rows' outputs, not all
    const auto nan = std::count_if(ref.o.begin(), ref.o.end(), [](float x) { return x != x; });
    CHECK(nan > 0);
    CHECK(static_cast<std::size_t>(nan) < ref.o.size() / 2);
  }
  const auto want_o = encode_all(Out, ref.o), want_lse = stored(ref.lse);
  const auto want_dq = encode_all(Grad, ref.dq), want_dk = encode_all(Grad, ref.dk), want_dv = encode_all(Grad, ref.dv);

  Fwd f0;
  bool first = true;
  for (int rm : {4, 8}) {
    for (emu::Order order : kOrders) {
      if (!all_orders && order != emu::Order::forward && rm == 4) continue;
      INFO("forward RM " << rm << " order " << order_name(order));
      Fwd f = forward<D, L, In, Out>(c, rm, order);
      CHECK(compare(f.o.enc(), want_o) == 0);
      CHECK(compare(stored(f.lse), want_lse) == 0);
      if (first) f0 = std::move(f);
      first = false;
    }
  }
  Bwd b0;
  first = true;
  for (emu::Order order : kOrders) {
    if (!all_orders && order == emu::Order::reverse) continue;
    INFO("backward order " << order_name(order));
    Bwd b = backward<D, L, In, Out, Grad>(c, f0, order);
    CHECK(compare(b.dq.enc(), want_dq) == 0);
    CHECK(compare(b.dk.enc(), want_dk) == 0);
    CHECK(compare(b.dv.enc(), want_dv) == 0);
    CHECK(b.tickets == b.blocks);  // every block took one ticket
    if (!first) {
      CHECK(compare(stored(b.delta), stored(b0.delta)) == 0);
      CHECK(compare(stored(b.accum_k), stored(b0.accum_k)) == 0);
      CHECK(compare(stored(b.accum_v), stored(b0.accum_v)) == 0);
    } else {
      b0 = std::move(b);
    }
    first = false;
  }
}

using ac::CrExpLog;
using ac::NvccExpLog;
constexpr DType bf16 = DType::bf16, f16 = DType::f16, f32 = DType::f32;

}  // namespace

// D, libm, input, o and gradient dtypes: both D, both libms, every input
// dtype, o and the gradients in the input dtype and in f32. Each with two or
// three problems: S in {1, 17, 100, 130}, causal or not, GQA 8/2, 4/4, 6/3,
// varlen packs, empty sequences, padded (element-load) inputs, special values.
TEST_CASE("emulated attention kernels == CPU reference: D=64, bf16, nvcc libm", "[kernels][attention][emulated]") {
  check<64, NvccExpLog, bf16, bf16, bf16>(Shape{{1}, {1}, 8, 2, true});
  check<64, NvccExpLog, bf16, bf16, bf16>(Shape{{17}, {17}, 4, 4, false, 0, 0, false, 2});
  // chunked prefill (Lk > Lq), a single row, a sequence no query attends, a short one
  check<64, NvccExpLog, bf16, bf16, bf16>(Shape{{100, 1, 0, 17}, {130, 1, 10, 17}, 8, 2, true, 0, 0, false, 3});
}

TEST_CASE("emulated attention kernels == CPU reference: D=128, bf16 -> f32, cr libm", "[kernels][attention][emulated]") {
  check<128, CrExpLog, bf16, f32, f32>(Shape{{130}, {130}, 8, 2, true, 0, 0, false, 4});
  // Lq > Lk, causal: the first rows have empty lists (o = +0, lse = -inf, dq = +0); max_seqlen slack
  check<128, CrExpLog, bf16, f32, f32>(Shape{{17, 40}, {17, 20}, 4, 4, true, 0, 70, false, 5});
}

TEST_CASE("emulated attention kernels == CPU reference: D=64, f16, cr libm (element loads, NaN and inf)",
          "[kernels][attention][emulated]") {
  check<64, CrExpLog, f16, f16, f32>(Shape{{100}, {100}, 4, 4, false, 2, 0, false, 6});
  check<64, CrExpLog, f16, f16, f32>(Shape{{130}, {130}, 8, 2, true, 0, 0, true, 7});
}

TEST_CASE("emulated attention kernels == CPU reference: D=128, f16 -> f32 o, nvcc libm",
          "[kernels][attention][emulated]") {
  check<128, NvccExpLog, f16, f32, f16>(Shape{{17, 3}, {100, 0}, 8, 2, false, 0, 0, false, 8});  // Lk = 0: empty lists
  check<128, NvccExpLog, f16, f32, f16>(Shape{{100}, {100}, 4, 4, true, 2, 0, false, 9});
}

TEST_CASE("emulated attention kernels == CPU reference: f32 inputs, both D, both libms",
          "[kernels][attention][emulated]") {
  check<64, NvccExpLog, f32, f32, f32>(Shape{{130}, {130}, 4, 4, true, 0, 0, false, 10});
  check<64, NvccExpLog, f32, f32, f32>(Shape{{17}, {17}, 6, 3, false, 2, 0, false, 11});
  check<128, CrExpLog, f32, f32, f32>(Shape{{100, 30}, {100, 30}, 8, 2, true, 0, 0, true, 12});
}

TEST_CASE("emulated attention backward: the launcher's clears and ticket matter (negative controls)",
          "[kernels][attention][emulated]") {
  const Case c = make_case(Shape{{130}, {130}, 4, 4, true, 0, 0, false, 13}, 64, bf16);
  const Ref ref = reference(c, Libm::nvcc, bf16);
  const Fwd f = forward<64, NvccExpLog, bf16, bf16>(c, 4, emu::Order::forward);
  REQUIRE(compare(f.o.enc(), encode_all(bf16, ref.o)) == 0);
  const auto want_dq = encode_all(bf16, ref.dq);
  CHECK(compare(backward<64, NvccExpLog, bf16, bf16, bf16>(c, f, emu::Order::forward).dq.enc(), want_dq) == 0);
  // dq's accumulators not cleared: key block 0 continues the chains from the poison.
  Planted dirty;
  dirty.clear_dq_accum = false;
  CHECK(compare(backward<64, NvccExpLog, bf16, bf16, bf16>(c, f, emu::Order::forward, dirty).dq.enc(), want_dq) > 0);
  // One ticket skipped: key block 0 of head 0 never runs, so key block 1 of
  // head 0 waits for a flag nothing publishes (reported, not a hang).
  Planted skipped;
  skipped.first_ticket = 1;
  CHECK_THROWS_WITH((backward<64, NvccExpLog, bf16, bf16, bf16>(c, f, emu::Order::forward, skipped)),
                    Catch::Contains("a wait that cannot end"));
}

// ---- the emulator's flag-wait guard: a wait for a later block is reported -----
namespace emu_controls {
// Block b is link n of a chain (n = b, or gridDim.x - 1 - b when backwards):
// thread 0 waits until flags[n] >= n (link n - 1 publishes it), then publishes
// flags[n + 1] = n + 1.
void chain_kernel(int* flags, bool backwards) {
  const int b = static_cast<int>(samebits::gpu::blockIdx.x), nb = static_cast<int>(samebits::gpu::gridDim.x);
  const int n = backwards ? nb - 1 - b : b;
  if (samebits::gpu::threadIdx.x == 0)
    while (samebits::gpu::load_acquire_agent(flags + n) < n) {
    }
  samebits::gpu::block_barrier();
  if (samebits::gpu::threadIdx.x == 0) samebits::gpu::store_release_agent(flags + n + 1, n + 1);
}
}  // namespace emu_controls

TEST_CASE("emulator: a flag wait on an earlier block passes; on a later block it is reported", "[emulator]") {
  for (bool backwards : {false, true}) {
    std::vector<int> flags(5, 0);
    auto run = [&] { emu::launch({4, 1, 1}, 64, [&] { emu_controls::chain_kernel(flags.data(), backwards); }); };
    if (backwards) {
      CHECK_THROWS_WITH(run(), Catch::Contains("a wait that cannot end"));
    } else {
      CHECK_NOTHROW(run());
      CHECK(flags[4] == 4);
    }
  }
}
