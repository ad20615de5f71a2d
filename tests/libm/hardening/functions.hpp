// tests/libm/hardening/functions.hpp — every host function of samebits::cr,
// samebits::nvcc and samebits::hipcc, by name, for the hardening digests.
#pragma once

#include <samebits/libm.hpp>

namespace samebits::hardening {

using Fn = float (*)(float);
struct Named {
  const char* name;
  Fn fn;
};

#define SB_ENTRY(NS, F) {#NS "::" #F, [](float x) { return samebits::NS::F(x); }}
#define SB_SIX(NS) SB_ENTRY(NS, expf), SB_ENTRY(NS, exp2f), SB_ENTRY(NS, exp10f), \
                   SB_ENTRY(NS, logf), SB_ENTRY(NS, log2f), SB_ENTRY(NS, log10f)

inline constexpr Named kFunctions[] = {
    SB_SIX(cr),
    SB_SIX(nvcc),
    SB_SIX(nvcc::ftz),
    SB_ENTRY(nvcc::fast, expf), SB_ENTRY(nvcc::fast, exp10f),
    SB_ENTRY(nvcc::fast, logf), SB_ENTRY(nvcc::fast, log2f),
    SB_ENTRY(nvcc::triton, expf), SB_ENTRY(nvcc::triton, logf),
    SB_SIX(hipcc),
    SB_SIX(hipcc::afn),
    SB_SIX(hipcc::daz),
    SB_ENTRY(hipcc::clang19, logf), SB_ENTRY(hipcc::clang19, log10f),
    SB_ENTRY(hipcc::clang19::daz, logf), SB_ENTRY(hipcc::clang19::daz, log10f),
    SB_ENTRY(hipcc::triton, expf), SB_ENTRY(hipcc::triton, logf),
};

#undef SB_SIX
#undef SB_ENTRY

}  // namespace samebits::hardening
