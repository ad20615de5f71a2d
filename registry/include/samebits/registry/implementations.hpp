// samebits/registry/implementations.hpp — the implementations `samebits score`
// can evaluate on this host, named PERSONALITY[:VARIANT].
//
// glibc (the host's libm), cr, nvcc[:ftz|:fast|:triton] (bit-exact models of
// the H200), hipcc[:afn|:daz|:clang19|:triton] (structure-exact, with a model
// of AMD's v_exp_f32 / v_log_f32; scored also under perturbed models).
//
// The registry knows what exists; the oracle (samebits_oracle) only judges the
// functions it is handed and knows nothing of personalities.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "samebits/oracle/functions.hpp"

namespace samebits::registry {

using oracle::Func;
using oracle::kAllFuncs;
using FloatFn = float (*)(float);

// The same functions computed with another model of an instruction the host
// lacks (hipcc: v_exp_f32 / v_log_f32 one ulp up or down): scoring them
// gives the bounds of what the real instruction may do within its spec.
struct ModelVariant {
  std::string label;  // e.g. "v_exp/v_log +1 ulp"
  FloatFn fn[kAllFuncs.size()] = {};

  FloatFn get(Func f) const { return fn[static_cast<int>(f)]; }
};

struct Implementation {
  std::string name;         // "glibc", "cr", "nvcc:ftz", ...
  std::string description;  // one line for --list
  std::string provenance;   // how the bits are obtained (e.g. "host glibc 2.36")
  FloatFn fn[kAllFuncs.size()] = {};  // indexed by Func; nullptr: not provided
  std::vector<ModelVariant> model_variants;  // scored beside fn (score.hpp)

  FloatFn get(Func f) const { return fn[static_cast<int>(f)]; }
};

const std::vector<Implementation>& implementations();
const Implementation* find_implementation(std::string_view name);

}  // namespace samebits::registry
