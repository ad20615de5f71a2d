// samebits/kernels/attention/params.hpp — the arguments of one attention
// launch (docs/kernels/attention.md), shared by the host API (api.hpp) and the
// CUDA kernels (kernels/src/cuda/). Plain data: device pointers, element
// strides, sizes and codes; no CUDA type, so host code includes it freely.
//
// Layouts (§2): q, o, dO, dq [total_q rows, hq, D]; k, v, dk, dv [total_k rows,
// hkv, D]; the last dimension is contiguous, the row and head strides are given
// in elements. lse and delta are contiguous fp32 [total_q, hq]. Sequences are
// packed as in FlashAttention's varlen API: cu_seqlens_* are device int32
// arrays of num_seqs + 1 entries.
#pragma once

#include <cstdint>

#include "samebits/kernels/attention/contract.hpp"
#include "samebits/kernels/dtype.hpp"
#include "samebits/libm/mma/sm90.hpp"

namespace samebits::kernels::attention {

// Row and head strides of one [rows, heads, D] tensor, in elements.
struct Strides {
  std::int64_t row = 0;
  std::int64_t head = 0;
};

// What the kernels of both directions share.
struct ProblemParams {
  const std::int32_t* cu_seqlens_q = nullptr;  // device, num_seqs + 1
  const std::int32_t* cu_seqlens_k = nullptr;  // device, num_seqs + 1
  int num_seqs = 0;
  int max_seqlen_q = 0;  // upper bounds of Lq and Lk over the sequences (grid size)
  int max_seqlen_k = 0;
  std::int64_t total_q = 0;  // cu_seqlens_q[num_seqs]
  std::int64_t total_k = 0;  // cu_seqlens_k[num_seqs]
  int hq = 0, hkv = 0, d = 0;
  bool causal = false;
  // binary32: a finite value > 0, or NaN (kDefaultScale, the default) for
  // default_scale(d), which the host API puts here before launching; 0 is
  // refused, never read as the default (kernels/src/validate/rules.hpp).
  float scale = kDefaultScale;
  DType in_dtype = DType::bf16;  // q, k, v (and dO, o in the backward)
  Libm libm = Libm::nvcc;
  // The arithmetic policy (attention.md §7). fma-chain: every kernel;
  // sm90-tensor-core (attention-tc.md): the forward on wgmma (sm_90a), the
  // backward refused until its kernel exists.
  Policy policy = Policy::fma_chain;
  // sm90-tensor-core only: the tensor-core model the result is named by (the
  // fingerprint). The GPU computes its own hardware's arithmetic, so the
  // validator accepts only tc::kHardwareParams (tensor_core.hpp).
  mma::sm90::Params mma{};
  // Query rows per block of the forward and dq kernels: 0 lets the launcher
  // choose (128 when that still makes two blocks per multiprocessor, else 64),
  // 64 or 128 forces one. Any tiling gives the same bits (the contract fixes
  // every operation); the device check runs both to show it.
  int tile_rows = 0;
};

struct ForwardParams : ProblemParams {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  void* o = nullptr;
  float* lse = nullptr;  // [total_q, hq], natural log
  Strides q_stride, k_stride, v_stride, o_stride;
  DType o_dtype = DType::bf16;  // the input dtype, or f32 on request
};

struct BackwardParams : ProblemParams {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  const void* o = nullptr;     // the forward's o as stored, dtype o_dtype
  const void* dout = nullptr;  // dtype in_dtype
  const float* lse = nullptr;  // [total_q, hq]
  void* dq = nullptr;
  void* dk = nullptr;
  void* dv = nullptr;
  Strides q_stride, k_stride, v_stride, o_stride, dout_stride, dq_stride, dk_stride, dv_stride;
  DType o_dtype = DType::bf16;
  DType grad_dtype = DType::bf16;  // dq, dk, dv: the input dtype, or f32 on request

  // Workspaces (device, contiguous; backward_workspace_floats() says the
  // sizes): delta [total_q, hq]; the per-head dK/dV accumulators
  // [total_k, hq, D] each, written by the dK/dV kernel and folded over each
  // kv group's heads into dk/dv.
  float* delta = nullptr;
  float* accum_k = nullptr;
  float* accum_v = nullptr;
  // dq's fp32 accumulators [total_q, hq, D] (each row's one chain over its
  // list, advanced by the key blocks in list order, §5.2) and their int32
  // flags [total_q * hq + 1] (per 64-row query tile and head, the last entry
  // the blocks' ticket counter). Cleared by the launcher on the stream.
  float* dq_accum = nullptr;
  std::int32_t* dq_flags = nullptr;
  // Context-parallel hand-over (§5, §8): when given, the accumulators start
  // from these [total_k, hq, D] values instead of +0 (they may equal
  // accum_k/accum_v: each element is read once, then written by the same
  // thread). A part that hands on reads accum_k/accum_v after the call.
  const float* accum_k_in = nullptr;
  const float* accum_v_in = nullptr;
  // Optional, policy sm90-tensor-core only (attention-tc.md §21): a workspace
  // of at least backward_ds_workspace_bytes() bytes. When given, the dK/dV pass
  // also stores each (key block, 64-row query tile)'s D^S there, and the dq
  // pass reads it back instead of recomputing S, dP and dS: the same bits,
  // O(hq * Lq * Lk) bytes (bf16/f16) of memory. Measured on an H100 at
  // S = 4096 (Qwen3-8B shapes, causal; the tiles leave by TMA store, §28):
  // forward + backward 1.58 -> 1.42 ms with libm nvcc (faster at every S from
  // 512 to 16384), 1.29 -> 1.25 with nvcc-fast (slower at S = 8192). Null (the default): the dq
  // pass recomputes them (O(rows) workspace).
  void* ds_workspace = nullptr;
  std::int64_t ds_workspace_bytes = 0;
};

}  // namespace samebits::kernels::attention
