// samebits/kernels/sparse_mla/contract.hpp — the constants of the sparse MLA
// contract (docs/kernels/sparse_mla.md), an instance of the attention
// contract (attention/contract.hpp: B, policies, libms), and its fingerprint.
#pragma once

#include <string>

#include "samebits/kernels/attention/contract.hpp"

namespace samebits::kernels::sparse_mla {

using attention::kBlock;
using attention::Libm;
using attention::Policy;

inline constexpr int kContractVersion = 1;
// The head dim of the op (§1); the code is templated on D and the tests also
// instantiate 128 (the check against the dense kernel).
inline constexpr int kHeadDim = 512;

// "samebits-sparse-mla/1 policy=fma-chain/1 B=64 libm=nvcc".
inline std::string fingerprint(Policy p, Libm l) {
  return "samebits-sparse-mla/" + std::to_string(kContractVersion) + " policy=" + attention::policy_name(p) +
         " B=" + std::to_string(kBlock) + " libm=" + attention::libm_name(l);
}

// Which lse the forward's second output is (§1): sink-inclusive (what the
// backward takes) is always written; FlashMLA's sink-exclusive one on request.
enum class LseConvention : int { sink_inclusive = 0, sink_exclusive = 1 };

}  // namespace samebits::kernels::sparse_mla
