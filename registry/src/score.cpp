#include "samebits/registry/score.hpp"

#include <algorithm>
#include <stdexcept>

namespace samebits::registry {

double ImplementationScore::max_ulp_over_models() const {
  double worst = result.max_ulp.value_or(0.0);
  for (const auto& v : variants) worst = std::max(worst, v.result.max_ulp.value_or(0.0));
  return worst;
}

ImplementationScore score(const Implementation& impl, Func f, const ScoreOptions& options) {
  const FloatFn fn = impl.get(f);
  if (!fn) throw std::invalid_argument("implementation '" + impl.name + "' has no " + std::string(oracle::name(f)));
  auto one = [&](const std::string& label, FloatFn g) {
    if (options.on_sweep_start) options.on_sweep_start(label);
    oracle::SweepResult r = oracle::sweep(f, oracle::FunctionSubject(g), options.sweep);
    if (options.on_sweep_end) options.on_sweep_end();
    return r;
  };
  ImplementationScore s;
  s.result = one("", fn);
  if (options.model_variants)
    for (const ModelVariant& mv : impl.model_variants)
      if (const FloatFn vf = mv.get(f)) s.variants.push_back({mv.label, one(mv.label, vf)});
  return s;
}

}  // namespace samebits::registry
