// The compiled CPU reference under the sm90-tensor-core policy
// (docs/kernels/attention-tc.md): reference_tc.hpp instantiated for the
// binary32 core (nvcc and cr libm). The inputs arrive widened to binary32;
// here they become the model's operand encodings, each checked to be exactly
// a value of the declared dtype (a value that is not would be a different
// input from the one a kernel reads: refused, naming the element).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "samebits/kernels/attention/arith.hpp"
#include "samebits/kernels/attention/reference_api.hpp"
#include "samebits/kernels/attention/reference_tc.hpp"
#include "samebits/kernels/dtype.hpp"
#include "reference_common.hpp"
#include "validate/rules.hpp"

namespace samebits::kernels::attention {
namespace {

[[noreturn]] void refuse(const std::string& what) {
  throw std::invalid_argument("samebits attention reference: policy sm90-tensor-core: " + what);
}

// x[0..n) as operand encodings; every value must be one of the format's (a
// NaN of any payload is a NaN operand: the model reads no payload).
std::vector<std::uint16_t> encode(const char* name, const float* x, std::int64_t n, DType t) {
  const auto f = tc::format_of(t);
  std::vector<std::uint16_t> h(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    h[i] = tc::to_operand(f, x[i]);
    if (!std::isnan(x[i]) && fp::to_bits(tc::from_operand(f, h[i])) != fp::to_bits(x[i])) {
      char v[48];
      std::snprintf(v, sizeof v, "%a", static_cast<double>(x[i]));
      refuse(std::string(name) + "[" + std::to_string(i) + "] = " + v + " is not a " + dtype_name(t) +
             " value (the inputs must be the dtype's values, widened exactly)");
    }
  }
  return h;
}

// A part that continues handed-on accumulators starts every sequence at a
// 16-row group boundary (the validation's rule, rules.hpp).
void check_handover_alignment(const DenseProblem& p) {
  const rules::Verdict v = rules::handover_row_groups(static_cast<int>(p.cu_q.size()) - 1, p.cu_q.data(), p.cu_k.data());
  if (!v.ok()) throw std::invalid_argument("samebits attention reference: " + v.what);
}

tc::Reference policy_of(const DenseProblem& p) {
  tc::Reference r;
  r.fmt = tc::format_of(p.in_dtype);
  r.params = p.mma;
  return r;
}

template <class L>
void run_forward(const DenseProblem& p, const float* q, const float* k, const float* v, float* o, float* lse,
                 unsigned threads) {
  const std::int64_t nq = p.rows() * p.hq * p.d, nk = p.kv_rows() * p.hkv * p.d;
  const auto q16 = encode("q", q, nq, p.in_dtype), k16 = encode("k", k, nk, p.in_dtype),
             v16 = encode("v", v, nk, p.in_dtype);
  tc::Reference pol = policy_of(p);
  pol.q = q16.data();
  pol.k = k16.data();
  pol.v = v16.data();
  const DenseLists lists = detail::lists_of(p);
  tc::forward<FloatArith<L>>(pol, lists, detail::tensors_of(p, q, k, v), ForwardOut<float>{o, lse, nullptr},
                             threads);
  for (std::int64_t i = 0; i < p.rows() * p.hq; ++i) lse[i] = canonical(lse[i]);
}

template <class L>
void run_backward(const DenseProblem& p, const float* q, const float* k, const float* v, const float* o,
                  const float* dout, const float* lse, float* dq, float* dk, float* dv, unsigned threads,
                  const Handover& hand) {
  if (hand.k_in) check_handover_alignment(p);
  const std::int64_t nq = p.rows() * p.hq * p.d, nk = p.kv_rows() * p.hkv * p.d;
  const auto q16 = encode("q", q, nq, p.in_dtype), k16 = encode("k", k, nk, p.in_dtype),
             v16 = encode("v", v, nk, p.in_dtype), do16 = encode("dout", dout, nq, p.in_dtype);
  tc::Reference pol = policy_of(p);
  pol.q = q16.data();
  pol.k = k16.data();
  pol.v = v16.data();
  pol.dout = do16.data();
  const DenseLists lists = detail::lists_of(p);
  tc::backward<FloatArith<L>>(pol, lists, detail::tensors_of(p, q, k, v), BackwardIn<float>{o, dout, lse},
                              BackwardOut<float>{dq, dk, dv, nullptr}, threads,
                              attention::AccumHandover<float>{hand.k_in, hand.v_in, hand.k_out, hand.v_out});
}

}  // namespace

namespace detail {

void tc_forward(Libm libm, const DenseProblem& p, const float* q, const float* k, const float* v, float* o,
                float* lse, unsigned threads) {
  if (libm == Libm::nvcc) run_forward<NvccLibm>(p, q, k, v, o, lse, threads);
  else if (libm == Libm::nvcc_fast) run_forward<NvccFastLibm>(p, q, k, v, o, lse, threads);
  else run_forward<CrLibm>(p, q, k, v, o, lse, threads);
}

void tc_backward(Libm libm, const DenseProblem& p, const float* q, const float* k, const float* v, const float* o,
                 const float* dout, const float* lse, float* dq, float* dk, float* dv, unsigned threads,
                 const Handover& hand) {
  if (libm == Libm::nvcc) run_backward<NvccLibm>(p, q, k, v, o, dout, lse, dq, dk, dv, threads, hand);
  else if (libm == Libm::nvcc_fast) run_backward<NvccFastLibm>(p, q, k, v, o, dout, lse, dq, dk, dv, threads, hand);
  else run_backward<CrLibm>(p, q, k, v, o, dout, lse, dq, dk, dv, threads, hand);
}

}  // namespace detail
}  // namespace samebits::kernels::attention
