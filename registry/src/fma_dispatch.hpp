// registry/src/fma_dispatch.hpp — each host wrapper is compiled twice: for the
// baseline ISA (on x86-64 without FMA hardware its fma is glibc's software
// fma: the same bits, slowly) and, on x86-64, for processors with FMA, picked
// at start-up, as glibc picks its own variants.
#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SAMEBITS_REGISTRY_FMA_VARIANTS 1
#define SAMEBITS_REGISTRY_FMA_ATTR __attribute__((target("fma")))
namespace samebits::registry::detail {
inline bool host_has_fma() { return __builtin_cpu_supports("fma"); }
}  // namespace samebits::registry::detail
#define SAMEBITS_PICK(NAME) (::samebits::registry::detail::host_has_fma() ? NAME##_fma : NAME)
#else
#define SAMEBITS_REGISTRY_FMA_VARIANTS 0
#define SAMEBITS_PICK(NAME) NAME
#endif
