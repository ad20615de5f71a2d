// kernels/src/validate/sparse_mla_validate.hpp — the one validation of the
// sparse MLA arguments (docs/kernels/sparse_mla.md): pure C++ over the Params
// structs (sparse_mla/params.hpp), shared by the C++ host API
// (kernels/src/cuda/sparse_mla_api.cu), the C ABI (kernels/src/capi/) and the
// fuzzer (fuzz/fuzz_sparse_mla_args.cpp). The rules shared with other callers
// are rules.hpp's; the tensor checks are the attention validator's, with this
// op's name in the messages. Every refusal names the argument; a refused call
// launches nothing.
#pragma once

#include <cstdint>

#include "validate/attention_validate.hpp"
#include "samebits/kernels/sparse_mla/api.hpp"

namespace samebits::kernels::sparse_mla::validate {

using attention::validate::MemoryKind;
using attention::validate::PointerQuery;

inline constexpr const char* kOp = "samebits sparse-mla: ";

// Codes, sizes, scale and limits (what the workspace size depends on): with
// check_output_dtypes (and check_chunk for the backward), what the C ABI's
// samebits_sparse_mla_check answers.
Status check_sizes(const ProblemParams& p);
// The backward's chunk_tokens (0 or a positive multiple of B, chunk * topk within int32).
Status check_chunk(const BackwardParams& p);
// The output dtypes: o (and the gradients': grad may be null).
Status check_output_dtypes(const ProblemParams& p, DType o, const DType* grad);
// check_sizes, and the indices array, sink and error flag.
Status check_problem(const ProblemParams& p, PointerQuery q);
Status check_forward(const ForwardParams& p, PointerQuery q);
// `workspace_need`: backward_workspace_bytes for p (the launcher knows the
// sort's scratch size; -1 when it could not be computed).
Status check_backward(const BackwardParams& p, std::int64_t workspace_need, PointerQuery q);
// The validating mode: a host copy of indices [tokens, topk] (row stride topk).
Status check_indices(const ProblemParams& p, const std::int32_t* host_indices);

}  // namespace samebits::kernels::sparse_mla::validate
