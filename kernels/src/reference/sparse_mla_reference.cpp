// The compiled sparse MLA reference: sparse_mla/reference.hpp instantiated
// for the binary32 core (nvcc and cr libm), and the problem's checks.
#include <stdexcept>
#include <string>

#include "samebits/kernels/attention/arith.hpp"
#include "samebits/kernels/dtype.hpp"
#include "samebits/kernels/sparse_mla/reference.hpp"
#include "samebits/kernels/sparse_mla/reference_api.hpp"
#include "reference_common.hpp"
#include "sparse_mla_common.hpp"
#include "validate/rules.hpp"

namespace samebits::kernels::sparse_mla {

void check_problem(const Problem& p) {
  auto bad = [](const std::string& m) { throw std::invalid_argument("samebits sparse-mla: " + m); };
  if (p.tokens < 0 || p.num_kv < 0) bad("tokens and num_kv must be >= 0");
  if (p.heads <= 0 || p.d <= 0 || p.topk <= 0) bad("heads, d and topk must be positive");
  if (static_cast<std::int64_t>(p.indices.size()) != p.tokens * p.topk) bad("indices must hold tokens * topk entries");
  if (!p.sink.empty() && static_cast<int>(p.sink.size()) != p.heads) bad("sink must hold heads entries, or none");
  for (std::int64_t t = 0; t < p.tokens; ++t)
    for (int s = 0; s < p.topk; ++s) {
      const std::int32_t i = p.indices[t * p.topk + s];
      if (i < -1 || i >= p.num_kv)
        bad("index " + std::to_string(i) + " at token " + std::to_string(t) + ", slot " + std::to_string(s) +
            " is outside -1 .. num_kv - 1 = " + std::to_string(p.num_kv - 1));
    }
}

namespace {

namespace at = attention;

template <class L>
void core_forward(const Problem& p, const float* q, const float* kv, float* o, float* lse, float* lse_excl,
                  unsigned threads) {
  const SlotLists lists = detail::lists_of(p);
  at::forward<at::FloatArith<L>>(lists, detail::tensors_of(p, q, kv, detail::sink_of(p)), at::ForwardOut<float>{o, lse, lse_excl},
                                 threads);
  // lse is a final output (fp32): NaN written canonical (attention.md §6).
  for (std::int64_t i = 0; i < p.tokens * p.heads; ++i) {
    lse[i] = canonical(lse[i]);
    if (lse_excl) lse_excl[i] = canonical(lse_excl[i]);
  }
}

template <class L>
void core_backward(const Problem& p, const float* q, const float* kv, const float* o, const float* dout,
                   const float* lse, float* dq, float* dkv, float* dsink, unsigned threads) {
  const SlotLists lists = detail::lists_of(p);
  backward<at::FloatArith<L>>(lists, detail::tensors_of(p, q, kv, detail::sink_of(p)), at::BackwardIn<float>{o, dout, lse}, dq, dkv,
                              dsink, threads);
  if (dsink && !p.sink.empty())
    for (int h = 0; h < p.heads; ++h) dsink[h] = canonical(dsink[h]);
}

// Sparse MLA's policy is fma-chain: nvcc or cr (the validation's rule, rules.hpp).
void check_libm(Libm libm) {
  if (const rules::Verdict v = rules::libm(libm, Policy::fma_chain); !v.ok())
    throw std::invalid_argument("samebits sparse MLA reference: " + v.what);
}

}  // namespace

void reference_forward(Libm libm, const Problem& p, const float* q, const float* kv, float* o, float* lse,
                       float* lse_excl, unsigned threads) {
  at::detail::require_fma_cpu();
  check_problem(p);
  check_libm(libm);
  if (libm == Libm::nvcc) core_forward<at::NvccLibm>(p, q, kv, o, lse, lse_excl, threads);
  else core_forward<at::CrLibm>(p, q, kv, o, lse, lse_excl, threads);
}

void reference_backward(Libm libm, const Problem& p, const float* q, const float* kv, const float* o,
                        const float* dout, const float* lse, float* dq, float* dkv, float* dsink, unsigned threads) {
  at::detail::require_fma_cpu();
  check_problem(p);
  check_libm(libm);
  if (libm == Libm::nvcc) core_backward<at::NvccLibm>(p, q, kv, o, dout, lse, dq, dkv, dsink, threads);
  else core_backward<at::CrLibm>(p, q, kv, o, dout, lse, dq, dkv, dsink, threads);
}

}  // namespace samebits::kernels::sparse_mla
