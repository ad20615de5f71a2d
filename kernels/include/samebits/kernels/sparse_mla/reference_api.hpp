// samebits/kernels/sparse_mla/reference_api.hpp — the compiled entry points of
// the sparse MLA CPU reference (kernels/src/reference/sparse_mla_*.cpp): the
// binary32 core per libm (what the GPU must equal) and the high-precision
// oracle. Tensors are contiguous binary32 (inputs widened exactly from their
// dtype); indices are checked here (an index >= num_kv or < -1 throws
// std::invalid_argument naming the token and slot).
#pragma once

#include <cstdint>
#include <vector>

#include "samebits/kernels/attention/reference_api.hpp"
#include "samebits/kernels/sparse_mla/contract.hpp"

namespace samebits::kernels::sparse_mla {

struct Problem {
  std::int64_t tokens = 0;  // T
  std::int64_t num_kv = 0;  // kv rows (>= T: rows T.. are the compressed pool)
  int heads = 0;            // H
  int d = 0;                // 512 for the op; 128 in tests
  int topk = 0;             // slots per token
  float scale = 0.0f;
  std::vector<std::int32_t> indices;  // [tokens, topk], -1 = hole
  std::vector<float> sink;            // [heads] or empty (no sink)
};

// Throws std::invalid_argument when an index is out of range or a size is inconsistent.
void check_problem(const Problem& p);

// o [T, H, D], lse [T, H] sink-inclusive, lse_excl [T, H] (may be null).
void reference_forward(Libm libm, const Problem& p, const float* q, const float* kv, float* o, float* lse,
                       float* lse_excl, unsigned threads = 0);
// dq [T, H, D], dkv [num_kv, D], dsink [H] (written when p has a sink).
void reference_backward(Libm libm, const Problem& p, const float* q, const float* kv, const float* o,
                        const float* dout, const float* lse, float* dq, float* dkv, float* dsink,
                        unsigned threads = 0);

// The oracle: the same contract in binary64 or MPFR 128-bit, its own forward
// feeding its backward.
using attention::Precision;
void oracle_forward(Precision prec, const Problem& p, const float* q, const float* kv, double* o, double* lse,
                    unsigned threads = 0);
void oracle_backward(Precision prec, const Problem& p, const float* q, const float* kv, const float* dout,
                     double* dq, double* dkv, double* dsink, unsigned threads = 0);

}  // namespace samebits::kernels::sparse_mla
