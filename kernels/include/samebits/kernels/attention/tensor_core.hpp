// samebits/kernels/attention/tensor_core.hpp — the constants of the attention
// contract's second arithmetic policy, sm90-tensor-core
// (docs/kernels/attention-tc.md), the conversions it performs and the
// fingerprint that names it with the tensor-core model's parameters.
// Host and device: a kernel includes this to get the same constants.
#pragma once

#include <cstdint>
#include <string>

#include "samebits/kernels/attention/contract.hpp"
#include "samebits/kernels/dtype.hpp"
#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/mma/sm90.hpp"
#include "samebits/libm/platform.hpp"

namespace samebits::kernels::attention::tc {

namespace sm90 = samebits::mma::sm90;

inline constexpr int kPolicyVersion = 1;

// Keys per block (Bk, attention-tc.md §2): the online-softmax rescale happens
// at these boundaries, aligned at key 0 of the sequence; one block is the N of
// the S = Q K^T wgmma (m64nBkk16) and the k of the P V chain.
inline constexpr int kBlock = 128;
// Products fused per model step: the k of one wgmma m64nNk16 (the k16 group).
inline constexpr int kGroup = sm90::kInstructionK;
// Query rows per dK/dV step (the k of P^T dO and dS^T Q), groups aligned at
// query position 0 of the sequence (§6).
inline constexpr int kRowGroup = sm90::kInstructionK;
// The wgmma accumulator fragment: the kQuad threads of a quad share a row;
// thread q holds columns kChunk*c + 2q and kChunk*c + 2q + 1 of each chunk c.
inline constexpr int kQuad = 4;
inline constexpr int kChunk = 8;

static_assert(kGroup == 16, "the k of wgmma m64nNk16 with bf16/fp16 operands is 16");
static_assert(kRowGroup == kGroup, "a dK/dV step is one wgmma k16 step over query rows");
static_assert(kBlock % kGroup == 0, "a key block is a whole number of k16 groups");
static_assert(kBlock % 8 == 0 && kBlock >= 8 && kBlock <= 256, "Bk is one wgmma's N: a multiple of 8 in 8..256");
static_assert(kChunk == 2 * kQuad, "each quad thread holds two adjacent columns of every 8-column chunk");
static_assert(kBlock % kChunk == 0, "a block is a whole number of 8-column chunks");
static_assert(kBlock % kRowGroup == 0, "block starts are row-group starts (the first dK/dV group of a block)");

// Head dims the policy defines: D is a whole number of k16 groups (the score
// and dp chains) and one of the contract's (attention.md §2).
SAMEBITS_FUNC constexpr bool head_dim_supported(int d) { return d == 64 || d == 128; }
static_assert(64 % kGroup == 0 && 128 % kGroup == 0, "D runs over whole k16 groups");

// The model's operand format of an input dtype; float32 has none (refused).
SAMEBITS_FUNC constexpr bool dtype_supported(DType t) { return t == DType::bf16 || t == DType::f16; }
SAMEBITS_FUNC constexpr sm90::Format format_of(DType t) {
  return t == DType::f16 ? sm90::Format::f16 : sm90::Format::bf16;
}

// x rounded to the operand format (nearest even; fp16 overflow to inf,
// subnormals kept; NaN canonical): the P and dS rounding (§3, §5), and exact
// (the encoding of x) for a value of that format.
SAMEBITS_FUNC constexpr std::uint16_t to_operand(sm90::Format f, float x) {
  return f == sm90::Format::bf16 ? f32_to_bf16(x) : f32_to_f16(x);
}
SAMEBITS_FUNC constexpr float from_operand(sm90::Format f, std::uint16_t h) {
  return f == sm90::Format::bf16 ? bf16_to_f32(h) : f16_to_f32(h);
}

// §7 zero canonicalization of an output (contract.hpp, shared with the kernels' common fold).
using attention::zero_canonical;

// The model's parameters as the fingerprint writes them, e.g.
// "F=25,G=16,R=rz,C=first,Z=ignored,P=raw,S=pos,O=inf,E=-133" (attention-tc.md §9).
inline std::string params_string(const sm90::Params& p) {
  const char* r = p.rounding == sm90::Rounding::toward_zero ? "rz" : "rn";
  const char* c = p.c_join == sm90::CJoin::first_group ? "first" : "after";
  const char* z = p.zero_exponent == sm90::ZeroExponent::format_min ? "fmin"
                  : p.zero_exponent == sm90::ZeroExponent::ignored  ? "ignored"
                                                                    : "m126";
  const char* e = p.product_exponent == sm90::ProductExponent::raw ? "raw" : "norm";
  const char* s = p.zero_sign == sm90::ZeroSign::ieee ? "ieee" : "pos";
  const char* o = p.overflow == sm90::Overflow::infinity ? "inf" : "sat";
  const std::string floor = p.emax_floor == sm90::kNoExponentFloor ? "none" : std::to_string(p.emax_floor);
  return "F=" + std::to_string(p.frac_bits) + ",G=" + std::to_string(p.group) + ",R=" + r + ",C=" + c + ",Z=" + z +
         ",P=" + e + ",S=" + s + ",O=" + o + ",E=" + floor;
}

// "samebits-attention/1 policy=sm90-tc/1(F=25,G=16,R=rz,C=first,Z=ignored,P=raw,S=pos,O=inf,E=-133) Bk=128 libm=nvcc".
inline std::string fingerprint(Libm l, const sm90::Params& p) {
  return "samebits-attention/" + std::to_string(kContractVersion) + " policy=" +
         policy_name(Policy::sm90_tensor_core) + "(" + params_string(p) + ") Bk=" + std::to_string(kBlock) +
         " libm=" + libm_name(l);
}

// Zero products are neutral under these parameters: adding a k16 group whose
// products are all zero to a nonzero fp32 accumulator leaves it unchanged,
// and zero products never raise a step's alignment exponent above that of an
// fp32 term (attention-tc.md §7). The invariances of §8 that involve keys or
// rows outside a row's list need it.
SAMEBITS_FUNC constexpr bool zero_products_neutral(const sm90::Params& p) {
  return p.zero_exponent != sm90::ZeroExponent::format_min && p.frac_bits >= 23;
}

// The parameters the GPU kernels' results are named by: what sm_90's wgmma
// computes, the model header's defaults (mma.md §6: the H100 probe runs and
// what they left open; tests/device/mma/run.sh measures them, and
// tests/device/kernels/attention_tc_check.cu checks the kernels against the
// reference under them). The GPU entry points refuse any other Params (they
// cannot compute them).
inline constexpr sm90::Params kHardwareParams{};

SAMEBITS_FUNC constexpr bool same_params(const sm90::Params& a, const sm90::Params& b) {
  return a.frac_bits == b.frac_bits && a.group == b.group && a.rounding == b.rounding && a.c_join == b.c_join &&
         a.zero_exponent == b.zero_exponent && a.product_exponent == b.product_exponent &&
         a.zero_sign == b.zero_sign && a.overflow == b.overflow && a.emax_floor == b.emax_floor;
}

}  // namespace samebits::kernels::attention::tc
