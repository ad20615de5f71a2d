// The compiled CPU reference: reference.hpp instantiated for the binary32 core
// (nvcc and cr libm), and the parallel loop it runs on.
#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "samebits/kernels/attention/arith.hpp"
#include "samebits/kernels/attention/reference.hpp"
#include "samebits/kernels/attention/reference_api.hpp"
#include "samebits/kernels/dtype.hpp"
#include "reference_common.hpp"

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
                   Handover<float> hand = {}) {
  const DenseLists lists = detail::lists_of(p);
  backward<FloatArith<L>>(lists, detail::tensors_of(p, q, k, v), BackwardIn<float>{o, dout, lse},
                          BackwardOut<float>{dq, dk, dv, nullptr}, threads, hand);
}

}  // namespace

void reference_forward(Libm libm, const DenseProblem& p, const float* q, const float* k, const float* v, float* o,
                       float* lse, unsigned threads) {
  detail::require_fma_cpu();
  if (libm == Libm::nvcc) core_forward<NvccLibm>(p, q, k, v, o, lse, threads);
  else core_forward<CrLibm>(p, q, k, v, o, lse, threads);
}

void reference_backward(Libm libm, const DenseProblem& p, const float* q, const float* k, const float* v,
                        const float* o, const float* dout, const float* lse, float* dq, float* dk, float* dv,
                        unsigned threads) {
  detail::require_fma_cpu();
  if (libm == Libm::nvcc) core_backward<NvccLibm>(p, q, k, v, o, dout, lse, dq, dk, dv, threads);
  else core_backward<CrLibm>(p, q, k, v, o, dout, lse, dq, dk, dv, threads);
}

void reference_backward_handover(Libm libm, const DenseProblem& p, const float* q, const float* k, const float* v,
                                 const float* o, const float* dout, const float* lse, float* dq, float* dk,
                                 float* dv, const float* accum_k_in, const float* accum_v_in, float* accum_k_out,
                                 float* accum_v_out, unsigned threads) {
  detail::require_fma_cpu();
  const Handover<float> hand{accum_k_in, accum_v_in, accum_k_out, accum_v_out};
  if (libm == Libm::nvcc) core_backward<NvccLibm>(p, q, k, v, o, dout, lse, dq, dk, dv, threads, hand);
  else core_backward<CrLibm>(p, q, k, v, o, dout, lse, dq, dk, dv, threads, hand);
}

}  // namespace samebits::kernels::attention
