// The compiled CPU reference: instantiations of reference.hpp for the binary32
// core (nvcc and cr libm) and the high-precision oracle (binary64, MPFR).
#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include <boost/multiprecision/mpfr.hpp>

#include "samebits/kernels/attention/arith.hpp"
#include "samebits/kernels/attention/reference.hpp"
#include "samebits/kernels/attention/reference_api.hpp"

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

DenseLists lists_of(const DenseProblem& p) {
  DenseLists l;
  l.cu_q = p.cu_q;
  l.cu_k = p.cu_k;
  l.causal = p.causal;
  l.prepare();
  return l;
}

template <class T>
Tensors<T> tensors_of(const DenseProblem& p, const T* q, const T* k, const T* v) {
  Tensors<T> t;
  t.hq = p.hq;
  t.hkv = p.hkv;
  t.d = p.d;
  t.rows = p.rows();
  t.kv_rows = p.kv_rows();
  t.scale = T(p.scale);
  t.q = q;
  t.k = k;
  t.v = v;
  return t;
}

// The FMA-chain loops vectorize across independent chains; FMA hardware makes
// them fast (the bits are the same either way: fma is fma).
void require_cpu() {
#if defined(__x86_64__)
  if (!__builtin_cpu_supports("fma"))
    throw std::runtime_error("the attention CPU reference needs a CPU with FMA (x86-64-v3)");
#endif
}

template <class L>
void core_forward(const DenseProblem& p, const float* q, const float* k, const float* v, float* o, float* lse,
                  unsigned threads) {
  const DenseLists lists = lists_of(p);
  forward<FloatArith<L>>(lists, tensors_of(p, q, k, v), ForwardOut<float>{o, lse, nullptr}, threads);
}

template <class L>
void core_backward(const DenseProblem& p, const float* q, const float* k, const float* v, const float* o,
                   const float* dout, const float* lse, float* dq, float* dk, float* dv, unsigned threads) {
  const DenseLists lists = lists_of(p);
  backward<FloatArith<L>>(lists, tensors_of(p, q, k, v), BackwardIn<float>{o, dout, lse},
                          BackwardOut<float>{dq, dk, dv, nullptr}, threads);
}

template <class W>
std::vector<W> widen(const float* x, std::int64_t n) {
  std::vector<W> w(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) w[i] = W(x[i]);
  return w;
}

template <class W>
void oracle_run(const DenseProblem& p, const float* qf, const float* kf, const float* vf, const float* doutf,
                double* o_out, double* lse_out, double* dq_out, double* dk_out, double* dv_out, unsigned threads) {
  const DenseLists lists = lists_of(p);
  const std::int64_t nq = p.rows() * p.hq * p.d, nk = p.kv_rows() * p.hkv * p.d, nl = p.rows() * p.hq;
  const auto q = widen<W>(qf, nq), k = widen<W>(kf, nk), v = widen<W>(vf, nk);
  Tensors<W> t = tensors_of<W>(p, q.data(), k.data(), v.data());
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

void reference_forward(Libm libm, const DenseProblem& p, const float* q, const float* k, const float* v, float* o,
                       float* lse, unsigned threads) {
  require_cpu();
  if (libm == Libm::nvcc) core_forward<NvccLibm>(p, q, k, v, o, lse, threads);
  else core_forward<CrLibm>(p, q, k, v, o, lse, threads);
}

void reference_backward(Libm libm, const DenseProblem& p, const float* q, const float* k, const float* v,
                        const float* o, const float* dout, const float* lse, float* dq, float* dk, float* dv,
                        unsigned threads) {
  require_cpu();
  if (libm == Libm::nvcc) core_backward<NvccLibm>(p, q, k, v, o, dout, lse, dq, dk, dv, threads);
  else core_backward<CrLibm>(p, q, k, v, o, dout, lse, dq, dk, dv, threads);
}

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
