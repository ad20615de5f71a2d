// cli/kernel_errors.hpp — what the kernel commands (`samebits attention`,
// `samebits sparse-mla`) measure of a reference tensor against the oracle,
// and the dtype round trip a caller's tensors go through.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "attention_summary.hpp"
#include "samebits/kernels/dtype.hpp"

namespace samebits::cli {

using TensorError = AttentionSummary::Row;  // max |x - ref|, that over max |ref|, cosine

// Non-finite reference entries (the -inf lse of empty rows) are left out.
inline TensorError error_of(const std::string& name, const std::vector<float>& x, const std::vector<double>& ref) {
  TensorError e;
  e.name = name;
  e.elements = x.size();
  double scale = 0, xy = 0, xx = 0, yy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(ref[i])) continue;
    e.max_abs = std::max(e.max_abs, std::fabs(static_cast<double>(x[i]) - ref[i]));
    scale = std::max(scale, std::fabs(ref[i]));
    xy += static_cast<double>(x[i]) * ref[i];
    xx += static_cast<double>(x[i]) * x[i];
    yy += ref[i] * ref[i];
  }
  e.max_rel_normwise = scale > 0 ? e.max_abs / scale : 0;
  e.cosine = xx > 0 && yy > 0 ? xy / std::sqrt(xx * yy) : 1.0;
  return e;
}

// Rounds a binary32 tensor to the dtype and widens it back (what a caller holds).
inline std::vector<float> through_dtype(const std::vector<float>& x, kernels::DType t) {
  std::vector<float> r(x.size());
  std::vector<std::uint16_t> h(1);
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (t == kernels::DType::f32) {
      r[i] = kernels::canonical(x[i]);
    } else {
      kernels::store_from_f32(h.data(), t, 0, x[i]);
      r[i] = kernels::load_as_f32(h.data(), t, 0);
    }
  }
  return r;
}

}  // namespace samebits::cli
