// kernels/src/portable/common/libm_policy.cuh — the libm policies (attention.md §7) as
// device functors: L::exp and L::log are the very functions the CPU reference calls for
// the policy, so a kernel templated on L computes p = exp(sub(t, m)), alpha and lse
// (§4.3-4.5) with the reference's bits. kLibm names the policy in the contract's terms.
#pragma once

#include "samebits/gpu/backend.hpp"
#include "samebits/kernels/attention/contract.hpp"
#include "samebits/libm/cr.hpp"
#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/nvcc.hpp"

namespace samebits::kernels::attention::cuda {

struct NvccExpLog {
  static constexpr Libm kLibm = Libm::nvcc;
  SAMEBITS_DEVICE_FUNC static float exp(float x) { return samebits::nvcc::expf(x); }
  SAMEBITS_DEVICE_FUNC static float log(float x) { return samebits::nvcc::logf(x); }
};
struct CrExpLog {
  static constexpr Libm kLibm = Libm::cr;
  SAMEBITS_DEVICE_FUNC static float exp(float x) { return samebits::cr::expf(x); }
  SAMEBITS_DEVICE_FUNC static float log(float x) { return samebits::cr::logf(x); }
};
struct NvccFastExpLog {  // the sm90-tensor-core kernels only (attention-tc.md §23, §25)
  static constexpr Libm kLibm = Libm::nvcc_fast;
  static constexpr bool kBase2Softmax = true;  // FlashAttention-3's form: exp2 of one fma
  SAMEBITS_DEVICE_FUNC static float exp(float x) { return samebits::nvcc::fast::ftz::expf(x); }
  SAMEBITS_DEVICE_FUNC static float exp2(float x) { return samebits::nvcc::ftz::exp2f(x); }
  SAMEBITS_DEVICE_FUNC static float log(float x) { return samebits::nvcc::fast::ftz::logf(x); }
};
// §25's L2E (contract.hpp kLog2eBits); base2_softmax<L> (contract.hpp) picks the form.
SAMEBITS_DEVICE_FUNC float log2e() { return fp::from_bits(kLog2eBits); }
// NvccExpLog and NvccFastExpLog compute with PTX's MUFU instructions (ex2/lg2.approx.ftz) on the
// device: NVIDIA only; the HIP build instantiates CrExpLog and a hipcc policy
// (kernels/src/hip/attention_kernels.hip).

}  // namespace samebits::kernels::attention::cuda
