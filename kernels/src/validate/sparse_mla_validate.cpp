// kernels/src/validate/sparse_mla_validate.cpp — see sparse_mla_validate.hpp.
//
// Built with -DSAMEBITS_PLANT_SPARSE_VALIDATION_BUG it accepts a chunk_tokens
// that is not a multiple of B = 64: the negative control of the fuzzer
// (fuzz/meson.build), never a real build.
#include "validate/sparse_mla_validate.hpp"

#include <cmath>
#include <string>

namespace samebits::kernels::sparse_mla::validate {
namespace {

namespace av = attention::validate;

constexpr const char* kPrefix = "samebits sparse-mla: ";
Status fail(StatusCode c, const std::string& m) { return Status{c, kPrefix + m}; }
Status ok() { return Status{}; }

// The attention validator's refusal, under this op's name.
Status renamed(Status s) {
  static const std::string from = "samebits attention: ";
  if (!s.ok() && s.message.rfind(from, 0) == 0) s.message = kPrefix + s.message.substr(from.size());
  return s;
}
Status tensor(const void* ptr, DType t, Strides st, std::int64_t rows, int heads, int d, const char* name,
              PointerQuery q) {
  return renamed(av::check_tensor(ptr, t, st, rows, heads, d, name, q));
}
// [rows, D] as a one-head [rows, 1, D] tensor.
Status rows(const void* ptr, DType t, std::int64_t row_stride, std::int64_t n, int d, const char* name,
            PointerQuery q) {
  return tensor(ptr, t, Strides{row_stride, d}, n, 1, d, name, q);
}
Status array(const void* ptr, std::int64_t elements, int align, const char* name, PointerQuery q) {
  return renamed(av::check_pointer(ptr, elements, align, name, q));
}
Status check_io_dtypes(DType in, DType o) {
  if (o != in && o != DType::f32) return fail(StatusCode::unsupported, "o dtype must be the input dtype or float32");
  return ok();
}

}  // namespace

Status check_sizes(const ProblemParams& p) {
  if (p.libm == Libm::nvcc_fast)
    return fail(StatusCode::unsupported, "libm nvcc-fast is offered by dense attention's sm90-tensor-core policy only "
                                         "(sparse MLA takes nvcc or cr)");
  if (p.libm != Libm::nvcc && p.libm != Libm::cr) return fail(StatusCode::unsupported, "libm code unknown");
  if (p.in_dtype != DType::bf16 && p.in_dtype != DType::f32)
    return fail(StatusCode::unsupported, "input dtype must be bfloat16 or float32");
  if (p.d != 512 && p.d != 128)
    return fail(StatusCode::unsupported, "head dim D must be 512 (128: the dense-equality instantiation)");
  if (p.heads <= 0 || p.heads > 65535 * 16) return fail(StatusCode::invalid_argument, "heads must be in 1 .. 1048560");
  if (p.tokens < 0 || p.tokens > 0x7fffffff) return fail(StatusCode::invalid_argument, "tokens must be in 0 .. 2^31 - 1");
  if (p.num_kv < 0 || p.num_kv >= 0x7fffffff) return fail(StatusCode::invalid_argument, "num_kv must be in 0 .. 2^31 - 2");
  if (p.topk <= 0 || p.topk > (1 << 24)) return fail(StatusCode::invalid_argument, "topk must be in 1 .. 2^24");
  if (!std::isfinite(p.scale)) return fail(StatusCode::invalid_argument, "scale must be finite");
  return ok();
}

Status check_problem(const ProblemParams& p, PointerQuery q) {
  if (Status s = check_sizes(p); !s.ok()) return s;
  if (p.tokens > 0 && p.indices_row_stride < p.topk)
    return fail(StatusCode::invalid_argument, "indices: row stride below topk (rows overlap)");
  if (Status s = rows(p.indices, DType::f32, p.indices_row_stride, p.tokens, p.topk, "indices", q); !s.ok()) return s;
  if (p.sink)
    if (Status s = array(p.sink, p.heads, 4, "sink", q); !s.ok()) return s;
  if (p.error_flag)
    if (Status s = array(p.error_flag, 1, 4, "error_flag", q); !s.ok()) return s;
  return ok();
}

Status check_forward(const ForwardParams& p, PointerQuery q) {
  Status s;
  if (!(s = check_problem(p, q)).ok()) return s;
  if (!(s = check_io_dtypes(p.in_dtype, p.o_dtype)).ok()) return s;
  if (!(s = tensor(p.q, p.in_dtype, p.q_stride, p.tokens, p.heads, p.d, "q", q)).ok()) return s;
  if (!(s = rows(p.kv, p.in_dtype, p.kv_row_stride, p.num_kv, p.d, "kv", q)).ok()) return s;
  if (!(s = tensor(p.o, p.o_dtype, p.o_stride, p.tokens, p.heads, p.d, "o", q)).ok()) return s;
  if (!(s = array(p.lse, p.tokens * p.heads, 4, "lse", q)).ok()) return s;
  if (p.lse_excl && !(s = array(p.lse_excl, p.tokens * p.heads, 4, "lse_excl", q)).ok()) return s;
  return ok();
}

Status check_backward(const BackwardParams& p, std::int64_t workspace_need, PointerQuery q) {
  Status s;
  if (!(s = check_problem(p, q)).ok()) return s;
  if (!(s = check_io_dtypes(p.in_dtype, p.o_dtype)).ok()) return s;
  if (p.grad_dtype != p.in_dtype && p.grad_dtype != DType::f32)
    return fail(StatusCode::unsupported, "gradient dtype must be the input dtype or float32");
#if defined(SAMEBITS_PLANT_SPARSE_VALIDATION_BUG)
  if (p.chunk_tokens < 0)  // the planted bug: a chunk that is not a multiple of B passes
#else
  if (p.chunk_tokens < 0 || p.chunk_tokens % kBlock != 0)
#endif
    return fail(StatusCode::invalid_argument, "chunk_tokens " + std::to_string(p.chunk_tokens) +
                                                  " must be 0 (default) or a positive multiple of B = 64");
  const std::int64_t chunk = p.chunk_tokens > 0 ? p.chunk_tokens : kDefaultChunkTokens;
  if (chunk > 0x7fffffff / p.topk)
    return fail(StatusCode::unsupported, "chunk_tokens * topk above 2^31 - 1 (choose a smaller chunk)");
  if (!(s = tensor(p.q, p.in_dtype, p.q_stride, p.tokens, p.heads, p.d, "q", q)).ok()) return s;
  if (!(s = rows(p.kv, p.in_dtype, p.kv_row_stride, p.num_kv, p.d, "kv", q)).ok()) return s;
  if (!(s = tensor(p.o, p.o_dtype, p.o_stride, p.tokens, p.heads, p.d, "o", q)).ok()) return s;
  if (!(s = tensor(p.dout, p.in_dtype, p.dout_stride, p.tokens, p.heads, p.d, "dout", q)).ok()) return s;
  if (!(s = tensor(p.dq, p.grad_dtype, p.dq_stride, p.tokens, p.heads, p.d, "dq", q)).ok()) return s;
  if (!(s = rows(p.dkv, p.grad_dtype, p.dkv_row_stride, p.num_kv, p.d, "dkv", q)).ok()) return s;
  if (!(s = array(p.lse, p.tokens * p.heads, 4, "lse", q)).ok()) return s;
  if (p.sink && !(s = array(p.dsink, p.heads, 4, "dsink (a sink was given)", q)).ok()) return s;
  if (workspace_need < 0) return fail(StatusCode::invalid_argument, "workspace size unknown (sizes out of range)");
  if (p.workspace_bytes < workspace_need)
    return fail(StatusCode::invalid_argument, "workspace_bytes " + std::to_string(p.workspace_bytes) + " < " +
                                                  std::to_string(workspace_need) + " needed (backward_workspace_bytes)");
  // need / 4 rounded up, without forming need + 3 (need may be near INT64_MAX).
  if (!(s = array(p.workspace, workspace_need / 4 + (workspace_need % 4 != 0), 256, "workspace", q)).ok()) return s;
  return ok();
}

Status check_indices(const ProblemParams& p, const std::int32_t* h) {
  for (std::int64_t t = 0; t < p.tokens; ++t)
    for (int s = 0; s < p.topk; ++s) {
      const std::int32_t i = h[t * p.topk + s];
      if (i < -1 || i >= p.num_kv)
        return fail(StatusCode::invalid_argument, "indices: " + std::to_string(i) + " at token " + std::to_string(t) +
                                                      ", slot " + std::to_string(s) + " is outside -1 .. num_kv - 1 = " +
                                                      std::to_string(p.num_kv - 1));
    }
  return ok();
}

}  // namespace samebits::kernels::sparse_mla::validate
