// samebits/kernels/sparse_mla/api.hpp — the CUDA sparse MLA kernels' host API
// (docs/kernels/sparse_mla.md, policy fma-chain/1). Every argument is checked
// on the host before anything is launched: a call that returns an error
// launched nothing. Indices are checked on the device (error_flag) unless
// `validate_indices` asks for the host check first (a device-to-host copy:
// not for the hot path). Launches are asynchronous on `stream`.
#pragma once

#include <string>

#include "samebits/kernels/attention/api.hpp"
#include "samebits/kernels/sparse_mla/params.hpp"

namespace samebits::kernels::sparse_mla {

using attention::Status;
using attention::StatusCode;

Status forward(const ForwardParams& p, bool validate_indices = false, void* stream = nullptr);

// dq, dkv (and d_sink with a sink) from q, kv, dO, o as stored and the
// sink-inclusive lse. p.chunk_tokens: 0 (the default) or a positive multiple
// of B = 64 (sparse_mla.md §5); p.workspace of backward_workspace_bytes(p)
// bytes, 256-byte aligned (the chunk size sets most of it: about
// chunk * topk * (2 * heads + D + 16) * 4 bytes).
Status backward(const BackwardParams& p, bool validate_indices = false, void* stream = nullptr);
// -1 when p's sizes are out of range (backward() says which).
std::int64_t backward_workspace_bytes(const BackwardParams& p);

// After the stream has run the calls that used p.error_flag: invalid_argument
// naming the problem when a kernel met an out-of-range index (one 4-byte
// device-to-host copy, synchronous on `stream`).
Status check_index_error(const std::int32_t* error_flag, void* stream = nullptr);

inline std::string fingerprint(Libm libm) { return sparse_mla::fingerprint(Policy::fma_chain, libm); }

}  // namespace samebits::kernels::sparse_mla
