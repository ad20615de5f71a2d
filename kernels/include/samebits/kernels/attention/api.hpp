// samebits/kernels/attention/api.hpp — the CUDA attention kernels' host API
// (docs/kernels/attention.md, policy fma-chain/1): forward and backward over
// packed variable-length sequences. Every argument is checked on the host
// before anything is launched: a call that returns an error launched nothing.
// The checks (kernels/src/validate/, shared with the C ABI): the codes, D, hq
// and hkv (hq % hkv == 0, hq <= 65535), num_seqs (1..65535), cu_seqlens
// (start at 0, non-decreasing, ending at total_q / total_k), max_seqlen
// (bounds every sequence, <= 2^30); each [rows, heads, D] tensor non-null
// unless empty, aligned to its dtype, device memory, strides positive with
// the (row, head) spans of D elements nested without overlap (the smaller
// stride inner), its largest element offset <= INT64_MAX / 4 and its end
// inside the address space; no output sharing a byte with an input or another
// output; scale NaN (the default, params.hpp) or finite and > 0. Each rule is
// written once (kernels/src/validate/rules.hpp).
// Launches are asynchronous on `stream` (a cudaStream_t, or null for the
// default stream); a launch failure is reported as cuda_error.
#pragma once

#include <cstdint>
#include <string>

#include "samebits/kernels/attention/contract.hpp"
#include "samebits/kernels/attention/params.hpp"

namespace samebits::kernels::attention {

// Codes are part of the C ABI to come: never renumber.
enum class StatusCode : std::int32_t { ok = 0, invalid_argument = 1, unsupported = 2, cuda_error = 3 };

struct Status {
  StatusCode code = StatusCode::ok;
  std::string message;
  bool ok() const { return code == StatusCode::ok; }
};

// Host copies of the device cu_seqlens arrays (num_seqs + 1 entries each):
// the checks (monotone, starting at 0, consistent with the totals and the
// max_seqlen bounds) run on these, never on device memory.
struct HostSeqlens {
  const std::int32_t* cu_q = nullptr;
  const std::int32_t* cu_k = nullptr;
};

Status forward(const ForwardParams& p, HostSeqlens host, void* stream = nullptr);

// Needs p.delta [total_q * hq] and p.accum_k, p.accum_v [total_k * hq * d]
// floats each, p.dq_accum [total_q * hq * d] floats and p.dq_flags
// [total_q * hq + 1] int32 (backward_workspace_floats). Writes delta, the per-head
// accumulators (what a context-parallel part hands on), dq, dk, dv.
Status backward(const BackwardParams& p, HostSeqlens host, void* stream = nullptr);

struct WorkspaceFloats {
  std::int64_t delta = 0;
  std::int64_t accum = 0;     // each of accum_k and accum_v
  std::int64_t dq_accum = 0;  // fp32 [total_q, hq, d]
  std::int64_t dq_flags = 0;  // int32 entries [total_q * hq + 1]
};
WorkspaceFloats backward_workspace_floats(std::int64_t total_q, std::int64_t total_k, int hq, int d);

// Bytes of BackwardParams::ds_workspace (policy sm90-tensor-core): one
// 16 KiB D^S tile [128 keys x 64 query rows] per (sequence, 64-row query
// tile, key block of 128, query head), sized from the longest sequences:
// num_seqs * (ceil(max_seqlen_q / 64) + 1) * ceil(max_seqlen_k / 128) * hq *
// 16384 (Qwen3-8B, one sequence of 4096: 1.1 GB). -1 on int64 overflow.
std::int64_t backward_ds_workspace_bytes(int num_seqs, int max_seqlen_q, int max_seqlen_k, int hq);

// "samebits-attention/1 policy=fma-chain/1 B=64 libm=..." (contract.hpp).
inline std::string fingerprint(Libm libm) { return fingerprint(Policy::fma_chain, libm); }

}  // namespace samebits::kernels::attention
