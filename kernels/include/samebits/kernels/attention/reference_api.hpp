// samebits/kernels/attention/reference_api.hpp — the compiled entry points of
// the CPU reference (kernels/src/reference/), for the CLI, the tests and the
// host API: the binary32 core per libm, and the high-precision oracle.
// Tensors are contiguous binary32 (inputs widened exactly from their dtype).
// Errors (a policy's refusals, docs/kernels/attention-tc.md §1) are thrown as
// std::invalid_argument naming the argument.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "samebits/kernels/attention/contract.hpp"
#include "samebits/kernels/dtype.hpp"
#include "samebits/libm/mma/sm90.hpp"

namespace samebits::kernels::attention {

struct DenseProblem {
  std::vector<std::int32_t> cu_q{0}, cu_k{0};  // num_seqs + 1 entries
  int hq = 0, hkv = 0, d = 0;
  bool causal = false;
  float scale = 0.0f;
  // The arithmetic policy (attention.md §7). sm90_tensor_core
  // (attention-tc.md) reads in_dtype, the inputs' dtype (bf16 or f16: every q,
  // k, v, dO value must be one of its values, widened exactly), and mma, the
  // tensor-core model's parameters (the header's defaults until measured);
  // fma_chain reads neither.
  Policy policy = Policy::fma_chain;
  DType in_dtype = DType::f32;
  mma::sm90::Params mma{};
  std::int64_t rows() const { return cu_q.back(); }
  std::int64_t kv_rows() const { return cu_k.back(); }
};

// The contract fingerprint of the problem's policy (with the model's
// parameters under sm90-tensor-core) and libm.
std::string fingerprint(const DenseProblem& p, Libm libm);

// What the problem's policy refuses (sm90-tensor-core: a dtype other than bf16
// or f16, D outside {64, 128}, invalid model parameters), thrown as
// std::invalid_argument naming the argument; nothing for fma-chain.
void check_policy(const DenseProblem& p);

// Context-parallel hand-over of the backward (attention.md §5;
// attention-tc.md §6): the per-query-head dK/dV accumulators
// [kv_rows, hq, d], binary32. The chains start from k_in / v_in (both or
// neither; null: +0) and, when k_out / v_out are given, end there (what this
// part hands on). Under sm90-tensor-core a part that takes accumulators must
// start every sequence at a 16-row group boundary (Lk - Lq a multiple of 16).
struct Handover {
  const float* k_in = nullptr;
  const float* v_in = nullptr;
  float* k_out = nullptr;
  float* v_out = nullptr;
};

// The binary32 core (what the GPU must equal). threads = 0: all cores.
void reference_forward(Libm libm, const DenseProblem& p, const float* q, const float* k, const float* v,
                       float* o, float* lse, unsigned threads = 0);
void reference_backward(Libm libm, const DenseProblem& p, const float* q, const float* k, const float* v,
                        const float* o, const float* dout, const float* lse, float* dq, float* dk, float* dv,
                        unsigned threads = 0, const Handover& handover = {});
// The same, the hand-over given as pointers (the C ABI's form): accum_*_in
// [kv_rows, hq, d] (null: +0), accum_*_out (null: not kept).
void reference_backward_handover(Libm libm, const DenseProblem& p, const float* q, const float* k, const float* v,
                                 const float* o, const float* dout, const float* lse, float* dq, float* dk,
                                 float* dv, const float* accum_k_in, const float* accum_v_in, float* accum_k_out,
                                 float* accum_v_out, unsigned threads = 0);

// The high-precision oracle: the same contract evaluated in binary64 or in
// MPFR with 128-bit significands; its own forward feeds its backward. It
// follows the fma-chain structure whatever p.policy says (it stands for exact
// attention: its own rounding is far below either policy's).
enum class Precision { f64, mpfr128 };
const char* precision_name(Precision p);
void oracle_forward(Precision prec, const DenseProblem& p, const float* q, const float* k, const float* v,
                    double* o, double* lse, unsigned threads = 0);
void oracle_backward(Precision prec, const DenseProblem& p, const float* q, const float* k, const float* v,
                     const float* dout, double* dq, double* dk, double* dv, unsigned threads = 0);

}  // namespace samebits::kernels::attention
