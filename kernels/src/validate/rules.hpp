// kernels/src/validate/rules.hpp — every rule on the kernels' arguments that
// more than one caller applies, written once: the validators (attention_validate,
// sparse_mla_validate: the C++ host API's and the C ABI's one validation), the
// C ABI's fingerprint entry points and the CPU reference's C++ API
// (kernels/src/reference/) call these. Host-only C++ over the C++ enums and
// sizes; nothing here knows the C ABI (c_api.h) or CUDA.
//
// A rule answers with a Verdict: ok, or the status code and what is wrong,
// starting with the argument's name as the C and C++ structs spell it
// ("d = 96: ...", "libm code 7 unknown ..."). The caller prefixes its op
// ("samebits attention: ", "samebits sparse-mla: ", the reference's own).
//
// Compiled once (rules.cpp, without the reference's -mavx2 -mfma), linked by
// the validators and the reference.
#pragma once

#include <cstdint>
#include <string>

#include "samebits/kernels/attention/api.hpp"
#include "samebits/kernels/dtype.hpp"
#include "samebits/libm/mma/sm90.hpp"

namespace samebits::kernels::rules {

using attention::Libm;
using attention::Policy;
using attention::StatusCode;

struct Verdict {
  StatusCode code = StatusCode::ok;
  std::string what;  // empty when ok
  bool ok() const { return code == StatusCode::ok; }
};

// The libm code is known, and offered by the policy: nvcc-fast belongs to the
// sm90-tensor-core policy (attention-tc.md §23); fma-chain (dense attention's
// first policy, and sparse MLA's only one) takes nvcc or cr.
Verdict libm(Libm l, Policy p);
// The policy code is known (0 fma-chain, 1 sm90-tensor-core).
Verdict policy(Policy p);
// An explicit scale is finite and > 0; NaN means "not given": the default,
// the binary32 nearest 1/sqrt(D) (attention.md §3). 0 is refused, never read
// as the default.
Verdict scale(float s);
// The scale a launch uses: the given one, or the default for D (after scale()
// and the head-dim rule accepted them).
float resolved_scale(float s, int d);
// libm nvcc-fast's base-2 softmax takes the maximum of the unscaled scores,
// the scaled scores' only for a scale that is not negative (attention-tc.md
// §25). The API boundaries refuse negative scales first (scale()); this is
// the reference's C++ API's rule, which takes any finite scale otherwise.
Verdict libm_scale(Libm l, float s);
// A dtype code is one of float32, bfloat16, float16 (`field`: "in_dtype", ...).
Verdict dtype_code(DType t, const char* field);
// An output's dtype is the input dtype or float32.
Verdict output_dtype(DType out, DType in, const char* field);

// ---- attention ----------------------------------------------------------------------

// D is 64 or 128 (both policies: tc::head_dim_supported).
Verdict head_dim(int d);
// hq and hkv positive, hq a multiple of hkv (GQA), hq <= 65535 (the grid's y).
Verdict heads(std::int64_t hq, std::int64_t hkv);
// 1 <= num_seqs <= 65535 (the grid's z).
Verdict num_seqs(std::int64_t n);
// The host copies of cu_seqlens: num_seqs + 1 entries each, starting at 0,
// non-decreasing, ending at total_q / total_k (num_seqs already checked).
Verdict cu_seqlens(int num_seqs, const std::int32_t* cu_q, const std::int32_t* cu_k, std::int64_t total_q,
                   std::int64_t total_k);
// The input dtype under the policy: sm90-tensor-core's products take bfloat16
// or float16 operands (its code known first).
Verdict input_dtype(DType in, Policy p);
// The tensor-core model's parameters are valid (mma::sm90::invalid_argument).
Verdict mma(const mma::sm90::Params& m);
// ... and, on the GPU, the hardware's own (tc::kHardwareParams): the wgmma
// kernels compute no other arithmetic.
Verdict mma_on_gpu(const mma::sm90::Params& m);
// sm90-tensor-core, a backward continuing handed-on dK/dV accumulators: every
// non-empty sequence starts at a 16-row group boundary (Lk - Lq a multiple of
// 16, attention-tc.md §6).
Verdict handover_row_groups(int num_seqs, const std::int32_t* cu_q, const std::int32_t* cu_k);

// ---- sparse MLA (docs/kernels/sparse_mla.md) -----------------------------------------------

// in_dtype bfloat16 or float32.
Verdict sparse_input_dtype(DType in);
// D 512 (128: the dense-equality instantiation).
Verdict sparse_head_dim(int d);
// heads in 1 .. 1048560 (blocks of 16 heads, at most 65535 of them: the grid's y; any count
// works, the last head group partial), tokens in 0 .. 2^31 - 1, num_kv in 0 .. 2^31 - 2 (any
// count, larger or smaller than tokens: indices name its rows), topk in 1 .. 2^24.
Verdict sparse_sizes(std::int64_t heads, std::int64_t tokens, std::int64_t num_kv, std::int64_t topk);
// The backward's chunk_tokens: 0 (the default) or a positive multiple of B = 64, and chunk * topk
// within int32.
Verdict sparse_chunk_tokens(std::int64_t chunk_tokens, std::int64_t topk);

}  // namespace samebits::kernels::rules
