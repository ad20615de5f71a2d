// cli/embedded_hipcc_certification.hpp — the hipcc certification (our AMD
// device code against clang's own, by dataflow) recorded when samebits was
// built, embedded in the binary (cli/embed_hipcc_certification.py).
#pragma once

#include <string_view>

namespace samebits::cli {

// The JSON the certification script wrote; empty when clang++-22 was absent.
extern const std::string_view kHipccCertificationJson;
// That script, as a path relative to the repository.
extern const std::string_view kHipccCertificationScript;

}  // namespace samebits::cli
