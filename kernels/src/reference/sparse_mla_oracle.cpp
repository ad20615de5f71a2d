// The sparse MLA oracle: sparse_mla/reference.hpp in binary64 and in MPFR
// (Boost.Multiprecision), its own forward feeding its backward.
#include <vector>

#include <boost/multiprecision/mpfr.hpp>

#include "samebits/kernels/attention/arith.hpp"
#include "samebits/kernels/sparse_mla/reference.hpp"
#include "samebits/kernels/sparse_mla/reference_api.hpp"
#include "sparse_mla_common.hpp"

namespace samebits::kernels::sparse_mla {

namespace {

namespace at = attention;

template <class W>
std::vector<W> widen(const float* x, std::int64_t n) {
  std::vector<W> w(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) w[i] = W(x[i]);
  return w;
}

template <class W>
void oracle_run(const Problem& p, const float* qf, const float* kvf, const float* doutf, double* o_out,
                double* lse_out, double* dq_out, double* dkv_out, double* dsink_out, unsigned threads) {
  check_problem(p);
  const SlotLists lists = detail::lists_of(p);
  const std::int64_t nq = p.tokens * p.heads * p.d, nkv = p.num_kv * p.d, nl = p.tokens * p.heads;
  const auto q = widen<W>(qf, nq), kv = widen<W>(kvf, nkv);
  const auto sink = widen<W>(p.sink.data(), static_cast<std::int64_t>(p.sink.size()));
  const at::Tensors<W> t = detail::tensors_of<W>(p, q.data(), kv.data(), sink.empty() ? nullptr : sink.data());
  std::vector<W> o(nq), lse(nl);
  at::forward<at::ExactArith<W>>(lists, t, at::ForwardOut<W>{o.data(), lse.data(), nullptr}, threads);
  if (o_out)
    for (std::int64_t i = 0; i < nq; ++i) o_out[i] = static_cast<double>(o[i]);
  if (lse_out)
    for (std::int64_t i = 0; i < nl; ++i) lse_out[i] = static_cast<double>(lse[i]);
  if (!dq_out) return;
  const auto dout = widen<W>(doutf, nq);
  std::vector<W> dq(nq), dkv(nkv), dsink(p.heads);
  backward<at::ExactArith<W>>(lists, t, at::BackwardIn<W>{o.data(), dout.data(), lse.data()}, dq.data(), dkv.data(),
                              dsink.data(), threads);
  for (std::int64_t i = 0; i < nq; ++i) dq_out[i] = static_cast<double>(dq[i]);
  for (std::int64_t i = 0; i < nkv; ++i) dkv_out[i] = static_cast<double>(dkv[i]);
  if (dsink_out && !p.sink.empty())
    for (int h = 0; h < p.heads; ++h) dsink_out[h] = static_cast<double>(dsink[h]);
}

using Mpfr128 = boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<39>,
                                              boost::multiprecision::et_off>;  // >= 128 bits

}  // namespace

void oracle_forward(Precision prec, const Problem& p, const float* q, const float* kv, double* o, double* lse,
                    unsigned threads) {
  if (prec == Precision::f64) oracle_run<double>(p, q, kv, nullptr, o, lse, nullptr, nullptr, nullptr, threads);
  else oracle_run<Mpfr128>(p, q, kv, nullptr, o, lse, nullptr, nullptr, nullptr, threads);
}

void oracle_backward(Precision prec, const Problem& p, const float* q, const float* kv, const float* dout,
                     double* dq, double* dkv, double* dsink, unsigned threads) {
  if (prec == Precision::f64) oracle_run<double>(p, q, kv, dout, nullptr, nullptr, dq, dkv, dsink, threads);
  else oracle_run<Mpfr128>(p, q, kv, dout, nullptr, nullptr, dq, dkv, dsink, threads);
}

}  // namespace samebits::kernels::sparse_mla
