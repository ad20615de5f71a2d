// samebits/kernels/attention/reference_api.hpp — the compiled entry points of
// the CPU reference (kernels/src/reference/), for the CLI, the tests and the
// host API: the binary32 core per libm, and the high-precision oracle.
// Tensors are contiguous binary32 (inputs widened exactly from their dtype).
#pragma once

#include <cstdint>
#include <vector>

#include "samebits/kernels/attention/contract.hpp"

namespace samebits::kernels::attention {

struct DenseProblem {
  std::vector<std::int32_t> cu_q{0}, cu_k{0};  // num_seqs + 1 entries
  int hq = 0, hkv = 0, d = 0;
  bool causal = false;
  float scale = 0.0f;
  std::int64_t rows() const { return cu_q.back(); }
  std::int64_t kv_rows() const { return cu_k.back(); }
};

// The binary32 core (what the GPU must equal). threads = 0: all cores.
void reference_forward(Libm libm, const DenseProblem& p, const float* q, const float* k, const float* v,
                       float* o, float* lse, unsigned threads = 0);
void reference_backward(Libm libm, const DenseProblem& p, const float* q, const float* k, const float* v,
                        const float* o, const float* dout, const float* lse, float* dq, float* dk, float* dv,
                        unsigned threads = 0);
// The same with the dK/dV hand-over of a split of the query rows (reference.hpp
// Handover): accum_*_in [kv_rows, hq, d] (null: +0), accum_*_out (null: not kept).
void reference_backward_handover(Libm libm, const DenseProblem& p, const float* q, const float* k, const float* v,
                                 const float* o, const float* dout, const float* lse, float* dq, float* dk,
                                 float* dv, const float* accum_k_in, const float* accum_v_in, float* accum_k_out,
                                 float* accum_v_out, unsigned threads = 0);

// The high-precision oracle: the same contract evaluated in binary64 or in
// MPFR with 128-bit significands; its own forward feeds its backward.
enum class Precision { f64, mpfr128 };
const char* precision_name(Precision p);
void oracle_forward(Precision prec, const DenseProblem& p, const float* q, const float* k, const float* v,
                    double* o, double* lse, unsigned threads = 0);
void oracle_backward(Precision prec, const DenseProblem& p, const float* q, const float* k, const float* v,
                     const float* dout, double* dq, double* dk, double* dv, unsigned threads = 0);

}  // namespace samebits::kernels::attention
