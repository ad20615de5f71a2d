// kernels/src/validate/sparse_mla_validate.cpp — see sparse_mla_validate.hpp.
#include "validate/sparse_mla_validate.hpp"

#include <string>

#include "validate/rules.hpp"

namespace samebits::kernels::sparse_mla::validate {
namespace {

namespace av = attention::validate;

Status fail(StatusCode c, const std::string& m) { return av::refusal(kOp, c, m); }
Status ok() { return Status{}; }
Status of(const rules::Verdict& v) { return v.ok() ? ok() : av::refusal(kOp, v.code, v.what); }

Status tensor(const void* ptr, DType t, Strides st, std::int64_t rows, int heads, int d, const char* name,
              PointerQuery q) {
  return av::check_tensor(ptr, t, st, rows, heads, d, name, q, kOp);
}
// [rows, D] as a one-head [rows, 1, D] tensor.
Status rows(const void* ptr, DType t, std::int64_t row_stride, std::int64_t n, int d, const char* name,
            PointerQuery q) {
  return tensor(ptr, t, Strides{row_stride, d}, n, 1, d, name, q);
}
Status array(const void* ptr, std::int64_t elements, int align, const char* name, PointerQuery q) {
  return av::check_pointer(ptr, elements, align, name, q, kOp);
}
av::Span rows_span(const void* ptr, DType t, std::int64_t row_stride, std::int64_t n, int d, const char* name) {
  return av::tensor_span(ptr, t, Strides{row_stride, d}, n, 1, d, name);
}

}  // namespace

Status check_sizes(const ProblemParams& p) {
  if (Status s = of(rules::libm(p.libm, Policy::fma_chain)); !s.ok()) return s;
  if (Status s = of(rules::sparse_input_dtype(p.in_dtype)); !s.ok()) return s;
  if (Status s = of(rules::sparse_head_dim(p.d)); !s.ok()) return s;
  if (Status s = of(rules::sparse_sizes(p.heads, p.tokens, p.num_kv, p.topk)); !s.ok()) return s;
  return of(rules::scale(p.scale));
}

Status check_chunk(const BackwardParams& p) { return of(rules::sparse_chunk_tokens(p.chunk_tokens, p.topk)); }

Status check_output_dtypes(const ProblemParams& p, DType o, const DType* grad) {
  if (Status s = of(rules::output_dtype(o, p.in_dtype, "o_dtype")); !s.ok()) return s;
  if (grad)
    if (Status s = of(rules::output_dtype(*grad, p.in_dtype, "grad_dtype")); !s.ok()) return s;
  return ok();
}

namespace {
// The problem's pointers: the indices array, sink and error flag.
Status check_problem_pointers(const ProblemParams& p, PointerQuery q) {
  if (p.tokens > 0 && p.indices_row_stride < p.topk)
    return fail(StatusCode::invalid_argument, "indices: row stride below topk (rows overlap)");
  if (Status s = rows(p.indices, DType::f32, p.indices_row_stride, p.tokens, p.topk, "indices", q); !s.ok()) return s;
  if (p.sink)
    if (Status s = array(p.sink, p.heads, 4, "sink", q); !s.ok()) return s;
  if (p.error_flag)
    if (Status s = array(p.error_flag, 1, 4, "error_flag", q); !s.ok()) return s;
  return ok();
}
}  // namespace

Status check_problem(const ProblemParams& p, PointerQuery q) {
  if (Status s = check_sizes(p); !s.ok()) return s;
  return check_problem_pointers(p, q);
}

Status check_forward(const ForwardParams& p, PointerQuery q) {
  // The problem's rules first, in samebits_sparse_mla_check's order, then the pointers.
  Status s;
  if (!(s = check_sizes(p)).ok()) return s;
  if (!(s = check_output_dtypes(p, p.o_dtype, nullptr)).ok()) return s;
  if (!(s = check_problem_pointers(p, q)).ok()) return s;
  if (!(s = tensor(p.q, p.in_dtype, p.q_stride, p.tokens, p.heads, p.d, "q", q)).ok()) return s;
  if (!(s = rows(p.kv, p.in_dtype, p.kv_row_stride, p.num_kv, p.d, "kv", q)).ok()) return s;
  if (!(s = tensor(p.o, p.o_dtype, p.o_stride, p.tokens, p.heads, p.d, "o", q)).ok()) return s;
  if (!(s = array(p.lse, p.tokens * p.heads, 4, "lse", q)).ok()) return s;
  if (p.lse_excl && !(s = array(p.lse_excl, p.tokens * p.heads, 4, "lse_excl", q)).ok()) return s;
  const std::int64_t rows_heads = p.tokens * p.heads;
  return av::check_disjoint(
      {av::tensor_span(p.q, p.in_dtype, p.q_stride, p.tokens, p.heads, p.d, "q"),
       rows_span(p.kv, p.in_dtype, p.kv_row_stride, p.num_kv, p.d, "kv"),
       rows_span(p.indices, DType::f32, p.indices_row_stride, p.tokens, p.topk, "indices"),
       av::bytes_span(p.sink, std::int64_t{p.heads} * 4, "sink")},
      {av::tensor_span(p.o, p.o_dtype, p.o_stride, p.tokens, p.heads, p.d, "o"),
       av::bytes_span(p.lse, rows_heads * 4, "lse"), av::bytes_span(p.lse_excl, rows_heads * 4, "lse_excl"),
       av::bytes_span(p.error_flag, 4, "error_flag")},
      kOp);
}

Status check_backward(const BackwardParams& p, std::int64_t workspace_need, PointerQuery q) {
  Status s;
  if (!(s = check_sizes(p)).ok()) return s;
  if (!(s = check_output_dtypes(p, p.o_dtype, &p.grad_dtype)).ok()) return s;
  if (!(s = check_chunk(p)).ok()) return s;
  if (!(s = check_problem_pointers(p, q)).ok()) return s;
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
  const std::int64_t rows_heads = p.tokens * p.heads;
  return av::check_disjoint(
      {av::tensor_span(p.q, p.in_dtype, p.q_stride, p.tokens, p.heads, p.d, "q"),
       rows_span(p.kv, p.in_dtype, p.kv_row_stride, p.num_kv, p.d, "kv"),
       av::tensor_span(p.o, p.o_dtype, p.o_stride, p.tokens, p.heads, p.d, "o"),
       av::tensor_span(p.dout, p.in_dtype, p.dout_stride, p.tokens, p.heads, p.d, "dout"),
       av::bytes_span(p.lse, rows_heads * 4, "lse"),
       rows_span(p.indices, DType::f32, p.indices_row_stride, p.tokens, p.topk, "indices"),
       av::bytes_span(p.sink, std::int64_t{p.heads} * 4, "sink")},
      {av::tensor_span(p.dq, p.grad_dtype, p.dq_stride, p.tokens, p.heads, p.d, "dq"),
       rows_span(p.dkv, p.grad_dtype, p.dkv_row_stride, p.num_kv, p.d, "dkv"),
       av::bytes_span(p.sink ? p.dsink : nullptr, std::int64_t{p.heads} * 4, "dsink"),
       av::bytes_span(p.workspace, workspace_need, "workspace"), av::bytes_span(p.error_flag, 4, "error_flag")},
      kOp);
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
