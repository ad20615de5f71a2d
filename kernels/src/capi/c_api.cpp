// The kernels' C ABI (samebits/kernels/c_api.h) over the C++ host API and the
// CPU reference. Every check lives in the shared validator
// (kernels/src/validate/attention_validate.cpp), which the C++ host API uses
// too. Built with or without the CUDA kernels (SAMEBITS_WITH_CUDA): without
// them the GPU entry points run the whole validation (all but the question
// whether a pointer is device memory, which needs the CUDA runtime) and
// return its refusal, or SAMEBITS_NOT_BUILT with a message for a call that
// would have launched; the reference works as with them.
#include "samebits/kernels/c_api.h"

#include <cmath>
#include <cstring>
#include <exception>
#include <string>

#include "validate/attention_validate.hpp"
#include "validate/sparse_mla_validate.hpp"
#include "samebits/kernels/attention/api.hpp"
#include "samebits/kernels/attention/contract.hpp"
#include "samebits/kernels/attention/reference_api.hpp"
#include "samebits/kernels/attention/tensor_core.hpp"
#include "samebits/kernels/dtype.hpp"
#include "samebits/kernels/sparse_mla/reference_api.hpp"

namespace {

namespace ka = samebits::kernels::attention;
namespace kv = samebits::kernels::attention::validate;
namespace ks = samebits::kernels::sparse_mla;
namespace ksv = samebits::kernels::sparse_mla::validate;

thread_local std::string g_last_error;

int32_t fail(int32_t code, std::string message) {
  g_last_error = std::move(message);
  return code;
}

int32_t from_status(const ka::Status& s) {
  if (s.ok()) return SAMEBITS_OK;
  return fail(static_cast<int32_t>(s.code), s.message);
}

ka::DenseProblem dense_of(const samebits_attention_problem* p) {
  ka::DenseProblem d;
  d.cu_q.assign(p->cu_seqlens_q_host, p->cu_seqlens_q_host + p->num_seqs + 1);
  d.cu_k.assign(p->cu_seqlens_k_host, p->cu_seqlens_k_host + p->num_seqs + 1);
  d.hq = p->hq;
  d.hkv = p->hkv;
  d.d = p->d;
  d.causal = p->causal != 0;
  d.scale = p->scale == 0.0f ? ka::default_scale(p->d) : p->scale;
  d.policy = static_cast<ka::Policy>(p->policy);
  if (d.policy == ka::Policy::sm90_tensor_core) {
    d.in_dtype = static_cast<samebits::kernels::DType>(p->in_dtype);
    d.mma = kv::mma_params_of(p->mma);
  }
  return d;
}

ka::HostSeqlens host_of(const samebits_attention_problem* p) {
  return ka::HostSeqlens{p->cu_seqlens_q_host, p->cu_seqlens_k_host};
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

int32_t samebits_attention_fingerprint(int32_t libm, char* buf, int64_t len) {
  if (libm == SAMEBITS_LIBM_NVCC_FAST)
    return fail(SAMEBITS_UNSUPPORTED, "samebits_attention_fingerprint: libm nvcc-fast is offered by the "
                                      "sm90-tensor-core policy only (this names fma-chain's arithmetic; "
                                      "samebits_attention_problem_fingerprint names a policy's)");
  if (libm != SAMEBITS_LIBM_NVCC && libm != SAMEBITS_LIBM_CR)
    return fail(SAMEBITS_UNSUPPORTED, "samebits_attention_fingerprint: libm code " + std::to_string(libm) + " unknown");
  const std::string f = ka::fingerprint(ka::Policy::fma_chain, static_cast<ka::Libm>(libm));
  if (!buf || len < static_cast<int64_t>(f.size()) + 1)
    return fail(SAMEBITS_INVALID_ARGUMENT, "samebits_attention_fingerprint: buffer needs " +
                                               std::to_string(f.size() + 1) + " bytes");
  std::memcpy(buf, f.c_str(), f.size() + 1);
  return SAMEBITS_OK;
}

int32_t samebits_attention_problem_fingerprint(const samebits_attention_problem* p, char* buf, int64_t len) {
  static constexpr const char* fn = "samebits_attention_problem_fingerprint";
  return guarded(fn, [&]() -> int32_t {
    if (!p) return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": problem is null");
    if (p->libm != SAMEBITS_LIBM_NVCC && p->libm != SAMEBITS_LIBM_CR && p->libm != SAMEBITS_LIBM_NVCC_FAST)
      return fail(SAMEBITS_UNSUPPORTED, std::string(fn) + ": libm code " + std::to_string(p->libm) + " unknown");
    if (p->policy != SAMEBITS_POLICY_FMA_CHAIN && p->policy != SAMEBITS_POLICY_SM90_TENSOR_CORE)
      return fail(SAMEBITS_UNSUPPORTED, std::string(fn) + ": policy code " + std::to_string(p->policy) +
                                            " unknown (0 fma-chain, 1 sm90-tensor-core)");
    if (p->libm == SAMEBITS_LIBM_NVCC_FAST && p->policy != SAMEBITS_POLICY_SM90_TENSOR_CORE)
      return fail(SAMEBITS_UNSUPPORTED, std::string(fn) + ": libm nvcc-fast is offered by the sm90-tensor-core policy only");
    if (p->mma && p->policy != SAMEBITS_POLICY_SM90_TENSOR_CORE)
      return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": mma is read only by policy sm90-tensor-core (pass null)");
    const auto m = kv::mma_params_of(p->mma);
    if (const char* why = samebits::mma::sm90::invalid_argument(m, ka::tc::kGroup))
      return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": mma: " + why);
    const std::string f = p->policy == SAMEBITS_POLICY_SM90_TENSOR_CORE
                              ? ka::tc::fingerprint(static_cast<ka::Libm>(p->libm), m)
                              : ka::fingerprint(ka::Policy::fma_chain, static_cast<ka::Libm>(p->libm));
    if (!buf || len < static_cast<int64_t>(f.size()) + 1)
      return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": buffer needs " + std::to_string(f.size() + 1) + " bytes");
    std::memcpy(buf, f.c_str(), f.size() + 1);
    return SAMEBITS_OK;
  });
}

int64_t samebits_attention_backward_workspace_bytes(int64_t total_q, int64_t total_k, int32_t hq, int32_t d) {
  return kv::c_workspace_bytes(total_q, total_k, hq, d);
}

int64_t samebits_attention_backward_accum_offset(int64_t total_q, int64_t total_k, int32_t hq, int32_t d,
                                                 int32_t which) {
  return kv::c_accum_offset(total_q, total_k, hq, d, which);
}

int32_t samebits_attention_forward(const samebits_attention_problem* p, samebits_tensor3 q, samebits_tensor3 k,
                                   samebits_tensor3 v, samebits_tensor3 o, float* lse, void* stream) {
  static constexpr const char* fn = "samebits_attention_forward";
  return guarded(fn, [&]() -> int32_t {
    if (int32_t s = from_status(kv::check_c_problem(p, fn))) return s;
    if (int32_t s = from_status(kv::check_c_dtypes(p, fn, false))) return s;
    const ka::ForwardParams f = kv::c_forward_params(p, q, k, v, o, lse);
#if defined(SAMEBITS_WITH_CUDA)
    return from_status(ka::forward(f, host_of(p), stream));
#else
    (void)stream;
    if (int32_t s = from_status(kv::check_forward(f, host_of(p), kv::PointerQuery{}))) return s;
    return not_built(fn);
#endif
  });
}

int64_t samebits_attention_backward_stored_ds_workspace_bytes(const samebits_attention_problem* p) {
  return kv::c_stored_ds_workspace_bytes(p);
}

int32_t samebits_attention_backward(const samebits_attention_problem* p, samebits_tensor3 q, samebits_tensor3 k,
                                    samebits_tensor3 v, samebits_tensor3 o, samebits_tensor3 dout, const float* lse,
                                    samebits_tensor3 dq, samebits_tensor3 dk, samebits_tensor3 dv, void* workspace,
                                    int64_t workspace_bytes, const float* accum_k_in, const float* accum_v_in,
                                    void* stream) {
  static constexpr const char* fn = "samebits_attention_backward";
  return guarded(fn, [&]() -> int32_t {
    if (int32_t s = from_status(kv::check_c_problem(p, fn))) return s;
    if (int32_t s = from_status(kv::check_c_dtypes(p, fn, true))) return s;
    if (int32_t s = from_status(kv::check_c_workspace(p, fn, workspace, workspace_bytes, accum_k_in, accum_v_in)))
      return s;
    const ka::BackwardParams b =
        kv::c_backward_params(p, q, k, v, o, dout, lse, dq, dk, dv, workspace, workspace_bytes, accum_k_in, accum_v_in);
#if defined(SAMEBITS_WITH_CUDA)
    return from_status(ka::backward(b, host_of(p), stream));
#else
    (void)stream;
    if (int32_t s = from_status(kv::check_backward(b, host_of(p), kv::PointerQuery{}))) return s;
    return not_built(fn);
#endif
  });
}

int32_t samebits_attention_reference_forward(const samebits_attention_problem* p, const float* q, const float* k,
                                             const float* v, float* o, float* lse, int32_t threads) {
  static constexpr const char* fn = "samebits_attention_reference_forward";
  return guarded(fn, [&]() -> int32_t {
    if (int32_t s = from_status(kv::check_c_problem(p, fn))) return s;
    if (int32_t s = from_status(kv::check_c_reference_policy(p, fn))) return s;
    if (!q || !k || !v || !o || !lse) return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": a tensor pointer is null");
    ka::reference_forward(static_cast<ka::Libm>(p->libm), dense_of(p), q, k, v, o, lse,
                          static_cast<unsigned>(threads < 0 ? 0 : threads));
    return SAMEBITS_OK;
  });
}

int32_t samebits_attention_reference_backward(const samebits_attention_problem* p, const float* q, const float* k,
                                              const float* v, const float* o, const float* dout, const float* lse,
                                              float* dq, float* dk, float* dv, int32_t threads) {
  static constexpr const char* fn = "samebits_attention_reference_backward";
  return guarded(fn, [&]() -> int32_t {
    if (int32_t s = from_status(kv::check_c_problem(p, fn))) return s;
    if (int32_t s = from_status(kv::check_c_reference_policy(p, fn))) return s;
    if (!q || !k || !v || !o || !dout || !lse || !dq || !dk || !dv)
      return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": a tensor pointer is null");
    ka::reference_backward(static_cast<ka::Libm>(p->libm), dense_of(p), q, k, v, o, dout, lse, dq, dk, dv,
                           static_cast<unsigned>(threads < 0 ? 0 : threads));
    return SAMEBITS_OK;
  });
}

int32_t samebits_attention_reference_backward_handover(const samebits_attention_problem* p, const float* q,
                                                       const float* k, const float* v, const float* o,
                                                       const float* dout, const float* lse, float* dq, float* dk,
                                                       float* dv, const float* accum_k_in, const float* accum_v_in,
                                                       float* accum_k_out, float* accum_v_out, int32_t threads) {
  static constexpr const char* fn = "samebits_attention_reference_backward_handover";
  return guarded(fn, [&]() -> int32_t {
    if (int32_t s = from_status(kv::check_c_problem(p, fn))) return s;
    if (!q || !k || !v || !o || !dout || !lse || !dq || !dk || !dv)
      return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": a tensor pointer is null");
    if ((accum_k_in == nullptr) != (accum_v_in == nullptr))
      return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": give both accum_k_in and accum_v_in, or neither");
    if ((accum_k_out == nullptr) != (accum_v_out == nullptr))
      return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": give both accum_k_out and accum_v_out, or neither");
    ka::reference_backward_handover(static_cast<ka::Libm>(p->libm), dense_of(p), q, k, v, o, dout, lse, dq, dk, dv,
                                    accum_k_in, accum_v_in, accum_k_out, accum_v_out,
                                    static_cast<unsigned>(threads < 0 ? 0 : threads));
    return SAMEBITS_OK;
  });
}

}  // extern "C"

// ---- sparse MLA ----------------------------------------------------------

namespace {

bool sparse_dtype_ok(int32_t t) { return t == SAMEBITS_F32 || t == SAMEBITS_BF16 || t == SAMEBITS_F16; }

// grad_dtype is read only by the backward (a forward ignores it, as the
// attention C ABI's does).
int32_t sparse_problem(const samebits_sparse_mla_problem* p, const char* fn, bool backward, ks::ProblemParams* out) {
  if (!p) return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": problem is null");
  if (p->libm != SAMEBITS_LIBM_NVCC && p->libm != SAMEBITS_LIBM_CR)
    return fail(SAMEBITS_UNSUPPORTED, std::string(fn) + ": libm code " + std::to_string(p->libm) + " unknown");
  for (auto [code, name] : {std::pair{p->in_dtype, "in_dtype"}, {p->o_dtype, "o_dtype"},
                            {backward ? p->grad_dtype : SAMEBITS_F32, "grad_dtype"}})
    if (!sparse_dtype_ok(code))
      return fail(SAMEBITS_UNSUPPORTED, std::string(fn) + ": " + name + " code " + std::to_string(code) +
                                            " unknown (0 f32, 1 bf16, 2 f16)");
  if (p->validate_indices != 0 && p->validate_indices != 1)
    return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": validate_indices must be 0 or 1");
  out->tokens = p->tokens;
  out->num_kv = p->num_kv;
  out->heads = p->heads;
  out->d = p->d;
  out->topk = p->topk;
  out->scale = p->scale != 0.0f ? p->scale : ka::default_scale(p->d == 128 ? 128 : 512);
  out->in_dtype = static_cast<samebits::kernels::DType>(p->in_dtype);
  out->libm = static_cast<ka::Libm>(p->libm);
  out->indices = p->indices;
  out->indices_row_stride = p->indices_row_stride;
  out->sink = p->sink;
  out->error_flag = p->error_flag;
  return SAMEBITS_OK;
}

ka::Strides strides3(samebits_tensor3 t) { return ka::Strides{t.row_stride, t.head_stride}; }

// The reference's problem: the sizes checked as the kernels check them, the
// host indices (row stride honoured) and sink copied.
int32_t sparse_reference_problem(const samebits_sparse_mla_problem* p, const char* fn, ks::Problem* out) {
  if (!p) return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": problem is null");
  if (p->libm != SAMEBITS_LIBM_NVCC && p->libm != SAMEBITS_LIBM_CR)
    return fail(SAMEBITS_UNSUPPORTED, std::string(fn) + ": libm code " + std::to_string(p->libm) + " unknown");
  ks::ProblemParams s;
  s.tokens = p->tokens;
  s.num_kv = p->num_kv;
  s.heads = p->heads;
  s.d = p->d;
  s.topk = p->topk;
  s.scale = p->scale != 0.0f ? p->scale : ka::default_scale(p->d == 128 ? 128 : 512);
  s.in_dtype = samebits::kernels::DType::f32;  // the reference reads binary32 whatever in_dtype says
  s.libm = static_cast<ka::Libm>(p->libm);
  if (int32_t st = from_status(ksv::check_sizes(s))) return st;
  if (p->tokens > 0 && !p->indices) return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": indices is null");
  if (p->tokens > 0 && p->indices_row_stride < p->topk)
    return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": indices_row_stride below topk (rows overlap)");
  out->tokens = p->tokens;
  out->num_kv = p->num_kv;
  out->heads = p->heads;
  out->d = p->d;
  out->topk = p->topk;
  out->scale = s.scale;
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
  if (libm == SAMEBITS_LIBM_NVCC_FAST)
    return fail(SAMEBITS_UNSUPPORTED, "samebits_sparse_mla_fingerprint: libm nvcc-fast is offered by dense "
                                      "attention's sm90-tensor-core policy only (sparse MLA takes nvcc or cr)");
  if (libm != SAMEBITS_LIBM_NVCC && libm != SAMEBITS_LIBM_CR)
    return fail(SAMEBITS_UNSUPPORTED, "samebits_sparse_mla_fingerprint: libm code " + std::to_string(libm) + " unknown");
  const std::string f = ks::fingerprint(static_cast<ka::Libm>(libm));
  if (!buf || len < static_cast<int64_t>(f.size()) + 1)
    return fail(SAMEBITS_INVALID_ARGUMENT,
                "samebits_sparse_mla_fingerprint: buffer needs " + std::to_string(f.size() + 1) + " bytes");
  std::memcpy(buf, f.c_str(), f.size() + 1);
  return SAMEBITS_OK;
}

int32_t samebits_sparse_mla_forward(const samebits_sparse_mla_problem* p, samebits_tensor3 q, const void* kv,
                                    int64_t kv_row_stride, samebits_tensor3 o, float* lse, float* lse_excl,
                                    void* stream) {
  static constexpr const char* fn = "samebits_sparse_mla_forward";
  return guarded(fn, [&]() -> int32_t {
    ks::ForwardParams f;
    if (int32_t s = sparse_problem(p, fn, false, &f)) return s;
    f.q = q.data;
    f.q_stride = strides3(q);
    f.kv = kv;
    f.kv_row_stride = kv_row_stride;
    f.o = o.data;
    f.o_stride = strides3(o);
    f.lse = lse;
    f.lse_excl = lse_excl;
    f.o_dtype = static_cast<samebits::kernels::DType>(p->o_dtype);
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
  if (!p || sparse_problem(p, "samebits_sparse_mla_backward_workspace_bytes", true, &b) != SAMEBITS_OK) return -1;
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
    if (int32_t s = sparse_problem(p, fn, true, &b)) return s;
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
    b.o_dtype = static_cast<samebits::kernels::DType>(p->o_dtype);
    b.grad_dtype = static_cast<samebits::kernels::DType>(p->grad_dtype);
    b.chunk_tokens = p->chunk_tokens;
    b.workspace = workspace;
    b.workspace_bytes = workspace_bytes;
#if defined(SAMEBITS_WITH_CUDA)
    return from_status(ks::backward(b, p->validate_indices != 0, stream));
#else
    (void)stream;
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
    if (int32_t s = sparse_reference_problem(p, fn, &r)) return s;
    if (r.tokens > 0 && (!q || !o || !lse))
      return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": q, o and lse must not be null");
    if (r.num_kv > 0 && !kv) return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": kv is null");
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
    if (int32_t s = sparse_reference_problem(p, fn, &r)) return s;
    if (r.tokens > 0 && (!q || !o || !dout || !lse || !dq))
      return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": q, o, dout, lse and dq must not be null");
    if (r.num_kv > 0 && (!kv || !dkv))
      return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": kv and dkv must not be null");
    if (!r.sink.empty() && !dsink)
      return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": dsink is null (a sink was given)");
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
