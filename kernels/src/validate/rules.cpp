// kernels/src/validate/rules.cpp — see rules.hpp.
//
// Built with -DSAMEBITS_PLANT_VALIDATION_BUG it accepts hq % hkv != 0, with
// -DSAMEBITS_PLANT_SPARSE_VALIDATION_BUG a chunk_tokens that is not a multiple
// of B = 64: the fuzzers' negative controls (fuzz/meson.build), never a real
// build.
#include "validate/rules.hpp"

#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <string>

#include "samebits/kernels/attention/contract.hpp"
#include "samebits/kernels/attention/tensor_core.hpp"
#include "samebits/kernels/sparse_mla/params.hpp"

namespace samebits::kernels::rules {
namespace {

Verdict ok() { return Verdict{}; }
Verdict invalid(std::string what) { return Verdict{StatusCode::invalid_argument, std::move(what)}; }
Verdict unsupported(std::string what) { return Verdict{StatusCode::unsupported, std::move(what)}; }

std::string num(std::int64_t x) { return std::to_string(x); }
// A binary32 as the caller wrote it: shortest round-trip decimal (and inf, nan).
std::string flt(float x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.9g", static_cast<double>(x));
  return b;
}

// "0 nvcc, 1 cr, 2 nvcc-fast": every known code with its name.
template <class E, class Name>
std::string known_codes(std::initializer_list<E> codes, Name name) {
  std::string s;
  for (E c : codes) s += (s.empty() ? "" : ", ") + num(static_cast<std::int64_t>(c)) + " " + name(c);
  return s;
}
std::string libm_codes() {
  return known_codes({Libm::nvcc, Libm::cr, Libm::nvcc_fast}, attention::libm_name);
}
std::string dtype_codes() { return known_codes({DType::f32, DType::bf16, DType::f16}, dtype_name); }

bool libm_known(Libm l) { return l == Libm::nvcc || l == Libm::cr || l == Libm::nvcc_fast; }
bool dtype_known(DType t) { return t == DType::f32 || t == DType::bf16 || t == DType::f16; }

}  // namespace

Verdict libm(Libm l, Policy p) {
  if (!libm_known(l))
    return unsupported("libm code " + num(static_cast<std::int64_t>(l)) + " unknown (" + libm_codes() + ")");
  if (l == Libm::nvcc_fast && p != Policy::sm90_tensor_core)
    return unsupported(std::string("libm nvcc-fast is offered by the sm90-tensor-core policy only (policy ") +
                       attention::policy_long_name(p) + " takes nvcc or cr)");
  return ok();
}

Verdict policy(Policy p) {
  if (p != Policy::fma_chain && p != Policy::sm90_tensor_core)
    return unsupported("policy code " + num(static_cast<std::int64_t>(p)) + " unknown (" +
                       known_codes({Policy::fma_chain, Policy::sm90_tensor_core}, attention::policy_long_name) + ")");
  return ok();
}

Verdict scale(float s) {
  if (std::isnan(s)) return ok();  // not given: the default
  if (!std::isfinite(s) || s <= 0.0f)
    return invalid("scale = " + flt(s) + ": an explicit scale must be finite and > 0 (NaN: not given, the default "
                                         "binary32 nearest 1/sqrt(D); 0 is refused, never read as the default)");
  return ok();
}

float resolved_scale(float s, int d) { return std::isnan(s) ? attention::default_scale(d) : s; }

Verdict libm_scale(Libm l, float s) {
  if (l == Libm::nvcc_fast && s < 0.0f)
    return unsupported("scale = " + flt(s) + ": libm nvcc-fast needs a scale that is not negative (its base-2 "
                                             "softmax takes the maximum of the unscaled scores)");
  return ok();
}

Verdict dtype_code(DType t, const char* field) {
  if (!dtype_known(t))
    return unsupported(std::string(field) + " code " + num(static_cast<std::int64_t>(t)) + " unknown (" +
                       dtype_codes() + ")");
  return ok();
}

Verdict output_dtype(DType out, DType in, const char* field) {
  if (Verdict v = dtype_code(out, field); !v.ok()) return v;
  if (out != in && out != DType::f32)
    return unsupported(std::string(field) + " " + dtype_name(out) + ": an output is in the input dtype (" +
                       dtype_name(in) + ") or float32");
  return ok();
}

Verdict head_dim(int d) {
  static_assert(attention::tc::head_dim_supported(64) && attention::tc::head_dim_supported(128));
  if (d != 64 && d != 128) return unsupported("d = " + num(d) + ": the head dim must be 64 or 128");
  return ok();
}

Verdict heads(std::int64_t hq, std::int64_t hkv) {
  if (hq <= 0 || hkv <= 0)
    return invalid("hq = " + num(hq) + ", hkv = " + num(hkv) + ": both must be positive");
#if !defined(SAMEBITS_PLANT_VALIDATION_BUG)
  if (hq % hkv != 0)
    return invalid("hq = " + num(hq) + ", hkv = " + num(hkv) + ": hq must be a multiple of hkv (GQA)");
#endif
  if (hq > 65535) return unsupported("hq = " + num(hq) + ": at most 65535 query heads");
  return ok();
}

Verdict num_seqs(std::int64_t n) {
  if (n < 1 || n > 65535) return invalid("num_seqs = " + num(n) + ": must be in 1 .. 65535");
  return ok();
}

Verdict cu_seqlens(int n, const std::int32_t* cu_q, const std::int32_t* cu_k, std::int64_t total_q,
                   std::int64_t total_k) {
  const struct {
    const char* name;
    const std::int32_t* cu;
    std::int64_t total;
    const char* total_name;
  } arrays[] = {{"cu_seqlens_q", cu_q, total_q, "total_q"}, {"cu_seqlens_k", cu_k, total_k, "total_k"}};
  for (const auto& a : arrays) {
    if (!a.cu) return invalid(std::string(a.name) + ": the host copy is required (its values are checked on the host)");
    if (a.cu[0] != 0) return invalid(std::string(a.name) + "[0] = " + num(a.cu[0]) + ": must start at 0");
    for (int s = 0; s < n; ++s)
      if (a.cu[s + 1] < a.cu[s])
        return invalid(std::string(a.name) + " decreases at sequence " + num(s) + " (" + num(a.cu[s]) + " -> " +
                       num(a.cu[s + 1]) + ")");
    if (a.cu[n] != a.total)
      return invalid(std::string(a.name) + "[num_seqs] = " + num(a.cu[n]) + " differs from " + a.total_name + " = " +
                     num(a.total));
  }
  return ok();
}

Verdict input_dtype(DType in, Policy p) {
  if (Verdict v = dtype_code(in, "in_dtype"); !v.ok()) return v;
  if (p == Policy::sm90_tensor_core && !attention::tc::dtype_supported(in))
    return unsupported(std::string("in_dtype ") + dtype_name(in) +
                       ": policy sm90-tensor-core takes bfloat16 or float16 inputs (the tensor-core products take "
                       "16-bit operands)");
  return ok();
}

Verdict mma(const mma::sm90::Params& m) {
  if (const char* why = mma::sm90::invalid_argument(m, attention::tc::kGroup)) return invalid(std::string("mma: ") + why);
  return ok();
}

Verdict mma_on_gpu(const mma::sm90::Params& m) {
  if (Verdict v = mma(m); !v.ok()) return v;
  namespace tc = attention::tc;
  if (!tc::same_params(m, tc::kHardwareParams))
    return unsupported("mma: policy sm90-tensor-core: the GPU computes its own tensor cores' arithmetic, named " +
                       tc::params_string(tc::kHardwareParams) + "; the given mma parameters " + tc::params_string(m) +
                       " describe other arithmetic (the CPU reference computes it)");
  return ok();
}

Verdict handover_row_groups(int n, const std::int32_t* cu_q, const std::int32_t* cu_k) {
  constexpr int g = attention::tc::kRowGroup;
  for (int s = 0; s < n; ++s) {
    const std::int64_t lq = std::int64_t{cu_q[s + 1]} - cu_q[s], lk = std::int64_t{cu_k[s + 1]} - cu_k[s];
    const std::int64_t a0 = lk - lq;
    if (lq > 0 && ((a0 % g) + g) % g != 0)
      return unsupported("accum_k_in: policy sm90-tensor-core: handed-on dK/dV accumulators need every sequence to "
                         "start at a " + num(g) + "-row group boundary: sequence " + num(s) +
                         " starts at query position Lk - Lq = " + num(a0) + ", not a multiple of " + num(g) +
                         " (split queries at multiples of " + num(g) + " rows)");
  }
  return ok();
}

Verdict sparse_input_dtype(DType in) {
  if (Verdict v = dtype_code(in, "in_dtype"); !v.ok()) return v;
  if (in != DType::bf16 && in != DType::f32)
    return unsupported(std::string("in_dtype ") + dtype_name(in) + ": sparse MLA takes bfloat16 or float32 inputs");
  return ok();
}

Verdict sparse_head_dim(int d) {
  if (d != 512 && d != 128)
    return unsupported("d = " + num(d) + ": the head dim must be 512 (128: the dense-equality instantiation)");
  return ok();
}

Verdict sparse_sizes(std::int64_t heads, std::int64_t tokens, std::int64_t num_kv, std::int64_t topk) {
  if (heads < 1 || heads > 65535 * 16)
    return invalid("heads = " + num(heads) + ": must be in 1 .. 1048560 (65535 blocks of 16 heads)");
  if (tokens < 0 || tokens > 0x7fffffff) return invalid("tokens = " + num(tokens) + ": must be in 0 .. 2^31 - 1");
  if (num_kv < 0 || num_kv >= 0x7fffffff) return invalid("num_kv = " + num(num_kv) + ": must be in 0 .. 2^31 - 2");
  if (topk < 1 || topk > (1 << 24)) return invalid("topk = " + num(topk) + ": must be in 1 .. 2^24");
  return ok();
}

Verdict sparse_chunk_tokens(std::int64_t chunk_tokens, std::int64_t topk) {
#if defined(SAMEBITS_PLANT_SPARSE_VALIDATION_BUG)
  if (chunk_tokens < 0)  // the planted bug: a chunk that is not a multiple of B passes
#else
  if (chunk_tokens < 0 || chunk_tokens % sparse_mla::kBlock != 0)
#endif
    return invalid("chunk_tokens = " + num(chunk_tokens) + ": must be 0 (default) or a positive multiple of B = 64");
  const std::int64_t chunk = chunk_tokens > 0 ? chunk_tokens : sparse_mla::kDefaultChunkTokens;
  if (topk >= 1 && chunk > 0x7fffffff / topk)
    return unsupported("chunk_tokens = " + num(chunk) + ": chunk_tokens * topk above 2^31 - 1 (choose a smaller chunk)");
  return ok();
}

}  // namespace samebits::kernels::rules
