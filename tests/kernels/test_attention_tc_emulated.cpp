// The sm90-tensor-core forward and backward kernels' own source
// (kernels/src/sm90/attention_tc/fwd_kernel.cuh, attention_tc_bwd_kernel.cuh
// with the launcher's delta, fold and dq finish) run on the CPU by the fiber
// emulator, its wgmma instructions executed by the tensor-core model
// (gpu/arch/emulator_sm90.hpp), against the CPU reference of the policy
// (reference_tc.hpp through reference_forward / reference_backward), bit for
// bit: o (in the input dtype or f32), lse, dq, dk, dv (and the handed-on dK/dV
// accumulators), for causal and non-causal attention, packed varlen
// sequences whose first row is not at a multiple of 128 positions, chunked
// prefill, Lq > Lk (empty lists), decode, D 64 and 128, bf16 and f16, both
// libms, threads in forward, reverse and shuffled order.
//
// What this checks: that the kernel forms the policy's products, k16 groups,
// orders, scale-d flags, fragments, row sums and conversions
// (attention-tc.md §3-§4, §11) given the PTX ISA's layouts as
// emulator_sm90.hpp reads them. What it cannot: the hardware (its descriptor
// reading and its arithmetic): tests/device/kernels/attention_tc_check.cu.
// Controls: a one-bit change is one mismatch; the emulated tensor cores with
// other model parameters (F = 24) give other bits (the model is on the path).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "samebits/gpu/emulator.hpp"
#include "samebits/kernels/attention/api.hpp"
#include "samebits/kernels/attention/reference_api.hpp"
#include "portable/attention/bwd_delta_kernel.cuh"
#include "portable/attention/bwd_fold_kernel.cuh"
#include "portable/attention/bwd_kernel.cuh"
#include "sm90/attention_tc/bwd_dq_kernel.cuh"
#include "sm90/attention_tc/bwd_dq_stored_kernel.cuh"
#include "sm90/attention_tc/bwd_kernel.cuh"
#include "sm90/attention_tc/fwd_kernel.cuh"
#include "validate/attention_validate.hpp"

namespace samebits::kernels::attention::cuda {
alignas(16) gpu::float4 smem4[227 * 1024 / 16];  // the kernel's extern shared array
}

namespace {

namespace sk = samebits::kernels;
namespace sa = samebits::kernels::attention;
namespace ac = samebits::kernels::attention::cuda;
namespace emu = samebits::gpu::emulator;
namespace sm90 = samebits::mma::sm90;
namespace emu_sm90 = samebits::gpu::arch::sm90::emu_state;
using sk::DType;
using sa::Libm;

struct Shape {
  std::vector<std::int32_t> lq, lk;
  bool causal;
  int hq, hkv;
  const char* tag;
};

struct Case {
  sa::DenseProblem p;
  DType in;
  std::vector<std::uint16_t> q, k, v, dout;  // operand encodings
  std::vector<float> qf, kf, vf, doutf;      // their exact widening
};

Case make_case(const Shape& s, int d, DType in, std::uint32_t seed) {
  Case c;
  c.in = in;
  for (std::size_t i = 0; i < s.lq.size(); ++i) {
    c.p.cu_q.push_back(c.p.cu_q.back() + s.lq[i]);
    c.p.cu_k.push_back(c.p.cu_k.back() + s.lk[i]);
  }
  c.p.hq = s.hq;
  c.p.hkv = s.hkv;
  c.p.d = d;
  c.p.causal = s.causal;
  c.p.scale = sa::default_scale(d);
  c.p.policy = sa::Policy::sm90_tensor_core;
  c.p.in_dtype = in;
  c.p.mma = sa::tc::kHardwareParams;
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  auto fill = [&](std::int64_t n, std::vector<std::uint16_t>& h, std::vector<float>& f) {
    h.resize(static_cast<std::size_t>(n));
    f.resize(h.size());
    for (std::size_t i = 0; i < h.size(); ++i) {
      h[i] = in == DType::bf16 ? sk::f32_to_bf16(nd(rng)) : sk::f32_to_f16(nd(rng));
      f[i] = in == DType::bf16 ? sk::bf16_to_f32(h[i]) : sk::f16_to_f32(h[i]);
    }
  };
  fill(c.p.rows() * s.hq * d, c.q, c.qf);
  fill(c.p.kv_rows() * s.hkv * d, c.k, c.kf);
  fill(c.p.kv_rows() * s.hkv * d, c.v, c.vf);
  fill(c.p.rows() * s.hq * d, c.dout, c.doutf);
  return c;
}

int max_len(const std::vector<std::int32_t>& cu) {
  int m = 0;
  for (std::size_t s = 0; s + 1 < cu.size(); ++s) m = std::max(m, cu[s + 1] - cu[s]);
  return m;
}

struct Out {
  std::vector<std::uint32_t> o, lse;  // encodings
};

// §27: the TMA maps the launchers pass (on), none (off: every tile by cp.async), or the pairs'
// maps swapped (K's for V's, Q's for dO's: the negative control that shows the boxes are read).
// ds_store_elsewhere: the dK/dV pass's D^S stores (§28) go to a decoy buffer, so the dq pass reads
// the workspace's poison where they should have landed (the control that shows they write it).
enum class TmaMode { on, off, swapped, ds_store_elsewhere };
TmaMode g_tma = TmaMode::on;
std::vector<std::uint64_t> g_ds_decoy;
ac::TcMaps tc_maps(const sa::ForwardParams& p) {
  ac::TcMaps m = ac::tc_forward_maps(p, g_tma != TmaMode::off);
  if (g_tma == TmaMode::swapped) std::swap(m.k, m.v);
  return m;
}
ac::TcMaps tc_maps(const sa::BackwardParams& p) {
  ac::TcMaps m = ac::tc_backward_maps(p, g_tma != TmaMode::off);
  if (g_tma == TmaMode::swapped) {
    std::swap(m.k, m.v);
    std::swap(m.q, m.dout);
  }
  if (g_tma == TmaMode::ds_store_elsewhere && p.ds_workspace != nullptr) {
    g_ds_decoy.assign(static_cast<std::size_t>(p.ds_workspace_bytes / 8), 0);
    sa::BackwardParams q = p;
    q.ds_workspace = g_ds_decoy.data();
    m.ds_half = ac::tc_backward_maps(q, true).ds_half;
  }
  return m;
}

// attention_tc_launch_fwd.cu's grid, run by the emulator.
// The problem's fields of case c, as the kernels' launchers receive them (forward and backward).
template <int D, DType In, class L>
void fill_problem(sa::ProblemParams& p, const Case& c) {
  p.cu_seqlens_q = c.p.cu_q.data();
  p.cu_seqlens_k = c.p.cu_k.data();
  p.num_seqs = static_cast<int>(c.p.cu_q.size()) - 1;
  p.max_seqlen_q = max_len(c.p.cu_q);
  p.max_seqlen_k = max_len(c.p.cu_k);
  p.total_q = c.p.rows();
  p.total_k = c.p.kv_rows();
  p.hq = c.p.hq;
  p.hkv = c.p.hkv;
  p.d = D;
  p.causal = c.p.causal;
  p.scale = c.p.scale;
  p.in_dtype = In;
  p.libm = L::kLibm;
  p.policy = sa::Policy::sm90_tensor_core;
}

template <int D, class L, DType In, DType OutT>
Out run_kernel(const Case& c, emu::Order order) {
  const std::size_t nq = c.q.size(), nl = static_cast<std::size_t>(c.p.rows() * c.p.hq);
  std::vector<unsigned char> o(nq * sk::dtype_size(OutT), 0xff);
  std::vector<float> lse(nl, samebits::fp::from_bits(0x7fbadbadu));
  sa::ForwardParams p;
  fill_problem<D, In, L>(p, c);
  p.q = c.q.data();
  p.k = c.k.data();
  p.v = c.v.data();
  p.o = o.data();
  p.lse = lse.data();
  p.q_stride = p.o_stride = {static_cast<std::int64_t>(c.p.hq) * D, D};
  p.k_stride = p.v_stride = {static_cast<std::int64_t>(c.p.hkv) * D, D};
  p.o_dtype = OutT;
  emu_sm90::shared_base = ac::smem4;
  const emu::Dim3 grid{static_cast<unsigned>((p.max_seqlen_q + ac::kTcRows - 1) / ac::kTcRows + 1),
                       static_cast<unsigned>(p.hq), static_cast<unsigned>(p.num_seqs)};
  const ac::TcMaps maps = tc_maps(p);
  emu::launch(grid, ac::kTcFwdThreads, [&] { ac::attention_tc_forward_kernel<D, L, In, OutT>(p, maps); },
              {{ac::smem4, static_cast<std::size_t>(ac::TcFwdLayout<D>::kBytes)}}, order);
  Out r;
  r.o.resize(nq);
  for (std::size_t i = 0; i < nq; ++i) {
    if (OutT == DType::f32) std::memcpy(&r.o[i], o.data() + 4 * i, 4);
    else {
      std::uint16_t h;
      std::memcpy(&h, o.data() + 2 * i, 2);
      r.o[i] = h;
    }
  }
  r.lse.resize(nl);
  for (std::size_t i = 0; i < nl; ++i) r.lse[i] = samebits::fp::to_bits(lse[i]);
  return r;
}

Out reference(const Case& c, Libm libm, DType out_t) {
  std::vector<float> o(c.qf.size()), lse(static_cast<std::size_t>(c.p.rows() * c.p.hq));
  sa::reference_forward(libm, c.p, c.qf.data(), c.kf.data(), c.vf.data(), o.data(), lse.data(), 2);
  Out r;
  r.o.resize(o.size());
  for (std::size_t i = 0; i < o.size(); ++i)
    r.o[i] = out_t == DType::f32    ? samebits::fp::to_bits(sk::canonical(o[i]))
             : out_t == DType::bf16 ? sk::f32_to_bf16(o[i])
                                    : sk::f32_to_f16(o[i]);
  r.lse.resize(lse.size());
  for (std::size_t i = 0; i < lse.size(); ++i) r.lse[i] = samebits::fp::to_bits(lse[i]);
  return r;
}

std::int64_t mismatches(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  std::int64_t n = a.size() != b.size();
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) n += a[i] != b[i];
  return n;
}

// The tensor-core arithmetic the emulated hardware and the reference both use
// (null: tc::kHardwareParams).
sm90::Params model_or_hw(const sm90::Params* model) { return model ? *model : sa::tc::kHardwareParams; }

template <int D, class L, DType In, DType OutT>
void check(const Shape& s, std::uint32_t seed, emu::Order order, const sm90::Params* model = nullptr) {
  Case c = make_case(s, D, In, seed);
  c.p.mma = model_or_hw(model);
  emu_sm90::params = c.p.mma;
  const Out want = reference(c, L::kLibm, OutT);
  const Out got = run_kernel<D, L, In, OutT>(c, order);
  INFO(s.tag << " D=" << D << " in=" << sk::dtype_name(In) << " out=" << sk::dtype_name(OutT)
             << " libm=" << sa::libm_name(L::kLibm));
  CHECK(mismatches(got.o, want.o) == 0);
  CHECK(mismatches(got.lse, want.lse) == 0);
  // Control: one flipped bit is one mismatch.
  Out planted = got;
  planted.o[planted.o.size() / 2] ^= 1u;
  CHECK(mismatches(planted.o, want.o) == mismatches(got.o, want.o) + 1);
}

const Shape kCausal130{{130}, {130}, true, 2, 1, "causal S=130"};
const Shape kVarlen{{37, 1, 130}, {200, 1, 130}, false, 2, 1, "not causal varlen 37/200, 1/1, 130/130"};
const Shape kChunks{{300, 5, 1}, {1, 140, 260}, true, 4, 2, "causal 300/1 (empty lists), 5/140, 1/260 (decode)"};
const Shape kOffset{{200}, {333}, true, 2, 2, "causal chunked prefill 200/333 (rows start at position 133)"};
// Five key blocks: the forward's three K/V stages wrap, and its two-blocks-per-trip loop ends on an odd block.
const Shape kLong{{70, 40}, {600, 560}, false, 2, 1, "not causal 70/600, 40/560 (5 key blocks each)"};
const Shape kLongCausal{{40}, {560}, true, 2, 2, "causal 40/560 (rows at positions 520..559: 5 key blocks)"};
const Shape kCausal320{{320}, {320}, true, 2, 1, "causal 320 (key block 0 visits 5 query tiles)"};

// ---- the backward ------------------------------------------------------------

struct Grads {
  std::vector<std::uint32_t> dq, dk, dv;  // encodings
  std::vector<float> accum_k, accum_v;    // the per-head accumulators before the fold
};

// The reference: forward (o rounded to its dtype, lse), then the backward
// from the stored o, with optional handed-on accumulators.
Grads reference_grads(const Case& c, Libm libm, DType grad_t, const std::vector<float>& o_stored,
                      const std::vector<float>& lse, const std::vector<float>* acc_in) {
  const std::size_t nq = c.qf.size(), nk = c.kf.size(), na = static_cast<std::size_t>(c.p.kv_rows() * c.p.hq * c.p.d);
  std::vector<float> dq(nq), dk(nk), dv(nk);
  Grads g;
  g.accum_k.resize(na);
  g.accum_v.resize(na);
  sa::reference_backward_handover(libm, c.p, c.qf.data(), c.kf.data(), c.vf.data(), o_stored.data(), c.doutf.data(),
                                  lse.data(), dq.data(), dk.data(), dv.data(), acc_in ? acc_in->data() : nullptr,
                                  acc_in ? acc_in->data() + na : nullptr, g.accum_k.data(), g.accum_v.data(), 2);
  auto enc = [&](const std::vector<float>& x) {
    std::vector<std::uint32_t> e(x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
      e[i] = grad_t == DType::f32    ? samebits::fp::to_bits(sk::canonical(x[i]))
             : grad_t == DType::bf16 ? sk::f32_to_bf16(x[i])
                                     : sk::f32_to_f16(x[i]);
    return e;
  };
  g.dq = enc(dq);
  g.dk = enc(dk);
  g.dv = enc(dv);
  return g;
}

std::vector<std::uint32_t> encodings(const std::vector<unsigned char>& b, DType t) {
  const std::size_t n = b.size() / sk::dtype_size(t);
  std::vector<std::uint32_t> e(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (t == DType::f32) std::memcpy(&e[i], b.data() + 4 * i, 4);
    else {
      std::uint16_t h;
      std::memcpy(&h, b.data() + 2 * i, 2);
      e[i] = h;
    }
  }
  return e;
}

enum class BwdForm { two_pass, two_pass_stored_ds, one_pass };

// The backward's arguments for case c as the launcher receives them, every output and workspace
// poisoned (NaN floats, 0x7fbadbad flags, 0xff bytes).
template <int D, DType In, DType OutO, DType Grad, class L>
struct BackwardArgs {
  std::vector<float> delta, acc_k, acc_v, dq_acc;
  std::vector<std::int32_t> flags;
  std::vector<unsigned char> dq, dk, dv;
  sa::BackwardParams p;
  BackwardArgs(const Case& c, const std::vector<unsigned char>& o_bytes, const std::vector<float>& lse,
               const std::vector<float>* acc_in) {
    const std::int64_t tq = c.p.rows(), tk = c.p.kv_rows(), hq = c.p.hq, hkv = c.p.hkv;
    const std::int64_t rows_heads = tq * hq, na = tk * hq * D;
    delta.assign(static_cast<std::size_t>(rows_heads), samebits::fp::from_bits(0x7fbadbadu));
    acc_k.assign(static_cast<std::size_t>(na), samebits::fp::from_bits(0x7fbadbadu));
    acc_v = acc_k;
    dq_acc.assign(static_cast<std::size_t>(rows_heads * D), samebits::fp::from_bits(0x7fbadbadu));
    flags.assign(static_cast<std::size_t>(rows_heads + 1), 0x7fbadbad);
    dq.assign(static_cast<std::size_t>(tq * hq * D) * sk::dtype_size(Grad), 0xff);
    dk.assign(static_cast<std::size_t>(tk * hkv * D) * sk::dtype_size(Grad), 0xff);
    dv = dk;
    fill_problem<D, In, L>(p, c);
    p.q = c.q.data();
    p.k = c.k.data();
    p.v = c.v.data();
    p.o = o_bytes.data();
    p.dout = c.dout.data();
    p.lse = lse.data();
    p.dq = dq.data();
    p.dk = dk.data();
    p.dv = dv.data();
    p.q_stride = p.o_stride = p.dout_stride = p.dq_stride = {hq * D, D};
    p.k_stride = p.v_stride = p.dk_stride = p.dv_stride = {hkv * D, D};
    p.o_dtype = OutO;
    p.grad_dtype = Grad;
    p.delta = delta.data();
    p.accum_k = acc_k.data();
    p.accum_v = acc_v.data();
    p.dq_accum = dq_acc.data();
    p.dq_flags = flags.data();
    if (acc_in) {
      p.accum_k_in = acc_in->data();
      p.accum_v_in = acc_in->data() + na;
    }
  }
};

// attention_tc_launch_bwd.cu, run by the emulator: the workspace poisoned,
// cleared where the launcher clears it; delta, the main kernel (blocks in
// ticket order), the fold, dq's finish where the launcher runs it.
template <int D, class L, DType In, DType OutO, DType Grad>
Grads run_backward(const Case& c, const std::vector<unsigned char>& o_bytes, const std::vector<float>& lse,
                   const std::vector<float>* acc_in, emu::Order order, BwdForm form) {
  const bool two_pass = form != BwdForm::one_pass;
  const std::int64_t tq = c.p.rows(), tk = c.p.kv_rows(), hq = c.p.hq, hkv = c.p.hkv;
  const std::int64_t rows_heads = tq * hq;
  BackwardArgs<D, In, OutO, Grad, L> args(c, o_bytes, lse, acc_in);
  sa::BackwardParams& p = args.p;
  std::vector<float>&acc_k = args.acc_k, &acc_v = args.acc_v, &dq_acc = args.dq_acc;
  std::vector<std::int32_t>& flags = args.flags;
  std::vector<unsigned char>&dq = args.dq, &dk = args.dk, &dv = args.dv;
  // §21: the stored D^S, poisoned (0xff: NaN in bf16 and f16) — a tile the dq pass reads but the
  // dK/dV pass did not write would show.
  struct alignas(16) Chunk16 {
    unsigned char b[16];
  };
  std::vector<Chunk16> ds_ws;
  if (form == BwdForm::two_pass_stored_ds) {
    p.ds_workspace_bytes = sa::backward_ds_workspace_bytes(p.num_seqs, p.max_seqlen_q, p.max_seqlen_k, p.hq);
    Chunk16 poison;
    std::memset(poison.b, 0xff, sizeof poison.b);
    ds_ws.assign(static_cast<std::size_t>(p.ds_workspace_bytes / 16), poison);
    p.ds_workspace = ds_ws.data();
  }
  const ac::TcMaps maps = tc_maps(p);
  emu_sm90::shared_base = ac::smem4;
  auto blocks_for = [](std::int64_t n) { return static_cast<unsigned>((n + ac::kThreads - 1) / ac::kThreads); };
  std::fill(flags.begin(), flags.end(), 0);
  if (tq > 0) {
    // The launcher clears dq's accumulators for the one-pass kernel only: the dq pass stores
    // every valid row's, so a poisoned workspace must not show through (launch_backward_pipeline).
    std::fill(dq_acc.begin(), dq_acc.end(), two_pass ? samebits::fp::from_bits(0x7fbadbadu) : 0.0f);
    emu::launch({blocks_for(rows_heads), 1, 1}, ac::kThreads, [&] { ac::attention_bwd_delta_kernel<D, In, OutO>(p); },
                {}, order);
  }
  if (tk > 0) {
    const std::int64_t blocks = static_cast<std::int64_t>((p.max_seqlen_k + ac::kTcKeys - 1) / ac::kTcKeys) * hq *
                                p.num_seqs;
    if (two_pass) {  // dK/dV, then the dq pass on the forward's grid
      emu::launch({static_cast<unsigned>(blocks), 1, 1}, ac::kTcThreads,
                  [&] { ac::attention_tc_bwd_kernel<D, L, In, false>(p, maps); },
                  {{ac::smem4, static_cast<std::size_t>(ac::TcBwdLayout<D>::kBytes)}}, order);
      const emu::Dim3 grid{static_cast<unsigned>((p.max_seqlen_q + ac::kTcRows - 1) / ac::kTcRows + 1),
                           static_cast<unsigned>(p.hq), static_cast<unsigned>(p.num_seqs)};
      if (form == BwdForm::two_pass_stored_ds)
        emu::launch(grid, ac::kTcFwdThreads, [&] { ac::attention_tc_bwd_dq_stored_kernel<D, In>(p, maps); },
                    {{ac::smem4, static_cast<std::size_t>(ac::TcDqStoredLayout<D>::kBytes)}}, order);
      else
        emu::launch(grid, ac::kTcFwdThreads, [&] { ac::attention_tc_bwd_dq_kernel<D, L, In>(p, maps); },
                    {{ac::smem4, static_cast<std::size_t>(ac::TcDqLayout<D>::kBytes)}}, order);
    } else {
      emu::launch({static_cast<unsigned>(blocks), 1, 1}, ac::kTcThreads,
                  [&] { ac::attention_tc_bwd_kernel<D, L, In, true>(p, maps); },
                  {{ac::smem4, static_cast<std::size_t>(ac::TcBwdLayout<D>::kBytes)}}, order);
    }
    emu::launch({blocks_for(tk * hkv * D), 1, 1}, ac::kThreads, [&] { ac::attention_bwd_fold_kernel<D, Grad, true>(p); },
                {}, order);
  }
  // The dq pass writes every valid row's dq itself (poisoned above: a row it missed would show);
  // the finish runs after the one-pass kernel, or when no key exists (launch_backward_pipeline).
  if (tq > 0 && (!two_pass || tk == 0)) {
    if (two_pass) std::fill(dq_acc.begin(), dq_acc.end(), 0.0f);  // the launcher's clear
    emu::launch({blocks_for(rows_heads * D), 1, 1}, ac::kThreads,
                [&] { ac::attention_bwd_dq_finish_kernel<D, Grad, true>(p); }, {}, order);
  }
  Grads g;
  g.dq = encodings(dq, Grad);
  g.dk = encodings(dk, Grad);
  g.dv = encodings(dv, Grad);
  g.accum_k = acc_k;
  g.accum_v = acc_v;
  return g;
}

std::int64_t float_mismatches(const std::vector<float>& a, const std::vector<float>& b) {
  std::int64_t n = a.size() != b.size();
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    n += samebits::fp::to_bits(a[i]) != samebits::fp::to_bits(b[i]);
  return n;
}

// Forward by the reference (o stored in OutO), then the backward both ways.
template <int D, class L, DType In, DType OutO, DType Grad>
void check_backward(const Shape& s, std::uint32_t seed, emu::Order order, bool handover = false,
                    const sm90::Params* model = nullptr, void (*plant)(Case&) = nullptr) {
  Case c = make_case(s, D, In, seed);
  if (plant) plant(c);
  c.p.mma = model_or_hw(model);
  emu_sm90::params = c.p.mma;
  std::vector<float> o(c.qf.size()), lse(static_cast<std::size_t>(c.p.rows() * c.p.hq));
  sa::reference_forward(L::kLibm, c.p, c.qf.data(), c.kf.data(), c.vf.data(), o.data(), lse.data(), 2);
  std::vector<unsigned char> o_bytes(o.size() * sk::dtype_size(OutO));
  std::vector<float> o_stored(o.size());
  for (std::size_t i = 0; i < o.size(); ++i) {
    sk::store_from_f32(o_bytes.data(), OutO, static_cast<std::int64_t>(i), o[i]);
    o_stored[i] = sk::load_as_f32(o_bytes.data(), OutO, static_cast<std::int64_t>(i));
  }
  std::vector<float> acc_in;
  if (handover) {
    std::mt19937 rng(seed + 17);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    acc_in.resize(static_cast<std::size_t>(2 * c.p.kv_rows() * c.p.hq * D));
    for (float& x : acc_in) x = nd(rng);
  }
  const Grads want = reference_grads(c, L::kLibm, Grad, o_stored, lse, handover ? &acc_in : nullptr);
  // Every backward: the two-pass one (the launcher's default), the same with the dq pass reading
  // the stored D^S (§21), and the one-pass one.
  for (BwdForm form : {BwdForm::two_pass, BwdForm::two_pass_stored_ds, BwdForm::one_pass}) {
    const bool two_pass = form != BwdForm::one_pass;
    const Grads got = run_backward<D, L, In, OutO, Grad>(c, o_bytes, lse, handover ? &acc_in : nullptr, order, form);
    INFO(s.tag << " D=" << D << " in=" << sk::dtype_name(In) << " grad=" << sk::dtype_name(Grad)
               << " libm=" << sa::libm_name(L::kLibm) << (handover ? " with hand-over" : "")
               << (!two_pass ? " one-pass" : form == BwdForm::two_pass ? " two-pass" : " two-pass, stored dS"));
    CHECK(mismatches(got.dq, want.dq) == 0);
    CHECK(mismatches(got.dk, want.dk) == 0);
    CHECK(mismatches(got.dv, want.dv) == 0);
    CHECK(float_mismatches(got.accum_k, want.accum_k) == 0);
    CHECK(float_mismatches(got.accum_v, want.accum_v) == 0);
    std::vector<std::uint32_t> planted = got.dq;
    planted[planted.size() / 3] ^= 1u;
    CHECK(mismatches(planted, want.dq) == mismatches(got.dq, want.dq) + 1);
  }
}

void use_model() {
  emu_sm90::params = sa::tc::kHardwareParams;
  emu_sm90::to_bf16 = sk::f32_to_bf16;
  emu_sm90::to_f16 = sk::f32_to_f16;
}

}  // namespace

TEST_CASE("tc forward emulated == reference: bf16, D = 64 and 128, causal and varlen", "[tc][emulated]") {
  use_model();
  check<64, ac::NvccExpLog, DType::bf16, DType::bf16>(kCausal130, 1, emu::Order::forward);
  check<128, ac::NvccExpLog, DType::bf16, DType::bf16>(kVarlen, 2, emu::Order::reverse);
  check<128, ac::NvccExpLog, DType::bf16, DType::bf16>(kChunks, 3, emu::Order::shuffled);
  check<64, ac::NvccExpLog, DType::bf16, DType::bf16>(kOffset, 4, emu::Order::forward);
  check<128, ac::NvccExpLog, DType::bf16, DType::bf16>(kLong, 10, emu::Order::shuffled);
  check<64, ac::CrExpLog, DType::f16, DType::f16>(kLongCausal, 11, emu::Order::reverse);
  // The producer warpgroup starved: the consumers run as far as the stage hand-over lets them.
  check<128, ac::NvccExpLog, DType::bf16, DType::bf16>(kLong, 16, emu::Order::starve_last_warpgroup);
}

TEST_CASE("tc forward emulated == reference: f16, cr libm, f32 outputs", "[tc][emulated]") {
  use_model();
  check<128, ac::CrExpLog, DType::f16, DType::f16>(kCausal130, 5, emu::Order::reverse);
  check<64, ac::CrExpLog, DType::f16, DType::f32>(kVarlen, 6, emu::Order::shuffled);
  check<128, ac::NvccExpLog, DType::bf16, DType::f32>(kOffset, 7, emu::Order::reverse);
  check<64, ac::CrExpLog, DType::bf16, DType::bf16>(kChunks, 8, emu::Order::forward);
}

// attention-tc.md §23: the nvcc-fast libm (nvcc -use_fast_math's expf, logf) in the same kernels.
TEST_CASE("tc forward emulated == reference: nvcc-fast libm", "[tc][emulated]") {
  use_model();
  check<128, ac::NvccFastExpLog, DType::bf16, DType::bf16>(kLong, 31, emu::Order::shuffled);
  check<64, ac::NvccFastExpLog, DType::f16, DType::f32>(kVarlen, 32, emu::Order::reverse);
  // The libm is on the path: nvcc's kernel gives other bits on the same inputs.
  const Case c = make_case(kLong, 128, DType::bf16, 31);
  const Out fast = reference(c, Libm::nvcc_fast, DType::bf16);
  const Out nvcc = run_kernel<128, ac::NvccExpLog, DType::bf16, DType::bf16>(c, emu::Order::forward);
  CHECK(mismatches(nvcc.o, fast.o) + mismatches(nvcc.lse, fast.lse) > 0);
}

TEST_CASE("tc forward emulated: the model is on the path (other parameters, other bits)", "[tc][emulated]") {
  emu_sm90::to_bf16 = sk::f32_to_bf16;
  emu_sm90::to_f16 = sk::f32_to_f16;
  const Case c = make_case(kCausal130, 64, DType::bf16, 9);
  const Out want = reference(c, Libm::nvcc, DType::bf16);
  emu_sm90::params = sa::tc::kHardwareParams;
  emu_sm90::params.frac_bits = 24;
  const Out other = run_kernel<64, ac::NvccExpLog, DType::bf16, DType::bf16>(c, emu::Order::forward);
  emu_sm90::params = sa::tc::kHardwareParams;
  CHECK(mismatches(other.o, want.o) + mismatches(other.lse, want.lse) > 0);
}

TEST_CASE("tc backward emulated == reference: dq, dk, dv, accumulators", "[tc][emulated][backward]") {
  use_model();
  check_backward<64, ac::NvccExpLog, DType::bf16, DType::bf16, DType::bf16>(kCausal130, 11, emu::Order::forward);
  check_backward<128, ac::NvccExpLog, DType::bf16, DType::bf16, DType::bf16>(kVarlen, 12, emu::Order::reverse);
  check_backward<64, ac::CrExpLog, DType::f16, DType::f16, DType::f32>(kChunks, 13, emu::Order::shuffled);
  check_backward<128, ac::CrExpLog, DType::bf16, DType::f32, DType::bf16>(kOffset, 14, emu::Order::forward);
  // The last warpgroup starved: the one-pass kernel's second consumer (the dq hand-over), the
  // dq pass's producer (the stage hand-over).
  check_backward<64, ac::NvccExpLog, DType::bf16, DType::bf16, DType::bf16>(kCausal130, 17, emu::Order::starve_last_warpgroup);
  check_backward<128, ac::NvccExpLog, DType::bf16, DType::bf16, DType::bf16>(kLongCausal, 18, emu::Order::starve_last_warpgroup);
  // Key blocks with 5 query tiles, the second warpgroup starved: the first runs ahead through the
  // dK/dV pass's three stages as far as their hand-over lets it.
  check_backward<64, ac::NvccExpLog, DType::bf16, DType::bf16, DType::bf16>(kCausal320, 19, emu::Order::starve_last_warpgroup);
}

TEST_CASE("tc backward emulated == reference: nvcc-fast libm", "[tc][emulated][backward]") {
  use_model();
  check_backward<128, ac::NvccFastExpLog, DType::bf16, DType::bf16, DType::bf16>(kLongCausal, 33, emu::Order::shuffled);
  check_backward<64, ac::NvccFastExpLog, DType::f16, DType::f32, DType::f16>(kVarlen, 34, emu::Order::starve_last_warpgroup);
}

// -inf in one element of K (key 5 of the first sequence, head group 0, column 3) and column 3
// of Q +1 in every row: that key's score is -inf in every row of the sequence (p = +0, ds = +0,
// its dK, dV finite), but 0 x -inf = NaN in a row outside the sequence (a zero row of Q). The
// backward must still equal the reference: a row outside the sequence takes no part (p, ds =
// +0 whatever S holds), so the zero rows of a tile that holds the sequence's last rows add +0
// products, not NaN.
void plant_minus_inf_key(Case& c) {
  const int d = c.p.d;
  const std::uint16_t one = c.in == DType::bf16 ? 0x3f80u : 0x3c00u, minus_inf = c.in == DType::bf16 ? 0xff80u : 0xfc00u;
  for (std::size_t r = 0; r < c.q.size() / static_cast<std::size_t>(d); ++r) {
    c.q[r * d + 3] = one;
    c.qf[r * d + 3] = 1.0f;
  }
  const std::size_t i = static_cast<std::size_t>(5 * c.p.hkv * d + 3);
  c.k[i] = minus_inf;
  c.kf[i] = -std::numeric_limits<float>::infinity();
}

TEST_CASE("tc backward emulated == reference: a -inf score, tiles with rows outside the sequence",
          "[tc][emulated][backward]") {
  use_model();
  // Not causal, 37 and 100 rows: each key block's last tile has rows outside the sequence and
  // every row in it sees the whole block.
  const Shape s{{37, 100}, {200, 130}, false, 2, 1, "not causal 37/200, 100/130, a -inf score"};
  check_backward<64, ac::NvccExpLog, DType::bf16, DType::bf16, DType::bf16>(s, 21, emu::Order::forward, false, nullptr,
                                                                           plant_minus_inf_key);
  // nvcc-fast's base 2 (§25): fma(-inf, c, -lse c) = -inf, exp2 = +0, as exp(-inf) in the natural form.
  check_backward<64, ac::NvccFastExpLog, DType::bf16, DType::bf16, DType::bf16>(s, 22, emu::Order::forward, false,
                                                                               nullptr, plant_minus_inf_key);
}

TEST_CASE("tc backward emulated == reference: handed-on accumulators (context parallelism)", "[tc][emulated][backward]") {
  use_model();
  // Rows start at position 144 (a multiple of 16, not of 64): the first tile holds zero rows.
  const Shape part{{112}, {256}, true, 2, 1, "causal part 112/256 (rows from position 144)"};
  check_backward<64, ac::NvccExpLog, DType::bf16, DType::bf16, DType::bf16>(part, 15, emu::Order::reverse, true);
}

// §21: the stored-D^S workspace is checked like every other argument (validate::check_backward, the
// host API's and the C ABI's one validation; a null PointerQuery asks no device questions).
TEST_CASE("tc backward: ds_workspace refused under fma-chain and when short, by name", "[tc][backward][validate]") {
  use_model();
  Case c = make_case(kCausal130, 64, DType::bf16, 41);
  std::vector<unsigned char> o_bytes(c.q.size(), 0);
  std::vector<float> lse(static_cast<std::size_t>(c.p.rows() * c.p.hq), 0.0f);
  BackwardArgs<64, DType::bf16, DType::bf16, DType::bf16, ac::NvccExpLog> a(c, o_bytes, lse, nullptr);
  const sa::HostSeqlens host{c.p.cu_q.data(), c.p.cu_k.data()};
  namespace kv = samebits::kernels::attention::validate;
  const std::int64_t need = sa::backward_ds_workspace_bytes(a.p.num_seqs, a.p.max_seqlen_q, a.p.max_seqlen_k, a.p.hq);
  REQUIRE(need == (130 / 64 + 2) * 2 * c.p.hq * 16384);  // ceil(130/64) + 1 query tiles, 2 key blocks
  std::vector<float> ws(static_cast<std::size_t>(need / 4));
  a.p.ds_workspace = ws.data();
  a.p.ds_workspace_bytes = need;
  CHECK(kv::check_backward(a.p, host, kv::PointerQuery{}).ok());  // control: the right size passes
  a.p.ds_workspace_bytes = need - 1;
  const sa::Status short_ws = kv::check_backward(a.p, host, kv::PointerQuery{});
  CHECK(short_ws.message.find("ds_workspace holds " + std::to_string(need - 1) + " bytes, "
                              "backward_ds_workspace_bytes() needs " + std::to_string(need)) != std::string::npos);
  a.p.ds_workspace_bytes = need;
  a.p.policy = sa::Policy::fma_chain;
  CHECK(kv::check_backward(a.p, host, kv::PointerQuery{}).message.find("sm90-tensor-core only") != std::string::npos);
  a.p.ds_workspace = nullptr;  // control: without it fma-chain passes
  CHECK(kv::check_backward(a.p, host, kv::PointerQuery{}).ok());
  CHECK(sa::backward_ds_workspace_bytes(1, -1, 1, 1) == -1);
  CHECK(sa::backward_ds_workspace_bytes(1 << 30, 1 << 30, 1 << 30, 65535) == -1);  // overflow
}

TEST_CASE("tc forward emulated: zero outputs are written +0 (attention-tc.md §7)", "[tc][emulated]") {
  use_model();
  // One head, 128 keys; column 0 of v is -0 for keys 0..20 and -1 after: row 20's column-0
  // products are all negative zeros (members: p x -0; later keys in its block: +0 x -1), its raw
  // o is -0, written +0 (the reference's example).
  const Shape one{{128}, {128}, true, 1, 1, "causal S=128, v[:, 0] = -0 then -1"};
  Case c = make_case(one, 64, DType::bf16, 21);
  for (int key = 0; key < 128; ++key) {
    const float x = key <= 20 ? -0.0f : -1.0f;
    c.v[static_cast<std::size_t>(key) * 64] = sk::f32_to_bf16(x);
    c.vf[static_cast<std::size_t>(key) * 64] = x;
  }
  const Out want = reference(c, Libm::nvcc, DType::bf16);
  const Out got = run_kernel<64, ac::NvccExpLog, DType::bf16, DType::bf16>(c, emu::Order::forward);
  CHECK(want.o[20 * 64] == 0u);  // +0, not 0x8000
  CHECK(mismatches(got.o, want.o) == 0);
  CHECK(mismatches(got.lse, want.lse) == 0);
}

TEST_CASE("tc kernels emulated == reference under the zero rules the H100 measured (ignored, +0)",
          "[tc][emulated][backward]") {
  // docs/kernels/mma.md §6: zero products ignored for the alignment and exact zeros +0 match the
  // hardware (every fp16 dot product of the probe). The kernels do not depend on the model's
  // parameters: under these the emulated kernels equal the reference too (forward, and the
  // backward with handed-on accumulators, where a zero step meets a nonzero C).
  use_model();
  sm90::Params measured = sa::tc::kHardwareParams;
  measured.zero_exponent = sm90::ZeroExponent::ignored;
  measured.zero_sign = sm90::ZeroSign::positive;
  check<128, ac::NvccExpLog, DType::f16, DType::f16>(kChunks, 31, emu::Order::forward, &measured);
  check<64, ac::CrExpLog, DType::bf16, DType::bf16>(kOffset, 32, emu::Order::shuffled, &measured);
  const Shape part{{112}, {256}, true, 2, 1, "causal part 112/256 (rows from position 144)"};
  check_backward<64, ac::NvccExpLog, DType::f16, DType::f16, DType::f16>(part, 33, emu::Order::reverse, true,
                                                                           &measured);
  check_backward<128, ac::CrExpLog, DType::bf16, DType::bf16, DType::f32>(kCausal130, 34, emu::Order::forward, false,
                                                                            &measured);
  emu_sm90::params = sa::tc::kHardwareParams;
}

// §27: whole tiles by TMA (tensor maps), the others by cp.async — the same bits. Every test above
// runs with the maps (g_tma = on); here the box count shows the TMA path ran, the same cases
// without maps equal the reference too, and swapped maps (K's box read for V, Q's for dO) break
// the bits: the boxes are what the kernels compute from.
TEST_CASE("tc kernels emulated: TMA boxes for whole tiles, cp.async for the rest, the same bits", "[tc][emulated][tma]") {
  use_model();
  // kLong: 600 and 560 keys (4 whole key blocks each, a partial fifth), 70 and 40 query rows
  // (tiles straddling the sequence's ends); kCausal320: 5 whole 64-row tiles.
  emu_sm90::tma_boxes = 0;
  check<128, ac::NvccExpLog, DType::bf16, DType::bf16>(kLong, 51, emu::Order::shuffled);
  CHECK(emu_sm90::tma_boxes > 0);
  emu_sm90::tma_boxes = emu_sm90::tma_stores = 0;
  check_backward<64, ac::NvccExpLog, DType::bf16, DType::bf16, DType::bf16>(kCausal320, 52, emu::Order::shuffled);
  CHECK(emu_sm90::tma_boxes > 0);
  CHECK(emu_sm90::tma_stores > 0);  // §28: the stored-D^S backward's dK/dV pass stored its tiles by TMA

  g_tma = TmaMode::off;
  emu_sm90::tma_boxes = emu_sm90::tma_stores = 0;
  check<128, ac::NvccExpLog, DType::bf16, DType::bf16>(kLong, 51, emu::Order::shuffled);
  check_backward<64, ac::NvccExpLog, DType::bf16, DType::bf16, DType::bf16>(kCausal320, 52, emu::Order::shuffled);
  CHECK(emu_sm90::tma_boxes == 0);
  CHECK(emu_sm90::tma_stores == 0);

  // Negative control: swapped maps.
  g_tma = TmaMode::swapped;
  {
    const Case c = make_case(kLong, 128, DType::bf16, 51);
    const Out want = reference(c, Libm::nvcc, DType::bf16);
    const Out got = run_kernel<128, ac::NvccExpLog, DType::bf16, DType::bf16>(c, emu::Order::forward);
    CHECK(mismatches(got.o, want.o) > 0);
  }
  {
    const Case c = make_case(kCausal320, 64, DType::bf16, 52);
    std::vector<float> o(c.qf.size()), lse(static_cast<std::size_t>(c.p.rows() * c.p.hq));
    sa::reference_forward(Libm::nvcc, c.p, c.qf.data(), c.kf.data(), c.vf.data(), o.data(), lse.data(), 2);
    std::vector<unsigned char> o_bytes(o.size() * 2);
    std::vector<float> o_stored(o.size());
    for (std::size_t i = 0; i < o.size(); ++i) {
      sk::store_from_f32(o_bytes.data(), DType::bf16, static_cast<std::int64_t>(i), o[i]);
      o_stored[i] = sk::load_as_f32(o_bytes.data(), DType::bf16, static_cast<std::int64_t>(i));
    }
    const Grads want = reference_grads(c, Libm::nvcc, DType::bf16, o_stored, lse, nullptr);
    for (BwdForm form : {BwdForm::two_pass, BwdForm::two_pass_stored_ds}) {
      const Grads got = run_backward<64, ac::NvccExpLog, DType::bf16, DType::bf16, DType::bf16>(
          c, o_bytes, lse, nullptr, emu::Order::forward, form);
      INFO((form == BwdForm::two_pass ? "two-pass" : "two-pass, stored dS"));
      CHECK(mismatches(got.dk, want.dk) > 0);
      CHECK(mismatches(got.dv, want.dv) > 0);
      CHECK(mismatches(got.dq, want.dq) > 0);
    }
    // §28's control: the D^S stores sent elsewhere leave the dq pass the workspace's poison.
    g_tma = TmaMode::ds_store_elsewhere;
    const Grads got = run_backward<64, ac::NvccExpLog, DType::bf16, DType::bf16, DType::bf16>(
        c, o_bytes, lse, nullptr, emu::Order::forward, BwdForm::two_pass_stored_ds);
    CHECK(mismatches(got.dq, want.dq) > 0);
    CHECK(mismatches(got.dk, want.dk) == 0);
  }
  g_tma = TmaMode::on;
}

TEST_CASE("tc TMA maps: made for aligned tensors, refused by name otherwise", "[tc][tma]") {
  namespace gpu = samebits::gpu;
  alignas(16) static std::uint16_t buf[4 * 2 * 128 + 8];
  gpu::TensorMap m;
  // [4 rows, 2 heads, 128] contiguous: made.
  CHECK(ac::tc_tile_map(m, buf, sa::Strides{256, 128}, 4, 2, 128, 64));
  // A base 2 bytes off 16-byte alignment, a row stride of 129 elements, a box of 300 rows, a d
  // of 96 (not whole 64-element rows): refused (the kernels then copy by cp.async).
  gpu::TensorMapShape s;
  s.base = buf;
  s.dims[0] = 128;
  s.dims[1] = 2;
  s.dims[2] = 4;
  s.strides[0] = 256;
  s.strides[1] = 512;
  s.box[0] = 64;
  s.box[1] = 1;
  s.box[2] = 64;
  CHECK(gpu::tensor_map_refusal(s) == nullptr);
  gpu::TensorMapShape bad = s;
  bad.base = buf + 1;
  CHECK(std::string(gpu::tensor_map_refusal(bad)).find("16-byte aligned") != std::string::npos);
  bad = s;
  bad.strides[1] = 258;
  CHECK(std::string(gpu::tensor_map_refusal(bad)).find("multiple of 16") != std::string::npos);
  bad = s;
  bad.box[2] = 300;
  CHECK(std::string(gpu::tensor_map_refusal(bad)).find("box extent") != std::string::npos);
  bad = s;
  bad.dims[0] = 96;
  CHECK(std::string(gpu::tensor_map_refusal(bad)).find("64-element") != std::string::npos);
  CHECK_FALSE(ac::tc_tile_map(m, buf + 1, sa::Strides{256, 128}, 4, 2, 128, 64));
  CHECK_FALSE(ac::tc_tile_map(m, buf, sa::Strides{256, 128}, 0, 2, 128, 64));  // no rows
  CHECK_FALSE(ac::tc_tile_map(m, buf, sa::Strides{256, 128}, std::int64_t{1} << 31, 2, 128, 64));  // coordinates are int32
}

// §27: the tensor-core backward stores dq (and the dK/dV accumulators) in pairs of adjacent columns;
// store_pair_from_f32 must write the bytes two store_from_f32 write, special values included.
TEST_CASE("tc: a pair store writes the bytes of two element stores (bf16, f16, f32)", "[tc]") {
  const float vals[] = {0.0f, -0.0f, 1.0f, -1.5f, 65504.0f, 70000.0f, 1e-8f, -3e-41f, 3.4e38f,
                        std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                        samebits::fp::from_bits(0x7fc00001u), samebits::fp::from_bits(0xffa00000u), 0.1f, 1.0f / 3.0f};
  constexpr int n = static_cast<int>(sizeof vals / sizeof vals[0]);
  for (DType t : {DType::bf16, DType::f16, DType::f32}) {
    alignas(16) unsigned char a[8 * n * n], b[8 * n * n];
    std::memset(a, 0xab, sizeof a);
    std::memset(b, 0xab, sizeof b);
    for (int x = 0; x < n; ++x)
      for (int y = 0; y < n; ++y) {
        const std::int64_t i = 2 * (x * n + y);
        sk::store_pair_from_f32(a, t, i, vals[x], vals[y]);
        sk::store_from_f32(b, t, i, vals[x]);
        sk::store_from_f32(b, t, i + 1, vals[y]);
      }
    INFO(sk::dtype_name(t));
    CHECK(std::memcmp(a, b, sizeof a) == 0);
    // Control: one element's lowest bit flipped is seen.
    a[sk::dtype_size(t) * 7] ^= 1u;
    CHECK(std::memcmp(a, b, sizeof a) != 0);
  }
}
