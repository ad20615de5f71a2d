// The sm90-tensor-core policy of the attention contract
// (docs/kernels/attention-tc.md): the CPU reference instantiated with the
// tensor-core model. Determinism and the invariances the policy claims (batch,
// prefill = chunked = decode, context-parallel hand-over at 16-row
// boundaries, head split), each compared by encodings with a planted-change
// negative control; the zero-product lemma of §7 on the model and its limits
// (format_min); accuracy against the high-precision oracle within bounds
// computed from the inputs; the model on the path (other Params, other bits);
// the refusals (float32 inputs, D = 256, bad Params, non-dtype values, a
// misaligned hand-over, and the GPU path, which has no kernel for the policy).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "samebits/kernels/attention/arith.hpp"
#include "samebits/kernels/attention/reference_api.hpp"
#include "samebits/kernels/attention/reference_tc.hpp"
#include "samebits/kernels/attention/tensor_core.hpp"
#include "samebits/kernels/c_api.h"
#include "samebits/kernels/dtype.hpp"
#include "samebits/libm/mma/sm90.hpp"
#include "samebits/libm/nvcc/mufu_model.hpp"

#include "bitwise.hpp"

namespace {

using namespace samebits::kernels;
using namespace samebits::kernels::attention;
namespace sm90 = samebits::mma::sm90;

using samebits::tests::bits;
using samebits::tests::mismatches;
std::size_t mismatches(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  return mismatches(a.data(), b.data(), a.size());
}

float through(DType t, float x) { return t == DType::bf16 ? bf16_to_f32(f32_to_bf16(x)) : f16_to_f32(f32_to_f16(x)); }

sm90::Params neutral_params(sm90::ZeroExponent z = sm90::ZeroExponent::fixed_m126) {
  sm90::Params p;
  p.zero_exponent = z;
  return p;
}
// The model's first reading (zero products at their format's minimum exponent, IEEE zero signs):
// not the hardware's (mma.md §6), kept as the non-neutral counterexample of §7-8.
sm90::Params format_min_params() {
  sm90::Params p;
  p.zero_exponent = sm90::ZeroExponent::format_min;
  p.zero_sign = sm90::ZeroSign::ieee;
  return p;
}

struct Inputs {
  DenseProblem p;
  std::vector<float> q, k, v, dout;
};

// Normal(0, sigma) draws rounded to the dtype.
Inputs make(std::vector<std::int32_t> lq, std::vector<std::int32_t> lk, int hq, int hkv, int d, bool causal,
            unsigned seed, DType dt, sm90::Params mma = {}) {
  Inputs in;
  for (std::size_t s = 0; s < lq.size(); ++s) {
    in.p.cu_q.push_back(in.p.cu_q.back() + lq[s]);
    in.p.cu_k.push_back(in.p.cu_k.back() + lk[s]);
  }
  in.p.hq = hq;
  in.p.hkv = hkv;
  in.p.d = d;
  in.p.causal = causal;
  in.p.scale = default_scale(d);
  in.p.policy = Policy::sm90_tensor_core;
  in.p.in_dtype = dt;
  in.p.mma = mma;
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  in.q.resize(static_cast<std::size_t>(in.p.rows()) * hq * d);
  in.dout.resize(in.q.size());
  in.k.resize(static_cast<std::size_t>(in.p.kv_rows()) * hkv * d);
  in.v.resize(in.k.size());
  for (auto* x : {&in.q, &in.k, &in.v, &in.dout})
    for (auto& e : *x) e = through(dt, nd(rng));
  return in;
}

struct Outputs {
  std::vector<float> o, lse, dq, dk, dv, ak, av;  // ak, av: the per-head accumulators handed on
};

// Forward, then the backward from the forward's o as the caller stores it
// (rounded to the input dtype) and its lse.
Outputs run(const Inputs& in, Libm libm = Libm::nvcc, unsigned threads = 0, const float* ak_in = nullptr,
            const float* av_in = nullptr, const std::vector<float>* o_stored = nullptr,
            const std::vector<float>* lse_given = nullptr) {
  Outputs r;
  const std::size_t nq = in.q.size(), nk = in.k.size();
  r.o.resize(nq);
  r.lse.resize(static_cast<std::size_t>(in.p.rows()) * in.p.hq);
  r.dq.resize(nq);
  r.dk.resize(nk);
  r.dv.resize(nk);
  r.ak.resize(static_cast<std::size_t>(in.p.kv_rows()) * in.p.hq * in.p.d);
  r.av.resize(r.ak.size());
  reference_forward(libm, in.p, in.q.data(), in.k.data(), in.v.data(), r.o.data(), r.lse.data(), threads);
  std::vector<float> o = o_stored ? *o_stored : r.o;
  if (!o_stored)
    for (auto& e : o) e = through(in.p.in_dtype, e);
  const std::vector<float>& lse = lse_given ? *lse_given : r.lse;
  Handover hand{ak_in, av_in, r.ak.data(), r.av.data()};
  reference_backward(libm, in.p, in.q.data(), in.k.data(), in.v.data(), o.data(), in.dout.data(), lse.data(),
                     r.dq.data(), r.dk.data(), r.dv.data(), threads, hand);
  return r;
}

// Rows [row0, row0 + rows) of a [rows, width] array.
std::vector<float> slice(const std::vector<float>& x, std::int64_t row0, std::int64_t rows, std::int64_t width) {
  return std::vector<float>(x.begin() + row0 * width, x.begin() + (row0 + rows) * width);
}
// Heads [h0, h0 + hn) of a [rows, heads, d] array.
std::vector<float> heads(const std::vector<float>& x, std::int64_t rows, int h_all, int h0, int hn, int d) {
  std::vector<float> r;
  for (std::int64_t i = 0; i < rows; ++i)
    r.insert(r.end(), x.begin() + (i * h_all + h0) * d, x.begin() + (i * h_all + h0 + hn) * d);
  return r;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// ---- the fingerprint ------------------------------------------------------------

TEST_CASE("tc: the fingerprint names the policy, the model's parameters, Bk and the libm", "[kernels][tc]") {
  DenseProblem p;
  p.policy = Policy::sm90_tensor_core;
  p.in_dtype = DType::bf16;
  CHECK(fingerprint(p, Libm::nvcc) ==
        "samebits-attention/1 policy=sm90-tc/1(F=25,G=16,R=rz,C=first,Z=ignored,P=raw,S=pos,O=inf,E=-133) Bk=128 libm=nvcc");
  CHECK(fingerprint(p, Libm::cr) ==
        "samebits-attention/1 policy=sm90-tc/1(F=25,G=16,R=rz,C=first,Z=ignored,P=raw,S=pos,O=inf,E=-133) Bk=128 libm=cr");
  // Every parameter shows: each change gives another string.
  const std::string base = fingerprint(p, Libm::nvcc);
  std::vector<std::string> seen{base};
  auto with = [&](auto change) {
    DenseProblem c = p;
    change(c.mma);
    const std::string f = fingerprint(c, Libm::nvcc);
    for (const auto& s : seen) CHECK(f != s);
    seen.push_back(f);
  };
  with([](sm90::Params& m) { m.frac_bits = 24; });
  with([](sm90::Params& m) { m.group = 8; });
  with([](sm90::Params& m) { m.rounding = sm90::Rounding::nearest_even; });
  with([](sm90::Params& m) { m.c_join = sm90::CJoin::after_products; });
  with([](sm90::Params& m) { m.zero_exponent = sm90::ZeroExponent::fixed_m126; });
  with([](sm90::Params& m) { m.zero_exponent = sm90::ZeroExponent::format_min; });
  with([](sm90::Params& m) { m.product_exponent = sm90::ProductExponent::normalized; });
  with([](sm90::Params& m) { m.zero_sign = sm90::ZeroSign::ieee; });
  with([](sm90::Params& m) { m.overflow = sm90::Overflow::saturate; });
  with([](sm90::Params& m) { m.emax_floor = sm90::kNoExponentFloor; });
  with([](sm90::Params& m) { m.emax_floor = -126; });
  // fma-chain's is unchanged, and the policy-only overload refuses to name sm90-tc without its Params.
  DenseProblem f;
  CHECK(fingerprint(f, Libm::nvcc) == "samebits-attention/1 policy=fma-chain/1 B=64 libm=nvcc");
  CHECK(message_of([] { (void)fingerprint(Policy::sm90_tensor_core, Libm::nvcc); }).find("model parameters") !=
        std::string::npos);
}

// ---- refusals ---------------------------------------------------------------------

TEST_CASE("tc: refusals name the argument (float32 inputs, D = 256, Params, non-dtype values, hand-over)",
          "[kernels][tc]") {
  const Inputs ok = make({20}, {20}, 2, 1, 64, true, 1, DType::bf16);
  std::vector<float> o(ok.q.size()), lse(20 * 2), dq(ok.q.size()), dk(ok.k.size()), dv(ok.k.size());
  auto fwd = [&](const DenseProblem& p, const Inputs& in) {
    return message_of([&] { reference_forward(Libm::nvcc, p, in.q.data(), in.k.data(), in.v.data(), o.data(), lse.data()); });
  };
  CHECK(fwd(ok.p, ok).empty());  // control: the valid problem runs

  DenseProblem f32 = ok.p;
  f32.in_dtype = DType::f32;
  CHECK(fwd(f32, ok) ==
        "samebits attention reference: in_dtype float32: policy sm90-tensor-core takes bfloat16 or float16 inputs "
        "(the tensor-core products take 16-bit operands)");
  DenseProblem d256 = ok.p;
  d256.d = 256;
  CHECK(fwd(d256, ok) == "samebits attention reference: d = 256: the head dim must be 64 or 128");
  DenseProblem g3 = ok.p;
  g3.mma.group = 3;
  CHECK(fwd(g3, ok) == "samebits attention reference: mma: group: must be in [1, k] and divide k");
  DenseProblem code = ok.p;
  code.policy = static_cast<Policy>(7);
  CHECK(fwd(code, ok).find("policy code 7 unknown") != std::string::npos);

  Inputs off = ok;
  off.k[77] = 0.1f;  // not a bf16 value
  CHECK(fwd(off.p, off) ==
        "samebits attention reference: policy sm90-tensor-core: k[77] = 0x1.99999ap-4 is not a bfloat16 value (the "
        "inputs must be the dtype's values, widened exactly)");
  Inputs nan = ok;
  nan.k[77] = samebits::fp::from_bits(0x7fc12345u);  // any NaN is a NaN operand
  CHECK(fwd(nan.p, nan).empty());
  // fp16: 1e-8 is below fp16's smallest subnormal, 70000 above its largest value.
  Inputs h = make({20}, {20}, 2, 1, 64, true, 1, DType::f16);
  CHECK(fwd(h.p, h).empty());
  h.q[3] = 70000.0f;
  CHECK(fwd(h.p, h).find("q[3] = 0x1.117p+16 is not a float16 value") != std::string::npos);

  // The hand-over needs 16-row group boundaries: queries 5.. of 40 keys (Lk - Lq = 5).
  Inputs part = make({35}, {40}, 2, 1, 64, true, 2, DType::bf16);
  std::vector<float> pq(part.q.size()), pk(part.k.size()), acc(static_cast<std::size_t>(40) * 2 * 64, 0.0f),
      plse(35 * 2, 0.0f);
  auto bwd = [&](const Inputs& in, const float* a) {
    return message_of([&] {
      reference_backward(Libm::nvcc, in.p, in.q.data(), in.k.data(), in.v.data(), in.q.data(), in.dout.data(),
                         plse.data(), pq.data(), pk.data(), pk.data(), 0, Handover{a, a, nullptr, nullptr});
    });
  };
  CHECK(bwd(part, acc.data()) ==
        "samebits attention reference: accum_k_in: policy sm90-tensor-core: handed-on dK/dV accumulators need every "
        "sequence to start at a 16-row group boundary: sequence 0 starts at query position Lk - Lq = 5, not a multiple "
        "of 16 (split queries at multiples of 16 rows)");
  CHECK(bwd(part, nullptr).empty());  // without a hand-over the part is a plain launch
  Inputs aligned = make({24}, {40}, 2, 1, 64, true, 2, DType::bf16);  // Lk - Lq = 16
  CHECK(bwd(aligned, acc.data()).empty());
}

TEST_CASE("tc: the GPU path takes the policy with the hardware's parameters only, the reference path runs it (C ABI)",
          "[kernels][tc]") {
  const int rows = 20, hq = 2, d = 64;
  const std::int32_t cu[2] = {0, rows};
  samebits_attention_problem p{};
  p.num_seqs = 1;
  p.max_seqlen_q = p.max_seqlen_k = rows;
  p.total_q = p.total_k = rows;
  p.hq = hq;
  p.hkv = 1;
  p.d = d;
  p.causal = 1;
  p.in_dtype = p.o_dtype = p.grad_dtype = SAMEBITS_BF16;
  p.libm = SAMEBITS_LIBM_NVCC;
  p.cu_seqlens_q = p.cu_seqlens_k = cu;  // host memory: only the validation reads anything here
  p.cu_seqlens_q_host = p.cu_seqlens_k_host = cu;
  p.policy = SAMEBITS_POLICY_SM90_TENSOR_CORE;
  p.scale = SAMEBITS_DEFAULT_SCALE;
  // Inputs and outputs in separate buffers (an output over an input is refused by name).
  std::vector<std::uint16_t> xin(static_cast<std::size_t>(rows) * hq * d, 0x3f80), xout(xin.size()), xk(rows * d, 0x3f80),
      xv(xk.size(), 0x3f80), xdq(xin.size()), xdk(xk.size()), xdv(xk.size()), xdo(xin.size(), 0x3f80);
  std::vector<float> lse(rows * hq);
  auto t3 = [](std::vector<std::uint16_t>& x, std::int64_t row) { return samebits_tensor3{x.data(), row, d}; };
  const samebits_tensor3 tq = t3(xin, hq * d), to = t3(xout, hq * d), tk = t3(xk, d), tv = t3(xv, d),
                         tdo = t3(xdo, hq * d), tdq = t3(xdq, hq * d), tdk = t3(xdk, d), tdv = t3(xdv, d);
  const std::int64_t ws_bytes = samebits_attention_backward_workspace_bytes(rows, rows, hq, d);
  std::vector<std::uint8_t> ws_raw(static_cast<std::size_t>(ws_bytes) + 256);
  void* ws = reinterpret_cast<void*>((reinterpret_cast<std::uintptr_t>(ws_raw.data()) + 255) / 256 * 256);
  // The hardware's parameters (mma null: the header's defaults = tc::kHardwareParams): not refused
  // for the policy (the call launches, or says the GPU path was not built, or that host memory is
  // not device memory) — as the same call under fma-chain.
  for (const std::int32_t policy : {SAMEBITS_POLICY_SM90_TENSOR_CORE, SAMEBITS_POLICY_FMA_CHAIN}) {
    samebits_attention_problem f = p;
    f.policy = policy;
    const std::int32_t rc = samebits_attention_forward(&f, tq, tk, tv, to, lse.data(), nullptr);
    CHECK(std::string(samebits_last_error()).find("policy") == std::string::npos);
    CHECK(rc != SAMEBITS_UNSUPPORTED);
    if (!samebits_has_cuda_kernels()) CHECK(rc == SAMEBITS_NOT_BUILT);  // the whole validation passed
    const std::int32_t rb = samebits_attention_backward(&f, tq, tk, tv, to, tdo, lse.data(), tdq, tdk, tdv, ws,
                                                        ws_bytes, nullptr, nullptr, nullptr);
    CHECK(std::string(samebits_last_error()).find("policy") == std::string::npos);
    CHECK(rb != SAMEBITS_UNSUPPORTED);
    if (!samebits_has_cuda_kernels()) CHECK(rb == SAMEBITS_NOT_BUILT);
  }
  // Other model parameters: the GPU cannot compute them, refused by name (forward and backward).
  samebits_mma_params other{24, 16, 0, 0, 0, 0, 0, 0};
  samebits_attention_problem o24 = p;
  o24.mma = &other;
  CHECK(samebits_attention_forward(&o24, tq, tk, tv, to, lse.data(), nullptr) == SAMEBITS_UNSUPPORTED);
  CHECK(std::string(samebits_last_error()).find("describe other arithmetic (the CPU reference computes it)") !=
        std::string::npos);
  CHECK(samebits_attention_backward(&o24, tq, tk, tv, to, tdo, lse.data(), tdq, tdk, tdv, ws, ws_bytes, nullptr,
                                    nullptr, nullptr) == SAMEBITS_UNSUPPORTED);
  CHECK(std::string(samebits_last_error()).find("F=24") != std::string::npos);
  // An unknown policy code and bad model parameters are refused by name.
  samebits_attention_problem u = p;
  u.policy = 9;
  CHECK(samebits_attention_forward(&u, tq, tk, tv, to, lse.data(), nullptr) == SAMEBITS_UNSUPPORTED);
  CHECK(std::string(samebits_last_error()) == "samebits attention: policy code 9 unknown (0 fma-chain, 1 sm90-tensor-core)");
  samebits_mma_params bad{25, 5, 0, 0, 0, 0, 0, 0};
  u = p;
  u.mma = &bad;
  CHECK(samebits_attention_forward(&u, tq, tk, tv, to, lse.data(), nullptr) == SAMEBITS_INVALID_ARGUMENT);
  CHECK(std::string(samebits_last_error()).find("mma: group: must be in [1, k] and divide k") != std::string::npos);

  // The reference path: runs the policy, and refuses float32 inputs under it.
  const Inputs in = make({rows}, {rows}, hq, 1, d, true, 4, DType::bf16);
  std::vector<float> o(in.q.size()), lse2(rows * hq);
  CHECK(samebits_attention_reference_forward(&p, in.q.data(), in.k.data(), in.v.data(), o.data(), lse2.data(), 1) ==
        SAMEBITS_OK);
  std::vector<float> o_cpp(in.q.size()), lse_cpp(rows * hq);
  reference_forward(Libm::nvcc, in.p, in.q.data(), in.k.data(), in.v.data(), o_cpp.data(), lse_cpp.data(), 1);
  CHECK(mismatches(o, o_cpp) == 0);
  CHECK(mismatches(lse2, lse_cpp) == 0);
  samebits_attention_problem r32 = p;
  r32.in_dtype = SAMEBITS_F32;
  CHECK(samebits_attention_reference_forward(&r32, in.q.data(), in.k.data(), in.v.data(), o.data(), lse2.data(), 1) ==
        SAMEBITS_UNSUPPORTED);
  CHECK(std::string(samebits_last_error()) ==
        "samebits attention: in_dtype float32: policy sm90-tensor-core takes bfloat16 or float16 inputs (the "
        "tensor-core products take 16-bit operands)");
  // The problem's fingerprint (with the model's parameters given: another string).
  char buf[256];
  CHECK(samebits_attention_problem_fingerprint(&p, buf, sizeof buf) == SAMEBITS_OK);
  CHECK(std::string(buf) == fingerprint(in.p, Libm::nvcc));
  samebits_mma_params m24{24, 16, 0, 0, 0, 0, 0, 0};
  u = p;
  u.mma = &m24;
  CHECK(samebits_attention_problem_fingerprint(&u, buf, sizeof buf) == SAMEBITS_OK);
  CHECK(std::string(buf).find("policy=sm90-tc/1(F=24,") != std::string::npos);
  samebits_attention_problem fc = p;
  fc.policy = SAMEBITS_POLICY_FMA_CHAIN;
  CHECK(samebits_attention_problem_fingerprint(&fc, buf, sizeof buf) == SAMEBITS_OK);
  CHECK(std::string(buf) == "samebits-attention/1 policy=fma-chain/1 B=64 libm=nvcc");
}

// ---- §23: the nvcc-fast libm -------------------------------------------------------

TEST_CASE("tc: libm nvcc-fast is -use_fast_math's expf/logf, the sm90-tensor-core policy's only", "[kernels][tc]") {
  // Its exp is one mul.ftz by log2(e) (0x3FB8AA3B, 0x1.715476p+0) and one ex2.approx.ftz; it is not
  // nvcc's expf (which reduces the argument exactly first) on every argument.
  int differ = 0;
  for (const float x : {-0.0f, -1.0f, -3.5f, -10.25f, -20.0f, -87.0f, -100.0f, 0.5f}) {
    const float want = samebits::nvcc::model::ex2_approx_ftz(x * samebits::fp::from_bits(0x3FB8AA3Bu));
    CHECK(bits(NvccFastLibm::exp(x)) == bits(want));
    differ += bits(NvccFastLibm::exp(x)) != bits(NvccLibm::exp(x));
  }
  CHECK(differ > 0);
  CHECK(bits(NvccFastLibm::exp(-std::numeric_limits<float>::infinity())) == 0u);  // p of a non-member: +0
  CHECK(bits(NvccFastLibm::exp(-100.0f)) == 0u);  // 2^-144.3: flushed (ftz), +0
  CHECK(bits(NvccLibm::exp(-100.0f)) != 0u);      // nvcc's expf keeps the subnormal
  CHECK(bits(NvccFastLibm::log(1.0f)) == 0u);

  const Inputs in = make({70}, {70}, 2, 1, 64, true, 3, DType::bf16);
  std::vector<float> o(in.q.size()), lse(70 * 2), o2(in.q.size()), lse2(70 * 2);
  reference_forward(Libm::nvcc_fast, in.p, in.q.data(), in.k.data(), in.v.data(), o.data(), lse.data(), 1);
  reference_forward(Libm::nvcc, in.p, in.q.data(), in.k.data(), in.v.data(), o2.data(), lse2.data(), 1);
  CHECK(mismatches(o, o2) + mismatches(lse, lse2) > 0);  // the libm is on the path
  CHECK(fingerprint(in.p, Libm::nvcc_fast) ==
        "samebits-attention/1 policy=sm90-tc/1(F=25,G=16,R=rz,C=first,Z=ignored,P=raw,S=pos,O=inf,E=-133) Bk=128 "
        "libm=nvcc-fast");
  Libm l{};
  CHECK((libm_from_name("nvcc-fast", l) && l == Libm::nvcc_fast));
  CHECK_FALSE(libm_from_name("fast", l));

  // fma-chain refuses it, by name: the reference and the C ABI.
  DenseProblem fc = in.p;
  fc.policy = Policy::fma_chain;
  CHECK(message_of([&] {
          reference_forward(Libm::nvcc_fast, fc, in.q.data(), in.k.data(), in.v.data(), o.data(), lse.data(), 1);
        }) == "samebits attention reference: libm nvcc-fast is offered by the sm90-tensor-core policy only (policy "
              "fma-chain takes nvcc or cr)");
  CHECK(message_of([&] {
          reference_forward(static_cast<Libm>(5), in.p, in.q.data(), in.k.data(), in.v.data(), o.data(), lse.data(), 1);
        }) == "samebits attention reference: libm code 5 unknown (0 nvcc, 1 cr, 2 nvcc-fast)");
  const std::int32_t cu[2] = {0, 70};
  samebits_attention_problem p{};
  p.num_seqs = 1;
  p.max_seqlen_q = p.max_seqlen_k = p.total_q = p.total_k = 70;
  p.hq = 2;
  p.hkv = 1;
  p.d = 64;
  p.causal = 1;
  p.in_dtype = p.o_dtype = p.grad_dtype = SAMEBITS_BF16;
  p.libm = SAMEBITS_LIBM_NVCC_FAST;
  p.cu_seqlens_q = p.cu_seqlens_k = p.cu_seqlens_q_host = p.cu_seqlens_k_host = cu;
  p.policy = SAMEBITS_POLICY_FMA_CHAIN;
  p.scale = SAMEBITS_DEFAULT_SCALE;
  std::vector<std::uint16_t> x(in.q.size(), 0x3f80);
  const samebits_tensor3 t{x.data(), 2 * 64, 64}, t1{x.data(), 64, 64};
  CHECK(samebits_attention_forward(&p, t, t1, t1, t, lse.data(), nullptr) == SAMEBITS_UNSUPPORTED);
  CHECK(std::string(samebits_last_error()).find("libm nvcc-fast is offered by the sm90-tensor-core policy only") !=
        std::string::npos);
  char buf[256];
  CHECK(samebits_attention_problem_fingerprint(&p, buf, sizeof buf) == SAMEBITS_UNSUPPORTED);
  // The policy takes it: the reference path computes the C++ reference's bits.
  p.policy = SAMEBITS_POLICY_SM90_TENSOR_CORE;
  CHECK(samebits_attention_reference_forward(&p, in.q.data(), in.k.data(), in.v.data(), o2.data(), lse2.data(), 1) ==
        SAMEBITS_OK);
  CHECK(mismatches(o2, o) == 0);
  CHECK(mismatches(lse2, lse) == 0);
  CHECK(samebits_attention_problem_fingerprint(&p, buf, sizeof buf) == SAMEBITS_OK);
  CHECK(std::string(buf) == fingerprint(in.p, Libm::nvcc_fast));
  CHECK(samebits_sparse_mla_fingerprint(SAMEBITS_LIBM_NVCC_FAST, buf, sizeof buf) == SAMEBITS_UNSUPPORTED);
}

// ---- §25: nvcc-fast's softmax is base 2 ---------------------------------------------

TEST_CASE("tc: nvcc-fast's softmax is FlashAttention-3's base-2 form, written out by hand", "[kernels][tc]") {
  // One query row, two keys, D = 64, q = e0 and k_x = (s_x, 0, ...): the scores are the exact
  // integers s_x whatever the tensor-core model (one nonzero product). §25 then gives, with
  // c = mul(scale, log2 e) and m = max s (unscaled):
  //   p_x = exp2(fma(s_x, c, -mul(m, c))), l = add(add(+0, p_0), p_1) (thread 0's columns 0, 1),
  //   lse = add(mul(m, scale), log(l)).
  // The natural form, exp(sub(mul(s, scale), mul(m, scale))), gives other bits for these scores.
  using A = FloatArith<NvccFastLibm>;
  Inputs in = make({1}, {2}, 1, 1, 64, false, 1, DType::bf16);
  std::fill(in.q.begin(), in.q.end(), 0.0f);
  std::fill(in.k.begin(), in.k.end(), 0.0f);
  in.q[0] = 1.0f;
  std::vector<float> o(in.q.size()), lse(1), o_nat(in.q.size()), lse_nat(1);
  const float scale = in.p.scale, c = A::mul(scale, A::log2e());
  int differ = 0;
  for (const float s0 : {-40.0f, -12.0f, -7.0f, -5.0f, -3.0f, -2.0f, -1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 2.0f, 3.0f, 4.0f,
                         4.5f, 6.0f, 7.0f, 9.0f, 12.0f, 17.0f}) {
    const float s1 = 5.0f;
    in.k[0] = s0;
    in.k[64] = s1;
    reference_forward(Libm::nvcc_fast, in.p, in.q.data(), in.k.data(), in.v.data(), o.data(), lse.data(), 1);
    const float m = std::max(s0, s1), mc = A::mul(m, c);
    const float p0 = A::exp2(A::fma(s0, c, -mc)), p1 = A::exp2(A::fma(s1, c, -mc));
    const float l = A::add(A::add(0.0f, p0), p1);
    const float want = A::add(A::mul(m, scale), A::log(l));
    CHECK(bits(lse[0]) == bits(want));
    // The natural form's lse for the same scores (the check's negative control: it must differ
    // somewhere).
    const float t0 = A::mul(s0, scale), t1 = A::mul(s1, scale), tm = std::max(t0, t1);
    const float l_nat = A::add(A::add(0.0f, A::exp(A::sub(t0, tm))), A::exp(A::sub(t1, tm)));
    differ += bits(A::add(tm, A::log(l_nat))) != bits(want);
  }
  CHECK(differ > 0);
  // p of the maximum is exp2 of the residual of the rounded product m c, not always exactly 1.
  CHECK(bits(A::fma(5.0f, c, -A::mul(5.0f, c))) != 0u);

  // The backward's p: exp2(fma(s, c, -mul(lse, log2 e))) (detail::softmax_p), and the natural
  // libms keep exp(sub(mul(s, scale), lse)).
  for (const float sx : {-3.0f, 0.0f, 2.5f}) {
    CHECK(bits(detail::softmax_p<A>(sx, scale, lse[0])) == bits(A::exp2(A::fma(sx, c, -A::mul(lse[0], A::log2e())))));
    using N = FloatArith<NvccLibm>;
    CHECK(bits(detail::softmax_p<N>(sx, scale, lse[0])) == bits(N::exp(N::sub(N::mul(sx, scale), lse[0]))));
  }
  static_assert(A::kBase2Softmax && !FloatArith<NvccLibm>::kBase2Softmax && !FloatArith<CrLibm>::kBase2Softmax);

  // A negative scale is refused under nvcc-fast (its maximum is of the unscaled scores), by name:
  // the reference and check_problem; nvcc takes it.
  in.p.scale = -0.125f;
  CHECK(message_of([&] {
          reference_forward(Libm::nvcc_fast, in.p, in.q.data(), in.k.data(), in.v.data(), o.data(), lse.data(), 1);
        }).find("libm nvcc-fast needs a scale that is not negative") != std::string::npos);
  reference_forward(Libm::nvcc, in.p, in.q.data(), in.k.data(), in.v.data(), o_nat.data(), lse_nat.data(), 1);
}

// ---- §7: the zero-product lemma on the model ----------------------------------

TEST_CASE("tc: adding an all-zero k16 group to a nonzero accumulator is exact iff zero products are neutral",
          "[kernels][tc]") {
  std::mt19937 rng(5);
  std::uniform_int_distribution<std::uint32_t> any32;
  std::uniform_int_distribution<int> any16(0, 0xffff);
  for (const sm90::Format f : {sm90::Format::bf16, sm90::Format::f16}) {
    const std::uint16_t inf = f == sm90::Format::bf16 ? 0x7f80 : 0x7c00;
    auto finite16 = [&] {
      for (;;) {
        const auto h = static_cast<std::uint16_t>(any16(rng));
        if ((h & 0x7fffu) < inf) return h;
      }
    };
    for (const auto z : {sm90::ZeroExponent::fixed_m126, sm90::ZeroExponent::ignored, sm90::ZeroExponent::format_min}) {
      for (const bool big_partners : {false, true}) {
        sm90::Params prm;
        prm.zero_exponent = z;
        std::size_t changed = 0, sign_only = 0;
        const int n = 20000;
        for (int it = 0; it < n; ++it) {
          // 16 zero products: a signed zero times a finite partner (large ones with big_partners).
          std::uint16_t a[16], b[16];
          for (int i = 0; i < 16; ++i) {
            a[i] = static_cast<std::uint16_t>((any16(rng) & 1) ? 0x8000 : 0);
            b[i] = big_partners ? static_cast<std::uint16_t>((f == sm90::Format::bf16 ? 0x7e00 : 0x7800) |
                                                             (any16(rng) & 0x807f))
                                : finite16();
          }
          std::uint32_t c = any32(rng);
          if ((c & 0x7f800000u) == 0x7f800000u) c &= 0xbfffffffu;  // finite accumulators
          if (it % 100 == 0) c &= 0x80000000u;                       // and some zeros
          const std::uint32_t r = sm90::dot_add(f, a, b, 16, c, prm);
          if (r != c) {
            ++changed;
            sign_only += (r & 0x7fffffffu) == 0 && (c & 0x7fffffffu) == 0;
          }
        }
        INFO("format " << int(f) << " zero_exponent " << int(z) << " big partners " << big_partners);
        if (z != sm90::ZeroExponent::format_min) {
          // Neutral: a nonzero accumulator never changes; a zero one may change sign only.
          CHECK(changed == sign_only);
        } else if (big_partners) {
          // format_min with partners >= 2^125 (bf16) / 2^15 (fp16): zero products sit at emin + e_partner,
          // above small accumulators, and truncate them (the reason §8 needs neutral zeros).
          CHECK(changed > sign_only);
        }
      }
    }
    // Fewer than 23 kept bits truncate the accumulator itself: not neutral either (negative control).
    sm90::Params f22 = neutral_params();
    f22.frac_bits = 22;
    CHECK(!tc::zero_products_neutral(f22));
    CHECK(tc::zero_products_neutral(neutral_params()));
    CHECK(tc::zero_products_neutral(neutral_params(sm90::ZeroExponent::ignored)));
    CHECK(!tc::zero_products_neutral(format_min_params()));
    CHECK(tc::zero_products_neutral(sm90::Params{}));  // the hardware's
    std::uint16_t zeros[16] = {}, ones[16];
    for (auto& o : ones) o = f == sm90::Format::bf16 ? 0x3f80 : 0x3c00;
    CHECK(sm90::dot_add(f, zeros, ones, 16, 0x3f800001u, neutral_params()) == 0x3f800001u);
    CHECK(sm90::dot_add(f, zeros, ones, 16, 0x3f800001u, f22) == 0x3f800000u);
  }
}

TEST_CASE("tc: the sign of a zero result depends on the zero products (ZeroSign::ieee): why outputs are +0",
          "[kernels][tc]") {
  std::uint16_t neg0[16], pos0[16] = {}, one[16];
  for (int i = 0; i < 16; ++i) {
    neg0[i] = 0x8000;
    one[i] = 0x3f80;
  }
  sm90::Params ieee;
  ieee.zero_sign = sm90::ZeroSign::ieee;
  // -0 x 1 sixteen times onto C = -0: every term a negative zero.
  CHECK(sm90::dot_add(sm90::Format::bf16, neg0, one, 16, 0x80000000u, ieee) == 0x80000000u);
  // scale-d = 0 is a +0 accumulator (mma.md §6): +0 even under ieee.
  CHECK(sm90::dot(sm90::Format::bf16, neg0, one, 16, ieee) == 0x00000000u);
  // One of them +0 (a zero-filled row instead of a row holding -0, or +0 x a positive partner): +0.
  neg0[7] = 0;
  CHECK(sm90::dot_add(sm90::Format::bf16, neg0, one, 16, 0x80000000u, ieee) == 0x00000000u);
  CHECK(sm90::dot_add(sm90::Format::bf16, pos0, one, 16, 0x80000000u, ieee) == 0x00000000u);
  // Under ZeroSign::positive (the default: the hardware's) there is nothing to canonicalize.
  const sm90::Params pos;
  neg0[7] = 0x8000;
  CHECK(sm90::dot_add(sm90::Format::bf16, neg0, one, 16, 0x80000000u, pos) == 0x00000000u);
  // The output rule: +0 for either zero, every other value (NaN included) unchanged.
  CHECK(bits(tc::zero_canonical(-0.0f)) == 0u);
  CHECK(bits(tc::zero_canonical(0.0f)) == 0u);
  CHECK(bits(tc::zero_canonical(-1e-45f)) == 0x80000001u);
  CHECK(bits(tc::zero_canonical(samebits::fp::from_bits(0xffc00001u))) == 0xffc00001u);
}

// ---- §7 at the reference: a row whose o is an exact zero -----------------------

namespace {
// The policy with outputs written raw (no zero canonicalization): the negative control of §7.
struct RawZeros : tc::Reference {
  template <class A>
  static float out(float x) {
    return x;
  }
};

std::vector<std::uint16_t> encode(const std::vector<float>& x, DType t) {
  std::vector<std::uint16_t> h(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) h[i] = tc::to_operand(tc::format_of(t), x[i]);
  return h;
}

// The forward of `in` through the reference templates with policy P (bf16/fp16 operands).
template <class P>
std::vector<float> forward_with(const Inputs& in) {
  P pol;
  pol.fmt = tc::format_of(in.p.in_dtype);
  pol.params = in.p.mma;
  const auto q16 = encode(in.q, in.p.in_dtype), k16 = encode(in.k, in.p.in_dtype), v16 = encode(in.v, in.p.in_dtype);
  pol.q = q16.data();
  pol.k = k16.data();
  pol.v = v16.data();
  DenseLists lists;
  lists.cu_q = in.p.cu_q;
  lists.cu_k = in.p.cu_k;
  lists.causal = in.p.causal;
  lists.prepare();
  Tensors<float> t;
  t.hq = in.p.hq;
  t.hkv = in.p.hkv;
  t.d = in.p.d;
  t.rows = in.p.rows();
  t.kv_rows = in.p.kv_rows();
  t.scale = in.p.scale;
  t.q = in.q.data();
  t.k = in.k.data();
  t.v = in.v.data();
  std::vector<float> o(in.q.size()), lse(static_cast<std::size_t>(in.p.rows()) * in.p.hq);
  attention::forward<FloatArith<NvccLibm>, DenseLists, P>(lists, t, ForwardOut<float>{o.data(), lse.data(), nullptr},
                                                           1, pol);
  return o;
}
}  // namespace

TEST_CASE("tc: zero outputs are +0, whatever zero products a launch forms (prefill vs decode)", "[kernels][tc]") {
  // One head, D = 64, 128 keys (block 0 whole). Column 0 of v: -0 for keys 0..20, -1 after. Row 20's
  // products in column 0 are then all negative zeros in the prefill (members: p x -0; later keys:
  // +0 x -1), but the decode (keys 0..20 only) has zero-filled positions: +0 x +0.
  const int S = 128, a = 20, d = 64;
  sm90::Params ieee_signs = neutral_params();
  ieee_signs.zero_sign = sm90::ZeroSign::ieee;
  Inputs full = make({S}, {S}, 1, 1, d, true, 21, DType::bf16, ieee_signs);
  for (int j = 0; j < S; ++j) full.v[static_cast<std::size_t>(j) * d] = j <= a ? -0.0f : -1.0f;
  Inputs dec = full;
  dec.p.cu_q = {0, 1};
  dec.p.cu_k = {0, a + 1};
  dec.q = slice(full.q, a, 1, d);
  dec.k = slice(full.k, 0, a + 1, d);
  dec.v = slice(full.v, 0, a + 1, d);
  dec.dout = slice(full.dout, a, 1, d);
  // Raw: since scale-d = 0 is a +0 accumulator (mma.md §6), the chain starts from +0 and no
  // zero result is -0 even under IEEE zero signs; the canonicalization has nothing to do on this
  // path (it stays in the contract for any other). Control: a -0 planted in the prefill's row is
  // one mismatch against the decode.
  const auto raw_full = forward_with<RawZeros>(full), raw_dec = forward_with<RawZeros>(dec);
  CHECK(bits(raw_full[static_cast<std::size_t>(a) * d]) == 0x00000000u);
  CHECK(bits(raw_dec[0]) == 0x00000000u);
  CHECK(mismatches(raw_dec.data(), raw_full.data() + static_cast<std::size_t>(a) * d, d) == 0);
  auto planted = raw_full;
  planted[static_cast<std::size_t>(a) * d] = -0.0f;
  CHECK(mismatches(raw_dec.data(), planted.data() + static_cast<std::size_t>(a) * d, d) == 1);
  // The policy: +0 in both, and the whole row equal.
  const auto pol_full = forward_with<tc::Reference>(full), pol_dec = forward_with<tc::Reference>(dec);
  CHECK(bits(pol_full[static_cast<std::size_t>(a) * d]) == 0u);
  CHECK(mismatches(pol_dec.data(), pol_full.data() + static_cast<std::size_t>(a) * d, d) == 0);
  // The compiled reference is the policy (not the raw variant).
  const Outputs r = run(full);
  CHECK(mismatches(r.o.data(), pol_full.data(), pol_full.size()) == 0);
}

// ---- determinism and the invariances (§8) ----------------------------------------

TEST_CASE("tc: deterministic; the result does not depend on the thread count", "[kernels][tc]") {
  const Inputs in = make({150, 33}, {150, 33}, 4, 2, 64, true, 11, DType::bf16);
  const Outputs a = run(in, Libm::nvcc, 1), b = run(in, Libm::nvcc, 2);
  CHECK(mismatches(a.o, b.o) == 0);
  CHECK(mismatches(a.lse, b.lse) == 0);
  CHECK(mismatches(a.dq, b.dq) == 0);
  CHECK(mismatches(a.dk, b.dk) == 0);
  CHECK(mismatches(a.dv, b.dv) == 0);
  // Negative control: one bit of one key changes outputs.
  Inputs planted = in;
  planted.k[5 * 2 * 64 + 3] = samebits::fp::from_bits(bits(planted.k[5 * 2 * 64 + 3]) ^ 0x00010000u);
  const Outputs c = run(planted, Libm::nvcc, 2);
  CHECK(mismatches(a.o, c.o) > 0);
  CHECK(mismatches(a.dk, c.dk) > 0);
}

TEST_CASE("tc: batch (varlen packing) and head split change nothing, under any model parameters",
          "[kernels][tc]") {
  const int hq = 4, hkv = 2, d = 64;
  for (const DType dt : {DType::bf16, DType::f16}) {
    // The default Params (zero products not neutral): batch and TP involve no row's non-members.
    const Inputs packed = make({40, 150, 1}, {40, 170, 7}, hq, hkv, d, true, 9, dt);
    const Outputs all = run(packed);
    Inputs alone = packed;
    alone.p.cu_q = {0, 150};
    alone.p.cu_k = {0, 170};
    alone.q = slice(packed.q, 40, 150, hq * d);
    alone.dout = slice(packed.dout, 40, 150, hq * d);
    alone.k = slice(packed.k, 40, 170, hkv * d);
    alone.v = slice(packed.v, 40, 170, hkv * d);
    const Outputs one = run(alone);
    INFO("dtype " << dtype_name(dt));
    CHECK(mismatches(one.o.data(), all.o.data() + 40 * hq * d, one.o.size()) == 0);
    CHECK(mismatches(one.lse.data(), all.lse.data() + 40 * hq, one.lse.size()) == 0);
    CHECK(mismatches(one.dq.data(), all.dq.data() + 40 * hq * d, one.dq.size()) == 0);
    CHECK(mismatches(one.dk.data(), all.dk.data() + 40 * hkv * d, one.dk.size()) == 0);
    CHECK(mismatches(one.dv.data(), all.dv.data() + 40 * hkv * d, one.dv.size()) == 0);
    // Negative control: a flipped bit in sequence 1's values shows.
    Inputs planted = alone;
    planted.v[100 * hkv * d + 7] = samebits::fp::from_bits(bits(planted.v[100 * hkv * d + 7]) ^ 0x00010000u);
    const Outputs pl = run(planted);
    CHECK(mismatches(pl.o.data(), all.o.data() + 40 * hq * d, pl.o.size()) > 0);

    // Kv head 1 alone (query heads 2, 3): a tensor-parallel shard.
    Inputs shard = packed;
    shard.p.hq = 2;
    shard.p.hkv = 1;
    const std::int64_t rows = packed.p.rows(), kv_rows = packed.p.kv_rows();
    shard.q = heads(packed.q, rows, hq, 2, 2, d);
    shard.dout = heads(packed.dout, rows, hq, 2, 2, d);
    shard.k = heads(packed.k, kv_rows, hkv, 1, 1, d);
    shard.v = heads(packed.v, kv_rows, hkv, 1, 1, d);
    const Outputs s = run(shard);
    CHECK(mismatches(s.o, heads(all.o, rows, hq, 2, 2, d)) == 0);
    CHECK(mismatches(s.lse, heads(all.lse, rows, hq, 2, 2, 1)) == 0);
    CHECK(mismatches(s.dq, heads(all.dq, rows, hq, 2, 2, d)) == 0);
    CHECK(mismatches(s.dk, heads(all.dk, kv_rows, hkv, 1, 1, d)) == 0);
    CHECK(mismatches(s.dv, heads(all.dv, kv_rows, hkv, 1, 1, d)) == 0);
    CHECK(mismatches(s.dk, heads(all.dk, kv_rows, hkv, 0, 1, d)) > 0);  // control: the other head differs
    Inputs flipped = shard;  // control: one flipped bit of one query
    flipped.q[60 * 2 * d + 3] = samebits::fp::from_bits(bits(flipped.q[60 * 2 * d + 3]) ^ 0x00010000u);
    const Outputs fs = run(flipped);
    CHECK(mismatches(fs.o, heads(all.o, rows, hq, 2, 2, d)) > 0);
    CHECK(mismatches(fs.dk, heads(all.dk, kv_rows, hkv, 1, 1, d)) > 0);
  }
}

namespace {
// Queries [start, start + n) of `full` against keys 0 .. start + n - 1 (a KV cache).
Inputs chunk_of(const Inputs& full, int start, int n) {
  const int hq = full.p.hq, hkv = full.p.hkv, d = full.p.d;
  Inputs part = full;
  part.p.cu_q = {0, n};
  part.p.cu_k = {0, start + n};
  part.q = slice(full.q, start, n, hq * d);
  part.dout = slice(full.dout, start, n, hq * d);
  part.k = slice(full.k, 0, start + n, hkv * d);
  part.v = slice(full.v, 0, start + n, hkv * d);
  return part;
}
}  // namespace

TEST_CASE("tc: prefill == chunked prefill == decode per row (o, lse, dq) when zero products are neutral",
          "[kernels][tc]") {
  const int S = 160, hq = 2, hkv = 1, d = 64;
  const struct {
    DType dt;
    sm90::ZeroExponent z;
  } cases[] = {{DType::bf16, sm90::ZeroExponent::fixed_m126},
               {DType::f16, sm90::ZeroExponent::fixed_m126},
               {DType::f16, sm90::ZeroExponent::ignored}};
  for (const auto& c : cases) {
    const Inputs full = make({S}, {S}, hq, hkv, d, true, 5, c.dt, neutral_params(c.z));
    const Outputs ref = run(full);
    for (const int chunk : {1, 16, 48, 100}) {
      std::size_t bad = 0;
      for (int start = 0; start < S; start += chunk) {
        const int n = std::min(chunk, S - start);
        if (chunk == 1 && start % 9 != 4) continue;  // decode: a sample of the rows
        const Outputs r = run(chunk_of(full, start, n));
        bad += mismatches(r.o.data(), ref.o.data() + static_cast<std::ptrdiff_t>(start) * hq * d, r.o.size());
        bad += mismatches(r.lse.data(), ref.lse.data() + static_cast<std::ptrdiff_t>(start) * hq, r.lse.size());
        bad += mismatches(r.dq.data(), ref.dq.data() + static_cast<std::ptrdiff_t>(start) * hq * d, r.dq.size());
      }
      INFO("dtype " << dtype_name(c.dt) << " zero_exponent " << int(c.z) << " chunk " << chunk);
      CHECK(bad == 0);
    }
    // Negative control: one bit of one early key changes later rows.
    Inputs planted = full;
    planted.k[3 * hkv * d + 5] = samebits::fp::from_bits(bits(planted.k[3 * hkv * d + 5]) ^ 0x00010000u);
    const Outputs r = run(chunk_of(planted, 130, 30));
    CHECK(mismatches(r.o.data(), ref.o.data() + 130 * hq * d, r.o.size()) > 0);
  }
}

TEST_CASE("tc: with format_min zero products, prefill and decode differ (o), lse does not", "[kernels][tc]") {
  // fp16, one block: values of keys 32.. in column e are +-2^14, earlier ones small. Row 20's later keys
  // are in its diagonal block: their zero products sit at -14 + 14 = 0 under format_min and truncate o.
  const int S = 64, a = 20, d = 64;
  for (const auto z : {sm90::ZeroExponent::format_min, sm90::ZeroExponent::fixed_m126}) {
    sm90::Params prm;
    prm.zero_exponent = z;
    Inputs full = make({S}, {S}, 1, 1, d, true, 31, DType::f16, prm);
    for (int j = 0; j < S; ++j)
      for (int e = 0; e < d; ++e) {
        float& x = full.v[static_cast<std::size_t>(j) * d + e];
        x = j >= 32 ? (e % 2 ? 16384.0f : -16384.0f) : through(DType::f16, x * 0.015625f);
      }
    const Outputs ref = run(full);
    const Outputs dec = run(chunk_of(full, a, 1));
    const std::size_t bad_o = mismatches(dec.o.data(), ref.o.data() + a * d, d);
    INFO("zero_exponent " << int(z));
    if (z == sm90::ZeroExponent::format_min) CHECK(bad_o > 0);
    else CHECK(bad_o == 0);
    CHECK(bits(dec.lse[0]) == bits(ref.lse[a]));  // lse reads no non-member: equal under any Params
  }
}

TEST_CASE("tc: context parallelism: a split at multiples of 16 rows with the hand-over == one launch",
          "[kernels][tc]") {
  const int S = 200, hq = 4, hkv = 2, d = 64;
  const std::vector<int> cuts = {0, 48, 160, S};
  for (const bool neutral : {false, true}) {
    const DType dt = DType::f16;
    const Inputs full = make({S}, {S}, hq, hkv, d, true, 13, dt, neutral ? neutral_params() : format_min_params());
    const Outputs ref = run(full);
    std::vector<float> o_st(ref.o);
    for (auto& e : o_st) e = through(dt, e);
    std::vector<float> ak, av;  // handed on: [keys so far, hq, d]
    std::vector<float> hand_k, hand_v;  // what the last part received
    std::size_t bad_dq = 0;
    Outputs last;
    for (std::size_t r = 0; r + 1 < cuts.size(); ++r) {
      const int s0 = cuts[r], s1 = cuts[r + 1];
      const Inputs part = chunk_of(full, s0, s1 - s0);
      // The part's o and lse: the one launch's rows (the backward is what is split here).
      const std::vector<float> po = slice(o_st, s0, s1 - s0, hq * d), pl = slice(ref.lse, s0, s1 - s0, hq);
      ak.resize(static_cast<std::size_t>(s1) * hq * d, 0.0f);
      av.resize(ak.size(), 0.0f);
      if (r + 2 == cuts.size()) {
        hand_k = ak;
        hand_v = av;
      }
      last = run(part, Libm::nvcc, 0, r == 0 ? nullptr : ak.data(), r == 0 ? nullptr : av.data(), &po, &pl);
      ak = last.ak;
      av = last.av;
      bad_dq += mismatches(last.dq.data(), ref.dq.data() + static_cast<std::ptrdiff_t>(s0) * hq * d, last.dq.size());
    }
    INFO("neutral zeros " << neutral);
    CHECK(mismatches(last.dk, ref.dk) == 0);  // dk, dv: under any Params (the same steps on each accumulator)
    CHECK(mismatches(last.dv, ref.dv) == 0);
    if (neutral) CHECK(bad_dq == 0);  // dq: a part lacks the keys past its rows (as prefill vs decode)
    // Negative controls: the last part without the hand-over, and with one flipped bit in it.
    const Inputs part = chunk_of(full, 160, 40);
    const std::vector<float> po = slice(o_st, 160, 40, hq * d), pl = slice(ref.lse, 160, 40, hq);
    const Outputs cold = run(part, Libm::nvcc, 0, nullptr, nullptr, &po, &pl);
    CHECK(mismatches(cold.dk, ref.dk) > 0);
    std::vector<float> ak2 = hand_k, av2 = hand_v;
    ak2[(100 * hq + 1) * d + 9] = samebits::fp::from_bits(bits(ak2[(100 * hq + 1) * d + 9]) ^ 0x00000100u);
    const Outputs flip = run(part, Libm::nvcc, 0, ak2.data(), av2.data(), &po, &pl);
    CHECK(mismatches(flip.dk, ref.dk) == 1);
    CHECK(mismatches(flip.dv, ref.dv) == 0);
  }
}

// ---- the model is on the path ---------------------------------------------------

TEST_CASE("tc: other model parameters give other bits; the policy is not fma-chain", "[kernels][tc]") {
  const Inputs base = make({70}, {150}, 2, 1, 64, true, 17, DType::bf16);
  const Outputs ref = run(base);
  // Nearly exact accumulation: 40 kept bits, rounding to nearest, zeros ignored.
  Inputs exact = base;
  exact.p.mma.frac_bits = 40;
  exact.p.mma.rounding = sm90::Rounding::nearest_even;
  exact.p.mma.zero_exponent = sm90::ZeroExponent::ignored;
  const Outputs ex = run(exact);
  CHECK(mismatches(ex.o, ref.o) > 0);
  CHECK(mismatches(ex.lse, ref.lse) > 0);
  CHECK(mismatches(ex.dq, ref.dq) > 0);
  CHECK(mismatches(ex.dk, ref.dk) > 0);
  CHECK(mismatches(ex.dv, ref.dv) > 0);
  // Each of the parameters the random inputs exercise, alone.
  for (const int which : {0, 1, 2, 3}) {
    Inputs c = base;
    if (which == 0) c.p.mma.frac_bits = 24;
    if (which == 1) c.p.mma.group = 8;
    if (which == 2) c.p.mma.rounding = sm90::Rounding::nearest_even;
    if (which == 3) c.p.mma.c_join = sm90::CJoin::after_products;
    const Outputs r = run(c);
    INFO("parameter " << which);
    CHECK(mismatches(r.o, ref.o) + mismatches(r.dq, ref.dq) > 0);
  }
  // fma-chain on the same inputs.
  Inputs fma = base;
  fma.p.policy = Policy::fma_chain;
  const Outputs f = run(fma);
  CHECK(mismatches(f.o, ref.o) > 0);
}

// ---- accuracy against the high-precision oracle (attention-tc.md §10) ----------

namespace {

// Per-element error bounds of the policy against exact attention (binary64 here), computed from
// the inputs: every P (and dS) operand carries a relative rounding error <= u (2^-8 bf16, 2^-11
// fp16), the other operand is exact, and everything else (fp32 exp/sub/mul/add, the model's
// 25-bit truncations, the scores) stays below 2^-13 of the same sums; dS's fp32 value before
// its rounding is off by at most 2^-18 p (|dO||v| + |dO||o|) summed over d.
struct Bounds {
  std::vector<double> o, lse, dq, dk, dv;
};

Bounds bounds_of(const Inputs& in, const std::vector<float>& o_f, const std::vector<float>& lse_f, double u_rel) {
  const DenseProblem& p = in.p;
  const int hq = p.hq, hkv = p.hkv, d = p.d, grp = hq / hkv;
  const double scale = p.scale, slack = std::ldexp(1.0, -13);
  Bounds b;
  b.o.assign(in.q.size(), 0.0);
  b.dq.assign(in.q.size(), 0.0);
  b.dk.assign(in.k.size(), 0.0);
  b.dv.assign(in.k.size(), 0.0);
  b.lse.assign(lse_f.size(), 0.0);
  for (std::size_t s = 0; s + 1 < p.cu_q.size(); ++s) {
    const int lq = p.cu_q[s + 1] - p.cu_q[s], lk = p.cu_k[s + 1] - p.cu_k[s];
    for (int i = 0; i < lq; ++i) {
      const std::int64_t r = p.cu_q[s] + i;
      const int n = dense_list_length(i, lq, lk, p.causal);
      for (int h = 0; h < hq; ++h) {
        const int g = h / grp;
        const float* q = in.q.data() + (r * hq + h) * d;
        const float* dO = in.dout.data() + (r * hq + h) * d;
        const float* o = o_f.data() + (r * hq + h) * d;
        const double lse = lse_f[r * hq + h];
        double delta = 0, absdelta = 0, maxqk = 0;
        for (int e = 0; e < d; ++e) {
          delta += double(dO[e]) * o[e];
          absdelta += std::fabs(double(dO[e]) * o[e]);
        }
        for (int x = 0; x < n; ++x) {
          const std::int64_t j = p.cu_k[s] + x;
          const float* kr = in.k.data() + (j * hkv + g) * d;
          const float* vr = in.v.data() + (j * hkv + g) * d;
          double sc = 0, absqk = 0, dp = 0, absdp = 0;
          for (int e = 0; e < d; ++e) {
            sc += double(q[e]) * kr[e];
            absqk += std::fabs(double(q[e]) * kr[e]);
            dp += double(dO[e]) * vr[e];
            absdp += std::fabs(double(dO[e]) * vr[e]);
          }
          maxqk = std::max(maxqk, absqk);
          const double pj = std::exp(sc * scale - lse), ds = pj * (dp - delta);
          const double cds = (u_rel + slack) * std::fabs(ds) + std::ldexp(pj * (absdp + absdelta), -18);
          for (int e = 0; e < d; ++e) {
            b.o[(r * hq + h) * d + e] += (u_rel + slack) * pj * std::fabs(vr[e]);
            b.dq[(r * hq + h) * d + e] += scale * cds * std::fabs(kr[e]);
            b.dk[(j * hkv + g) * d + e] += scale * cds * std::fabs(q[e]);
            b.dv[(j * hkv + g) * d + e] += (u_rel + slack) * pj * std::fabs(dO[e]);
          }
        }
        b.lse[r * hq + h] = std::ldexp(1.0 + std::fabs(lse), -18) + scale * std::ldexp(maxqk, -16);
      }
    }
  }
  return b;
}

struct Accuracy {
  std::size_t violations = 0;
  double max_abs = 0, max_ref = 0, cosine = 1, cosine_bound = 1;
};

Accuracy accuracy(const std::vector<float>& got, const std::vector<double>& ref, const std::vector<double>& bound) {
  Accuracy a;
  double dot = 0, ng = 0, nr = 0, nb = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double err = std::fabs(got[i] - ref[i]);
    a.violations += !(err <= bound[i]);
    a.max_abs = std::max(a.max_abs, err);
    a.max_ref = std::max(a.max_ref, std::fabs(ref[i]));
    dot += got[i] * ref[i];
    ng += double(got[i]) * got[i];
    nr += ref[i] * ref[i];
    nb += bound[i] * bound[i];
  }
  a.cosine = dot / std::sqrt(ng * nr);
  // |got - ref| <= bound elementwise: the angle's sine is at most ||bound|| / ||ref||.
  const double sin_max = std::min(1.0, std::sqrt(nb / nr));
  a.cosine_bound = std::sqrt(1.0 - sin_max * sin_max);
  return a;
}

}  // namespace

TEST_CASE("tc: accurate against the binary64 oracle within the bounds of the operand roundings",
          "[kernels][tc]") {
  const struct {
    DType dt;
    int d;
    bool causal;
  } cases[] = {{DType::bf16, 64, true}, {DType::f16, 128, true}, {DType::bf16, 128, false}, {DType::f16, 64, false}};
  for (const auto& c : cases) {
    const Inputs in = make({130, 37}, {130, 200}, 4, 2, c.d, c.causal, 23, c.dt);
    const std::size_t nq = in.q.size(), nk = in.k.size(), nl = static_cast<std::size_t>(in.p.rows()) * in.p.hq;
    std::vector<double> o(nq), lse(nl), dq(nq), dk(nk), dv(nk);
    oracle_forward(Precision::f64, in.p, in.q.data(), in.k.data(), in.v.data(), o.data(), lse.data());
    oracle_backward(Precision::f64, in.p, in.q.data(), in.k.data(), in.v.data(), in.dout.data(), dq.data(), dk.data(),
                    dv.data());
    // The backward from the oracle's o and lse (as binary32): what the policy's backward adds.
    std::vector<float> o_f(nq), lse_f(nl);
    for (std::size_t i = 0; i < nq; ++i) o_f[i] = static_cast<float>(o[i]);
    for (std::size_t i = 0; i < nl; ++i) lse_f[i] = static_cast<float>(lse[i]);
    // cr, and nvcc-fast (§23: its exp's error, |x| 2^-24 relative plus MUFU's, is inside the bounds'
    // 2^-13 of binary32 work for the arguments that matter).
    for (const Libm libm : {Libm::cr, Libm::nvcc_fast}) {
      Outputs r;
      r.o.resize(nq);
      r.lse.resize(nl);
      r.dq.resize(nq);
      r.dk.resize(nk);
      r.dv.resize(nk);
      reference_forward(libm, in.p, in.q.data(), in.k.data(), in.v.data(), r.o.data(), r.lse.data());
      reference_backward(libm, in.p, in.q.data(), in.k.data(), in.v.data(), o_f.data(), in.dout.data(), lse_f.data(),
                         r.dq.data(), r.dk.data(), r.dv.data());
      const double u = std::ldexp(1.0, c.dt == DType::bf16 ? -8 : -11);
      const Bounds b = bounds_of(in, o_f, lse_f, u);
      const char* names[] = {"o", "lse", "dq", "dk", "dv"};
      const std::vector<float>* got[] = {&r.o, &r.lse, &r.dq, &r.dk, &r.dv};
      const std::vector<double>* ref[] = {&o, &lse, &dq, &dk, &dv};
      const std::vector<double>* bound[] = {&b.o, &b.lse, &b.dq, &b.dk, &b.dv};
      for (int t = 0; t < 5; ++t) {
        const Accuracy a = accuracy(*got[t], *ref[t], *bound[t]);
        std::printf("tc accuracy %-9s %s D=%d %s %-3s: max|err| %.3e, max|err|/max|ref| %.3e, cosine 1-%.3e (bound 1-%.3e)\n",
                    libm_name(libm), dtype_name(c.dt), c.d, c.causal ? "causal    " : "not causal", names[t], a.max_abs,
                    a.max_abs / a.max_ref, 1.0 - a.cosine, 1.0 - a.cosine_bound);
        INFO(libm_name(libm) << " " << dtype_name(c.dt) << " D " << c.d << " causal " << c.causal << " " << names[t]);
        CHECK(a.violations == 0);
        CHECK(a.cosine >= a.cosine_bound);
        // Negative control: the bound is not loose by 8x (the P / dS rounding shows; lse has none).
        std::vector<double> eighth(*bound[t]);
        for (auto& x : eighth) x /= 8;
        if (t != 1) CHECK(accuracy(*got[t], *ref[t], eighth).violations > 0);
      }
    }
  }
}

// ---- the doc, transcribed: one sequence, one head, the plainest loops --------------
//
// attention-tc.md §3-§7 written again without the reference's code (no block loop, no
// row states, no shared helpers): the reference must give the same bits.

namespace spec {

using Arith = FloatArith<NvccLibm>;

struct Problem {
  int lq, lk, d;
  bool causal;
  float scale;
  sm90::Format f;
  sm90::Params prm;
  std::vector<float> q, k, v, dout;  // [lq, d], [lk, d], [lk, d], [lq, d]
};

std::uint16_t op(const Problem& p, float x) { return tc::to_operand(p.f, x); }

// A chain of k16 steps: the first one dot when fresh, dot_add otherwise.
float chain(const Problem& p, const std::uint16_t* a, const std::uint16_t* b, int steps, bool fresh, float c) {
  std::uint32_t acc = bits(c);
  for (int i = 0; i < steps; ++i)
    acc = fresh && i == 0 ? sm90::dot(p.f, a + 16 * i, b + 16 * i, 16, p.prm)
                          : sm90::dot_add(p.f, a + 16 * i, b + 16 * i, 16, acc, p.prm);
  return samebits::fp::from_bits(acc);
}

float score(const Problem& p, const float* x, const float* y) {
  std::vector<std::uint16_t> a(p.d), b(p.d);
  for (int e = 0; e < p.d; ++e) {
    a[e] = op(p, x[e]);
    b[e] = op(p, y[e]);
  }
  return chain(p, a.data(), b.data(), p.d / 16, true, 0.0f);
}

float maxnum(float a, float b) { return a != a ? b : b != b ? a : (b > a ? b : a); }

int list_size(const Problem& p, int i) { return dense_list_length(i, p.lq, p.lk, p.causal); }

struct Result {
  std::vector<float> o, lse, dq, dk, dv;
};

// sequential_l: the negative control's row sum, one chain in key order instead of the quad's.
Result run(const Problem& p, bool sequential_l = false) {
  const int d = p.d;
  Result r;
  r.o.assign(static_cast<std::size_t>(p.lq) * d, 0.0f);
  r.lse.assign(p.lq, 0.0f);
  // Forward (§3, §4).
  for (int i = 0; i < p.lq; ++i) {
    const int n = list_size(p, i);
    if (n == 0) {
      r.lse[i] = -INFINITY;
      continue;
    }
    float m = 0, l4[4] = {0, 0, 0, 0}, lseq = 0;
    std::vector<float> o(d, 0.0f);
    for (int b = 0; 128 * b < n; ++b) {
      float t[128], P[128];
      float mb = -INFINITY;
      bool any = false;
      for (int x = 0; x < 128; ++x) {
        const int key = 128 * b + x;
        if (key >= n) continue;
        t[x] = Arith::mul(score(p, &p.q[i * d], &p.k[key * d]), p.scale);
        mb = any ? maxnum(mb, t[x]) : t[x];
        any = true;
      }
      const float m_new = b == 0 ? mb : maxnum(m, mb);
      for (int x = 0; x < 128; ++x) P[x] = 128 * b + x < n ? Arith::exp(Arith::sub(t[x], m_new)) : 0.0f;
      if (b > 0) {
        const float alpha = Arith::exp(Arith::sub(m, m_new));
        for (float& l : l4) l = Arith::mul(l, alpha);
        for (float& x : o) x = Arith::mul(x, alpha);
      }
      for (int qd = 0; qd < 4; ++qd)
        for (int c = 0; c < 16; ++c) {
          l4[qd] = Arith::add(l4[qd], P[8 * c + 2 * qd]);
          l4[qd] = Arith::add(l4[qd], P[8 * c + 2 * qd + 1]);
        }
      if (sequential_l) {
        l4[1] = l4[2] = l4[3] = 0.0f;
        l4[0] = b == 0 ? 0.0f : Arith::mul(lseq, Arith::exp(Arith::sub(m, m_new)));
        for (int x = 0; x < 128; ++x) l4[0] = Arith::add(l4[0], P[x]);
        lseq = l4[0];
      }
      std::uint16_t P16[128], V[128];
      for (int x = 0; x < 128; ++x) P16[x] = op(p, P[x]);
      for (int e = 0; e < d; ++e) {
        for (int x = 0; x < 128; ++x) V[x] = 128 * b + x < p.lk ? op(p, p.v[(128 * b + x) * d + e]) : 0;
        o[e] = chain(p, P16, V, 8, b == 0, o[e]);
      }
      m = m_new;
    }
    const float l = Arith::add(Arith::add(l4[0], l4[1]), Arith::add(l4[2], l4[3]));
    for (int e = 0; e < d; ++e) r.o[i * d + e] = tc::zero_canonical(Arith::div(o[e], l));
    r.lse[i] = Arith::add(m, Arith::log(l));
  }
  // Backward (§5, §6) from o stored in the dtype and the forward's lse.
  std::vector<float> o_st(r.o), delta(p.lq), P(static_cast<std::size_t>(p.lq) * p.lk, 0.0f), DS(P.size(), 0.0f);
  for (auto& x : o_st) x = tc::from_operand(p.f, op(p, x));
  for (int i = 0; i < p.lq; ++i) {
    float acc = 0;
    for (int e = 0; e < d; ++e) acc = Arith::fma(p.dout[i * d + e], o_st[i * d + e], acc);
    delta[i] = acc;
    for (int key = 0; key < list_size(p, i); ++key) {
      const float pr = Arith::exp(Arith::sub(Arith::mul(score(p, &p.q[i * d], &p.k[key * d]), p.scale), r.lse[i]));
      const float dp = score(p, &p.dout[i * d], &p.v[key * d]);
      P[i * p.lk + key] = pr;
      DS[i * p.lk + key] = Arith::mul(pr, Arith::sub(dp, delta[i]));
    }
  }
  r.dq.assign(r.o.size(), 0.0f);
  for (int i = 0; i < p.lq; ++i) {
    const int n = list_size(p, i);
    std::vector<float> acc(d, 0.0f);
    for (int b = 0; 128 * b < n; ++b) {
      std::uint16_t D16[128], K[128];
      for (int x = 0; x < 128; ++x) D16[x] = 128 * b + x < n ? op(p, DS[i * p.lk + 128 * b + x]) : 0;
      for (int e = 0; e < d; ++e) {
        for (int x = 0; x < 128; ++x) K[x] = 128 * b + x < p.lk ? op(p, p.k[(128 * b + x) * d + e]) : 0;
        acc[e] = Arith::add(acc[e], chain(p, D16, K, 8, true, 0.0f));
      }
    }
    for (int e = 0; e < d; ++e) r.dq[i * d + e] = tc::zero_canonical(Arith::mul(acc[e], p.scale));
  }
  r.dk.assign(static_cast<std::size_t>(p.lk) * d, 0.0f);
  r.dv.assign(r.dk.size(), 0.0f);
  const int a0 = p.lk - p.lq;
  auto fdiv = [](int a, int m) { return a >= 0 ? a / m : -((-a + m - 1) / m); };
  for (int key = 0; key < p.lk; ++key) {
    const int b = key / 128;
    int first = 0;
    while (first < p.lq && list_size(p, first) <= 128 * b) ++first;
    std::vector<float> ak(d, 0.0f), av(d, 0.0f);
    if (first < p.lq)
      for (int G = fdiv(a0 + first, 16); G <= fdiv(a0 + p.lq - 1, 16); ++G) {
        std::uint16_t P16[16], D16[16], Q[16], DO[16];
        for (int e = 0; e < d; ++e) {
          for (int t = 0; t < 16; ++t) {
            const int i = 16 * G + t - a0;
            const bool in = i >= 0 && i < p.lq;
            const bool member = in && key < list_size(p, i);
            P16[t] = member ? op(p, P[i * p.lk + key]) : 0;
            D16[t] = member ? op(p, DS[i * p.lk + key]) : 0;
            Q[t] = in ? op(p, p.q[i * d + e]) : 0;
            DO[t] = in ? op(p, p.dout[i * d + e]) : 0;
          }
          av[e] = chain(p, P16, DO, 1, false, av[e]);
          ak[e] = chain(p, D16, Q, 1, false, ak[e]);
        }
      }
    for (int e = 0; e < d; ++e) {
      r.dk[key * d + e] = tc::zero_canonical(Arith::mul(ak[e], p.scale));
      r.dv[key * d + e] = tc::zero_canonical(av[e]);
    }
  }
  return r;
}

}  // namespace spec

TEST_CASE("tc: the reference is the doc (an independent transcription gives the same bits)", "[kernels][tc]") {
  const struct {
    int lq, lk, d;
    bool causal;
    DType dt;
    bool neutral;
  } cases[] = {{150, 150, 64, true, DType::bf16, false},
               {37, 170, 64, true, DType::f16, false},   // a chunk: Lk - Lq = 133, not a group boundary
               {20, 150, 128, false, DType::bf16, true},
               {140, 130, 64, true, DType::f16, true}};  // Lq > Lk: the first 10 rows see no key
  for (const auto& c : cases) {
    Inputs in = make({c.lq}, {c.lk}, 1, 1, c.d, c.causal, 41, c.dt, c.neutral ? neutral_params() : format_min_params());
    // Some exact zeros and signed zeros among the inputs.
    for (std::size_t i = 0; i < in.v.size(); i += 7) in.v[i] = (i % 2) ? -0.0f : 0.0f;
    const Outputs r = run(in);
    spec::Problem sp{c.lq, c.lk, c.d, c.causal, in.p.scale, tc::format_of(c.dt), in.p.mma, in.q, in.k, in.v, in.dout};
    const spec::Result s = spec::run(sp);
    INFO("Lq " << c.lq << " Lk " << c.lk << " D " << c.d << " causal " << c.causal << " " << dtype_name(c.dt));
    CHECK(mismatches(r.o, s.o) == 0);
    CHECK(mismatches(r.lse, s.lse) == 0);
    CHECK(mismatches(r.dq, s.dq) == 0);
    CHECK(mismatches(r.dk, s.dk) == 0);
    CHECK(mismatches(r.dv, s.dv) == 0);
  }
  // Negative control: the transcription with the row sum as one chain in key order (fma-chain's
  // order) gives other lse bits: the quad order is on the reference's path.
  const Inputs in = make({150}, {150}, 1, 1, 64, true, 41, DType::bf16);
  const Outputs r = run(in);
  spec::Problem sp{150, 150, 64, true, in.p.scale, sm90::Format::bf16, in.p.mma, in.q, in.k, in.v, in.dout};
  CHECK(mismatches(r.lse, spec::run(sp).lse) == 0);
  CHECK(mismatches(r.lse, spec::run(sp, true).lse) > 0);
}
