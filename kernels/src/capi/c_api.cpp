// The kernels' C ABI (samebits/kernels/c_api.h) over the C++ host API and the
// CPU reference. Built with or without the CUDA kernels (SAMEBITS_WITH_CUDA):
// without them the GPU entry points return SAMEBITS_NOT_BUILT with a message,
// and the reference and the validation of the problem still work.
#include "samebits/kernels/c_api.h"

#include <cmath>
#include <cstring>
#include <exception>
#include <string>

#include "samebits/kernels/attention/contract.hpp"
#include "samebits/kernels/attention/reference_api.hpp"
#include "samebits/kernels/dtype.hpp"

#if defined(SAMEBITS_WITH_CUDA)
#include "samebits/kernels/attention/api.hpp"
#endif

namespace {

namespace ka = samebits::kernels::attention;
namespace kn = samebits::kernels;

thread_local std::string g_last_error;

int32_t fail(int32_t code, std::string message) {
  g_last_error = std::move(message);
  return code;
}

int64_t round_up_256(int64_t bytes) { return (bytes + 255) / 256 * 256; }

bool dtype_code_known(int32_t t) { return t == SAMEBITS_F32 || t == SAMEBITS_BF16 || t == SAMEBITS_F16; }

// What both the reference and the kernels need of a problem, checked on the
// host copies of cu_seqlens.
int32_t check_common(const samebits_attention_problem* p, const char* fn) {
  const std::string where = std::string(fn) + ": ";
  if (!p) return fail(SAMEBITS_INVALID_ARGUMENT, where + "problem is null");
  if (p->libm != SAMEBITS_LIBM_NVCC && p->libm != SAMEBITS_LIBM_CR)
    return fail(SAMEBITS_UNSUPPORTED, where + "libm code " + std::to_string(p->libm) + " unknown (0 nvcc, 1 cr)");
  if (p->d != 64 && p->d != 128)
    return fail(SAMEBITS_UNSUPPORTED, where + "d = " + std::to_string(p->d) + " unsupported (64 or 128)");
  if (p->hq <= 0 || p->hkv <= 0 || p->hq % p->hkv != 0)
    return fail(SAMEBITS_INVALID_ARGUMENT, where + "hq = " + std::to_string(p->hq) + ", hkv = " +
                                               std::to_string(p->hkv) + ": need hq % hkv == 0, both positive");
  if (p->causal != 0 && p->causal != 1) return fail(SAMEBITS_INVALID_ARGUMENT, where + "causal must be 0 or 1");
  if (!std::isfinite(p->scale) || p->scale < 0)
    return fail(SAMEBITS_INVALID_ARGUMENT, where + "scale must be finite and >= 0 (0: default)");
  if (p->num_seqs <= 0) return fail(SAMEBITS_INVALID_ARGUMENT, where + "num_seqs must be positive");
  if (!p->cu_seqlens_q_host || !p->cu_seqlens_k_host)
    return fail(SAMEBITS_INVALID_ARGUMENT, where + "cu_seqlens_q_host / cu_seqlens_k_host are required (host copies)");
  if (p->cu_seqlens_q_host[0] != 0 || p->cu_seqlens_k_host[0] != 0)
    return fail(SAMEBITS_INVALID_ARGUMENT, where + "cu_seqlens must start at 0");
  for (int32_t s = 0; s < p->num_seqs; ++s) {
    if (p->cu_seqlens_q_host[s + 1] < p->cu_seqlens_q_host[s])
      return fail(SAMEBITS_INVALID_ARGUMENT, where + "cu_seqlens_q decreases at sequence " + std::to_string(s));
    if (p->cu_seqlens_k_host[s + 1] < p->cu_seqlens_k_host[s])
      return fail(SAMEBITS_INVALID_ARGUMENT, where + "cu_seqlens_k decreases at sequence " + std::to_string(s));
  }
  if (p->cu_seqlens_q_host[p->num_seqs] != p->total_q || p->cu_seqlens_k_host[p->num_seqs] != p->total_k)
    return fail(SAMEBITS_INVALID_ARGUMENT, where + "cu_seqlens[num_seqs] differs from total_q / total_k");
  return SAMEBITS_OK;
}

float scale_of(const samebits_attention_problem* p) {
  return p->scale == 0.0f ? ka::default_scale(p->d) : p->scale;
}

ka::DenseProblem dense_of(const samebits_attention_problem* p) {
  ka::DenseProblem d;
  d.cu_q.assign(p->cu_seqlens_q_host, p->cu_seqlens_q_host + p->num_seqs + 1);
  d.cu_k.assign(p->cu_seqlens_k_host, p->cu_seqlens_k_host + p->num_seqs + 1);
  d.hq = p->hq;
  d.hkv = p->hkv;
  d.d = p->d;
  d.causal = p->causal != 0;
  d.scale = scale_of(p);
  return d;
}

#if defined(SAMEBITS_WITH_CUDA)
int32_t from_status(const ka::Status& s) {
  if (s.ok()) return SAMEBITS_OK;
  return fail(static_cast<int32_t>(s.code), s.message);
}

void fill_problem(ka::ProblemParams& q, const samebits_attention_problem* p) {
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
  q.scale = scale_of(p);
  q.in_dtype = static_cast<kn::DType>(p->in_dtype);
  q.libm = static_cast<ka::Libm>(p->libm);
}
ka::Strides strides_of(samebits_tensor3 t) { return ka::Strides{t.row_stride, t.head_stride}; }
#endif

int32_t not_built(const char* fn) {
  return fail(SAMEBITS_NOT_BUILT, std::string(fn) +
                                      ": this samebits library was built without the CUDA kernels "
                                      "(configure with meson -Dcuda=enabled)");
}

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
  if (libm != SAMEBITS_LIBM_NVCC && libm != SAMEBITS_LIBM_CR)
    return fail(SAMEBITS_UNSUPPORTED, "samebits_attention_fingerprint: libm code " + std::to_string(libm) + " unknown");
  const std::string f = ka::fingerprint(ka::Policy::fma_chain, static_cast<ka::Libm>(libm));
  if (!buf || len < static_cast<int64_t>(f.size()) + 1)
    return fail(SAMEBITS_INVALID_ARGUMENT, "samebits_attention_fingerprint: buffer needs " +
                                               std::to_string(f.size() + 1) + " bytes");
  std::memcpy(buf, f.c_str(), f.size() + 1);
  return SAMEBITS_OK;
}

int64_t samebits_attention_backward_workspace_bytes(int64_t total_q, int64_t total_k, int32_t hq, int32_t d) {
  return round_up_256(total_q * hq * 4) + 2 * round_up_256(total_k * hq * d * 4) + round_up_256(total_q * hq * d * 4) +
         round_up_256((total_q * hq + 1) * 4);
}

int64_t samebits_attention_backward_accum_offset(int64_t total_q, int64_t total_k, int32_t hq, int32_t d,
                                                 int32_t which) {
  return round_up_256(total_q * hq * 4) + (which ? round_up_256(total_k * hq * d * 4) : 0);
}

int32_t samebits_attention_forward(const samebits_attention_problem* p, samebits_tensor3 q, samebits_tensor3 k,
                                   samebits_tensor3 v, samebits_tensor3 o, float* lse, void* stream) {
  static constexpr const char* fn = "samebits_attention_forward";
  return guarded(fn, [&]() -> int32_t {
    if (int32_t s = check_common(p, fn)) return s;
    if (!dtype_code_known(p->in_dtype) || !dtype_code_known(p->o_dtype))
      return fail(SAMEBITS_UNSUPPORTED, std::string(fn) + ": dtype code unknown (0 f32, 1 bf16, 2 f16)");
#if defined(SAMEBITS_WITH_CUDA)
    ka::ForwardParams f;
    fill_problem(f, p);
    f.q = q.data;
    f.k = k.data;
    f.v = v.data;
    f.o = o.data;
    f.lse = lse;
    f.q_stride = strides_of(q);
    f.k_stride = strides_of(k);
    f.v_stride = strides_of(v);
    f.o_stride = strides_of(o);
    f.o_dtype = static_cast<kn::DType>(p->o_dtype);
    return from_status(ka::forward(f, ka::HostSeqlens{p->cu_seqlens_q_host, p->cu_seqlens_k_host}, stream));
#else
    (void)q, (void)k, (void)v, (void)o, (void)lse, (void)stream;
    return not_built(fn);
#endif
  });
}

int32_t samebits_attention_backward(const samebits_attention_problem* p, samebits_tensor3 q, samebits_tensor3 k,
                                    samebits_tensor3 v, samebits_tensor3 o, samebits_tensor3 dout, const float* lse,
                                    samebits_tensor3 dq, samebits_tensor3 dk, samebits_tensor3 dv, void* workspace,
                                    int64_t workspace_bytes, const float* accum_k_in, const float* accum_v_in,
                                    void* stream) {
  static constexpr const char* fn = "samebits_attention_backward";
  return guarded(fn, [&]() -> int32_t {
    if (int32_t s = check_common(p, fn)) return s;
    if (!dtype_code_known(p->in_dtype) || !dtype_code_known(p->o_dtype) || !dtype_code_known(p->grad_dtype))
      return fail(SAMEBITS_UNSUPPORTED, std::string(fn) + ": dtype code unknown (0 f32, 1 bf16, 2 f16)");
    const int64_t need = samebits_attention_backward_workspace_bytes(p->total_q, p->total_k, p->hq, p->d);
    if (workspace_bytes < need)
      return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": workspace_bytes " + std::to_string(workspace_bytes) +
                                                 " < " + std::to_string(need) + " needed");
    if (!workspace || reinterpret_cast<std::uintptr_t>(workspace) % 256 != 0)
      return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": workspace must be non-null and 256-byte aligned");
    if ((accum_k_in == nullptr) != (accum_v_in == nullptr))
      return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": give both accum_k_in and accum_v_in, or neither");
#if defined(SAMEBITS_WITH_CUDA)
    ka::BackwardParams b;
    fill_problem(b, p);
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
    b.o_dtype = static_cast<kn::DType>(p->o_dtype);
    b.grad_dtype = static_cast<kn::DType>(p->grad_dtype);
    char* w = static_cast<char*>(workspace);
    b.delta = reinterpret_cast<float*>(w);
    b.accum_k = reinterpret_cast<float*>(w + samebits_attention_backward_accum_offset(p->total_q, p->total_k, p->hq, p->d, 0));
    b.accum_v = reinterpret_cast<float*>(w + samebits_attention_backward_accum_offset(p->total_q, p->total_k, p->hq, p->d, 1));
    b.dq_accum = reinterpret_cast<float*>(
        w + samebits_attention_backward_accum_offset(p->total_q, p->total_k, p->hq, p->d, 1) +
        round_up_256(p->total_k * p->hq * p->d * 4));
    b.dq_flags = reinterpret_cast<std::int32_t*>(reinterpret_cast<char*>(b.dq_accum) +
                                                 round_up_256(p->total_q * p->hq * p->d * 4));
    b.accum_k_in = accum_k_in;
    b.accum_v_in = accum_v_in;
    return from_status(ka::backward(b, ka::HostSeqlens{p->cu_seqlens_q_host, p->cu_seqlens_k_host}, stream));
#else
    (void)q, (void)k, (void)v, (void)o, (void)dout, (void)lse, (void)dq, (void)dk, (void)dv, (void)stream;
    return not_built(fn);
#endif
  });
}

int32_t samebits_attention_reference_forward(const samebits_attention_problem* p, const float* q, const float* k,
                                             const float* v, float* o, float* lse, int32_t threads) {
  static constexpr const char* fn = "samebits_attention_reference_forward";
  return guarded(fn, [&]() -> int32_t {
    if (int32_t s = check_common(p, fn)) return s;
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
    if (int32_t s = check_common(p, fn)) return s;
    if (!q || !k || !v || !o || !dout || !lse || !dq || !dk || !dv)
      return fail(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": a tensor pointer is null");
    ka::reference_backward(static_cast<ka::Libm>(p->libm), dense_of(p), q, k, v, o, dout, lse, dq, dk, dv,
                           static_cast<unsigned>(threads < 0 ? 0 : threads));
    return SAMEBITS_OK;
  });
}

}  // extern "C"
