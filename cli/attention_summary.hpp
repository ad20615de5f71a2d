// cli/attention_summary.hpp — one run of the attention reference against the
// oracle, shared by `samebits attention` and the default report.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "samebits/kernels/attention/contract.hpp"
#include "samebits/kernels/attention/reference_api.hpp"
#include "samebits/kernels/dtype.hpp"

namespace samebits::cli {

struct AttentionOptions {
  int seqlen = 256, hq = 8, hkv = 2, d = 128;
  bool causal = true;
  kernels::attention::Libm libm = kernels::attention::Libm::nvcc;
  kernels::attention::Policy policy = kernels::attention::Policy::fma_chain;  // sm90-tensor-core: model defaults
  kernels::DType dtype = kernels::DType::bf16;
  kernels::attention::Precision oracle = kernels::attention::Precision::f64;
  unsigned seed = 1;
  unsigned threads = 0;
};

struct AttentionSummary {
  AttentionOptions options;
  std::string fingerprint;
  double forward_seconds = 0, backward_seconds = 0, oracle_seconds = 0;
  struct Row {
    std::string name;
    double max_abs = 0, max_rel_normwise = 0, cosine = 1;
    std::size_t elements = 0;
  };
  std::vector<Row> errors;
};

AttentionSummary run_attention_reference(const AttentionOptions& opt);
nlohmann::ordered_json attention_summary_json(const AttentionSummary& s);
void print_attention_summary(std::ostream& out, const AttentionSummary& s);

}  // namespace samebits::cli
