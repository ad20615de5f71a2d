// The kernels' C ABI (samebits/kernels/c_api.h) over the C++ host API and the
// CPU reference. Each entry point marshals its C arguments into the C++
// Params (marshal.hpp: the C representation's own checks) and hands them to
// the one validation (kernels/src/validate/), which the C++ host API runs
// too. Built with or without the CUDA kernels (SAMEBITS_WITH_CUDA): without
// them the GPU entry points run the whole validation (all but the question
// whether a pointer is device memory, which needs the CUDA runtime) and
// return its refusal, or SAMEBITS_NOT_BUILT with a message for a call that
// would have launched; the reference works as with them.
#include "samebits/kernels/c_api.h"

#include <cstring>
#include <exception>
#include <string>

#include "capi/marshal.hpp"
#include "samebits/kernels/attention/api.hpp"
#include "samebits/kernels/attention/contract.hpp"
#include "samebits/kernels/attention/reference_api.hpp"
#include "samebits/kernels/attention/tensor_core.hpp"
#include "samebits/kernels/dtype.hpp"
#include "samebits/kernels/sparse_mla/reference_api.hpp"
#include "validate/attention_validate.hpp"
#include "validate/rules.hpp"
#include "validate/sparse_mla_validate.hpp"

namespace {

namespace ka = samebits::kernels::attention;
namespace kv = samebits::kernels::attention::validate;
namespace ks = samebits::kernels::sparse_mla;
namespace ksv = samebits::kernels::sparse_mla::validate;
namespace capi = samebits::kernels::capi;
namespace rules = samebits::kernels::rules;
using samebits::kernels::DType;

thread_local std::string g_last_error;

int32_t fail(int32_t code, std::string message) {
  g_last_error = std::move(message);
  return code;
}

int32_t from_status(const ka::Status& s) {
  if (s.ok()) return SAMEBITS_OK;
  return fail(static_cast<int32_t>(s.code), s.message);
}
int32_t from_verdict(const char* op, const rules::Verdict& v) {
  return v.ok() ? SAMEBITS_OK : fail(static_cast<int32_t>(v.code), op + v.what);
}

int32_t write_string(const char* fn, const std::string& f, char* buf, int64_t len) {
  if (!buf || len < static_cast<int64_t>(f.size()) + 1)
    return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": buffer needs " + std::to_string(f.size() + 1) + " bytes");
  std::memcpy(buf, f.c_str(), f.size() + 1);
  return SAMEBITS_OK;
}

// The reference's problem: what the C problem says, the default scale resolved.
ka::DenseProblem dense_of(const capi::AttentionCall& c, const samebits_attention_problem* p) {
  ka::DenseProblem d;
  d.cu_q.assign(p->cu_seqlens_q_host, p->cu_seqlens_q_host + p->num_seqs + 1);
  d.cu_k.assign(p->cu_seqlens_k_host, p->cu_seqlens_k_host + p->num_seqs + 1);
  d.hq = c.p.hq;
  d.hkv = c.p.hkv;
  d.d = c.p.d;
  d.causal = c.p.causal;
  d.scale = rules::resolved_scale(c.p.scale, c.p.d);
  d.policy = c.p.policy;
  if (d.policy == ka::Policy::sm90_tensor_core) {
    d.in_dtype = c.p.in_dtype;
    d.mma = c.p.mma;
  }
  return d;
}

// The reference entry points' problem: the C representation, then the rules both targets share.
int32_t reference_call(const samebits_attention_problem* p, capi::AttentionCall* c) {
  if (int32_t s = from_status(capi::attention_call(p, c))) return s;
  return from_status(kv::check_problem_rules(c->p, c->host, kv::Target::reference));
}

#if !defined(SAMEBITS_WITH_CUDA)
int32_t not_built(const char* fn) {
  return fail(SAMEBITS_NOT_BUILT, std::string(fn) +
                                      ": this samebits library was built without the CUDA kernels "
                                      "(configure with meson -Dcuda=enabled)");
}
#endif

template <class F>
int32_t guarded(const char* fn, F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": " + e.what());
  } catch (...) {
    return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": unknown error");
  }
}

// Both reference backward entry points (the plain one: no hand-over).
int32_t reference_backward(const char* fn, const samebits_attention_problem* p, const float* q, const float* k,
                           const float* v, const float* o, const float* dout, const float* lse, float* dq, float* dk,
                           float* dv, const float* accum_k_in, const float* accum_v_in, float* accum_k_out,
                           float* accum_v_out, int32_t threads) {
  return guarded(fn, [&]() -> int32_t {
    capi::AttentionCall c;
    if (int32_t s = reference_call(p, &c)) return s;
    const std::string op = capi::kAttention;
    if (!q || !k || !v || !o || !dout || !lse || !dq || !dk || !dv)
      return fail(SAMEBITS_INVALID_ARGUMENT, op + "q, k, v, o, dout, lse, dq, dk, dv: a tensor pointer is null");
    if ((accum_k_in == nullptr) != (accum_v_in == nullptr))
      return fail(SAMEBITS_INVALID_ARGUMENT, op + "accum_k_in, accum_v_in: give both or neither");
    if ((accum_k_out == nullptr) != (accum_v_out == nullptr))
      return fail(SAMEBITS_INVALID_ARGUMENT, op + "accum_k_out, accum_v_out: give both or neither");
    ka::reference_backward_handover(c.p.libm, dense_of(c, p), q, k, v, o, dout, lse, dq, dk, dv, accum_k_in,
                                    accum_v_in, accum_k_out, accum_v_out,
                                    static_cast<unsigned>(threads < 0 ? 0 : threads));
    return SAMEBITS_OK;
  });
}

}  // namespace

extern "C" {

int32_t samebits_c_abi_version(void) { return SAMEBITS_C_ABI_VERSION; }
const char* samebits_last_error(void) { return g_last_error.c_str(); }

int32_t samebits_has_cuda_kernels(void) {
#if defined(SAMEBITS_WITH_CUDA)
  return 1;
#else
  return 0;
#endif
}

const char* samebits_code_name(int32_t kind, int32_t code) {
  switch (kind) {
    case SAMEBITS_CODE_STATUS: {
      static const char* const names[] = {"ok", "invalid_argument", "unsupported", "cuda_error", "not_built"};
      static_assert(SAMEBITS_NOT_BUILT == 4 && sizeof names / sizeof *names == SAMEBITS_NOT_BUILT + 1);
      return code >= 0 && code <= SAMEBITS_NOT_BUILT ? names[code] : nullptr;
    }
    case SAMEBITS_CODE_DTYPE:
      for (DType t : {DType::f32, DType::bf16, DType::f16})
        if (static_cast<int32_t>(t) == code) return samebits::kernels::dtype_name(t);
      return nullptr;
    case SAMEBITS_CODE_LIBM:
      for (ka::Libm l : {ka::Libm::nvcc, ka::Libm::cr, ka::Libm::nvcc_fast})
        if (static_cast<int32_t>(l) == code) return ka::libm_name(l);
      return nullptr;
    case SAMEBITS_CODE_POLICY:
      for (ka::Policy p : {ka::Policy::fma_chain, ka::Policy::sm90_tensor_core})
        if (static_cast<int32_t>(p) == code) return ka::policy_long_name(p);
      return nullptr;
    default: return nullptr;
  }
}

int32_t samebits_attention_fingerprint(int32_t libm, char* buf, int64_t len) {
  const auto l = static_cast<ka::Libm>(libm);
  if (int32_t s = from_verdict(capi::kAttention, rules::libm(l, ka::Policy::fma_chain))) return s;
  return write_string("samebits_attention_fingerprint", ka::fingerprint(ka::Policy::fma_chain, l), buf, len);
}

int32_t samebits_attention_problem_fingerprint(const samebits_attention_problem* p, char* buf, int64_t len) {
  static constexpr const char* fn = "samebits_attention_problem_fingerprint";
  return guarded(fn, [&]() -> int32_t {
    // It reads policy, mma and libm only: the C representation's rules on those, then theirs.
    if (!p) return fail(SAMEBITS_INVALID_ARGUMENT, std::string(capi::kAttention) + "problem is null");
    const auto policy = static_cast<ka::Policy>(p->policy);
    const auto libm = static_cast<ka::Libm>(p->libm);
    if (int32_t s = from_verdict(capi::kAttention, rules::policy(policy))) return s;
    if (int32_t s = from_verdict(capi::kAttention, rules::libm(libm, policy))) return s;
    if (p->mma && policy != ka::Policy::sm90_tensor_core)
      return fail(SAMEBITS_INVALID_ARGUMENT, std::string(capi::kAttention) + "mma is read only by policy "
                                                                             "sm90-tensor-core (pass null)");
    const auto m = capi::mma_params_of(p->mma);
    if (policy == ka::Policy::sm90_tensor_core)
      if (int32_t s = from_verdict(capi::kAttention, rules::mma(m))) return s;
    const std::string f = policy == ka::Policy::sm90_tensor_core ? ka::tc::fingerprint(libm, m)
                                                                 : ka::fingerprint(ka::Policy::fma_chain, libm);
    return write_string(fn, f, buf, len);
  });
}

int64_t samebits_attention_backward_workspace_bytes(int64_t total_q, int64_t total_k, int32_t hq, int32_t d) {
  return capi::workspace_bytes(total_q, total_k, hq, d);
}

int64_t samebits_attention_backward_accum_offset(int64_t total_q, int64_t total_k, int32_t hq, int32_t d,
                                                 int32_t which) {
  return capi::workspace_accum_offset(total_q, total_k, hq, d, which);
}

int32_t samebits_attention_check(const samebits_attention_problem* p, int32_t backward) {
  return guarded("samebits_attention_check", [&]() -> int32_t {
    capi::AttentionCall c;
    if (int32_t s = from_status(capi::attention_call(p, &c))) return s;
    if (int32_t s = from_status(kv::check_problem_rules(c.p, c.host, kv::Target::gpu))) return s;
    return from_status(kv::check_output_dtypes(c.p, c.o_dtype, backward ? &c.grad_dtype : nullptr));
  });
}

int32_t samebits_attention_forward(const samebits_attention_problem* p, samebits_tensor3 q, samebits_tensor3 k,
                                   samebits_tensor3 v, samebits_tensor3 o, float* lse, void* stream) {
  static constexpr const char* fn = "samebits_attention_forward";
  return guarded(fn, [&]() -> int32_t {
    capi::AttentionCall c;
    if (int32_t s = from_status(capi::attention_call(p, &c))) return s;
    const ka::ForwardParams f = capi::forward_params(c, q, k, v, o, lse);
#if defined(SAMEBITS_WITH_CUDA)
    return from_status(ka::forward(f, c.host, stream));
#else
    (void)stream;
    if (int32_t s = from_status(kv::check_forward(f, c.host, kv::PointerQuery{}))) return s;
    return not_built(fn);
#endif
  });
}

int64_t samebits_attention_backward_stored_ds_workspace_bytes(const samebits_attention_problem* p) {
  return capi::stored_ds_workspace_bytes(p);
}

int32_t samebits_attention_backward(const samebits_attention_problem* p, samebits_tensor3 q, samebits_tensor3 k,
                                    samebits_tensor3 v, samebits_tensor3 o, samebits_tensor3 dout, const float* lse,
                                    samebits_tensor3 dq, samebits_tensor3 dk, samebits_tensor3 dv, void* workspace,
                                    int64_t workspace_bytes, const float* accum_k_in, const float* accum_v_in,
                                    void* stream) {
  static constexpr const char* fn = "samebits_attention_backward";
  return guarded(fn, [&]() -> int32_t {
    capi::AttentionCall c;
    if (int32_t s = from_status(capi::attention_call(p, &c))) return s;
    // The workspace is carved from the sizes: the problem's rules first (samebits_attention_check's,
    // in its order), so that the sizes are checked.
    if (int32_t s = from_status(kv::check_problem_rules(c.p, c.host, kv::Target::gpu))) return s;
    if (int32_t s = from_status(kv::check_output_dtypes(c.p, c.o_dtype, &c.grad_dtype))) return s;
    if (int32_t s = from_status(capi::check_workspace(c.p, workspace, workspace_bytes))) return s;
    const ka::BackwardParams b = capi::backward_params(c, q, k, v, o, dout, lse, dq, dk, dv, workspace,
                                                       workspace_bytes, accum_k_in, accum_v_in);
#if defined(SAMEBITS_WITH_CUDA)
    return from_status(ka::backward(b, c.host, stream));
#else
    (void)stream;
    if (int32_t s = from_status(kv::check_backward(b, c.host, kv::PointerQuery{}))) return s;
    return not_built(fn);
#endif
  });
}

int32_t samebits_attention_reference_forward(const samebits_attention_problem* p, const float* q, const float* k,
                                             const float* v, float* o, float* lse, int32_t threads) {
  static constexpr const char* fn = "samebits_attention_reference_forward";
  return guarded(fn, [&]() -> int32_t {
    capi::AttentionCall c;
    if (int32_t s = reference_call(p, &c)) return s;
    if (!q || !k || !v || !o || !lse)
      return fail(SAMEBITS_INVALID_ARGUMENT, std::string(capi::kAttention) + "q, k, v, o, lse: a tensor pointer is null");
    ka::reference_forward(c.p.libm, dense_of(c, p), q, k, v, o, lse, static_cast<unsigned>(threads < 0 ? 0 : threads));
    return SAMEBITS_OK;
  });
}

int32_t samebits_attention_reference_backward(const samebits_attention_problem* p, const float* q, const float* k,
                                              const float* v, const float* o, const float* dout, const float* lse,
                                              float* dq, float* dk, float* dv, int32_t threads) {
  return reference_backward("samebits_attention_reference_backward", p, q, k, v, o, dout, lse, dq, dk, dv, nullptr,
                            nullptr, nullptr, nullptr, threads);
}

int32_t samebits_attention_reference_backward_handover(const samebits_attention_problem* p, const float* q,
                                                       const float* k, const float* v, const float* o,
                                                       const float* dout, const float* lse, float* dq, float* dk,
                                                       float* dv, const float* accum_k_in, const float* accum_v_in,
                                                       float* accum_k_out, float* accum_v_out, int32_t threads) {
  return reference_backward("samebits_attention_reference_backward_handover", p, q, k, v, o, dout, lse, dq, dk, dv,
                            accum_k_in, accum_v_in, accum_k_out, accum_v_out, threads);
}

}  // extern "C"

// ---- sparse MLA ----------------------------------------------------------

namespace {

ka::Strides strides3(samebits_tensor3 t) { return ka::Strides{t.row_stride, t.head_stride}; }

// The reference's problem: the sizes checked as the kernels check them, the
// host indices (row stride honoured) and sink copied.
int32_t sparse_reference_problem(const samebits_sparse_mla_problem* p, ks::Problem* out) {
  ks::ProblemParams s;
  if (int32_t st = from_status(capi::sparse_problem(p, true, &s))) return st;
  if (int32_t st = from_status(ksv::check_sizes(s))) return st;
  if (p->tokens > 0 && !p->indices) return fail(SAMEBITS_INVALID_ARGUMENT, std::string(capi::kSparse) + "indices is null");
  if (p->tokens > 0 && p->indices_row_stride < p->topk)
    return fail(SAMEBITS_INVALID_ARGUMENT, std::string(capi::kSparse) + "indices: row stride below topk (rows overlap)");
  out->tokens = p->tokens;
  out->num_kv = p->num_kv;
  out->heads = p->heads;
  out->d = p->d;
  out->topk = p->topk;
  out->scale = rules::resolved_scale(s.scale, s.d);
  out->indices.resize(static_cast<std::size_t>(p->tokens * p->topk));
  for (std::int64_t t = 0; t < p->tokens; ++t)
    std::memcpy(out->indices.data() + t * p->topk, p->indices + t * p->indices_row_stride,
                static_cast<std::size_t>(p->topk) * sizeof(std::int32_t));
  if (p->sink) out->sink.assign(p->sink, p->sink + p->heads);
  return SAMEBITS_OK;
}

}  // namespace

extern "C" {

int32_t samebits_sparse_mla_fingerprint(int32_t libm, char* buf, int64_t len) {
  const auto l = static_cast<ka::Libm>(libm);
  if (int32_t s = from_verdict(capi::kSparse, rules::libm(l, ka::Policy::fma_chain))) return s;
  return write_string("samebits_sparse_mla_fingerprint", ks::fingerprint(l), buf, len);
}

int32_t samebits_sparse_mla_check(const samebits_sparse_mla_problem* p, int32_t backward) {
  return guarded("samebits_sparse_mla_check", [&]() -> int32_t {
    ks::BackwardParams b;
    if (int32_t s = from_status(capi::sparse_problem(p, false, &b))) return s;
    if (int32_t s = from_status(ksv::check_sizes(b))) return s;
    const auto o = static_cast<DType>(p->o_dtype), grad = static_cast<DType>(p->grad_dtype);
    if (int32_t s = from_status(ksv::check_output_dtypes(b, o, backward ? &grad : nullptr))) return s;
    if (!backward) return SAMEBITS_OK;
    b.chunk_tokens = p->chunk_tokens;
    return from_status(ksv::check_chunk(b));
  });
}

int32_t samebits_sparse_mla_forward(const samebits_sparse_mla_problem* p, samebits_tensor3 q, const void* kv,
                                    int64_t kv_row_stride, samebits_tensor3 o, float* lse, float* lse_excl,
                                    void* stream) {
  static constexpr const char* fn = "samebits_sparse_mla_forward";
  return guarded(fn, [&]() -> int32_t {
    ks::ForwardParams f;
    if (int32_t s = from_status(capi::sparse_problem(p, false, &f))) return s;
    f.q = q.data;
    f.q_stride = strides3(q);
    f.kv = kv;
    f.kv_row_stride = kv_row_stride;
    f.o = o.data;
    f.o_stride = strides3(o);
    f.lse = lse;
    f.lse_excl = lse_excl;
    f.o_dtype = static_cast<DType>(p->o_dtype);
#if defined(SAMEBITS_WITH_CUDA)
    return from_status(ks::forward(f, p->validate_indices != 0, stream));
#else
    (void)stream;
    if (int32_t s = from_status(ksv::check_forward(f, ksv::PointerQuery{}))) return s;
    return not_built(fn);
#endif
  });
}

int64_t samebits_sparse_mla_backward_workspace_bytes(const samebits_sparse_mla_problem* p) {
  ks::BackwardParams b;
  if (!capi::sparse_problem(p, false, &b).ok()) return -1;
  b.chunk_tokens = p->chunk_tokens;
#if defined(SAMEBITS_WITH_CUDA)
  return ks::backward_workspace_bytes(b);
#else
  return -1;
#endif
}

int32_t samebits_sparse_mla_backward(const samebits_sparse_mla_problem* p, samebits_tensor3 q, const void* kv,
                                     int64_t kv_row_stride, samebits_tensor3 o, samebits_tensor3 dout,
                                     const float* lse, samebits_tensor3 dq, void* dkv, int64_t dkv_row_stride,
                                     float* dsink, void* workspace, int64_t workspace_bytes, void* stream) {
  static constexpr const char* fn = "samebits_sparse_mla_backward";
  return guarded(fn, [&]() -> int32_t {
    ks::BackwardParams b;
    if (int32_t s = from_status(capi::sparse_problem(p, false, &b))) return s;
    b.q = q.data;
    b.q_stride = strides3(q);
    b.kv = kv;
    b.kv_row_stride = kv_row_stride;
    b.o = o.data;
    b.o_stride = strides3(o);
    b.dout = dout.data;
    b.dout_stride = strides3(dout);
    b.lse = lse;
    b.dq = dq.data;
    b.dq_stride = strides3(dq);
    b.dkv = dkv;
    b.dkv_row_stride = dkv_row_stride;
    b.dsink = dsink;
    b.o_dtype = static_cast<DType>(p->o_dtype);
    b.grad_dtype = static_cast<DType>(p->grad_dtype);
    b.chunk_tokens = p->chunk_tokens;
    b.workspace = workspace;
    b.workspace_bytes = workspace_bytes;
#if defined(SAMEBITS_WITH_CUDA)
    return from_status(ks::backward(b, p->validate_indices != 0, stream));
#else
    (void)stream;
    // Without the kernels the sort's scratch size is unknown: the workspace is checked as given.
    if (int32_t s = from_status(ksv::check_backward(b, 0, ksv::PointerQuery{}))) return s;
    return not_built(fn);
#endif
  });
}

int32_t samebits_sparse_mla_reference_forward(const samebits_sparse_mla_problem* p, const float* q, const float* kv,
                                              float* o, float* lse, float* lse_excl, int32_t threads) {
  static constexpr const char* fn = "samebits_sparse_mla_reference_forward";
  return guarded(fn, [&]() -> int32_t {
    ks::Problem r;
    if (int32_t s = sparse_reference_problem(p, &r)) return s;
    if (r.tokens > 0 && (!q || !o || !lse))
      return fail(SAMEBITS_INVALID_ARGUMENT, std::string(capi::kSparse) + "q, o and lse must not be null");
    if (r.num_kv > 0 && !kv) return fail(SAMEBITS_INVALID_ARGUMENT, std::string(capi::kSparse) + "kv is null");
    ks::reference_forward(static_cast<ka::Libm>(p->libm), r, q, kv, o, lse, lse_excl,
                          static_cast<unsigned>(threads < 0 ? 0 : threads));
    return SAMEBITS_OK;
  });
}

int32_t samebits_sparse_mla_reference_backward(const samebits_sparse_mla_problem* p, const float* q, const float* kv,
                                               const float* o, const float* dout, const float* lse, float* dq,
                                               float* dkv, float* dsink, int32_t threads) {
  static constexpr const char* fn = "samebits_sparse_mla_reference_backward";
  return guarded(fn, [&]() -> int32_t {
    ks::Problem r;
    if (int32_t s = sparse_reference_problem(p, &r)) return s;
    if (r.tokens > 0 && (!q || !o || !dout || !lse || !dq))
      return fail(SAMEBITS_INVALID_ARGUMENT, std::string(capi::kSparse) + "q, o, dout, lse and dq must not be null");
    if (r.num_kv > 0 && (!kv || !dkv))
      return fail(SAMEBITS_INVALID_ARGUMENT, std::string(capi::kSparse) + "kv and dkv must not be null");
    if (!r.sink.empty() && !dsink)
      return fail(SAMEBITS_INVALID_ARGUMENT, std::string(capi::kSparse) + "dsink is null (a sink was given)");
    ks::reference_backward(static_cast<ka::Libm>(p->libm), r, q, kv, o, dout, lse, dq, dkv, dsink,
                           static_cast<unsigned>(threads < 0 ? 0 : threads));
    return SAMEBITS_OK;
  });
}

int32_t samebits_sparse_mla_check_index_error(const int32_t* error_flag, void* stream) {
  static constexpr const char* fn = "samebits_sparse_mla_check_index_error";
  return guarded(fn, [&]() -> int32_t {
#if defined(SAMEBITS_WITH_CUDA)
    return from_status(ks::check_index_error(error_flag, stream));
#else
    (void)error_flag, (void)stream;
    return not_built(fn);
#endif
  });
}

}  // extern "C"
