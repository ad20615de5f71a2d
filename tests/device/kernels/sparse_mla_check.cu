// tests/device/kernels/sparse_mla_check.cu — the sparse MLA kernels on the
// GPU against the CPU reference (docs/kernels/sparse_mla.md), by encoding:
//   sparse_mla_check [--quick] [--bench] [--out DIR] [--filter SUBSTR] [--threads N]
// Sections (one JSON line each under DIR/sparse_mla_check.jsonl):
//   grid        libm x H x topk x T x sink x pool, every point with holes, a fully
//               masked token and duplicate indices; o, lse, lse_excl compared by
//               encoding, each with a flipped-bit negative control
//   dense       the sparse kernel at D = 128 with causal lists (-1 tails) against
//               the dense attention kernel (Hkv = 1, K = V = kv): o, lse bitwise
//   grid-bwd    the backward at each grid point, one chunk and chunks of 64:
//               dq, dkv, d_sink by encoding, each with a control
//   chunks      chunked == unchunked: chunks of 64, 128, 320 rows and one chunk
//   repeats     100 runs (forward + backward) with fresh allocations, one
//               digest; a one-ulp input change changes it
//   errors      an out-of-range index: the device flag is reported, the
//               validating mode refuses before launching; bad arguments refused
//   bench       T = 4096, H = 128, topk = 512 (a window of 128 + 384 pool rows),
//               D = 512, bf16: forward ms (median of 10 after 3 warm-ups)
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "samebits/kernels/attention/api.hpp"
#include "samebits/kernels/sparse_mla/api.hpp"
#include "samebits/kernels/sparse_mla/reference_api.hpp"

#include "check_common.cuh"

namespace sk = samebits::kernels;
namespace sa = samebits::kernels::attention;
namespace sm = samebits::kernels::sparse_mla;
using check::DeviceBuffer;
using check::HostTensor;

namespace {

struct Options {
  bool quick = false, bench = false;
  std::string sections = "grid,dense,chunks,repeats,errors";  // --sections: a comma list
  std::string filter, out_dir = ".";
  unsigned threads = 0;
};

struct Point {
  sa::Libm libm = sa::Libm::nvcc;
  int heads = 64, topk = 64, d = 512;
  std::int64_t tokens = 1, pool = 0;
  bool sink = false;
  std::uint64_t seed = 1;
  std::string name() const {
    return std::string("libm=") + sa::libm_name(libm) + " H=" + std::to_string(heads) + " topk=" +
           std::to_string(topk) + " T=" + std::to_string(tokens) + " D=" + std::to_string(d) +
           " sink=" + (sink ? "1" : "0") + " pool=" + std::to_string(pool);
  }
  std::int64_t num_kv() const { return tokens + pool; }
};

// Slot lists as the op sees them: token t's slots are a window of its
// preceding rows (most recent first, -1 where the window runs past row 0),
// then pool rows; plus ~10% holes, a fully masked token (the middle one) and
// a duplicated index in token 0.
std::vector<std::int32_t> make_indices(const Point& pt, std::mt19937_64& rng) {
  const std::int64_t T = pt.tokens, nkv = pt.num_kv();
  const int k = pt.topk, window = std::min(k, 128);
  std::vector<std::int32_t> idx(static_cast<std::size_t>(T) * k);
  std::uniform_int_distribution<std::int64_t> pool_row(T, std::max<std::int64_t>(T, nkv - 1));
  std::uniform_int_distribution<std::int64_t> any_row(0, nkv - 1);
  std::bernoulli_distribution hole(0.1);
  for (std::int64_t t = 0; t < T; ++t)
    for (int s = 0; s < k; ++s) {
      std::int64_t i;
      if (s < window) i = t - s;                      // the window, -1 past row 0
      else i = pt.pool > 0 ? pool_row(rng) : any_row(rng);
      if (i < 0 || hole(rng)) i = -1;
      idx[t * k + s] = static_cast<std::int32_t>(i);
    }
  if (T > 2)
    for (int s = 0; s < k; ++s) idx[(T / 2) * k + s] = -1;
  if (k >= 2) idx[1] = idx[0] >= 0 ? idx[0] : 0;  // a duplicate in token 0
  return idx;
}

struct Result {
  Result(std::string s, std::string n) : section(std::move(s)), name(std::move(n)) {}
  std::string section, name;
  std::int64_t mismatches = 0;
  bool controls = true, pass = true;
  std::string detail;
};

FILE* g_json = nullptr;
std::string json_safe(std::string s) {
  for (char& c : s)
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) c = '\'';
  return s;
}
void report(const Result& r) {
  std::printf("%-8s %-70s mismatches %lld controls %s %s %s\n", r.section.c_str(), r.name.c_str(),
              static_cast<long long>(r.mismatches), r.controls ? "ok" : "FAILED", r.pass ? "PASS" : "FAIL",
              r.detail.c_str());
  if (g_json)
    std::fprintf(g_json, "{\"section\":\"%s\",\"point\":\"%s\",\"mismatch\":%lld,\"control\":%s,\"pass\":%s%s}\n",
                 r.section.c_str(), r.name.c_str(), static_cast<long long>(r.mismatches), r.controls ? "true" : "false",
                 r.pass ? "true" : "false", r.detail.empty() ? "" : (",\"detail\":\"" + json_safe(r.detail) + "\"").c_str());
}

// Inputs of a point on the device (bf16), and the forward's outputs.
struct Device {
  DeviceBuffer q, kv, idx, sink, o, lse, lse_excl, flag, dout, dq, dkv, dsink;
  std::unique_ptr<DeviceBuffer> workspace;
  Device(const Point& pt, const HostTensor& hq, const HostTensor& hkv, const std::vector<std::int32_t>& hidx,
         const std::vector<float>& hsink)
      : q(hq.bytes.size()), kv(hkv.bytes.size()), idx(hidx.size() * 4), sink(hsink.size() * 4),
        o(hq.bytes.size()), lse(pt.tokens * pt.heads * 4), lse_excl(pt.tokens * pt.heads * 4), flag(4),
        dout(hq.bytes.size()), dq(hq.bytes.size()), dkv(hkv.bytes.size()), dsink(pt.heads * 4) {
    q.upload(hq.bytes.data());
    kv.upload(hkv.bytes.data());
    idx.upload(hidx.data());
    if (!hsink.empty()) sink.upload(hsink.data());
    CHECK_CUDA(cudaMemset(flag.ptr, 0, 4));
  }
  sm::ForwardParams params(const Point& pt, bool with_sink) const {
    sm::ForwardParams p;
    p.tokens = pt.tokens;
    p.num_kv = pt.num_kv();
    p.heads = pt.heads;
    p.d = pt.d;
    p.topk = pt.topk;
    p.scale = sa::default_scale(pt.d);
    p.in_dtype = sk::DType::bf16;
    p.libm = pt.libm;
    p.indices = idx.as<std::int32_t>();
    p.indices_row_stride = pt.topk;
    p.sink = with_sink ? sink.as<float>() : nullptr;
    p.error_flag = flag.as<std::int32_t>();
    p.q = q.ptr;
    p.kv = kv.ptr;
    p.o = o.ptr;
    p.lse = lse.as<float>();
    p.lse_excl = lse_excl.as<float>();
    p.q_stride = sa::Strides{static_cast<std::int64_t>(pt.heads) * pt.d, pt.d};
    p.o_stride = p.q_stride;
    p.kv_row_stride = pt.d;
    p.o_dtype = sk::DType::bf16;
    return p;
  }
  // The backward of the forward above (o and lse as the forward stored them).
  sm::BackwardParams bwd_params(const Point& pt, bool with_sink, std::int64_t chunk) {
    const sm::ForwardParams f = params(pt, with_sink);
    sm::BackwardParams b;
    static_cast<sm::ProblemParams&>(b) = f;
    b.q = f.q;
    b.kv = f.kv;
    b.o = o.ptr;
    b.dout = dout.ptr;
    b.lse = lse.as<float>();
    b.dq = dq.ptr;
    b.dkv = dkv.ptr;
    b.dsink = with_sink ? dsink.as<float>() : nullptr;
    b.q_stride = b.o_stride = b.dout_stride = b.dq_stride = f.q_stride;
    b.kv_row_stride = b.dkv_row_stride = pt.d;
    b.o_dtype = b.grad_dtype = sk::DType::bf16;
    b.chunk_tokens = chunk;
    const std::int64_t need = sm::backward_workspace_bytes(b);
    if (need < 0) {
      std::fprintf(stderr, "backward_workspace_bytes refused the point\n");
      std::exit(2);
    }
    if (!workspace || workspace->bytes < static_cast<std::size_t>(need)) workspace = std::make_unique<DeviceBuffer>(need);
    b.workspace = workspace->ptr;
    b.workspace_bytes = static_cast<std::int64_t>(workspace->bytes);
    return b;
  }
};

std::int64_t whole(std::int64_t tokens) { return std::max<std::int64_t>(64, (tokens + 63) / 64 * 64); }

void run_point(const Point& pt, const Options& opt) {
  std::mt19937_64 rng(pt.seed);
  const std::int64_t nq = pt.tokens * pt.heads * pt.d, nkv = pt.num_kv() * pt.d;
  const HostTensor hq = check::random_tensor(sk::DType::bf16, nq, rng);
  const HostTensor hkv = check::random_tensor(sk::DType::bf16, nkv, rng);
  const std::vector<std::int32_t> hidx = make_indices(pt, rng);
  std::vector<float> hsink;
  if (pt.sink) {
    std::normal_distribution<float> nd(0.0f, 1.0f);
    hsink.resize(pt.heads);
    for (auto& x : hsink) x = nd(rng);
  }
  Device dev(pt, hq, hkv, hidx, hsink);
  const sm::ForwardParams p = dev.params(pt, pt.sink);
  CHECK_STATUS(sm::forward(p));
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_STATUS(sm::check_index_error(p.error_flag));

  sm::Problem rp;
  rp.tokens = pt.tokens;
  rp.num_kv = pt.num_kv();
  rp.heads = pt.heads;
  rp.d = pt.d;
  rp.topk = pt.topk;
  rp.scale = p.scale;
  rp.indices = hidx;
  rp.sink = hsink;
  std::vector<float> o(nq), lse(pt.tokens * pt.heads), lse_excl(lse.size());
  sm::reference_forward(pt.libm, rp, hq.widened().data(), hkv.widened().data(), o.data(), lse.data(), lse_excl.data(),
                        opt.threads);
  Result r{"grid", pt.name()};
  const HostTensor want_o = check::rounded(sk::DType::bf16, o), want_lse = check::rounded(sk::DType::f32, lse),
                   want_lse_excl = check::rounded(sk::DType::f32, lse_excl);
  std::string detail;
  for (auto [buf, want, name] : {std::tuple{&dev.o, &want_o, "o"}, {&dev.lse, &want_lse, "lse"},
                                 {&dev.lse_excl, &want_lse_excl, "lse_excl"}}) {
    const check::Compare c = check::compare(*buf, *want);
    r.mismatches += c.mismatches;
    r.controls = r.controls && check::control(*buf, *want, want->n / 2, c.mismatches);
    detail += std::string(name) + "=" + check::hex(c.digest).substr(0, 8) + " ";
    if (c.mismatches)
      detail += std::string("first@") + std::to_string(c.first) + " got " + std::to_string(c.got) + " want " +
                std::to_string(c.want) + " ";
  }
  r.detail = detail;
  r.pass = r.mismatches == 0 && r.controls;
  report(r);

  // Backward, unchunked (one chunk) and in chunks of 64 rows, against the
  // reference fed the GPU's own o and lse (equal to the reference's: above).
  const HostTensor hdo = check::random_tensor(sk::DType::bf16, nq, rng);
  dev.dout.upload(hdo.bytes.data());
  HostTensor o_stored;
  o_stored.resize(sk::DType::bf16, nq);
  CHECK_CUDA(cudaMemcpy(o_stored.bytes.data(), dev.o.ptr, o_stored.bytes.size(), cudaMemcpyDeviceToHost));
  std::vector<float> lse_gpu(lse.size());
  CHECK_CUDA(cudaMemcpy(lse_gpu.data(), dev.lse.ptr, lse_gpu.size() * 4, cudaMemcpyDeviceToHost));
  std::vector<float> dq(nq), dkv(nkv), dsink(pt.heads, 0.0f);
  sm::reference_backward(pt.libm, rp, hq.widened().data(), hkv.widened().data(), o_stored.widened().data(),
                         hdo.widened().data(), lse_gpu.data(), dq.data(), dkv.data(), dsink.data(), opt.threads);
  const HostTensor want_dq = check::rounded(sk::DType::bf16, dq), want_dkv = check::rounded(sk::DType::bf16, dkv),
                   want_dsink = check::rounded(sk::DType::f32, dsink);
  for (std::int64_t chunk : {whole(pt.tokens), std::int64_t{64}}) {
    dev.dq.poison();
    dev.dkv.poison();
    dev.dsink.poison();
    CHECK_STATUS(sm::backward(dev.bwd_params(pt, pt.sink, chunk)));
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_STATUS(sm::check_index_error(p.error_flag));
    Result b{"grid-bwd", pt.name() + " chunk=" + std::to_string(chunk)};
    std::string d2;
    std::vector<std::tuple<DeviceBuffer*, const HostTensor*, const char*>> outs = {{&dev.dq, &want_dq, "dq"},
                                                                                  {&dev.dkv, &want_dkv, "dkv"}};
    if (pt.sink) outs.emplace_back(&dev.dsink, &want_dsink, "dsink");
    for (auto [buf, want, name] : outs) {
      const check::Compare c = check::compare(*buf, *want);
      b.mismatches += c.mismatches;
      b.controls = b.controls && check::control(*buf, *want, want->n / 2, c.mismatches);
      d2 += std::string(name) + "=" + check::hex(c.digest).substr(0, 8) + " ";
      if (c.mismatches)
        d2 += std::string("first@") + std::to_string(c.first) + " got " + std::to_string(c.got) + " want " +
              std::to_string(c.want) + " ";
    }
    b.detail = d2;
    b.pass = b.mismatches == 0 && b.controls;
    report(b);
  }
}

// The sparse kernel at D = 128 on causal lists (slot s of token t = row s for
// s <= t, -1 after) against the dense kernel (Hkv = 1, K = V = kv).
void dense_equality(int heads, sa::Libm libm) {
  const int T = 300, d = 128, topk = 320;
  Point pt;
  pt.libm = libm;
  pt.heads = heads;
  pt.topk = topk;
  pt.tokens = T;
  pt.d = d;
  std::mt19937_64 rng(77);
  const HostTensor hq = check::random_tensor(sk::DType::bf16, static_cast<std::int64_t>(T) * heads * d, rng);
  const HostTensor hkv = check::random_tensor(sk::DType::bf16, static_cast<std::int64_t>(T) * d, rng);
  std::vector<std::int32_t> hidx(static_cast<std::size_t>(T) * topk);
  for (int t = 0; t < T; ++t)
    for (int s = 0; s < topk; ++s) hidx[t * topk + s] = s <= t ? s : -1;
  Device dev(pt, hq, hkv, hidx, {});
  CHECK_STATUS(sm::forward(dev.params(pt, false)));
  DeviceBuffer cu(8), o(hq.bytes.size()), lse(static_cast<std::size_t>(T) * heads * 4);
  const std::int32_t hcu[2] = {0, T};
  cu.upload(hcu);
  sa::ForwardParams f;
  f.cu_seqlens_q = f.cu_seqlens_k = cu.as<std::int32_t>();
  f.num_seqs = 1;
  f.max_seqlen_q = f.max_seqlen_k = T;
  f.total_q = f.total_k = T;
  f.hq = heads;
  f.hkv = 1;
  f.d = d;
  f.causal = true;
  f.scale = sa::default_scale(d);
  f.in_dtype = sk::DType::bf16;
  f.libm = libm;
  f.q = dev.q.ptr;
  f.k = f.v = dev.kv.ptr;
  f.o = o.ptr;
  f.lse = lse.as<float>();
  f.q_stride = f.o_stride = sa::Strides{static_cast<std::int64_t>(heads) * d, d};
  f.k_stride = f.v_stride = sa::Strides{d, d};
  f.o_dtype = sk::DType::bf16;
  CHECK_STATUS(sa::forward(f, sa::HostSeqlens{hcu, hcu}));
  CHECK_CUDA(cudaDeviceSynchronize());
  Result r{"dense", std::string("libm=") + sa::libm_name(libm) + " H=" + std::to_string(heads) +
                        " T=300 D=128 causal lists vs dense Hkv=1"};
  auto fetch = [](const DeviceBuffer& b, sk::DType t, std::int64_t n) {
    HostTensor h;
    h.resize(t, n);
    CHECK_CUDA(cudaMemcpy(h.bytes.data(), b.ptr, h.bytes.size(), cudaMemcpyDeviceToHost));
    return h;
  };
  const HostTensor dense_o = fetch(o, sk::DType::bf16, hq.n), dense_lse = fetch(lse, sk::DType::f32, T * heads);
  for (auto [buf, want] : {std::pair{&dev.o, &dense_o}, {&dev.lse, &dense_lse}}) {
    const check::Compare c = check::compare(*buf, *want);
    r.mismatches += c.mismatches;
    r.controls = r.controls && check::control(*buf, *want, want->n / 3, c.mismatches);
  }
  r.pass = r.mismatches == 0 && r.controls;
  report(r);

  // dq of the two backwards (dkv is not compared: sparse_mla.md §6 fixes
  // another order for it).
  const HostTensor hdo = check::random_tensor(sk::DType::bf16, hq.n, rng);
  dev.dout.upload(hdo.bytes.data());
  CHECK_STATUS(sm::backward(dev.bwd_params(pt, false, 0)));
  DeviceBuffer ddq(hq.bytes.size()), ddk(hkv.bytes.size()), ddv(hkv.bytes.size()), delta(T * heads * 4),
      acc_k(static_cast<std::size_t>(T) * heads * d * 4), acc_v(static_cast<std::size_t>(T) * heads * d * 4),
      dq_acc(static_cast<std::size_t>(T) * heads * d * 4), dq_flags((static_cast<std::size_t>(T) * heads + 1) * 4);
  sa::BackwardParams b;
  static_cast<sa::ProblemParams&>(b) = f;
  b.q = f.q;
  b.k = b.v = f.k;
  b.o = o.ptr;  // the dense forward's o: equal to the sparse one (above)
  b.dout = dev.dout.ptr;
  b.lse = lse.as<float>();
  b.dq = ddq.ptr;
  b.dk = ddk.ptr;
  b.dv = ddv.ptr;
  b.q_stride = b.o_stride = b.dout_stride = b.dq_stride = f.q_stride;
  b.k_stride = b.v_stride = b.dk_stride = b.dv_stride = f.k_stride;
  b.o_dtype = b.grad_dtype = sk::DType::bf16;
  b.delta = delta.as<float>();
  b.accum_k = acc_k.as<float>();
  b.accum_v = acc_v.as<float>();
  b.dq_accum = dq_acc.as<float>();
  b.dq_flags = dq_flags.as<std::int32_t>();
  CHECK_STATUS(sa::backward(b, sa::HostSeqlens{hcu, hcu}));
  CHECK_CUDA(cudaDeviceSynchronize());
  Result rb{"dense", std::string("libm=") + sa::libm_name(libm) + " H=" + std::to_string(heads) +
                         " T=300 D=128 causal lists vs dense Hkv=1: dq"};
  const HostTensor dense_dq = fetch(ddq, sk::DType::bf16, hq.n);
  const check::Compare c = check::compare(dev.dq, dense_dq);
  rb.mismatches = c.mismatches;
  rb.controls = check::control(dev.dq, dense_dq, dense_dq.n / 3, c.mismatches);
  rb.pass = rb.mismatches == 0 && rb.controls;
  report(rb);
}

// One digest of device buffers' bytes (fnv1a of each, combined in order).
std::uint64_t device_digest(std::initializer_list<const DeviceBuffer*> buffers) {
  std::uint64_t h = 0;
  for (const DeviceBuffer* b : buffers) {
    std::vector<unsigned char> bytes(b->bytes);
    CHECK_CUDA(cudaMemcpy(bytes.data(), b->ptr, bytes.size(), cudaMemcpyDeviceToHost));
    h = h * 31 + check::fnv1a(bytes.data(), bytes.size());
  }
  return h;
}

// Flips the lowest bit of a device buffer's first byte (a planted one-ulp
// change of its first element), or flips it back.
void flip_first_bit(const DeviceBuffer& b) {
  unsigned char byte;
  CHECK_CUDA(cudaMemcpy(&byte, b.ptr, 1, cudaMemcpyDeviceToHost));
  byte ^= 1u;
  CHECK_CUDA(cudaMemcpy(b.ptr, &byte, 1, cudaMemcpyHostToDevice));
}

// Chunked == unchunked (sparse_mla.md §5): digests of dq, dkv, d_sink for
// chunks of 64, 128 and 320 rows and one chunk; control: one planted bit of
// the last run's dq changes its digest.
void chunks() {
  Point pt;
  pt.heads = 64;
  pt.topk = 512;
  pt.tokens = 1000;
  pt.pool = 512;
  pt.sink = true;
  std::mt19937_64 rng(17);
  const HostTensor hq = check::random_tensor(sk::DType::bf16, pt.tokens * pt.heads * pt.d, rng);
  const HostTensor hkv = check::random_tensor(sk::DType::bf16, pt.num_kv() * pt.d, rng);
  const HostTensor hdo = check::random_tensor(sk::DType::bf16, hq.n, rng);
  const auto hidx = make_indices(pt, rng);
  Device dev(pt, hq, hkv, hidx, std::vector<float>(pt.heads, 0.75f));
  dev.dout.upload(hdo.bytes.data());
  CHECK_STATUS(sm::forward(dev.params(pt, true)));
  std::uint64_t first = 0;
  Result r{"chunks", "H=64 topk=512 T=1000 pool=512 sink: chunks 1024 (one), 64, 128, 320"};
  for (std::int64_t chunk : {1024, 64, 128, 320}) {
    dev.dq.poison();
    dev.dkv.poison();
    dev.dsink.poison();
    CHECK_STATUS(sm::backward(dev.bwd_params(pt, true, chunk)));
    CHECK_CUDA(cudaDeviceSynchronize());
    const std::uint64_t dig = device_digest({&dev.dq, &dev.dkv, &dev.dsink});
    if (chunk == 1024) first = dig;
    r.mismatches += dig != first;
    r.detail += std::to_string(chunk) + ": " + check::hex(dig) + "; ";
  }
  flip_first_bit(dev.dq);
  r.controls = device_digest({&dev.dq, &dev.dkv, &dev.dsink}) != first;
  r.pass = r.mismatches == 0 && r.controls;
  report(r);
}

void repeats() {
  Point pt;
  pt.heads = 64;
  pt.topk = 512;
  pt.tokens = 256;
  pt.pool = 256;
  pt.sink = true;
  std::mt19937_64 rng(5);
  const HostTensor hq = check::random_tensor(sk::DType::bf16, pt.tokens * pt.heads * pt.d, rng);
  HostTensor hkv = check::random_tensor(sk::DType::bf16, pt.num_kv() * pt.d, rng);
  const auto hidx = make_indices(pt, rng);
  std::vector<float> hsink(pt.heads, 0.25f);
  std::vector<std::uint64_t> digests;
  for (int i = 0; i < 100; ++i) {
    Device dev(pt, hq, hkv, hidx, hsink);  // fresh allocations
    CHECK_STATUS(sm::forward(dev.params(pt, true)));
    dev.dout.upload(hq.bytes.data());  // any dO: the same in every run
    CHECK_STATUS(sm::backward(dev.bwd_params(pt, true, 128)));
    CHECK_CUDA(cudaDeviceSynchronize());
    digests.push_back(device_digest({&dev.o, &dev.lse, &dev.dq, &dev.dkv, &dev.dsink}));
  }
  // One ulp of one kv element that token 0 reads (its window starts at row 0).
  std::uint16_t u;
  std::memcpy(&u, hkv.bytes.data(), 2);
  u ^= 1u;
  std::memcpy(hkv.bytes.data(), &u, 2);
  Device dev(pt, hq, hkv, hidx, hsink);
  CHECK_STATUS(sm::forward(dev.params(pt, true)));
  dev.dout.upload(hq.bytes.data());
  CHECK_STATUS(sm::backward(dev.bwd_params(pt, true, 128)));
  CHECK_CUDA(cudaDeviceSynchronize());
  const std::uint64_t changed = device_digest({&dev.o, &dev.lse, &dev.dq, &dev.dkv, &dev.dsink});
  Result r{"repeats", "100 runs (forward + backward, chunk 128), fresh allocations, H=64 topk=512 T=256 pool=256 sink"};
  for (auto x : digests) r.mismatches += x != digests[0];
  r.controls = changed != digests[0];
  r.detail = "digest=" + check::hex(digests[0]) + " one-ulp-changed=" + check::hex(changed);
  r.pass = r.mismatches == 0 && r.controls;
  report(r);
}

void errors() {
  Point pt;
  pt.heads = 64;
  pt.topk = 64;
  pt.tokens = 10;
  std::mt19937_64 rng(9);
  const HostTensor hq = check::random_tensor(sk::DType::bf16, pt.tokens * pt.heads * pt.d, rng);
  const HostTensor hkv = check::random_tensor(sk::DType::bf16, pt.num_kv() * pt.d, rng);
  auto hidx = make_indices(pt, rng);
  hidx[3 * pt.topk + 7] = static_cast<std::int32_t>(pt.num_kv());  // one past the end
  Device dev(pt, hq, hkv, hidx, {});
  // The hot path: launched, the flag raised, reported after.
  const sm::ForwardParams p = dev.params(pt, false);
  const sa::Status launched = sm::forward(p);
  CHECK_CUDA(cudaDeviceSynchronize());
  const sa::Status flagged = sm::check_index_error(p.error_flag);
  Result a{"errors", "out-of-range index: device flag reported"};
  a.pass = launched.ok() && flagged.code == sa::StatusCode::invalid_argument;
  a.detail = flagged.message;
  report(a);
  // The validating mode: refused before any launch (outputs untouched).
  dev.o.poison();
  const sa::Status refused = sm::forward(p, /*validate_indices=*/true);
  CHECK_CUDA(cudaDeviceSynchronize());
  HostTensor got;
  got.resize(sk::DType::bf16, hq.n);
  CHECK_CUDA(cudaMemcpy(got.bytes.data(), dev.o.ptr, got.bytes.size(), cudaMemcpyDeviceToHost));
  bool untouched = true;
  for (unsigned char c : got.bytes) untouched = untouched && c == 0xff;
  Result b{"errors", "out-of-range index: validating mode refuses, launches nothing"};
  b.pass = refused.code == sa::StatusCode::invalid_argument && untouched &&
           refused.message.find("at token 3, slot 7") != std::string::npos;
  b.detail = refused.message;
  report(b);
  // Bad arguments, each refused by name with nothing launched.
  using F = std::function<void(sm::ForwardParams&)>;
  const std::vector<std::tuple<std::string, sa::StatusCode, F>> cases = {
      {"D=64", sa::StatusCode::unsupported, [](sm::ForwardParams& x) { x.d = 64; }},
      {"fp16 input", sa::StatusCode::unsupported, [](sm::ForwardParams& x) { x.in_dtype = sk::DType::f16; }},
      {"q null", sa::StatusCode::invalid_argument, [](sm::ForwardParams& x) { x.q = nullptr; }},
      {"kv misaligned", sa::StatusCode::invalid_argument,
       [](sm::ForwardParams& x) { x.kv = static_cast<const char*>(x.kv) + 1; }},
      {"topk 0", sa::StatusCode::invalid_argument, [](sm::ForwardParams& x) { x.topk = 0; }},
      {"heads 0", sa::StatusCode::invalid_argument, [](sm::ForwardParams& x) { x.heads = 0; }},
      {"indices row stride < topk", sa::StatusCode::invalid_argument,
       [](sm::ForwardParams& x) { x.indices_row_stride = 3; }},
      {"q head stride < D", sa::StatusCode::invalid_argument, [](sm::ForwardParams& x) { x.q_stride.head = 100; }},
      {"scale inf", sa::StatusCode::invalid_argument,
       [](sm::ForwardParams& x) { x.scale = __builtin_inff(); }},
      {"sink host pointer", sa::StatusCode::invalid_argument,
       [](sm::ForwardParams& x) { static float s[64]; x.sink = s; }},
  };
  using G = std::function<void(sm::BackwardParams&)>;
  const std::vector<std::tuple<std::string, sa::StatusCode, G>> bcases = {
      {"bwd chunk 100 (not a multiple of 64)", sa::StatusCode::invalid_argument,
       [](sm::BackwardParams& x) { x.chunk_tokens = 100; }},
      {"bwd workspace too small", sa::StatusCode::invalid_argument, [](sm::BackwardParams& x) { x.workspace_bytes = 256; }},
      {"bwd dkv null", sa::StatusCode::invalid_argument, [](sm::BackwardParams& x) { x.dkv = nullptr; }},
      {"bwd grad dtype f16", sa::StatusCode::unsupported,
       [](sm::BackwardParams& x) { x.grad_dtype = sk::DType::f16; }},
  };
  hidx[3 * pt.topk + 7] = 0;  // valid again
  dev.idx.upload(hidx.data());
  for (const auto& [name, want, mutate] : bcases) {
    sm::BackwardParams bad = dev.bwd_params(pt, false, 64);
    mutate(bad);
    dev.dq.poison();
    const sa::Status st = sm::backward(bad);
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(got.bytes.data(), dev.dq.ptr, got.bytes.size(), cudaMemcpyDeviceToHost));
    bool none = true;
    for (unsigned char c : got.bytes) none = none && c == 0xff;
    Result r{"errors", "refused: " + name};
    r.pass = st.code == want && none && !st.message.empty();
    r.detail = st.message;
    report(r);
  }
  for (const auto& [name, want, mutate] : cases) {
    sm::ForwardParams bad = dev.params(pt, false);
    mutate(bad);
    dev.o.poison();
    const sa::Status st = sm::forward(bad);
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(got.bytes.data(), dev.o.ptr, got.bytes.size(), cudaMemcpyDeviceToHost));
    bool none = true;
    for (unsigned char c : got.bytes) none = none && c == 0xff;
    Result r{"errors", "refused: " + name};
    r.pass = st.code == want && none && !st.message.empty();
    r.detail = st.message;
    report(r);
  }
}

void bench() {
  Point pt;
  pt.heads = 128;
  pt.topk = 512;
  pt.tokens = 4096;
  pt.pool = 4096;
  std::mt19937_64 rng(3);
  const HostTensor hq = check::random_tensor(sk::DType::bf16, pt.tokens * pt.heads * pt.d, rng);
  const HostTensor hkv = check::random_tensor(sk::DType::bf16, pt.num_kv() * pt.d, rng);
  const auto hidx = make_indices(pt, rng);
  Device dev(pt, hq, hkv, hidx, std::vector<float>(pt.heads, 0.5f));
  for (sa::Libm libm : {sa::Libm::nvcc, sa::Libm::cr}) {
    pt.libm = libm;
    const sm::ForwardParams p = dev.params(pt, true);
    cudaEvent_t e0, e1;
    CHECK_CUDA(cudaEventCreate(&e0));
    CHECK_CUDA(cudaEventCreate(&e1));
    std::vector<float> ms;
    for (int i = 0; i < 13; ++i) {
      CHECK_CUDA(cudaEventRecord(e0));
      CHECK_STATUS(sm::forward(p));
      CHECK_CUDA(cudaEventRecord(e1));
      CHECK_CUDA(cudaEventSynchronize(e1));
      float t;
      CHECK_CUDA(cudaEventElapsedTime(&t, e0, e1));
      if (i >= 3) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    const double med = ms[ms.size() / 2];
    const double flops = 4.0 * pt.d * pt.tokens * pt.heads * pt.topk;
    // The backward, default chunk (512 rows): forward + backward timed.
    const HostTensor hdo = check::random_tensor(sk::DType::bf16, hq.n, rng);
    dev.dout.upload(hdo.bytes.data());
    const sm::BackwardParams b = dev.bwd_params(pt, true, 0);
    std::vector<float> fb;
    for (int i = 0; i < 8; ++i) {
      CHECK_CUDA(cudaEventRecord(e0));
      CHECK_STATUS(sm::forward(p));
      CHECK_STATUS(sm::backward(b));
      CHECK_CUDA(cudaEventRecord(e1));
      CHECK_CUDA(cudaEventSynchronize(e1));
      float t;
      CHECK_CUDA(cudaEventElapsedTime(&t, e0, e1));
      if (i >= 2) fb.push_back(t);
    }
    std::sort(fb.begin(), fb.end());
    const double fb_med = fb[fb.size() / 2];
    std::printf("bench    forward+backward %s (chunk 512, workspace %.0f MiB): %.3f ms, %.2f TFLOP/s\n",
                sa::libm_name(libm), b.workspace_bytes / 1048576.0, fb_med, 14.0 * pt.d * pt.tokens * pt.heads * pt.topk / fb_med / 1e9);
    if (g_json)
      std::fprintf(g_json, "{\"section\":\"bench\",\"libm\":\"%s\",\"forward_backward_ms\":%.4f,\"workspace_mib\":%.1f}\n",
                   sa::libm_name(libm), fb_med, b.workspace_bytes / 1048576.0);
    std::printf("bench    forward %s T=4096 H=128 topk=512 D=512 bf16 sink: %.3f ms, %.2f TFLOP/s\n",
                sa::libm_name(libm), med, flops / med / 1e9);
    if (g_json)
      std::fprintf(g_json, "{\"section\":\"bench\",\"libm\":\"%s\",\"forward_ms\":%.4f,\"tflops\":%.3f}\n",
                   sa::libm_name(libm), med, flops / med / 1e9);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") opt.quick = true;
    else if (a == "--bench") opt.bench = true;
    else if (a == "--out" && i + 1 < argc) opt.out_dir = argv[++i];
    else if (a == "--filter" && i + 1 < argc) opt.filter = argv[++i];
    else if (a == "--threads" && i + 1 < argc) opt.threads = static_cast<unsigned>(std::stoul(argv[++i]));
    else if (a == "--sections" && i + 1 < argc) opt.sections = argv[++i];
    else if (a == "--help" || a == "-h") {
      std::printf("usage: sparse_mla_check [--quick] [--bench] [--out DIR] [--filter SUBSTR] [--threads N]\n"
                  "                        [--sections grid,dense,chunks,repeats,errors]  (default: all of them;\n"
                  "                        fewer for compute-sanitizer runs)\n"
                  "  the sparse MLA forward on the GPU against the CPU reference by encoding (see the file's\n"
                  "  header for the sections); JSON lines in DIR/sparse_mla_check.jsonl; exit 1 on any failure\n");
      return 0;
    } else {
      std::fprintf(stderr, "sparse_mla_check: unknown argument %s (--help)\n", a.c_str());
      return 2;
    }
  }
  g_json = std::fopen((opt.out_dir + "/sparse_mla_check.jsonl").c_str(), "w");
  if (!g_json) {  // the exit status is read back from this file: without it a failure would pass
    std::fprintf(stderr, "sparse_mla_check: cannot write %s/sparse_mla_check.jsonl (--out DIR)\n", opt.out_dir.c_str());
    return 2;
  }
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("# device %s; %s\n", prop.name, sm::fingerprint(sa::Libm::nvcc).c_str());
  int points = 0;
  auto section = [&](const char* name) { return ("," + opt.sections + ",").find(std::string(",") + name + ",") != std::string::npos; };
  if (section("grid"))
  for (sa::Libm libm : {sa::Libm::nvcc, sa::Libm::cr})
    for (int heads : {64, 128})
      for (int topk : {64, 512})
        for (std::int64_t T : {1, 100, 1024})
          for (bool sink : {false, true})
            for (std::int64_t pool : {0, 512}) {
              if (opt.quick && (T == 1024 || heads == 128)) continue;
              Point pt;
              pt.libm = libm;
              pt.heads = heads;
              pt.topk = topk;
              pt.tokens = T;
              pt.sink = sink;
              pt.pool = pool;
              pt.seed = 1000 + points;
              if (!opt.filter.empty() && pt.name().find(opt.filter) == std::string::npos) continue;
              run_point(pt, opt);
              ++points;
            }
  if (section("dense"))
    for (sa::Libm libm : {sa::Libm::nvcc, sa::Libm::cr})
      for (int heads : {64, 128}) dense_equality(heads, libm);
  if (section("chunks")) chunks();
  if (section("repeats")) repeats();
  if (section("errors")) errors();
  if (opt.bench) bench();
  if (g_json) std::fclose(g_json);
  // Exit status: any "pass":false line.
  FILE* f = std::fopen((opt.out_dir + "/sparse_mla_check.jsonl").c_str(), "r");
  int failed = 0;
  if (f) {
    char line[4096];
    while (std::fgets(line, sizeof line, f)) failed += std::strstr(line, "\"pass\":false") != nullptr;
    std::fclose(f);
  }
  std::printf("# %d grid points; %d failed lines\n", points, failed);
  return failed ? 1 : 0;
}
