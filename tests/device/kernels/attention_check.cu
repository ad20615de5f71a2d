// tests/device/kernels/attention_check.cu — the CUDA attention kernels
// (kernels/src/cuda/) against the CPU reference (reference_forward/backward,
// the binary32 core), bit for bit, on a grid of shapes; and their speed.
//
//   attention_check [--quick] [--filter SUBSTR] [--skip-large | --large-only]
//                   [--bench] [--bench-only] [--varlen] [--no-refusals]
//                   [--out DIR] [--threads N]
// --large-only / --skip-large: only / all but the S >= 2048 points (the CPU
// reference is the slow part there). --varlen: the invariance section
// (decode vs prefill, chunked prefill, packed vs alone, head-group split,
// context-parallel backward with the accumulators handed on, 100 repeats).
// The refusal section (bad arguments are refused and launch nothing) runs
// with the grid unless --no-refusals.
//
// Per point: random normal inputs (fixed seed per point) in the point's dtype,
// GPU forward + backward and the CPU reference from the same inputs (the
// backward from the reference's stored o and lse, so a forward mismatch
// cannot hide in the backward), mismatched encodings per tensor (o, lse, dq,
// dk, dv) with 128-row tiles, the same with 64-row tiles (mismatch_tile64:
// the two tilings the launcher chooses between), an FNV-1a digest per tensor, and a negative control per tensor
// (one bit of one GPU element flipped in device memory, copied again: exactly
// one more mismatch). Outputs are poisoned (all-ones bytes: NaN in every
// dtype) before each run, so an unwritten element is a mismatch. One JSON
// line per point to stdout and to DIR/attention_check.jsonl. Exit status 1 if
// any point mismatches or any control fails.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "samebits/kernels/attention/api.hpp"
#include "samebits/kernels/attention/reference_api.hpp"
#include "samebits/kernels/dtype.hpp"

// The backward's kernels one by one, for the bench's breakdown only.
#include "../../../kernels/src/portable/attention/bwd_delta_kernel.cuh"
#include "../../../kernels/src/portable/attention/bwd_fold_kernel.cuh"
#include "../../../kernels/src/portable/attention/bwd_kernel.cuh"

#include "check_common.cuh"

namespace sk = samebits::kernels;
namespace sa = samebits::kernels::attention;
using check::compare;
using check::Compare;
using check::control;
using check::DeviceBuffer;
using check::fnv1a;
using check::hex;
using check::HostTensor;
using check::random_tensor;
using check::rounded;

namespace {

struct Options {
  bool quick = false, bench = false, bench_only = false, varlen = false, refusals = true;
  bool skip_large = false, large_only = false;
  std::string filter, out_dir;
  unsigned threads = 0;
};

struct Point {
  sa::Libm libm = sa::Libm::nvcc;
  bool causal = false;
  int d = 128, hq = 8, hkv = 8;
  sk::DType dtype = sk::DType::bf16;
  std::vector<std::int32_t> cu_q{0}, cu_k{0};
  std::string tag;  // how the sequences were made
  std::uint64_t seed = 1;

  std::string name() const {
    return std::string("libm=") + sa::libm_name(libm) + " causal=" + (causal ? "1" : "0") + " D=" +
           std::to_string(d) + " " + tag + " hq=" + std::to_string(hq) + " hkv=" + std::to_string(hkv) +
           " dtype=" + sk::dtype_name(dtype);
  }
  std::int64_t rows() const { return cu_q.back(); }
  std::int64_t kv_rows() const { return cu_k.back(); }
  int num_seqs() const { return static_cast<int>(cu_q.size()) - 1; }
};

Point dense_point(sa::Libm libm, bool causal, int d, int s, int hq, int hkv, sk::DType t) {
  Point p;
  p.libm = libm;
  p.causal = causal;
  p.d = d;
  p.hq = hq;
  p.hkv = hkv;
  p.dtype = t;
  p.cu_q = {0, s};
  p.cu_k = {0, s};
  p.tag = "S=" + std::to_string(s);
  return p;
}

sa::Strides dense_strides(int heads, int d) { return sa::Strides{static_cast<std::int64_t>(heads) * d, d}; }

int max_len(const std::vector<std::int32_t>& cu) {
  int m = 0;
  for (std::size_t s = 0; s + 1 < cu.size(); ++s) m = std::max(m, cu[s + 1] - cu[s]);
  return m;
}

// Device copies of one point's inputs and outputs, and the calls.
struct Problem {
  const Point& pt;
  std::int64_t nq, nk, nl;
  DeviceBuffer cu_q, cu_k, q, k, v, o, lse, dout, o_in, lse_in, dq, dk, dv, delta, acc_k, acc_v, dq_acc, dq_flags;
  Problem(const Point& p)
      : pt(p),
        nq(p.rows() * p.hq * p.d),
        nk(p.kv_rows() * p.hkv * p.d),
        nl(p.rows() * p.hq),
        cu_q(p.cu_q.size() * 4),
        cu_k(p.cu_k.size() * 4),
        q(nq * sk::dtype_size(p.dtype)),
        k(nk * sk::dtype_size(p.dtype)),
        v(nk * sk::dtype_size(p.dtype)),
        o(nq * sk::dtype_size(p.dtype)),
        lse(nl * 4),
        dout(nq * sk::dtype_size(p.dtype)),
        o_in(nq * sk::dtype_size(p.dtype)),
        lse_in(nl * 4),
        dq(nq * sk::dtype_size(p.dtype)),
        dk(nk * sk::dtype_size(p.dtype)),
        dv(nk * sk::dtype_size(p.dtype)),
        delta(nl * 4),
        acc_k(p.kv_rows() * p.hq * p.d * 4),
        acc_v(p.kv_rows() * p.hq * p.d * 4),
        dq_acc(nq * 4),
        dq_flags((nl + 1) * 4) {
    cu_q.upload(p.cu_q.data());
    cu_k.upload(p.cu_k.data());
  }
  int tile_rows = 0;  // the launcher's choice unless set
  void fill_problem(sa::ProblemParams& f) const {
    f.tile_rows = tile_rows;
    f.cu_seqlens_q = cu_q.as<std::int32_t>();
    f.cu_seqlens_k = cu_k.as<std::int32_t>();
    f.num_seqs = pt.num_seqs();
    f.max_seqlen_q = max_len(pt.cu_q);
    f.max_seqlen_k = max_len(pt.cu_k);
    f.total_q = pt.rows();
    f.total_k = pt.kv_rows();
    f.hq = pt.hq;
    f.hkv = pt.hkv;
    f.d = pt.d;
    f.causal = pt.causal;
    f.scale = sa::default_scale(pt.d);
    f.in_dtype = pt.dtype;
    f.libm = pt.libm;
  }
  sa::HostSeqlens host() const { return sa::HostSeqlens{pt.cu_q.data(), pt.cu_k.data()}; }
  sa::ForwardParams fwd() const {
    sa::ForwardParams f;
    fill_problem(f);
    f.q = q.ptr;
    f.k = k.ptr;
    f.v = v.ptr;
    f.o = o.ptr;
    f.lse = lse.as<float>();
    f.q_stride = f.o_stride = dense_strides(pt.hq, pt.d);
    f.k_stride = f.v_stride = dense_strides(pt.hkv, pt.d);
    f.o_dtype = pt.dtype;
    return f;
  }
  sa::BackwardParams bwd() const {
    sa::BackwardParams b;
    fill_problem(b);
    b.q = q.ptr;
    b.k = k.ptr;
    b.v = v.ptr;
    b.o = o_in.ptr;
    b.dout = dout.ptr;
    b.lse = lse_in.as<float>();
    b.dq = dq.ptr;
    b.dk = dk.ptr;
    b.dv = dv.ptr;
    b.q_stride = b.o_stride = b.dout_stride = b.dq_stride = dense_strides(pt.hq, pt.d);
    b.k_stride = b.v_stride = b.dk_stride = b.dv_stride = dense_strides(pt.hkv, pt.d);
    b.o_dtype = b.grad_dtype = pt.dtype;
    b.delta = delta.as<float>();
    b.accum_k = acc_k.as<float>();
    b.accum_v = acc_v.as<float>();
    b.dq_accum = dq_acc.as<float>();
    b.dq_flags = dq_flags.as<std::int32_t>();
    return b;
  }
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Tensors {
  HostTensor q, k, v, dout;
};

Tensors make_inputs(const Point& pt) {
  std::mt19937_64 rng(pt.seed);
  Tensors t;
  const std::int64_t nq = pt.rows() * pt.hq * pt.d, nk = pt.kv_rows() * pt.hkv * pt.d;
  t.q = random_tensor(pt.dtype, nq, rng);
  t.k = random_tensor(pt.dtype, nk, rng);
  t.v = random_tensor(pt.dtype, nk, rng);
  t.dout = random_tensor(pt.dtype, nq, rng);
  return t;
}

sa::DenseProblem dense_problem(const Point& pt) {
  sa::DenseProblem dp;
  dp.cu_q = pt.cu_q;
  dp.cu_k = pt.cu_k;
  dp.hq = pt.hq;
  dp.hkv = pt.hkv;
  dp.d = pt.d;
  dp.causal = pt.causal;
  dp.scale = sa::default_scale(pt.d);
  return dp;
}

// One grid point: returns pass.
bool check_point(const Point& pt, const Options& opt, FILE* jsonl) {
  const auto t0 = std::chrono::steady_clock::now();
  const Tensors in = make_inputs(pt);
  const auto qf = in.q.widened(), kf = in.k.widened(), vf = in.v.widened(), dof = in.dout.widened();
  const std::int64_t nq = qf.size(), nk = kf.size(), nl = pt.rows() * pt.hq;
  const sa::DenseProblem dp = dense_problem(pt);

  // CPU reference: forward, then the backward from its stored o and its lse.
  std::vector<float> o_ref(nq), lse_ref(nl), dq_ref(nq), dk_ref(nk), dv_ref(nk);
  sa::reference_forward(pt.libm, dp, qf.data(), kf.data(), vf.data(), o_ref.data(), lse_ref.data(), opt.threads);
  const HostTensor o_want = rounded(pt.dtype, o_ref);
  const HostTensor lse_want = rounded(sk::DType::f32, lse_ref);
  const std::vector<float> o_stored = o_want.widened();
  sa::reference_backward(pt.libm, dp, qf.data(), kf.data(), vf.data(), o_stored.data(), dof.data(),
                         lse_want.widened().data(), dq_ref.data(), dk_ref.data(), dv_ref.data(), opt.threads);
  const HostTensor dq_want = rounded(pt.dtype, dq_ref), dk_want = rounded(pt.dtype, dk_ref),
                   dv_want = rounded(pt.dtype, dv_ref);
  const double ref_s = seconds_since(t0);

  Problem pr(pt);
  pr.tile_rows = 128;  // 128-row tiles here, 64-row tiles below: the launcher picks one of them
  pr.q.upload(in.q.bytes.data());
  pr.k.upload(in.k.bytes.data());
  pr.v.upload(in.v.bytes.data());
  pr.dout.upload(in.dout.bytes.data());
  pr.o_in.upload(o_want.bytes.data());
  pr.lse_in.upload(lse_want.bytes.data());
  for (DeviceBuffer* b : {&pr.o, &pr.lse, &pr.dq, &pr.dk, &pr.dv, &pr.delta, &pr.acc_k, &pr.acc_v, &pr.dq_acc, &pr.dq_flags}) b->poison();
  CHECK_CUDA(cudaDeviceSynchronize());

  const auto g0 = std::chrono::steady_clock::now();
  CHECK_STATUS(sa::forward(pr.fwd(), pr.host()));
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_STATUS(sa::backward(pr.bwd(), pr.host()));
  CHECK_CUDA(cudaDeviceSynchronize());
  const double gpu_s = seconds_since(g0);

  struct Named {
    const char* name;
    const DeviceBuffer* dev;
    const HostTensor* want;
  } tensors[] = {{"o", &pr.o, &o_want}, {"lse", &pr.lse, &lse_want}, {"dq", &pr.dq, &dq_want},
                 {"dk", &pr.dk, &dk_want}, {"dv", &pr.dv, &dv_want}};
  std::string mism = "{", dig = "{", ctl = "{", first;
  bool pass = true;
  std::mt19937_64 pick(pt.seed ^ 0x5eedull);
  for (const Named& t : tensors) {
    const Compare c = compare(*t.dev, *t.want);
    const std::int64_t idx = t.want->n ? static_cast<std::int64_t>(pick() % t.want->n) : 0;
    const bool ctl_ok = control(*t.dev, *t.want, idx, c.mismatches);
    pass = pass && c.mismatches == 0 && ctl_ok;
    const char* sep = mism.size() > 1 ? "," : "";
    mism += std::string(sep) + "\"" + t.name + "\":" + std::to_string(c.mismatches);
    dig += std::string(sep) + "\"" + t.name + "\":\"" + hex(c.digest) + "\"";
    ctl += std::string(sep) + "\"" + t.name + "\":" + (ctl_ok ? "true" : "false");
    if (c.first >= 0 && first.empty()) {
      char buf[160];
      std::snprintf(buf, sizeof buf, ",\"first_mismatch\":{\"tensor\":\"%s\",\"index\":%lld,\"got\":\"0x%x\",\"want\":\"0x%x\"}",
                    t.name, static_cast<long long>(c.first), c.got, c.want);
      first = buf;
    }
  }
  // The other tiling (64-row tiles of the forward and dq kernels): the same
  // bits, all tensors.
  pr.tile_rows = 64;
  for (DeviceBuffer* b : {&pr.o, &pr.lse, &pr.dq, &pr.dk, &pr.dv, &pr.delta, &pr.acc_k, &pr.acc_v, &pr.dq_acc, &pr.dq_flags}) b->poison();
  CHECK_STATUS(sa::forward(pr.fwd(), pr.host()));
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_STATUS(sa::backward(pr.bwd(), pr.host()));
  CHECK_CUDA(cudaDeviceSynchronize());
  std::int64_t tile64 = 0;
  for (const Named& t : tensors) tile64 += compare(*t.dev, *t.want).mismatches;
  pass = pass && tile64 == 0;
  char line[2048];
  std::snprintf(line, sizeof line,
                "{\"point\":\"%s\",\"libm\":\"%s\",\"causal\":%d,\"D\":%d,\"seqs\":\"%s\",\"hq\":%d,\"hkv\":%d,"
                "\"dtype\":\"%s\",\"mismatch\":%s},\"mismatch_tile64\":%lld,\"digest\":%s},\"control\":%s}%s,"
                "\"ref_s\":%.3f,\"gpu_s\":%.4f,\"pass\":%s}",
                pt.name().c_str(), sa::libm_name(pt.libm), pt.causal ? 1 : 0, pt.d, pt.tag.c_str(), pt.hq, pt.hkv,
                sk::dtype_name(pt.dtype), mism.c_str(), static_cast<long long>(tile64), dig.c_str(), ctl.c_str(),
                first.c_str(), ref_s, gpu_s, pass ? "true" : "false");
  std::printf("%s\n", line);
  std::fflush(stdout);
  if (jsonl) {
    std::fprintf(jsonl, "%s\n", line);
    std::fflush(jsonl);
  }
  return pass;
}

std::vector<Point> grid(const Options& opt) {
  std::vector<Point> pts;
  const sa::Libm libms[] = {sa::Libm::nvcc, sa::Libm::cr};
  const int heads[][2] = {{32, 8}, {8, 8}, {12, 4}};
  const int seqs_quick[] = {1, 17, 128};
  const int seqs_full[] = {1, 17, 128, 1000};
  for (sa::Libm l : libms)
    for (int causal = 0; causal < 2; ++causal)
      for (int d : {64, 128}) {
        if (opt.quick) {
          for (int s : seqs_quick) pts.push_back(dense_point(l, causal, d, s, 8, 8, sk::DType::bf16));
          pts.push_back(dense_point(l, causal, d, 200, 12, 4, sk::DType::bf16));
          continue;
        }
        for (int s : seqs_full)
          for (auto& hh : heads) pts.push_back(dense_point(l, causal, d, s, hh[0], hh[1], sk::DType::bf16));
      }
  // Other dtypes.
  for (sk::DType t : {sk::DType::f16, sk::DType::f32})
    for (int causal = 0; causal < 2; ++causal) {
      pts.push_back(dense_point(sa::Libm::nvcc, causal, 128, opt.quick ? 130 : 1000, 12, 4, t));
      pts.push_back(dense_point(sa::Libm::cr, causal, 64, 77, 8, 8, t));
    }
  // Packed sequences: decode rows (Lq = 1), chunked prefill (Lq < Lk), Lq > Lk
  // (causal rows with empty lists), an empty sequence.
  for (sa::Libm l : libms)
    for (int causal = 0; causal < 2; ++causal)
      for (int d : {64, 128}) {
        Point p = dense_point(l, causal, d, 0, 12, 4, sk::DType::bf16);
        const int lens[][2] = {{1, 300}, {17, 17}, {100, 260}, {0, 5}, {64, 64}, {90, 40}, {1, 1}, {129, 200}, {3, 0}};
        p.cu_q = {0};
        p.cu_k = {0};
        for (auto& lk : lens) {
          p.cu_q.push_back(p.cu_q.back() + lk[0]);
          p.cu_k.push_back(p.cu_k.back() + lk[1]);
        }
        p.tag = "varlen8";
        pts.push_back(p);
      }
  if (!opt.quick)
    for (sa::Libm l : libms)
      for (int s : {2048, 4096}) pts.push_back(dense_point(l, true, 128, s, 32, 8, sk::DType::bf16));
  std::uint64_t seed = 0x9e3779b97f4a7c15ull;
  for (Point& p : pts) p.seed = (seed += 0x9e3779b97f4a7c15ull);
  std::vector<Point> kept;
  for (Point& p : pts) {
    const bool large = max_len(p.cu_q) >= 2048;
    if ((opt.skip_large && large) || (opt.large_only && !large)) continue;
    kept.push_back(p);
  }
  return kept;
}

// ---- timing ------------------------------------------------------------------

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Times each backward kernel alone (nvcc libm, bf16, D = 128), launched as
// attention_launch_bwd.cu launches them. The main kernel needs its flags
// cleared first: timed with the clearing, which is timed alone too.
void bench_backward_parts(Problem& pr, FILE* jsonl) {
  namespace cu = sa::cuda;
  using L = cu::NvccExpLog;
  constexpr auto T = sk::DType::bf16;
  const sa::BackwardParams p = pr.bwd();
  const unsigned delta_blocks = static_cast<unsigned>((p.total_q * p.hq + cu::kThreads - 1) / cu::kThreads);
  const unsigned fold_blocks = static_cast<unsigned>((p.total_k * p.hkv * 128 + cu::kThreads - 1) / cu::kThreads);
  const unsigned dq_blocks = static_cast<unsigned>((p.total_q * p.hq * 128 + cu::kThreads - 1) / cu::kThreads);
  auto main_kernel = cu::attention_bwd_kernel<128, L, T>;
  constexpr int kMainBytes = cu::BackwardSmem<128, T>::kBytes;
  CHECK_CUDA(cudaFuncSetAttribute(main_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kMainBytes));
  const unsigned main_blocks = static_cast<unsigned>((p.max_seqlen_k + 63) / 64 * p.hq * p.num_seqs);
  cudaEvent_t e0, e1;
  CHECK_CUDA(cudaEventCreate(&e0));
  CHECK_CUDA(cudaEventCreate(&e1));
  auto time = [&](auto launch) {
    std::vector<float> ms;
    for (int it = 0; it < 13; ++it) {
      CHECK_CUDA(cudaEventRecord(e0));
      launch();
      CHECK_CUDA(cudaGetLastError());
      CHECK_CUDA(cudaEventRecord(e1));
      CHECK_CUDA(cudaEventSynchronize(e1));
      float t;
      CHECK_CUDA(cudaEventElapsedTime(&t, e0, e1));
      if (it >= 3) ms.push_back(t);
    }
    return median(ms);
  };
  auto clear = [&] {
    CHECK_CUDA(cudaMemsetAsync(p.dq_flags, 0, static_cast<std::size_t>(p.total_q * p.hq + 1) * 4));
    CHECK_CUDA(cudaMemsetAsync(p.dq_accum, 0, static_cast<std::size_t>(p.total_q * p.hq * 128) * 4));
  };
  const float t_clear = time(clear);
  const float t_delta = time([&] { cu::attention_bwd_delta_kernel<128, T, T><<<delta_blocks, cu::kThreads>>>(p); });
  const float t_main = time([&] {
    clear();
    main_kernel<<<main_blocks, cu::kThreads, kMainBytes>>>(p);
  }) - t_clear;
  const float t_fold = time([&] { cu::attention_bwd_fold_kernel<128, T><<<fold_blocks, cu::kThreads>>>(p); });
  const float t_dq = time([&] { cu::attention_bwd_dq_finish_kernel<128, T><<<dq_blocks, cu::kThreads>>>(p); });
  CHECK_CUDA(cudaEventDestroy(e0));
  CHECK_CUDA(cudaEventDestroy(e1));
  std::printf("# backward kernels at S=%lld (nvcc, median of 10): clear %.3f ms, delta %.3f ms, main (dK/dV, dq chains) "
              "%.3f ms, fold %.3f ms, dq rounding %.3f ms\n",
              static_cast<long long>(p.total_q), t_clear, t_delta, t_main, t_fold, t_dq);
  if (jsonl)
    std::fprintf(jsonl,
                 "{\"bench\":\"backward parts\",\"S\":%lld,\"clear_ms\":%.4f,\"delta_ms\":%.4f,\"main_ms\":%.4f,"
                 "\"fold_ms\":%.4f,\"dq_finish_ms\":%.4f}\n",
                 static_cast<long long>(p.total_q), t_clear, t_delta, t_main, t_fold, t_dq);
}

void bench(const Options& /*opt*/, FILE* jsonl) {
  std::printf("# bench: Qwen3-8B attention (hq=32, hkv=8, D=128, bf16, causal), median of 20 after 3 warm-ups\n");
  std::printf("# %-5s %-5s %-6s %10s %10s %10s %10s %10s\n", "libm", "tile", "S", "fwd_ms", "fwd_TF/s", "bwd_ms",
              "bwd_TF/s", "f+b_ms");
  for (sa::Libm l : {sa::Libm::nvcc, sa::Libm::cr})
    for (int tile : {128, 64})
    for (int s : {512, 1024, 2048, 4096}) {
      if (tile == 64 && s < 4096) continue;  // the other tiling at the target shape only
      Point pt = dense_point(l, true, 128, s, 32, 8, sk::DType::bf16);
      pt.seed = 42 + s;
      const Tensors in = make_inputs(pt);
      Problem pr(pt);
      pr.tile_rows = tile;
      pr.q.upload(in.q.bytes.data());
      pr.k.upload(in.k.bytes.data());
      pr.v.upload(in.v.bytes.data());
      pr.dout.upload(in.dout.bytes.data());
      // The backward runs on the GPU forward's own o and lse.
      CHECK_STATUS(sa::forward(pr.fwd(), pr.host()));
      CHECK_CUDA(cudaDeviceSynchronize());
      CHECK_CUDA(cudaMemcpy(pr.o_in.ptr, pr.o.ptr, pr.o.bytes, cudaMemcpyDeviceToDevice));
      CHECK_CUDA(cudaMemcpy(pr.lse_in.ptr, pr.lse.ptr, pr.lse.bytes, cudaMemcpyDeviceToDevice));
      cudaEvent_t e0, e1;
      CHECK_CUDA(cudaEventCreate(&e0));
      CHECK_CUDA(cudaEventCreate(&e1));
      auto time = [&](bool backward) {
        std::vector<float> ms;
        for (int it = 0; it < 23; ++it) {
          CHECK_CUDA(cudaEventRecord(e0));
          if (backward) CHECK_STATUS(sa::backward(pr.bwd(), pr.host()));
          else CHECK_STATUS(sa::forward(pr.fwd(), pr.host()));
          CHECK_CUDA(cudaEventRecord(e1));
          CHECK_CUDA(cudaEventSynchronize(e1));
          float t;
          CHECK_CUDA(cudaEventElapsedTime(&t, e0, e1));
          if (it >= 3) ms.push_back(t);
        }
        return median(ms);
      };
      const float f = time(false), b = time(true);
      const double flop_f = 4.0 * s * s * 128.0 * 32 / 2, flop_b = 2.5 * flop_f;
      const double tf_f = flop_f / (f * 1e-3) / 1e12, tf_b = flop_b / (b * 1e-3) / 1e12;
      std::printf("  %-5s %-5d %-6d %10.3f %10.2f %10.3f %10.2f %10.3f\n", sa::libm_name(l), tile, s, f, tf_f, b, tf_b,
                  f + b);
      if (jsonl)
        std::fprintf(jsonl,
                     "{\"bench\":\"qwen3-8b\",\"libm\":\"%s\",\"tile_rows\":%d,\"S\":%d,\"fwd_ms\":%.4f,"
                     "\"fwd_tflops\":%.3f,\"bwd_ms\":%.4f,\"bwd_tflops\":%.3f,\"fwd_bwd_ms\":%.4f}\n",
                     sa::libm_name(l), tile, s, f, tf_f, b, tf_b, f + b);
      CHECK_CUDA(cudaEventDestroy(e0));
      CHECK_CUDA(cudaEventDestroy(e1));
      if (l == sa::Libm::nvcc && tile == 128 && s == 4096) bench_backward_parts(pr, jsonl);
    }
  std::fflush(stdout);
}

// ---- refusals: bad arguments are refused by the host checks, nothing runs -----

void emit(FILE* jsonl, const std::string& line) {
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
  if (jsonl) {
    std::fprintf(jsonl, "%s\n", line.c_str());
    std::fflush(jsonl);
  }
}

std::string json_escape(const std::string& m) {
  std::string r;
  for (char c : m) r += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return r;
}

bool all_ones(const DeviceBuffer& b) {
  std::vector<unsigned char> h(b.bytes);
  if (b.bytes) CHECK_CUDA(cudaMemcpy(h.data(), b.ptr, b.bytes, cudaMemcpyDeviceToHost));
  for (unsigned char c : h)
    if (c != 0xff) return false;
  return true;
}

bool refusals(FILE* jsonl) {
  Point pt = dense_point(sa::Libm::nvcc, true, 64, 17, 8, 8, sk::DType::bf16);
  const std::vector<std::int32_t> two_cu = {0, 10, 17};
  Problem pr(pt);
  const Tensors in = make_inputs(pt);
  pr.q.upload(in.q.bytes.data());
  pr.k.upload(in.k.bytes.data());
  pr.v.upload(in.v.bytes.data());
  pr.dout.upload(in.dout.bytes.data());
  std::vector<unsigned char> host_buf(1 << 16);
  static const std::int32_t bad_cu_dec[] = {0, 10, 5}, bad_cu_start[] = {1, 10, 17};
  using SC = sa::StatusCode;
  using F = sa::ForwardParams;
  using B = sa::BackwardParams;
  using H = sa::HostSeqlens;
  struct Case {
    const char* name;
    SC want;
    std::function<sa::Status()> call;
  };
  auto f = [&](std::function<void(F&, H&)> edit) {
    return [&pr, edit]() {
      F p = pr.fwd();
      H h = pr.host();
      edit(p, h);
      return sa::forward(p, h);
    };
  };
  auto b = [&](std::function<void(B&, H&)> edit) {
    return [&pr, edit]() {
      B p = pr.bwd();
      H h = pr.host();
      edit(p, h);
      return sa::backward(p, h);
    };
  };
  const std::vector<Case> cases = {
      {"D=96", SC::unsupported, f([](F& p, H&) { p.d = 96; })},
      {"hq%hkv", SC::invalid_argument, f([](F& p, H&) { p.hkv = 3; })},
      {"libm code", SC::unsupported, f([](F& p, H&) { p.libm = static_cast<sa::Libm>(7); })},
      {"dtype code", SC::unsupported, f([](F& p, H&) { p.in_dtype = static_cast<sk::DType>(9); })},
      {"o dtype mixed", SC::unsupported, f([](F& p, H&) { p.o_dtype = sk::DType::f16; })},
      {"scale inf", SC::invalid_argument, f([](F& p, H&) { p.scale = INFINITY; })},
      {"no host cu_seqlens", SC::invalid_argument, f([](F&, H& h) { h.cu_q = nullptr; })},
      {"cu_seqlens decrease", SC::invalid_argument,
       f([&two_cu](F& p, H& h) { p.num_seqs = 2; h.cu_q = bad_cu_dec; h.cu_k = two_cu.data(); })},
      {"cu_seqlens start", SC::invalid_argument,
       f([&two_cu](F& p, H& h) { p.num_seqs = 2; h.cu_q = bad_cu_start; h.cu_k = two_cu.data(); })},
      {"total_q", SC::invalid_argument, f([](F& p, H&) { p.total_q = 16; })},
      {"max_seqlen_q", SC::invalid_argument, f([](F& p, H&) { p.max_seqlen_q = 16; })},
      {"q null", SC::invalid_argument, f([](F& p, H&) { p.q = nullptr; })},
      {"o misaligned", SC::invalid_argument, f([](F& p, H&) { p.o = static_cast<char*>(p.o) + 1; })},
      {"q host memory", SC::invalid_argument, f([&host_buf](F& p, H&) { p.q = host_buf.data(); })},
      {"q head stride < D", SC::invalid_argument, f([](F& p, H&) { p.q_stride.head = 32; })},
      {"o rows overlap", SC::invalid_argument, f([](F& p, H&) { p.o_stride.row = 64; })},
      {"k stride zero", SC::invalid_argument, f([](F& p, H&) { p.k_stride.row = 0; })},
      {"bwd delta null", SC::invalid_argument, b([](B& p, H&) { p.delta = nullptr; })},
      {"bwd dq_flags null", SC::invalid_argument, b([](B& p, H&) { p.dq_flags = nullptr; })},
      {"bwd accum_k_in alone", SC::invalid_argument, b([](B& p, H&) { p.accum_k_in = p.accum_k; })},
      {"bwd grad dtype", SC::unsupported, b([](B& p, H&) { p.grad_dtype = sk::DType::f16; })},
      {"bwd dk null", SC::invalid_argument, b([](B& p, H&) { p.dk = nullptr; })},
  };
  bool all = true;
  DeviceBuffer* outs[] = {&pr.o, &pr.lse, &pr.dq, &pr.dk, &pr.dv, &pr.delta, &pr.acc_k, &pr.acc_v};
  for (const Case& c : cases) {
    for (DeviceBuffer* x : outs) x->poison();
    CHECK_CUDA(cudaDeviceSynchronize());
    const sa::Status st = c.call();
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaGetLastError());
    bool untouched = true;
    for (DeviceBuffer* x : outs) untouched = untouched && all_ones(*x);
    const bool pass = st.code == c.want && untouched && !st.message.empty();
    all = all && pass;
    emit(jsonl, std::string("{\"refusal\":\"") + c.name + "\",\"code\":" + std::to_string(static_cast<int>(st.code)) +
                    ",\"want\":" + std::to_string(static_cast<int>(c.want)) + ",\"outputs_untouched\":" +
                    (untouched ? "true" : "false") + ",\"message\":\"" + json_escape(st.message) +
                    "\",\"pass\":" + (pass ? "true" : "false") + "}");
  }
  // Control: the unedited calls are accepted and write their outputs.
  for (DeviceBuffer* x : outs) x->poison();
  const sa::Status sf = sa::forward(pr.fwd(), pr.host());
  CHECK_CUDA(cudaDeviceSynchronize());
  const sa::Status sb = sa::backward(pr.bwd(), pr.host());
  CHECK_CUDA(cudaDeviceSynchronize());
  const bool ok = sf.ok() && sb.ok() && !all_ones(pr.o) && !all_ones(pr.dk);
  emit(jsonl, std::string("{\"refusal\":\"control (valid calls)\",\"accepted\":") + (ok ? "true" : "false") +
                  ",\"pass\":" + (ok ? "true" : "false") + "}");
  return all && ok;
}

#include "attention_check_invariance.cuh"  // invariance(): the --varlen section

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  if (const char* out = std::getenv("OUT")) opt.out_dir = out;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--quick") opt.quick = true;
    else if (a == "--bench") opt.bench = true;
    else if (a == "--bench-only") opt.bench = opt.bench_only = true;
    else if (a == "--varlen") opt.varlen = true;
    else if (a == "--skip-large") opt.skip_large = true;
    else if (a == "--large-only") opt.large_only = true;
    else if (a == "--no-refusals") opt.refusals = false;
    else if (a == "--filter") opt.filter = next();
    else if (a == "--out") opt.out_dir = next();
    else if (a == "--threads") opt.threads = static_cast<unsigned>(std::stoul(next()));
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  int dev = 0;
  CHECK_CUDA(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, dev));
  std::printf("# device %s, %d SMs; %s\n", prop.name, prop.multiProcessorCount, sa::fingerprint(sa::Libm::nvcc).c_str());
  FILE* jsonl = nullptr;
  if (!opt.out_dir.empty()) {
    const std::string path = opt.out_dir + "/attention_check" + (opt.quick ? "_quick" : "") +
                             (opt.bench_only ? "_bench" : "") + ".jsonl";
    jsonl = std::fopen(path.c_str(), "w");
    if (!jsonl) std::fprintf(stderr, "cannot write %s\n", path.c_str());
  }
  int failures = 0, points = 0;
  if (!opt.bench_only) {
    if (opt.refusals && !opt.large_only) failures += !refusals(jsonl);
    for (const Point& pt : grid(opt)) {
      if (!opt.filter.empty() && pt.name().find(opt.filter) == std::string::npos) continue;
      ++points;
      failures += !check_point(pt, opt, jsonl);
    }
    std::printf("# %d points, %d failed\n", points, failures);
  }
  if (opt.varlen) failures += invariance(opt, jsonl);
  if (opt.bench) bench(opt, jsonl);
  if (jsonl) std::fclose(jsonl);
  return failures ? 1 : 0;
}
