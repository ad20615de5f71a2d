// kernels/src/validate/sparse_mla_validate.hpp — the one validation of the
// sparse MLA arguments (docs/kernels/sparse_mla.md), shared by the C++ host
// API (kernels/src/cuda/sparse_mla_api.cu), the C ABI and the fuzzer
// (fuzz/fuzz_sparse_mla_args.cpp). Host-only C++; the tensor checks are the
// attention validator's (attention_validate.hpp), with this op's name in the
// messages. Every refusal names the argument; a refused call launches nothing.
#pragma once

#include <cstdint>

#include "validate/attention_validate.hpp"
#include "samebits/kernels/sparse_mla/api.hpp"

namespace samebits::kernels::sparse_mla::validate {

using attention::validate::MemoryKind;
using attention::validate::PointerQuery;

// Codes, sizes and limits (what the workspace size depends on).
Status check_sizes(const ProblemParams& p);
// check_sizes, and the indices array, sink and error flag.
Status check_problem(const ProblemParams& p, PointerQuery q);
Status check_forward(const ForwardParams& p, PointerQuery q);
// `workspace_need`: backward_workspace_bytes for p (the launcher knows the
// sort's scratch size; -1 when it could not be computed).
Status check_backward(const BackwardParams& p, std::int64_t workspace_need, PointerQuery q);
// The validating mode: a host copy of indices [tokens, topk] (row stride topk).
Status check_indices(const ProblemParams& p, const std::int32_t* host_indices);

}  // namespace samebits::kernels::sparse_mla::validate
