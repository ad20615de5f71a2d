// The high-precision oracle: reference.hpp instantiated with binary64 and
// with MPFR (Boost.Multiprecision) arithmetic. A separate library from the
// binary32 core, so that the core (and the C ABI over it) needs no MPFR.
#include <vector>

#include <boost/multiprecision/mpfr.hpp>

#include "samebits/kernels/attention/arith.hpp"
#include "samebits/kernels/attention/reference.hpp"
#include "samebits/kernels/attention/reference_api.hpp"
#include "reference_common.hpp"

namespace samebits::kernels::attention {

namespace {

template <class W>
std::vector<W> widen(const float* x, std::int64_t n) {
  std::vector<W> w(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) w[i] = W(x[i]);
  return w;
}
template <class W>
void oracle_run(const DenseProblem& p, const float* qf, const float* kf, const float* vf, const float* doutf,
                double* o_out, double* lse_out, double* dq_out, double* dk_out, double* dv_out, unsigned threads) {
  const DenseLists lists = detail::lists_of(p);
  const std::int64_t nq = p.rows() * p.hq * p.d, nk = p.kv_rows() * p.hkv * p.d, nl = p.rows() * p.hq;
  const auto q = widen<W>(qf, nq), k = widen<W>(kf, nk), v = widen<W>(vf, nk);
  Tensors<W> t = detail::tensors_of<W>(p, q.data(), k.data(), v.data());
  std::vector<W> o(nq), lse(nl);
  forward<ExactArith<W>>(lists, t, ForwardOut<W>{o.data(), lse.data(), nullptr}, threads);
  if (o_out)
    for (std::int64_t i = 0; i < nq; ++i) o_out[i] = static_cast<double>(o[i]);
  if (lse_out)
    for (std::int64_t i = 0; i < nl; ++i) lse_out[i] = static_cast<double>(lse[i]);
  if (!dq_out) return;
  const auto dout = widen<W>(doutf, nq);
  std::vector<W> dq(nq), dk(nk), dv(nk);
  backward<ExactArith<W>>(lists, t, BackwardIn<W>{o.data(), dout.data(), lse.data()},
                          BackwardOut<W>{dq.data(), dk.data(), dv.data(), nullptr}, threads);
  for (std::int64_t i = 0; i < nq; ++i) dq_out[i] = static_cast<double>(dq[i]);
  for (std::int64_t i = 0; i < nk; ++i) dk_out[i] = static_cast<double>(dk[i]);
  for (std::int64_t i = 0; i < nk; ++i) dv_out[i] = static_cast<double>(dv[i]);
}

using Mpfr128 = boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<39>,
                                              boost::multiprecision::et_off>;  // >= 128 bits

}  // namespace

const char* precision_name(Precision p) { return p == Precision::f64 ? "binary64" : "MPFR 128-bit"; }

void oracle_forward(Precision prec, const DenseProblem& p, const float* q, const float* k, const float* v,
                    double* o, double* lse, unsigned threads) {
  if (prec == Precision::f64) oracle_run<double>(p, q, k, v, nullptr, o, lse, nullptr, nullptr, nullptr, threads);
  else oracle_run<Mpfr128>(p, q, k, v, nullptr, o, lse, nullptr, nullptr, nullptr, threads);
}

void oracle_backward(Precision prec, const DenseProblem& p, const float* q, const float* k, const float* v,
                     const float* dout, double* dq, double* dk, double* dv, unsigned threads) {
  if (prec == Precision::f64) oracle_run<double>(p, q, k, v, dout, nullptr, nullptr, dq, dk, dv, threads);
  else oracle_run<Mpfr128>(p, q, k, v, dout, nullptr, nullptr, dq, dk, dv, threads);
}

}  // namespace samebits::kernels::attention
