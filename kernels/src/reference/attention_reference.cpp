// The compiled CPU reference: reference.hpp instantiated for the binary32 core
// (nvcc and cr libm) under the fma-chain policy, the dispatch on the policy
// (sm90-tensor-core: attention_reference_tc.cpp), and the parallel loop.
#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "samebits/kernels/attention/arith.hpp"
#include "samebits/kernels/attention/reference.hpp"
#include "samebits/kernels/attention/reference_api.hpp"
#include "samebits/kernels/attention/tensor_core.hpp"
#include "samebits/kernels/dtype.hpp"
#include "reference_common.hpp"
#include "validate/rules.hpp"

namespace samebits::kernels::attention {

namespace detail {

void parallel_for(std::int64_t n, unsigned threads, void (*f)(std::int64_t, void*), void* ctx) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  if (n <= 0) return;
  if (threads == 1 || n == 1) {
    for (std::int64_t i = 0; i < n; ++i) f(i, ctx);
    return;
  }
  std::atomic<std::int64_t> next{0};
  auto worker = [&] {
    for (std::int64_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) f(i, ctx);
  };
  std::vector<std::thread> pool;
  const unsigned w = static_cast<unsigned>(std::min<std::int64_t>(threads, n));
  for (unsigned t = 1; t < w; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
}

}  // namespace detail

namespace {

template <class L>
void core_forward(const DenseProblem& p, const float* q, const float* k, const float* v, float* o, float* lse,
                  unsigned threads) {
  const DenseLists lists = detail::lists_of(p);
  forward<FloatArith<L>>(lists, detail::tensors_of(p, q, k, v), ForwardOut<float>{o, lse, nullptr}, threads);
  // lse is a final output (fp32): NaN written canonical (§6). o, dq, dk, dv are
  // returned before their one rounding, which canonicalizes (dtype.hpp).
  for (std::int64_t i = 0; i < p.rows() * p.hq; ++i) lse[i] = canonical(lse[i]);
}

template <class L>
void core_backward(const DenseProblem& p, const float* q, const float* k, const float* v, const float* o,
                   const float* dout, const float* lse, float* dq, float* dk, float* dv, unsigned threads,
                   const Handover& hand) {
  const DenseLists lists = detail::lists_of(p);
  backward<FloatArith<L>>(lists, detail::tensors_of(p, q, k, v), BackwardIn<float>{o, dout, lse},
                          BackwardOut<float>{dq, dk, dv, nullptr}, threads,
                          attention::AccumHandover<float>{hand.k_in, hand.v_in, hand.k_out, hand.v_out});
}

[[noreturn]] void refuse(const std::string& what) {
  throw std::invalid_argument("samebits attention reference: " + what);
}

}  // namespace

std::string fingerprint(const DenseProblem& p, Libm libm) {
  if (p.policy == Policy::sm90_tensor_core) return tc::fingerprint(libm, p.mma);
  return fingerprint(p.policy, libm);
}

namespace {
// The rules are the validation's (kernels/src/validate/rules.hpp), applied to the reference's problem.
void refuse_unless(const rules::Verdict& v) {
  if (!v.ok()) refuse(v.what);
}
}  // namespace

void check_policy(const DenseProblem& p) {
  if (p.policy == Policy::fma_chain) return;
  refuse_unless(rules::policy(p.policy));
  refuse_unless(rules::input_dtype(p.in_dtype, p.policy));
  refuse_unless(rules::head_dim(p.d));
  refuse_unless(rules::mma(p.mma));
}

namespace {
void check_libm(const DenseProblem& p, Libm libm) {
  refuse_unless(rules::libm(libm, p.policy));
  refuse_unless(rules::libm_scale(libm, p.scale));
}
}  // namespace

void reference_forward(Libm libm, const DenseProblem& p, const float* q, const float* k, const float* v, float* o,
                       float* lse, unsigned threads) {
  detail::require_fma_cpu();
  check_policy(p);
  check_libm(p, libm);
  if (p.policy == Policy::sm90_tensor_core) return detail::tc_forward(libm, p, q, k, v, o, lse, threads);
  if (libm == Libm::nvcc) core_forward<NvccLibm>(p, q, k, v, o, lse, threads);
  else core_forward<CrLibm>(p, q, k, v, o, lse, threads);
}

void reference_backward(Libm libm, const DenseProblem& p, const float* q, const float* k, const float* v,
                        const float* o, const float* dout, const float* lse, float* dq, float* dk, float* dv,
                        unsigned threads, const Handover& handover) {
  detail::require_fma_cpu();
  check_policy(p);
  check_libm(p, libm);
  if ((handover.k_in == nullptr) != (handover.v_in == nullptr))
    refuse("handover: give both k_in and v_in, or neither");
  if (p.policy == Policy::sm90_tensor_core)
    return detail::tc_backward(libm, p, q, k, v, o, dout, lse, dq, dk, dv, threads, handover);
  if (libm == Libm::nvcc) core_backward<NvccLibm>(p, q, k, v, o, dout, lse, dq, dk, dv, threads, handover);
  else core_backward<CrLibm>(p, q, k, v, o, dout, lse, dq, dk, dv, threads, handover);
}

void reference_backward_handover(Libm libm, const DenseProblem& p, const float* q, const float* k, const float* v,
                                 const float* o, const float* dout, const float* lse, float* dq, float* dk,
                                 float* dv, const float* accum_k_in, const float* accum_v_in, float* accum_k_out,
                                 float* accum_v_out, unsigned threads) {
  reference_backward(libm, p, q, k, v, o, dout, lse, dq, dk, dv, threads,
                     Handover{accum_k_in, accum_v_in, accum_k_out, accum_v_out});
}

}  // namespace samebits::kernels::attention
