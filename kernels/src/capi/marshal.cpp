// kernels/src/capi/marshal.cpp — see marshal.hpp.
//
// Built with -DSAMEBITS_PLANT_MMA_VALIDATION_BUG it lets an mma enum code past
// 255 wrap into a valid one: the attention fuzzer's negative control
// (fuzz/meson.build), never a real build.
#include "capi/marshal.hpp"

#include <cstdint>
#include <string>

#include "samebits/kernels/attention/contract.hpp"
#include "validate/attention_validate.hpp"

namespace samebits::kernels::capi {
namespace {

namespace kv = ka::validate;

Status fail(const char* op, const std::string& m) { return kv::refusal(op, ka::StatusCode::invalid_argument, m); }

// a * b + c for non-negative int64 operands; false on overflow.
bool mul_add(std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t* out) {
  std::int64_t m;
  return !__builtin_mul_overflow(a, b, &m) && !__builtin_add_overflow(m, c, out);
}
// round_up(bytes, 256) with overflow checks; -1 on overflow.
std::int64_t round_up_256(std::int64_t bytes) {
  std::int64_t r;
  if (__builtin_add_overflow(bytes, 255, &r)) return -1;
  return r / 256 * 256;
}
// [delta | accum_k | accum_v | dq_accum | dq_flags] part sizes in bytes, each
// rounded up to 256 (accum: each of accum_k and accum_v).
struct Parts {
  std::int64_t delta, accum, dq_accum, dq_flags;
};
bool parts(std::int64_t total_q, std::int64_t total_k, std::int32_t hq, std::int32_t d, Parts* out) {
  ka::WorkspaceFloats w;
  if (!kv::workspace_floats_checked(total_q, total_k, hq, d, &w)) return false;
  std::int64_t a, b, c, f;  // all 4-byte elements
  if (!mul_add(w.delta, 4, 0, &a) || !mul_add(w.accum, 4, 0, &b) || !mul_add(w.dq_accum, 4, 0, &c) ||
      !mul_add(w.dq_flags, 4, 0, &f))
    return false;
  *out = Parts{round_up_256(a), round_up_256(b), round_up_256(c), round_up_256(f)};
  return out->delta >= 0 && out->accum >= 0 && out->dq_accum >= 0 && out->dq_flags >= 0;
}
// Where dq_accum and dq_flags start: after accum_v (called once
// workspace_bytes has said the whole fits int64).
std::int64_t dq_offset(const ka::ProblemParams& p, bool flags) {
  Parts w;
  parts(p.total_q, p.total_k, p.hq, p.d, &w);
  return w.delta + 2 * w.accum + (flags ? w.dq_accum : 0);
}
// The workspace's parts as addresses (integer arithmetic: no pointer is formed
// past an object; check_workspace has kept the end inside the address space).
float* part(void* workspace, std::int64_t offset) {
  return reinterpret_cast<float*>(reinterpret_cast<std::uintptr_t>(workspace) + static_cast<std::uint64_t>(offset));
}
ka::Strides strides_of(samebits_tensor3 t) { return ka::Strides{t.row_stride, t.head_stride}; }

}  // namespace

// The C enums restate the C++ ones (contract.hpp, dtype.hpp, api.hpp: the codes' one source).
static_assert(SAMEBITS_LIBM_NVCC == static_cast<int>(ka::Libm::nvcc) &&
              SAMEBITS_LIBM_CR == static_cast<int>(ka::Libm::cr) &&
              SAMEBITS_LIBM_NVCC_FAST == static_cast<int>(ka::Libm::nvcc_fast));
static_assert(SAMEBITS_POLICY_FMA_CHAIN == static_cast<int>(ka::Policy::fma_chain) &&
              SAMEBITS_POLICY_SM90_TENSOR_CORE == static_cast<int>(ka::Policy::sm90_tensor_core));
static_assert(SAMEBITS_F32 == static_cast<int>(DType::f32) && SAMEBITS_BF16 == static_cast<int>(DType::bf16) &&
              SAMEBITS_F16 == static_cast<int>(DType::f16));
static_assert(SAMEBITS_OK == static_cast<int>(ka::StatusCode::ok) &&
              SAMEBITS_INVALID_ARGUMENT == static_cast<int>(ka::StatusCode::invalid_argument) &&
              SAMEBITS_UNSUPPORTED == static_cast<int>(ka::StatusCode::unsupported) &&
              SAMEBITS_CUDA_ERROR == static_cast<int>(ka::StatusCode::cuda_error));

Status attention_call(const samebits_attention_problem* p, AttentionCall* out) {
  if (!p) return fail(kAttention, "problem is null");
  if (p->causal != 0 && p->causal != 1) return fail(kAttention, "causal = " + std::to_string(p->causal) + ": must be 0 or 1");
  // An unknown policy code is the validator's to name; a known one other than sm90-tensor-core reads no mma.
  if (p->mma && p->policy == SAMEBITS_POLICY_FMA_CHAIN)
    return fail(kAttention, "mma is read only by policy sm90-tensor-core (pass null)");
  ka::ProblemParams& q = out->p;
  q.cu_seqlens_q = p->cu_seqlens_q;
  q.cu_seqlens_k = p->cu_seqlens_k;
  q.num_seqs = p->num_seqs;
  q.max_seqlen_q = p->max_seqlen_q;
  q.max_seqlen_k = p->max_seqlen_k;
  q.total_q = p->total_q;
  q.total_k = p->total_k;
  q.hq = p->hq;
  q.hkv = p->hkv;
  q.d = p->d;
  q.causal = p->causal != 0;
  q.scale = p->scale;
  q.in_dtype = static_cast<DType>(p->in_dtype);
  q.libm = static_cast<ka::Libm>(p->libm);
  q.policy = static_cast<ka::Policy>(p->policy);
  q.mma = mma_params_of(p->mma);
  out->host = ka::HostSeqlens{p->cu_seqlens_q_host, p->cu_seqlens_k_host};
  out->o_dtype = static_cast<DType>(p->o_dtype);
  out->grad_dtype = static_cast<DType>(p->grad_dtype);
  return Status{};
}

mma::sm90::Params mma_params_of(const samebits_mma_params* m) {
  mma::sm90::Params r;
  if (!m) return r;
  r.frac_bits = m->frac_bits;
  r.group = m->group;
  r.rounding = static_cast<mma::sm90::Rounding>(m->rounding);
  r.c_join = static_cast<mma::sm90::CJoin>(m->c_join);
  r.zero_exponent = static_cast<mma::sm90::ZeroExponent>(m->zero_exponent);
  r.product_exponent = static_cast<mma::sm90::ProductExponent>(m->product_exponent);
  r.zero_sign = static_cast<mma::sm90::ZeroSign>(m->zero_sign);
  r.overflow = static_cast<mma::sm90::Overflow>(m->overflow);
  // An enum code outside the uint8 range would wrap into a valid one: keep it out of range instead.
#if defined(SAMEBITS_PLANT_MMA_VALIDATION_BUG)
  auto bad = [](std::int32_t) { return false; };  // the fuzzer's negative control: codes wrap
#else
  auto bad = [](std::int32_t c) { return c < 0 || c > 255; };
#endif
  if (bad(m->rounding)) r.rounding = static_cast<mma::sm90::Rounding>(255);
  if (bad(m->c_join)) r.c_join = static_cast<mma::sm90::CJoin>(255);
  if (bad(m->zero_exponent)) r.zero_exponent = static_cast<mma::sm90::ZeroExponent>(255);
  if (bad(m->product_exponent)) r.product_exponent = static_cast<mma::sm90::ProductExponent>(255);
  if (bad(m->zero_sign)) r.zero_sign = static_cast<mma::sm90::ZeroSign>(255);
  if (bad(m->overflow)) r.overflow = static_cast<mma::sm90::Overflow>(255);
  return r;
}

ka::ForwardParams forward_params(const AttentionCall& c, samebits_tensor3 q, samebits_tensor3 k, samebits_tensor3 v,
                                 samebits_tensor3 o, float* lse) {
  ka::ForwardParams f;
  static_cast<ka::ProblemParams&>(f) = c.p;
  f.q = q.data;
  f.k = k.data;
  f.v = v.data;
  f.o = o.data;
  f.lse = lse;
  f.q_stride = strides_of(q);
  f.k_stride = strides_of(k);
  f.v_stride = strides_of(v);
  f.o_stride = strides_of(o);
  f.o_dtype = c.o_dtype;
  return f;
}

std::int64_t workspace_bytes(std::int64_t total_q, std::int64_t total_k, std::int32_t hq, std::int32_t d) {
  Parts w;
  std::int64_t r;
  if (!parts(total_q, total_k, hq, d, &w) || !mul_add(w.accum, 2, w.delta, &r) || !mul_add(w.dq_accum, 1, r, &r) ||
      !mul_add(w.dq_flags, 1, r, &r))
    return -1;
  return r;
}

std::int64_t workspace_accum_offset(std::int64_t total_q, std::int64_t total_k, std::int32_t hq, std::int32_t d,
                                    std::int32_t which) {
  Parts w;
  std::int64_t r;
  if (!parts(total_q, total_k, hq, d, &w) || !mul_add(w.accum, which ? 1 : 0, w.delta, &r)) return -1;
  return r;
}

Status check_workspace(const ka::ProblemParams& p, const void* workspace, std::int64_t bytes) {
  const std::int64_t need = workspace_bytes(p.total_q, p.total_k, p.hq, p.d);
  if (need < 0)
    return fail(kAttention, "workspace_bytes: the workspace of total_q = " + std::to_string(p.total_q) +
                                ", total_k = " + std::to_string(p.total_k) + ", hq = " + std::to_string(p.hq) +
                                ", d = " + std::to_string(p.d) + " overflows int64");
  if (bytes < need)
    return fail(kAttention, "workspace_bytes " + std::to_string(bytes) + " < " + std::to_string(need) + " needed");
  if (!workspace || reinterpret_cast<std::uintptr_t>(workspace) % 256 != 0)
    return fail(kAttention, "workspace must be non-null and 256-byte aligned");
  if (static_cast<std::uint64_t>(need - 1) > UINTPTR_MAX - reinterpret_cast<std::uintptr_t>(workspace))
    return fail(kAttention, "workspace of " + std::to_string(need) + " bytes extends past the end of the address space");
  return Status{};
}

namespace {
// The stored D^S part (sm90-tensor-core): at the next multiple of 256 bytes after the other parts.
std::int64_t ds_offset(ka::Policy policy, std::int64_t total_q, std::int64_t total_k, std::int32_t hq, std::int32_t d) {
  if (policy != ka::Policy::sm90_tensor_core) return -1;
  const std::int64_t base = workspace_bytes(total_q, total_k, hq, d);
  std::int64_t r;
  if (base < 0 || !mul_add((base + 255) / 256, 256, 0, &r)) return -1;
  return r;
}
std::int64_t ds_total(ka::Policy policy, std::int64_t total_q, std::int64_t total_k, std::int32_t hq, std::int32_t d,
                      std::int32_t num_seqs, std::int32_t max_q, std::int32_t max_k) {
  const std::int64_t at = ds_offset(policy, total_q, total_k, hq, d);
  const std::int64_t ds = ka::backward_ds_workspace_bytes(num_seqs, max_q, max_k, hq);
  std::int64_t r;
  if (at < 0 || ds < 0 || !mul_add(ds, 1, at, &r)) return -1;
  return r;
}
}  // namespace

std::int64_t stored_ds_workspace_bytes(const samebits_attention_problem* p) {
  if (!p) return -1;
  return ds_total(static_cast<ka::Policy>(p->policy), p->total_q, p->total_k, p->hq, p->d, p->num_seqs,
                  p->max_seqlen_q, p->max_seqlen_k);
}

ka::BackwardParams backward_params(const AttentionCall& c, samebits_tensor3 q, samebits_tensor3 k, samebits_tensor3 v,
                                   samebits_tensor3 o, samebits_tensor3 dout, const float* lse, samebits_tensor3 dq,
                                   samebits_tensor3 dk, samebits_tensor3 dv, void* workspace, std::int64_t bytes,
                                   const float* accum_k_in, const float* accum_v_in) {
  ka::BackwardParams b;
  static_cast<ka::ProblemParams&>(b) = c.p;
  const ka::ProblemParams& p = c.p;
  b.q = q.data;
  b.k = k.data;
  b.v = v.data;
  b.o = o.data;
  b.dout = dout.data;
  b.lse = lse;
  b.dq = dq.data;
  b.dk = dk.data;
  b.dv = dv.data;
  b.q_stride = strides_of(q);
  b.k_stride = strides_of(k);
  b.v_stride = strides_of(v);
  b.o_stride = strides_of(o);
  b.dout_stride = strides_of(dout);
  b.dq_stride = strides_of(dq);
  b.dk_stride = strides_of(dk);
  b.dv_stride = strides_of(dv);
  b.o_dtype = c.o_dtype;
  b.grad_dtype = c.grad_dtype;
  b.delta = static_cast<float*>(workspace);
  b.accum_k = part(workspace, workspace_accum_offset(p.total_q, p.total_k, p.hq, p.d, 0));
  b.accum_v = part(workspace, workspace_accum_offset(p.total_q, p.total_k, p.hq, p.d, 1));
  b.dq_accum = part(workspace, dq_offset(p, false));
  b.dq_flags = reinterpret_cast<std::int32_t*>(part(workspace, dq_offset(p, true)));
  // A workspace that also holds the stored D^S (attention-tc.md §21) turns the tensor-core
  // backward's dq pass from recomputing into reading it: the same bits.
  const std::int64_t ds_at = ds_offset(p.policy, p.total_q, p.total_k, p.hq, p.d);
  const std::int64_t ds_bytes = ds_total(p.policy, p.total_q, p.total_k, p.hq, p.d, p.num_seqs, p.max_seqlen_q,
                                         p.max_seqlen_k);
  if (ds_at >= 0 && ds_bytes >= 0 && bytes >= ds_bytes) {
    b.ds_workspace = part(workspace, ds_at);
    b.ds_workspace_bytes = bytes - ds_at;
  }
  b.accum_k_in = accum_k_in;
  b.accum_v_in = accum_v_in;
  return b;
}

Status sparse_problem(const samebits_sparse_mla_problem* p, bool reference, ks::ProblemParams* out) {
  if (!p) return fail(kSparse, "problem is null");
  if (!reference && p->validate_indices != 0 && p->validate_indices != 1)
    return fail(kSparse, "validate_indices = " + std::to_string(p->validate_indices) + ": must be 0 or 1");
  out->tokens = p->tokens;
  out->num_kv = p->num_kv;
  out->heads = p->heads;
  out->d = p->d;
  out->topk = p->topk;
  out->scale = p->scale;
  out->in_dtype = reference ? DType::f32 : static_cast<DType>(p->in_dtype);  // the reference reads binary32
  out->libm = static_cast<ka::Libm>(p->libm);
  out->indices = p->indices;
  out->indices_row_stride = p->indices_row_stride;
  out->sink = p->sink;
  out->error_flag = reference ? nullptr : p->error_flag;
  return Status{};
}

}  // namespace samebits::kernels::capi
