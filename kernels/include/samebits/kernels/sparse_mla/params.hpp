// samebits/kernels/sparse_mla/params.hpp — the arguments of one sparse MLA
// launch (docs/kernels/sparse_mla.md), shared by the host API (api.hpp) and
// the CUDA kernels. Plain data: device pointers, element strides, sizes and
// codes; no CUDA type.
//
// Layouts: q, o, dO, dq [tokens, heads, D] (last dim contiguous, row and head
// strides in elements); kv, dkv [num_kv, D] (row stride in elements); indices
// [tokens, topk] int32 (row stride in elements), -1 = hole; lse, lse_excl
// [tokens, heads] fp32 contiguous; sink, dsink [heads] fp32.
#pragma once

#include <cstdint>

#include "samebits/kernels/attention/params.hpp"
#include "samebits/kernels/dtype.hpp"
#include "samebits/kernels/sparse_mla/contract.hpp"

namespace samebits::kernels::sparse_mla {

using attention::Strides;

struct ProblemParams {
  std::int64_t tokens = 0;
  std::int64_t num_kv = 0;
  int heads = 0, d = 0, topk = 0;
  float scale = attention::kDefaultScale;  // NaN: the default (attention/params.hpp); else finite, > 0
  DType in_dtype = DType::bf16;  // q, kv (and dO, o in the backward)
  Libm libm = Libm::nvcc;
  const std::int32_t* indices = nullptr;
  std::int64_t indices_row_stride = 0;
  const float* sink = nullptr;  // [heads] or null
  // Device int32, cleared by the caller once: a kernel that meets an index
  // outside -1 .. num_kv - 1 sets bit 0 (and treats the slot as a hole, so
  // that nothing is computed from it); the host API reports it
  // (check_index_error). Null: no device-side report.
  std::int32_t* error_flag = nullptr;
};

struct ForwardParams : ProblemParams {
  const void* q = nullptr;
  const void* kv = nullptr;
  void* o = nullptr;
  float* lse = nullptr;       // sink-inclusive
  float* lse_excl = nullptr;  // optional: sink-exclusive (FlashMLA's convention)
  Strides q_stride, o_stride;
  std::int64_t kv_row_stride = 0;
  DType o_dtype = DType::bf16;
};

}  // namespace samebits::kernels::sparse_mla

namespace samebits::kernels::sparse_mla {

// Query rows per chunk of the backward: a multiple of B (sparse_mla.md §5).
// 0 lets the API choose (kDefaultChunkTokens, or all tokens when fewer).
inline constexpr std::int64_t kDefaultChunkTokens = 512;

struct BackwardParams : ProblemParams {
  const void* q = nullptr;
  const void* kv = nullptr;
  const void* o = nullptr;     // the forward's o as stored, dtype o_dtype
  const void* dout = nullptr;  // dtype in_dtype
  const float* lse = nullptr;  // [tokens, heads], sink-inclusive
  void* dq = nullptr;          // [tokens, heads, D], grad_dtype
  void* dkv = nullptr;         // [num_kv, D], grad_dtype
  float* dsink = nullptr;      // [heads] (only with a sink)
  Strides q_stride, o_stride, dout_stride, dq_stride;
  std::int64_t kv_row_stride = 0, dkv_row_stride = 0;
  DType o_dtype = DType::bf16;
  DType grad_dtype = DType::bf16;
  std::int64_t chunk_tokens = 0;

  // Workspace (device, 256-byte aligned; backward_workspace_bytes() says how
  // much), carved by the launcher:
  //   delta [tokens, heads] fp32; the dkv accumulators A [num_kv, D] fp32;
  //   per chunk: p and ds [chunk, heads, topk] fp32, the contributor vectors
  //   c [chunk, topk, D] fp32, the sort of the chunk's (index, slot) pairs
  //   and its scratch, and the contributor offsets [num_kv + 1].
  void* workspace = nullptr;
  std::int64_t workspace_bytes = 0;
};

}  // namespace samebits::kernels::sparse_mla
