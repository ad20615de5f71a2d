// kernels/src/portable/common/sequence.cuh — which rows and keys a block works on
// (attention.md §1, §2): the packed sequence of a block (cu_seqlens), and membership as
// list lengths: a dense row's list is keys 0 .. n-1 of its sequence (bottom-right causal
// alignment), so "key j is a member of row i" is j < list_length(i).
#pragma once

#include <cstdint>

#include "samebits/gpu/backend.hpp"
#include "samebits/kernels/attention/contract.hpp"
#include "samebits/kernels/attention/params.hpp"

namespace samebits::kernels::attention::cuda {

// The sequence of block (blockIdx.z) and its extents.
struct Sequence {
  std::int64_t q0, k0;  // first query row and first key row in the packed tensors
  int lq, lk;
};
SAMEBITS_DEVICE_FUNC Sequence sequence_of(const ProblemParams& p, int s) {
  Sequence q;
  const int a = p.cu_seqlens_q[s], b = p.cu_seqlens_q[s + 1];
  const int c = p.cu_seqlens_k[s], d = p.cu_seqlens_k[s + 1];
  q.q0 = a;
  q.k0 = c;
  q.lq = b - a;
  q.lk = d - c;
  return q;
}

// List length of query row i of the sequence (0 for rows outside it): its
// members are keys 0 .. n-1 (§1, bottom-right causal alignment).
SAMEBITS_DEVICE_FUNC int list_length(const Sequence& s, int i, bool causal) {
  return i < s.lq ? dense_list_length(i, s.lq, s.lk, causal) : 0;
}

}  // namespace samebits::kernels::attention::cuda
