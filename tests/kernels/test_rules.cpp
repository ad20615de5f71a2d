// The rules on the kernels' arguments (kernels/src/validate/rules.hpp, each
// written once), through every path that applies them: the C++ validation
// (what the C++ host API runs before a launch), the C ABI's entry points
// (samebits_*_check, the calls: in a library built without CUDA a call that
// passes the whole validation answers SAMEBITS_NOT_BUILT) and the CPU
// reference. Each rule: refused by name (the message names the argument),
// and its accepted boundary case. Among them the three a user found: an
// output over an input (refused, naming both), scale 0 (refused; NaN is the
// default), and the codes' one source (samebits_code_name = the C++ names).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "samebits/kernels/attention/api.hpp"
#include "samebits/kernels/attention/contract.hpp"
#include "samebits/kernels/attention/reference_api.hpp"
#include "samebits/kernels/c_api.h"
#include "samebits/kernels/dtype.hpp"
#include "validate/attention_validate.hpp"
#include "validate/sparse_mla_validate.hpp"

namespace {

namespace ka = samebits::kernels::attention;
namespace kv = samebits::kernels::attention::validate;
namespace ks = samebits::kernels::sparse_mla;
namespace ksv = samebits::kernels::sparse_mla::validate;
using samebits::kernels::DType;

std::string last() { return samebits_last_error(); }
bool has(const std::string& s, const std::string& needle) { return s.find(needle) != std::string::npos; }
// A call that passed the whole validation: NOT_BUILT without the kernels (with them, host memory is
// refused as not device memory: the tensor rules are checked below through the C++ validation).
bool passed(std::int32_t rc) {
  return samebits_has_cuda_kernels() ? rc != SAMEBITS_UNSUPPORTED : rc == SAMEBITS_NOT_BUILT;
}

// One attention problem whose tensors live in separate host buffers: rows queries and keys, hq, hkv, d.
struct Dense {
  int rows, hq, hkv, d;
  std::vector<std::int32_t> cu;
  samebits_attention_problem p{};
  std::vector<std::uint16_t> q, k, v, o, dout, dq, dk, dv;
  std::vector<float> lse, lse_fwd;
  std::vector<std::uint8_t> ws_raw;
  void* ws = nullptr;
  std::int64_t ws_bytes = 0;

  explicit Dense(int rows_ = 20, int hq_ = 2, int hkv_ = 1, int d_ = 64)
      : rows(rows_), hq(hq_), hkv(hkv_), d(d_), cu{0, rows_} {
    p.num_seqs = 1;
    p.max_seqlen_q = p.max_seqlen_k = rows;
    p.total_q = p.total_k = rows;
    p.hq = hq, p.hkv = hkv, p.d = d;
    p.causal = 1;
    p.scale = SAMEBITS_DEFAULT_SCALE;
    p.in_dtype = p.o_dtype = p.grad_dtype = SAMEBITS_BF16;
    p.libm = SAMEBITS_LIBM_NVCC;
    p.cu_seqlens_q = p.cu_seqlens_k = p.cu_seqlens_q_host = p.cu_seqlens_k_host = cu.data();
    const std::size_t nq = static_cast<std::size_t>(rows) * hq * d, nk = static_cast<std::size_t>(rows) * hkv * d;
    // 16-byte aligned (std::vector of 2-byte elements: sized so that the data pointer is the allocator's).
    for (auto* x : {&q, &o, &dout, &dq}) x->assign(nq, 0x3f80);
    for (auto* x : {&k, &v, &dk, &dv}) x->assign(nk, 0x3f80);
    lse.assign(static_cast<std::size_t>(rows) * hq, 0.0f);
    ws_bytes = samebits_attention_backward_workspace_bytes(rows, rows, hq, d);
    ws_raw.assign(static_cast<std::size_t>(ws_bytes) + 256, 0);
    ws = reinterpret_cast<void*>((reinterpret_cast<std::uintptr_t>(ws_raw.data()) + 255) / 256 * 256);
  }
  samebits_tensor3 t(std::vector<std::uint16_t>& x, int heads) { return samebits_tensor3{x.data(), std::int64_t{heads} * d, d}; }
  std::int32_t check(int backward = 0) { return samebits_attention_check(&p, backward); }
  std::int32_t forward(samebits_tensor3 tq, samebits_tensor3 tk, samebits_tensor3 tv, samebits_tensor3 to, float* l) {
    return samebits_attention_forward(&p, tq, tk, tv, to, l, nullptr);
  }
  std::int32_t forward() { return forward(t(q, hq), t(k, hkv), t(v, hkv), t(o, hq), lse.data()); }
  std::int32_t backward(samebits_tensor3 tdq, samebits_tensor3 tdk, const float* ak = nullptr, const float* av = nullptr) {
    return samebits_attention_backward(&p, t(q, hq), t(k, hkv), t(v, hkv), t(o, hq), t(dout, hq), lse.data(), tdq, tdk,
                                       t(dv, hkv), ws, ws_bytes, ak, av, nullptr);
  }
  std::int32_t backward() { return backward(t(dq, hq), t(dk, hkv)); }
  // The C++ API's parameters of the same call (what the host API validates).
  ka::ForwardParams forward_params() {
    ka::ForwardParams f;
    f.cu_seqlens_q = f.cu_seqlens_k = cu.data();
    f.num_seqs = 1;
    f.max_seqlen_q = f.max_seqlen_k = rows;
    f.total_q = f.total_k = rows;
    f.hq = hq, f.hkv = hkv, f.d = d;
    f.causal = true;
    f.in_dtype = f.o_dtype = DType::bf16;
    f.q = q.data(), f.k = k.data(), f.v = v.data(), f.o = o.data(), f.lse = lse.data();
    f.q_stride = f.o_stride = ka::Strides{std::int64_t{hq} * d, d};
    f.k_stride = f.v_stride = ka::Strides{std::int64_t{hkv} * d, d};
    return f;
  }
  ka::HostSeqlens host() const { return ka::HostSeqlens{cu.data(), cu.data()}; }
  float* accum(int which) {
    return reinterpret_cast<float*>(static_cast<std::uint8_t*>(ws) +
                                    samebits_attention_backward_accum_offset(rows, rows, hq, d, which));
  }
};

std::string fwd_message(const ka::ForwardParams& f, ka::HostSeqlens h) {
  return kv::check_forward(f, h, kv::PointerQuery{}).message;
}

}  // namespace

TEST_CASE("rules: the C ABI's codes are the C++ enums' (samebits_code_name reads the one table)", "[kernels][rules]") {
  for (ka::Libm l : {ka::Libm::nvcc, ka::Libm::cr, ka::Libm::nvcc_fast})
    CHECK(std::string(samebits_code_name(SAMEBITS_CODE_LIBM, static_cast<int>(l))) == ka::libm_name(l));
  for (DType t : {DType::f32, DType::bf16, DType::f16})
    CHECK(std::string(samebits_code_name(SAMEBITS_CODE_DTYPE, static_cast<int>(t))) == samebits::kernels::dtype_name(t));
  for (ka::Policy p : {ka::Policy::fma_chain, ka::Policy::sm90_tensor_core})
    CHECK(std::string(samebits_code_name(SAMEBITS_CODE_POLICY, static_cast<int>(p))) == ka::policy_long_name(p));
  CHECK(std::string(samebits_code_name(SAMEBITS_CODE_LIBM, SAMEBITS_LIBM_NVCC_FAST)) == "nvcc-fast");
  CHECK(std::string(samebits_code_name(SAMEBITS_CODE_STATUS, SAMEBITS_UNSUPPORTED)) == "unsupported");
  CHECK(std::string(samebits_code_name(SAMEBITS_CODE_STATUS, SAMEBITS_NOT_BUILT)) == "not_built");
  // Controls: a code or kind not in use has no name.
  CHECK(samebits_code_name(SAMEBITS_CODE_LIBM, 3) == nullptr);
  CHECK(samebits_code_name(SAMEBITS_CODE_DTYPE, -1) == nullptr);
  CHECK(samebits_code_name(SAMEBITS_CODE_STATUS, 5) == nullptr);
  CHECK(samebits_code_name(7, 0) == nullptr);
}

TEST_CASE("rules: scale: NaN is the default, 0 and non-finite and negative refused by name on every path",
          "[kernels][rules]") {
  Dense a;
  const std::string want = "samebits attention: scale = 0: an explicit scale must be finite and > 0";
  a.p.scale = 0.0f;
  CHECK(a.check() == SAMEBITS_INVALID_ARGUMENT);
  CHECK(has(last(), want));
  CHECK(a.forward() == SAMEBITS_INVALID_ARGUMENT);
  CHECK(has(last(), want));
  std::vector<float> q(20 * 2 * 64, 0.25f), k(20 * 64, 0.5f), o(q.size()), lse(40);
  CHECK(samebits_attention_reference_forward(&a.p, q.data(), k.data(), k.data(), o.data(), lse.data(), 1) ==
        SAMEBITS_INVALID_ARGUMENT);
  CHECK(has(last(), want));
  for (float bad : {INFINITY, -INFINITY, -0.125f, -0.0f}) {
    a.p.scale = bad;
    CHECK(a.check() == SAMEBITS_INVALID_ARGUMENT);
    CHECK(has(last(), "samebits attention: scale = "));
  }
  // The C++ API: the same rule (its Params' scale defaults to NaN, the default).
  ka::ForwardParams f = a.forward_params();
  CHECK(std::isnan(ka::ForwardParams{}.scale));
  CHECK(fwd_message(f, a.host()).empty());
  f.scale = 0.0f;
  CHECK(has(fwd_message(f, a.host()), want));
  // Accepted: NaN (the default), and the smallest positive binary32.
  for (float ok : {NAN, 1e-45f, 0.125f}) {
    a.p.scale = ok;
    CHECK(a.check() == SAMEBITS_OK);
    CHECK(passed(a.forward()));
  }
  // The default is default_scale(d): the reference's bits under NaN equal those under the explicit value.
  std::vector<float> o2(q.size()), lse2(40);
  a.p.scale = NAN;
  REQUIRE(samebits_attention_reference_forward(&a.p, q.data(), k.data(), k.data(), o.data(), lse.data(), 1) == SAMEBITS_OK);
  a.p.scale = ka::default_scale(64);
  REQUIRE(samebits_attention_reference_forward(&a.p, q.data(), k.data(), k.data(), o2.data(), lse2.data(), 1) == SAMEBITS_OK);
  CHECK(std::memcmp(lse.data(), lse2.data(), lse.size() * 4) == 0);
  a.p.scale = 0.5f;  // control: another scale, other bits
  REQUIRE(samebits_attention_reference_forward(&a.p, q.data(), k.data(), k.data(), o2.data(), lse2.data(), 1) == SAMEBITS_OK);
  CHECK(std::memcmp(lse.data(), lse2.data(), lse.size() * 4) != 0);

  // Sparse MLA: the same rule.
  samebits_sparse_mla_problem s{};
  s.tokens = 2, s.num_kv = 4, s.heads = 2, s.d = 128, s.topk = 2;
  s.in_dtype = s.o_dtype = s.grad_dtype = SAMEBITS_BF16;
  s.scale = 0.0f;
  CHECK(samebits_sparse_mla_check(&s, 0) == SAMEBITS_INVALID_ARGUMENT);
  CHECK(has(last(), "samebits sparse-mla: scale = 0: an explicit scale must be finite and > 0"));
  s.scale = SAMEBITS_DEFAULT_SCALE;
  CHECK(samebits_sparse_mla_check(&s, 0) == SAMEBITS_OK);
}

TEST_CASE("rules: an output over an input or another output is refused, naming both", "[kernels][rules]") {
  // With the CUDA kernels built, the C ABI's GPU entry points refuse host memory first ("q is not a
  // CUDA pointer"): the overlap messages are then checked through the C++ validation below
  // (fwd_message, a PointerQuery that answers "device"), and the C ABI's only as refusals.
  auto abi_says = [](const char* want) {
    return samebits_has_cuda_kernels() ? has(last(), " is not a CUDA pointer") : has(last(), want);
  };
  Dense a;
  REQUIRE(passed(a.forward()));  // control: separate buffers pass
  // o over q (the user's case), exactly and by one element.
  CHECK(a.forward(a.t(a.q, 2), a.t(a.k, 1), a.t(a.v, 1), a.t(a.q, 2), a.lse.data()) == SAMEBITS_INVALID_ARGUMENT);
  CHECK(abi_says("samebits attention: o overlaps q (bytes 0x"));
  CHECK(abi_says("an output must not share memory with an input or another output"));
  // q's last element and o's first: one buffer of 2 * n elements, o starting one element early, then exactly after.
  const std::size_t n = a.q.size();
  std::vector<std::uint16_t> qo(2 * n, 0x3f80);
  const samebits_tensor3 tq{qo.data(), 128, 64};
  CHECK(a.forward(tq, a.t(a.k, 1), a.t(a.v, 1), samebits_tensor3{qo.data() + n - 1, 128, 64}, a.lse.data()) ==
        SAMEBITS_INVALID_ARGUMENT);
  CHECK(abi_says("o overlaps q"));
  CHECK(passed(a.forward(tq, a.t(a.k, 1), a.t(a.v, 1), samebits_tensor3{qo.data() + n, 128, 64}, a.lse.data())));
  // lse (an output) over k; the C++ API refuses the same.
  CHECK(a.forward(a.t(a.q, 2), a.t(a.k, 1), a.t(a.v, 1), a.t(a.o, 2), reinterpret_cast<float*>(a.k.data())) ==
        SAMEBITS_INVALID_ARGUMENT);
  CHECK(abi_says("lse overlaps k"));
  ka::ForwardParams f = a.forward_params();
  f.o = a.q.data();
  CHECK(has(fwd_message(f, a.host()), "samebits attention: o overlaps q"));
  // Inputs may share memory: q, k, v packed in one buffer [rows, hq + 2 hkv, d] (interleaved spans).
  std::vector<std::uint16_t> qkv(static_cast<std::size_t>(20) * 4 * 64, 0x3f80);
  CHECK(passed(a.forward(samebits_tensor3{qkv.data(), 4 * 64, 64}, samebits_tensor3{qkv.data() + 2 * 64, 4 * 64, 64},
                         samebits_tensor3{qkv.data() + 3 * 64, 4 * 64, 64}, a.t(a.o, 2), a.lse.data())));
  // ... but outputs may not, not even interleaved: dq, dk packed in one buffer.
  CHECK(passed(a.backward()));
  std::vector<std::uint16_t> dqk(static_cast<std::size_t>(20) * 3 * 64);
  CHECK(a.backward(samebits_tensor3{dqk.data(), 3 * 64, 64}, samebits_tensor3{dqk.data() + 2 * 64, 3 * 64, 64}) ==
        SAMEBITS_INVALID_ARGUMENT);
  CHECK(abi_says("dk overlaps dq"));
  // The workspace over an input (its first part, delta, inside q).
  a.ws = reinterpret_cast<void*>((reinterpret_cast<std::uintptr_t>(a.q.data()) + 255) / 256 * 256);
  CHECK(a.backward() == SAMEBITS_INVALID_ARGUMENT);
  CHECK(abi_says("samebits attention: delta workspace overlaps q"));
  a.ws = reinterpret_cast<void*>((reinterpret_cast<std::uintptr_t>(a.ws_raw.data()) + 255) / 256 * 256);
  // The hand-over may be in place (accum_*_in exactly the workspace's accum_*), not one float off.
  CHECK(passed(a.backward(a.t(a.dq, 2), a.t(a.dk, 1), a.accum(0), a.accum(1))));
  CHECK(a.backward(a.t(a.dq, 2), a.t(a.dk, 1), a.accum(0) + 1, a.accum(1)) == SAMEBITS_INVALID_ARGUMENT);
  CHECK(abi_says("accum_k workspace overlaps accum_k_in"));
  CHECK(a.backward(a.t(a.dq, 2), a.t(a.dk, 1), a.accum(1), a.accum(0)) == SAMEBITS_INVALID_ARGUMENT);
  CHECK(abi_says("accum_k workspace overlaps accum_v_in"));

  // Sparse MLA: o over kv, and (the C++ API, given the workspace's size) the workspace over q.
  std::vector<std::uint16_t> sq(2 * 2 * 128, 0x3f80), skv(4 * 128, 0x3f80), so(sq.size());
  std::vector<std::int32_t> idx{0, 1, 2, -1};
  std::vector<float> slse(4);
  samebits_sparse_mla_problem s{};
  s.tokens = 2, s.num_kv = 4, s.heads = 2, s.d = 128, s.topk = 2, s.scale = SAMEBITS_DEFAULT_SCALE;
  s.in_dtype = s.o_dtype = s.grad_dtype = SAMEBITS_BF16;
  s.indices = idx.data(), s.indices_row_stride = 2;
  const samebits_tensor3 sq3{sq.data(), 256, 128};
  CHECK(passed(samebits_sparse_mla_forward(&s, sq3, skv.data(), 128, samebits_tensor3{so.data(), 256, 128},
                                           slse.data(), nullptr, nullptr)));
  CHECK(samebits_sparse_mla_forward(&s, sq3, skv.data(), 128, samebits_tensor3{skv.data(), 256, 128}, slse.data(),
                                    nullptr, nullptr) == SAMEBITS_INVALID_ARGUMENT);
  CHECK(abi_says("samebits sparse-mla: o overlaps kv"));
  CHECK(samebits_sparse_mla_forward(&s, sq3, skv.data(), 128, samebits_tensor3{so.data(), 256, 128},
                                    reinterpret_cast<float*>(idx.data()), nullptr, nullptr) == SAMEBITS_INVALID_ARGUMENT);
  CHECK(abi_says("lse overlaps indices"));
  ks::BackwardParams b;
  b.tokens = 2, b.num_kv = 4, b.heads = 2, b.d = 128, b.topk = 2;
  b.indices = idx.data(), b.indices_row_stride = 2;
  b.q = b.o = b.dout = sq.data();  // inputs may share
  b.kv = skv.data(), b.kv_row_stride = b.dkv_row_stride = 128;
  std::vector<std::uint16_t> sdq(sq.size()), sdkv(skv.size());
  b.dq = sdq.data(), b.dkv = sdkv.data(), b.lse = slse.data();
  b.q_stride = b.o_stride = b.dout_stride = b.dq_stride = ka::Strides{256, 128};
  std::vector<std::uint8_t> sws(4096 + 256);
  b.workspace = reinterpret_cast<void*>((reinterpret_cast<std::uintptr_t>(sws.data()) + 255) / 256 * 256);
  b.workspace_bytes = 1024;
  CHECK(ksv::check_backward(b, 1024, kv::PointerQuery{}).ok());  // control
  b.workspace = reinterpret_cast<void*>((reinterpret_cast<std::uintptr_t>(sq.data()) + 255) / 256 * 256 - 256);
  const ka::Status over = ksv::check_backward(b, 1024, kv::PointerQuery{});
  CHECK(has(over.message, "samebits sparse-mla: workspace overlaps "));
}

TEST_CASE("rules: libm nvcc-fast only under sm90-tensor-core: one rule, one message on every path", "[kernels][rules]") {
  const std::string want = "libm nvcc-fast is offered by the sm90-tensor-core policy only (policy fma-chain takes nvcc or cr)";
  Dense a;
  a.p.libm = SAMEBITS_LIBM_NVCC_FAST;
  CHECK(a.check() == SAMEBITS_UNSUPPORTED);
  CHECK(last() == "samebits attention: " + want);
  CHECK(a.forward() == SAMEBITS_UNSUPPORTED);
  CHECK(last() == "samebits attention: " + want);
  std::vector<float> q(20 * 2 * 64, 0.25f), k(20 * 64, 0.5f), o(q.size()), lse(40);
  CHECK(samebits_attention_reference_forward(&a.p, q.data(), k.data(), k.data(), o.data(), lse.data(), 1) ==
        SAMEBITS_UNSUPPORTED);
  CHECK(last() == "samebits attention: " + want);
  char buf[256];
  CHECK(samebits_attention_problem_fingerprint(&a.p, buf, sizeof buf) == SAMEBITS_UNSUPPORTED);
  CHECK(last() == "samebits attention: " + want);
  CHECK(samebits_attention_fingerprint(SAMEBITS_LIBM_NVCC_FAST, buf, sizeof buf) == SAMEBITS_UNSUPPORTED);
  CHECK(last() == "samebits attention: " + want);
  CHECK(samebits_sparse_mla_fingerprint(SAMEBITS_LIBM_NVCC_FAST, buf, sizeof buf) == SAMEBITS_UNSUPPORTED);
  CHECK(last() == "samebits sparse-mla: " + want);
  samebits_sparse_mla_problem s{};
  s.tokens = 2, s.num_kv = 4, s.heads = 2, s.d = 128, s.topk = 2, s.scale = SAMEBITS_DEFAULT_SCALE;
  s.libm = SAMEBITS_LIBM_NVCC_FAST;
  CHECK(samebits_sparse_mla_check(&s, 0) == SAMEBITS_UNSUPPORTED);
  CHECK(last() == "samebits sparse-mla: " + want);
  ka::DenseProblem dp;
  dp.cu_q = dp.cu_k = {0, 20};
  dp.hq = 2, dp.hkv = 1, dp.d = 64, dp.scale = ka::default_scale(64);
  std::string thrown;
  try {
    ka::reference_forward(ka::Libm::nvcc_fast, dp, q.data(), k.data(), k.data(), o.data(), lse.data(), 1);
  } catch (const std::exception& e) {
    thrown = e.what();
  }
  CHECK(thrown == "samebits attention reference: " + want);
  // Accepted: under sm90-tensor-core; an unknown code is named as unknown.
  a.p.policy = SAMEBITS_POLICY_SM90_TENSOR_CORE;
  CHECK(a.check() == SAMEBITS_OK);
  a.p.libm = 3;
  CHECK(a.check() == SAMEBITS_UNSUPPORTED);
  CHECK(last() == "samebits attention: libm code 3 unknown (0 nvcc, 1 cr, 2 nvcc-fast)");
}

TEST_CASE("rules: attention's problem rules refused by name, the boundaries accepted, the check's message the call's",
          "[kernels][rules]") {
  struct Case {
    const char* what;
    void (*edit)(samebits_attention_problem&);
    std::int32_t code;
    const char* needle;
    int backward;
  };
  const Case refused[] = {
      {"d 96", [](samebits_attention_problem& p) { p.d = 96; }, SAMEBITS_UNSUPPORTED, "d = 96: the head dim must be 64 or 128", 0},
      {"hq 65536", [](samebits_attention_problem& p) { p.hq = 65536; }, SAMEBITS_UNSUPPORTED, "hq = 65536: at most 65535", 0},
      {"hq % hkv", [](samebits_attention_problem& p) { p.hq = 3, p.hkv = 2; }, SAMEBITS_INVALID_ARGUMENT,
       "hq = 3, hkv = 2: hq must be a multiple of hkv", 0},
      {"hkv 0", [](samebits_attention_problem& p) { p.hkv = 0; }, SAMEBITS_INVALID_ARGUMENT, "hq = 2, hkv = 0: both must be positive", 0},
      {"in_dtype code", [](samebits_attention_problem& p) { p.in_dtype = 3; }, SAMEBITS_UNSUPPORTED,
       "in_dtype code 3 unknown (0 float32, 1 bfloat16, 2 float16)", 0},
      {"o_dtype f16 for bf16", [](samebits_attention_problem& p) { p.o_dtype = SAMEBITS_F16; }, SAMEBITS_UNSUPPORTED,
       "o_dtype float16: an output is in the input dtype (bfloat16) or float32", 0},
      {"grad_dtype (backward)", [](samebits_attention_problem& p) { p.grad_dtype = SAMEBITS_F16; }, SAMEBITS_UNSUPPORTED,
       "grad_dtype float16", 1},
      {"tc f32 input", [](samebits_attention_problem& p) { p.policy = 1, p.in_dtype = p.o_dtype = SAMEBITS_F32; },
       SAMEBITS_UNSUPPORTED, "in_dtype float32: policy sm90-tensor-core takes bfloat16 or float16", 0},
      {"policy 2", [](samebits_attention_problem& p) { p.policy = 2; }, SAMEBITS_UNSUPPORTED,
       "policy code 2 unknown (0 fma-chain, 1 sm90-tensor-core)", 0},
      {"num_seqs 0", [](samebits_attention_problem& p) { p.num_seqs = 0; }, SAMEBITS_INVALID_ARGUMENT,
       "num_seqs = 0: must be in 1 .. 65535", 0},
      {"causal 2", [](samebits_attention_problem& p) { p.causal = 2; }, SAMEBITS_INVALID_ARGUMENT, "causal = 2: must be 0 or 1", 0},
      {"host cu_seqlens null", [](samebits_attention_problem& p) { p.cu_seqlens_k_host = nullptr; },
       SAMEBITS_INVALID_ARGUMENT, "cu_seqlens_k: the host copy is required", 0},
      {"total_q", [](samebits_attention_problem& p) { p.total_q = 21; }, SAMEBITS_INVALID_ARGUMENT,
       "cu_seqlens_q[num_seqs] = 20 differs from total_q = 21", 0},
      {"max_seqlen_k", [](samebits_attention_problem& p) { p.max_seqlen_k = 19; }, SAMEBITS_INVALID_ARGUMENT,
       "max_seqlen_k = 19: below the longest sequence (20)", 0},
      {"max_seqlen_q 2^30 + 1", [](samebits_attention_problem& p) { p.max_seqlen_q = (1 << 30) + 1; },
       SAMEBITS_INVALID_ARGUMENT, "max_seqlen_q = 1073741825: at most 2^30", 0},
  };
  for (const Case& c : refused) {
    INFO(c.what);
    Dense a;
    c.edit(a.p);
    CHECK(a.check(c.backward) == c.code);
    const std::string checked = last();
    CHECK(has(checked, std::string("samebits attention: ") + c.needle));
    // The call refuses with the same status and message (before it looks at a tensor).
    CHECK((c.backward ? a.backward() : a.forward()) == c.code);
    CHECK(last() == checked);
  }
  // mma under fma-chain, and the hardware's parameters only on the GPU (valid ones first).
  Dense m;
  samebits_mma_params other{24, 16, 0, 0, 1, 0, 1, 0}, bad{25, 3, 0, 0, 1, 0, 1, 0}, hw{25, 16, 0, 0, 1, 0, 1, 0};
  m.p.mma = &hw;
  CHECK(m.check() == SAMEBITS_INVALID_ARGUMENT);
  CHECK(last() == "samebits attention: mma is read only by policy sm90-tensor-core (pass null)");
  m.p.policy = SAMEBITS_POLICY_SM90_TENSOR_CORE;
  CHECK(m.check() == SAMEBITS_OK);
  m.p.mma = &bad;
  CHECK(m.check() == SAMEBITS_INVALID_ARGUMENT);
  CHECK(last() == "samebits attention: mma: group: must be in [1, k] and divide k");
  m.p.mma = &other;
  CHECK(m.check() == SAMEBITS_UNSUPPORTED);
  CHECK(has(last(), "samebits attention: mma: policy sm90-tensor-core: the GPU computes its own tensor cores'"));
  // Accepted boundaries: D 64 and 128, hq 65535 (GQA 65535 / 1), grad_dtype ignored by the forward's check,
  // float32 outputs of bf16 inputs, an empty sequence, max_seqlen 2^30.
  for (int d : {64, 128}) {
    Dense a(20, 2, 1, d);
    CHECK(a.check() == SAMEBITS_OK);
  }
  Dense h;
  h.p.hq = 65535;
  CHECK(h.check() == SAMEBITS_OK);
  Dense g;
  g.p.grad_dtype = SAMEBITS_F16;
  CHECK(g.check(0) == SAMEBITS_OK);
  g.p.grad_dtype = g.p.o_dtype = SAMEBITS_F32;
  CHECK(g.check(1) == SAMEBITS_OK);
  Dense e;
  const std::int32_t cu3[3] = {0, 0, 20};
  e.p.num_seqs = 2;
  e.p.cu_seqlens_q_host = e.p.cu_seqlens_k_host = cu3;
  e.p.max_seqlen_q = e.p.max_seqlen_k = 1 << 30;
  CHECK(e.check() == SAMEBITS_OK);
}

TEST_CASE("rules: the tensor-core kernels' rows in 16-byte chunks: refused by name, aligned accepted", "[kernels][rules]") {
  Dense a;
  ka::ForwardParams f = a.forward_params();
  f.policy = ka::Policy::sm90_tensor_core;
  CHECK(fwd_message(f, a.host()).empty());  // control (std::vector's storage is 16-byte aligned)
  std::vector<std::uint16_t> shifted(a.q.size() + 8, 0x3f80);
  f.q = reinterpret_cast<void*>((reinterpret_cast<std::uintptr_t>(shifted.data()) + 15) / 16 * 16 + 2);
  CHECK(fwd_message(f, a.host()) ==
        "samebits attention: q: policy sm90-tensor-core needs it 16-byte aligned with row and head strides multiples "
        "of 8 elements (its rows are copied in 16-byte chunks)");
  f.policy = ka::Policy::fma_chain;
  CHECK(fwd_message(f, a.host()).empty());  // fma-chain reads elements: 2-byte alignment is its rule
  f.policy = ka::Policy::sm90_tensor_core;
  f.q = a.q.data();
  std::vector<std::uint16_t> padded(static_cast<std::size_t>(20) * (2 * 64 + 4), 0x3f80);
  f.k = padded.data();
  f.k_stride = ka::Strides{2 * 64 + 4, 64};  // a row stride of 132 elements: not a multiple of 8
  f.hkv = 1;
  CHECK(has(fwd_message(f, a.host()), "samebits attention: k: policy sm90-tensor-core needs it 16-byte aligned"));
  f.k_stride = ka::Strides{2 * 64 + 8, 64};  // 136: accepted
  std::vector<std::uint16_t> padded8(static_cast<std::size_t>(20) * (2 * 64 + 8), 0x3f80);
  f.k = padded8.data();
  CHECK(fwd_message(f, a.host()).empty());
}

TEST_CASE("rules: sparse MLA sizes: heads 1 .. 1048560, D, dtypes, num_kv any, topk, chunk_tokens", "[kernels][rules]") {
  samebits_sparse_mla_problem s{};
  s.tokens = 10, s.num_kv = 30, s.heads = 64, s.d = 512, s.topk = 64, s.scale = SAMEBITS_DEFAULT_SCALE;
  s.in_dtype = s.o_dtype = s.grad_dtype = SAMEBITS_BF16;
  const samebits_sparse_mla_problem ok = s;
  CHECK(samebits_sparse_mla_check(&s, 1) == SAMEBITS_OK);
  struct Case {
    void (*edit)(samebits_sparse_mla_problem&);
    std::int32_t code;
    const char* needle;
  };
  const Case refused[] = {
      {[](samebits_sparse_mla_problem& p) { p.heads = 1048561; }, SAMEBITS_INVALID_ARGUMENT, "heads = 1048561: must be in 1 .. 1048560"},
      {[](samebits_sparse_mla_problem& p) { p.heads = 0; }, SAMEBITS_INVALID_ARGUMENT, "heads = 0"},
      {[](samebits_sparse_mla_problem& p) { p.d = 256; }, SAMEBITS_UNSUPPORTED, "d = 256: the head dim must be 512"},
      {[](samebits_sparse_mla_problem& p) { p.in_dtype = p.o_dtype = SAMEBITS_F16; }, SAMEBITS_UNSUPPORTED,
       "in_dtype float16: sparse MLA takes bfloat16 or float32 inputs"},
      {[](samebits_sparse_mla_problem& p) { p.topk = 0; }, SAMEBITS_INVALID_ARGUMENT, "topk = 0: must be in 1 .. 2^24"},
      {[](samebits_sparse_mla_problem& p) { p.num_kv = -1; }, SAMEBITS_INVALID_ARGUMENT, "num_kv = -1"},
      {[](samebits_sparse_mla_problem& p) { p.chunk_tokens = 63; }, SAMEBITS_INVALID_ARGUMENT,
       "chunk_tokens = 63: must be 0 (default) or a positive multiple of B = 64"},
      {[](samebits_sparse_mla_problem& p) { p.validate_indices = 2; }, SAMEBITS_INVALID_ARGUMENT, "validate_indices = 2: must be 0 or 1"},
      {[](samebits_sparse_mla_problem& p) { p.o_dtype = SAMEBITS_F16; }, SAMEBITS_UNSUPPORTED, "o_dtype float16"},
  };
  for (const Case& c : refused) {
    s = ok;
    c.edit(s);
    CHECK(samebits_sparse_mla_check(&s, 1) == c.code);
    CHECK(has(last(), std::string("samebits sparse-mla: ") + c.needle));
  }
  // Accepted: every head count up to 1048560 (the kernels take partial groups of 16/32/64 heads: the
  // emulated kernels run H = 80, tests/kernels/test_sparse_mla_emulated.cpp), 1 head, D 128,
  // float32, chunk 64, and num_kv below tokens (docs/kernels/sparse_mla.md §1: indices name kv rows).
  for (int heads : {1, 80, 1048560}) {
    s = ok;
    s.heads = heads;
    CHECK(samebits_sparse_mla_check(&s, 1) == SAMEBITS_OK);
  }
  s = ok;
  s.d = 128, s.in_dtype = s.o_dtype = s.grad_dtype = SAMEBITS_F32, s.chunk_tokens = 64, s.num_kv = 3;
  CHECK(samebits_sparse_mla_check(&s, 1) == SAMEBITS_OK);
  // num_kv < tokens computes: 10 tokens over 3 kv rows, on the reference (rows of kv named by index).
  std::vector<std::int32_t> idx(10 * 2);
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<std::int32_t>(i % 4) - 1;  // -1 .. 2
  std::vector<float> q(10 * 2 * 128, 0.5f), kv(3 * 128, 0.25f), o(q.size()), lse(20);
  s.heads = 2, s.topk = 2, s.indices = idx.data(), s.indices_row_stride = 2;
  CHECK(samebits_sparse_mla_reference_forward(&s, q.data(), kv.data(), o.data(), lse.data(), nullptr, 1) == SAMEBITS_OK);
  CHECK(std::isfinite(lse[0]));
  idx[3] = 3;  // control: an index past num_kv - 1 = 2
  CHECK(samebits_sparse_mla_reference_forward(&s, q.data(), kv.data(), o.data(), lse.data(), nullptr, 1) ==
        SAMEBITS_INVALID_ARGUMENT);
  CHECK(has(last(), "index 3 at token 1, slot 1 is outside -1 .. num_kv - 1 = 2"));
}
