// kernels/src/capi/marshal.hpp — the C ABI's arguments (samebits/kernels/c_api.h)
// as the C++ Params the one validation (kernels/src/validate/) and the host
// API take. Only what belongs to the C representation is checked here: a
// null problem, causal as an int32 0 or 1, the mma pointer (given only under
// sm90-tensor-core), validate_indices 0 or 1, the backward's single workspace
// (its size, alignment, carving). Codes are carried over as they are (an
// unknown one stays unknown: the validator names it), the scale too (NaN: the
// default, rules.hpp).
#pragma once

#include <cstdint>

#include "samebits/kernels/attention/api.hpp"
#include "samebits/kernels/c_api.h"
#include "samebits/kernels/sparse_mla/api.hpp"
#include "samebits/libm/mma/sm90.hpp"

namespace samebits::kernels::capi {

namespace ka = attention;
namespace ks = sparse_mla;
using ka::Status;

inline constexpr const char* kAttention = "samebits attention: ";
inline constexpr const char* kSparse = "samebits sparse-mla: ";

// A samebits_attention_problem as the C++ API's problem and the host copies of
// cu_seqlens, with the dtypes of the outputs (ProblemParams carries in_dtype only).
struct AttentionCall {
  ka::ProblemParams p;
  ka::HostSeqlens host;
  DType o_dtype = DType::f32, grad_dtype = DType::f32;
};
Status attention_call(const samebits_attention_problem* p, AttentionCall* out);

// The model's parameters of the C struct (null: the defaults). Enum codes
// outside the uint8 range are kept out of range (they would wrap into valid
// ones): mma::sm90::invalid_argument names them.
mma::sm90::Params mma_params_of(const samebits_mma_params* m);

ka::ForwardParams forward_params(const AttentionCall& c, samebits_tensor3 q, samebits_tensor3 k, samebits_tensor3 v,
                                 samebits_tensor3 o, float* lse);
// The backward's workspace: its size (enough for the problem), 256-byte alignment and end.
Status check_workspace(const ka::ProblemParams& p, const void* workspace, std::int64_t workspace_bytes);
// The backward's parameters, the workspace carved as workspace_accum_offset says (after check_workspace).
ka::BackwardParams backward_params(const AttentionCall& c, samebits_tensor3 q, samebits_tensor3 k, samebits_tensor3 v,
                                   samebits_tensor3 o, samebits_tensor3 dout, const float* lse, samebits_tensor3 dq,
                                   samebits_tensor3 dk, samebits_tensor3 dv, void* workspace,
                                   std::int64_t workspace_bytes, const float* accum_k_in, const float* accum_v_in);

// samebits_attention_backward_workspace_bytes / _accum_offset: -1 when the
// arguments are negative or a size overflows int64.
std::int64_t workspace_bytes(std::int64_t total_q, std::int64_t total_k, std::int32_t hq, std::int32_t d);
std::int64_t workspace_accum_offset(std::int64_t total_q, std::int64_t total_k, std::int32_t hq, std::int32_t d,
                                    std::int32_t which);
// samebits_attention_backward_stored_ds_workspace_bytes: the workspace with the stored D^S after
// its other parts (at a multiple of 256 bytes); -1 for the fma-chain policy or on overflow.
std::int64_t stored_ds_workspace_bytes(const samebits_attention_problem* p);

// A samebits_sparse_mla_problem as the C++ API's problem (`reference`: the
// CPU reference's reading, which ignores validate_indices and reads float32).
Status sparse_problem(const samebits_sparse_mla_problem* p, bool reference, ks::ProblemParams* out);

}  // namespace samebits::kernels::capi
