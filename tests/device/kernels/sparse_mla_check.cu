// tests/device/kernels/sparse_mla_check.cu — the sparse MLA kernels on the
// GPU against the CPU reference (docs/kernels/sparse_mla.md), by encoding:
//   sparse_mla_check [--quick] [--bench] [--out DIR] [--filter SUBSTR] [--threads N]
// Sections (one JSON line each under DIR/sparse_mla_check.jsonl):
//   grid        libm x H x topk x T x sink x pool, every point with holes, a fully
//               masked token and duplicate indices; o, lse, lse_excl compared by
//               encoding, each with a flipped-bit negative control
//   dense       the sparse kernel at D = 128 with causal lists (-1 tails) against
//               the dense attention kernel (Hkv = 1, K = V = kv): o, lse bitwise
//   repeats     100 runs with fresh allocations, one digest; a one-ulp input
//               change changes it
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
  DeviceBuffer q, kv, idx, sink, o, lse, lse_excl, flag;
  Device(const Point& pt, const HostTensor& hq, const HostTensor& hkv, const std::vector<std::int32_t>& hidx,
         const std::vector<float>& hsink)
      : q(hq.bytes.size()), kv(hkv.bytes.size()), idx(hidx.size() * 4), sink(hsink.size() * 4),
        o(hq.bytes.size()), lse(pt.tokens * pt.heads * 4), lse_excl(pt.tokens * pt.heads * 4), flag(4) {
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
};

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
    CHECK_CUDA(cudaDeviceSynchronize());
    HostTensor got;
    got.resize(sk::DType::bf16, hq.n);
    CHECK_CUDA(cudaMemcpy(got.bytes.data(), dev.o.ptr, got.bytes.size(), cudaMemcpyDeviceToHost));
    digests.push_back(check::fnv1a(got.bytes.data(), got.bytes.size()));
  }
  // One ulp of one kv element that token 0 reads (its window starts at row 0).
  std::uint16_t u;
  std::memcpy(&u, hkv.bytes.data(), 2);
  u ^= 1u;
  std::memcpy(hkv.bytes.data(), &u, 2);
  Device dev(pt, hq, hkv, hidx, hsink);
  CHECK_STATUS(sm::forward(dev.params(pt, true)));
  HostTensor got;
  got.resize(sk::DType::bf16, hq.n);
  CHECK_CUDA(cudaMemcpy(got.bytes.data(), dev.o.ptr, got.bytes.size(), cudaMemcpyDeviceToHost));
  const std::uint64_t changed = check::fnv1a(got.bytes.data(), got.bytes.size());
  Result r{"repeats", "100 runs, fresh allocations, H=64 topk=512 T=256 pool=256 sink"};
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
    else if (a == "--help" || a == "-h") {
      std::printf("usage: sparse_mla_check [--quick] [--bench] [--out DIR] [--filter SUBSTR] [--threads N]\n"
                  "  the sparse MLA forward on the GPU against the CPU reference by encoding (see the file's\n"
                  "  header for the sections); JSON lines in DIR/sparse_mla_check.jsonl; exit 1 on any failure\n");
      return 0;
    } else {
      std::fprintf(stderr, "sparse_mla_check: unknown argument %s (--help)\n", a.c_str());
      return 2;
    }
  }
  g_json = std::fopen((opt.out_dir + "/sparse_mla_check.jsonl").c_str(), "w");
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("# device %s; %s\n", prop.name, sm::fingerprint(sa::Libm::nvcc).c_str());
  int points = 0;
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
  for (sa::Libm libm : {sa::Libm::nvcc, sa::Libm::cr})
    for (int heads : {64, 128}) dense_equality(heads, libm);
  repeats();
  errors();
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
