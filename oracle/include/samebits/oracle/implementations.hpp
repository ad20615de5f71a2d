// samebits/oracle/implementations.hpp — the implementations `samebits score`
// can evaluate on this host, named PERSONALITY[:VARIANT].
//
// Now: glibc (the host's libm). The libm personalities (cr, nvcc, hipcc and
// their variants) register here as their issues land.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "samebits/oracle/functions.hpp"

namespace samebits::oracle {

using FloatFn = float (*)(float);

struct Implementation {
  std::string name;         // "glibc", later "cr", "nvcc:ftz", ...
  std::string description;  // one line for --list
  std::string provenance;   // how the bits are obtained (e.g. "host glibc 2.36")
  FloatFn fn[kAllFuncs.size()] = {};  // indexed by Func; nullptr: not provided

  FloatFn get(Func f) const { return fn[static_cast<int>(f)]; }
};

const std::vector<Implementation>& implementations();
const Implementation* find_implementation(std::string_view name);

}  // namespace samebits::oracle
