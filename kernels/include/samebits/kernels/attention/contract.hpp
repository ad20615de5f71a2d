// samebits/kernels/attention/contract.hpp — the constants of the attention
// contract (docs/kernels/attention.md) and the fingerprint that names them.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "samebits/libm/fp/bits.hpp"

namespace samebits::kernels::attention {

inline constexpr int kContractVersion = 1;
// List positions per block: the online-softmax rescale happens at these
// boundaries, so B is part of the arithmetic, not a tuning knob (§1).
inline constexpr int kBlock = 64;

// Codes are part of the C ABI: never renumber.
// nvcc: CUDA's expf/logf (samebits::nvcc); cr: correctly rounded (samebits::cr); nvcc_fast:
// FlashAttention-3's softmax under nvcc -use_fast_math: base 2, p = exp2(fma(s, scale log2 e, -m
// log2 e...)) on MUFU.EX2, logf as -use_fast_math compiles it (attention-tc.md §23, §25), offered by
// the sm90-tensor-core policy only.
enum class Libm : std::int32_t { nvcc = 0, cr = 1, nvcc_fast = 2 };
// attention-tc.md §25: a libm personality (or an arithmetic over one, or a device functor) whose
// softmax is base 2 says kBase2Softmax = true (nvcc-fast); the others are natural.
template <class X>
inline constexpr bool base2_softmax = requires { requires X::kBase2Softmax; };
// §25's L2E, the binary32 nearest log2(e): 0x1.715476p+0.
inline constexpr std::uint32_t kLog2eBits = 0x3FB8AA3Bu;
// fma_chain: docs/kernels/attention.md §7. sm90_tensor_core: the products
// through the tensor-core model, docs/kernels/attention-tc.md (tensor_core.hpp).
enum class Policy : std::int32_t { fma_chain = 0, sm90_tensor_core = 1 };

inline constexpr const char* libm_name(Libm l) {
  return l == Libm::nvcc ? "nvcc" : l == Libm::cr ? "cr" : l == Libm::nvcc_fast ? "nvcc-fast" : "unknown";
}
// The libm a name selects (CLI, golden metadata); false for an unknown name.
inline bool libm_from_name(const std::string& name, Libm& out) {
  for (Libm l : {Libm::nvcc, Libm::cr, Libm::nvcc_fast})
    if (name == libm_name(l)) {
      out = l;
      return true;
    }
  return false;
}
// The policy's name and version as the fingerprint writes it (sm90-tc's
// fingerprint adds the model's parameters: tensor_core.hpp).
inline constexpr const char* policy_name(Policy p) {
  return p == Policy::fma_chain ? "fma-chain/1" : p == Policy::sm90_tensor_core ? "sm90-tc/1" : "unknown";
}
// The name users select it by (C ABI docs, CLI, error messages).
inline constexpr const char* policy_long_name(Policy p) {
  return p == Policy::fma_chain ? "fma-chain" : p == Policy::sm90_tensor_core ? "sm90-tensor-core" : "unknown";
}

// The scale that means "not given" (params.hpp, c_api.h's SAMEBITS_DEFAULT_SCALE):
// a quiet NaN, replaced by default_scale(d) before a launch.
inline constexpr float kDefaultScale = fp::from_bits(0x7fc00000u);
// Default scale: the binary32 nearest to 1/sqrt(D) (§3). Written as bits so
// that no compiler or libm rounds it.
inline constexpr bool default_scale_known(int d) { return d == 64 || d == 128 || d == 256 || d == 512; }
inline constexpr float default_scale(int d) {
  return fp::from_bits(d == 64 ? 0x3e000000u     // 0x1p-3
                     : d == 128 ? 0x3db504f3u    // 0x1.6a09e6p-4
                     : d == 256 ? 0x3d800000u    // 0x1p-4
                     : 0x3d3504f3u);             // 0x1.6a09e6p-5 (512)
}

// "samebits-attention/1 policy=fma-chain/1 B=64 libm=nvcc": equal strings
// mean the same arithmetic (training and rollout can assert it). The
// fma-chain policy's; sm90-tensor-core's names its model parameters too
// (tensor_core.hpp: fingerprint(Libm, const mma::sm90::Params&)).
inline std::string fingerprint(Policy p, Libm l) {
  if (p != Policy::fma_chain)
    throw std::invalid_argument(std::string("fingerprint: policy ") + policy_long_name(p) +
                                " names its model parameters (tensor_core.hpp: fingerprint(Libm, Params))");
  return "samebits-attention/" + std::to_string(kContractVersion) + " policy=" + policy_name(p) +
         " B=" + std::to_string(kBlock) + " libm=" + libm_name(l);
}

// The sm90-tensor-core policy's zero rule (attention-tc.md §7): an output is
// written +0 for either zero, x otherwise (what add(x, +0) gives in round to
// nearest), before its one rounding to the output dtype.
SAMEBITS_FUNC constexpr float zero_canonical(float x) {
  return (fp::to_bits(x) & 0x7fffffffu) == 0u ? fp::from_bits(0u) : x;
}

// Number of list positions of query row i (0-based within its sequence) of a
// sequence with lq queries and lk keys: dense lists are 0 .. n-1 (§1).
SAMEBITS_FUNC constexpr int dense_list_length(int i, int lq, int lk, bool causal) {
  if (!causal) return lk;
  const int n = lk - lq + i + 1;  // bottom-right aligned
  return n < 0 ? 0 : n > lk ? lk : n;
}

}  // namespace samebits::kernels::attention
