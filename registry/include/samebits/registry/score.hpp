// samebits/registry/score.hpp — score a registered implementation with the
// oracle: its own functions, then each of its model variants (hipcc:
// v_exp_f32 / v_log_f32 modelled one ulp up and down), so that the result
// bounds what hardware within the instruction's documented accuracy can give.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "samebits/oracle/sweep.hpp"
#include "samebits/registry/implementations.hpp"

namespace samebits::registry {

struct VariantScore {
  std::string label;  // ModelVariant::label
  oracle::SweepResult result;
};

struct ImplementationScore {
  oracle::SweepResult result;          // the implementation as registered
  std::vector<VariantScore> variants;  // one per model variant that provides the function

  // The largest max error over the implementation and its variants (0 when
  // every result is correctly rounded).
  double max_ulp_over_models() const;
};

struct ScoreOptions {
  oracle::SweepOptions sweep;  // ranges, threads, filter, progress: the same for every sweep
  bool model_variants = true;  // false: the implementation's own functions only
  // Called before and after each sweep; label is "" for the implementation
  // itself, else the variant's label.
  std::function<void(const std::string& label)> on_sweep_start;
  std::function<void()> on_sweep_end;
};

// Throws std::invalid_argument when impl does not provide f.
ImplementationScore score(const Implementation& impl, Func f, const ScoreOptions& options);

}  // namespace samebits::registry
