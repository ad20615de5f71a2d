// registry/src/personalities.hpp — one translation unit per personality, so
// that they compile in parallel and each links only what it needs.
#pragma once

#include <vector>

#include "samebits/registry/implementations.hpp"

namespace samebits::registry::detail {

void add_host(std::vector<Implementation>& v);   // glibc, cr (host.cpp)
void add_nvcc(std::vector<Implementation>& v);   // nvcc* (nvcc.cpp)
void add_hipcc(std::vector<Implementation>& v);  // hipcc* (hipcc.cpp)

}  // namespace samebits::registry::detail
