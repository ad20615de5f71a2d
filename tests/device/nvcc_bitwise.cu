// nvcc_bitwise — samebits::nvcc on the GPU computes what CUDA itself computes,
// and samebits::nvcc's host path computes what its device path computes, for
// every one of the 2^32 inputs, encoding for encoding (NaN bits included, +0
// and -0 differ). Issue: nvcc personality.
//
// Built twice (the program cannot see -ftz=true: nvcc defines no macro for
// it, so the -ftz=true build also passes -DSAMEBITS_TEST_FTZ=1; a runtime
// probe checks that the two agree and stops with exit code 2 if not):
//   nvcc -O3 -std=c++20 -arch=sm_90 -I libm/include tests/device/nvcc_bitwise.cu -o nvcc_bitwise
//   nvcc -O3 -std=c++20 -arch=sm_90 -I libm/include -ftz=true -DSAMEBITS_TEST_FTZ=1 tests/device/nvcc_bitwise.cu -o nvcc_bitwise_ftz
// tests/device/run_nvcc_h200.sh does both and runs them.
//
// (A) kind "gpu_vs_cuda", computed and compared on the GPU only. For each
//     chunk of 2^28 inputs one kernel writes samebits' results to one buffer,
//     another kernel writes CUDA's to a second buffer (separate kernels, so
//     nvcc cannot share or reorder work between the two sides), and a third
//     kernel compares the buffers.
//       default build: nvcc::{expf, exp2f, exp10f, logf, log2f, log10f} vs
//         CUDA's functions of the same name; nvcc::fast::{expf, exp10f, logf,
//         log2f} vs __expf, __exp10f, __logf, __log2f.
//       ftz build: nvcc::ftz::{the six} vs CUDA's six compiled with -ftz=true.
// (B) kind "host_vs_gpu": the GPU results of the samebits function are copied
//     to the host, the host build of the same header computes the same
//     function on all cores (std::thread), and the encodings are compared.
//     The functions that have a host path are the table SAMEBITS_HOST_PATHS
//     below; the exponentials and the intrinsics are in it by default
//     (-DSAMEBITS_NVCC_HAS_HOST_EXP=0 / -DSAMEBITS_NVCC_HAS_HOST_FAST=0 leave
//     them out).
// Informative (default build, kind "info", never a failure): on how many
// inputs CUDA's expf and __expf differ, and the same for exp10f, logf, log2f.
//
// Negative controls (both builds): a one-ulp change (+1 on the encoding)
// planted in one samebits result of the first chunk of the first (A) pair and
// of the first (B) pair must be reported, and be the only input reported.
//
// Output: one JSON object per line. Per pair: pair, build, kind, inputs,
// mismatches, first (the smallest mismatching inputs, at most 5, as
// encodings), digest, seconds.
//   digest = sum over every input x of splitmix64((x << 32) | y(x)) mod 2^64,
//   y(x) the result encoding of the samebits function (for (B): of its host
//   path; for "info": of the CUDA function named first). Order-independent,
//   so the GPU and the host compute the same number however work is split;
//   (A) and (B) of one function print the same digest when both are clean.
// Exit code: 0 all equal and both controls caught; 1 a mismatch or a control
// missed; 2 a CUDA error or a build whose -ftz does not match
// SAMEBITS_TEST_FTZ.
// Option: --chunks N (1..16, default 16) runs only the first N chunks of 2^28
// inputs, for a smoke test; "inputs" says how many were covered.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <samebits/libm.hpp>

#include "cuda_check.cuh"

// Which build this is: 1 when compiled with -ftz=true (pass both flags).
#ifndef SAMEBITS_TEST_FTZ
#define SAMEBITS_TEST_FTZ 0
#endif
static_assert(SAMEBITS_TEST_FTZ == 0 || SAMEBITS_TEST_FTZ == 1,
              "SAMEBITS_TEST_FTZ is 0 (default flags) or 1 (built with -ftz=true)");

// Host paths, all written; each can be switched off with -D...=0.
#ifndef SAMEBITS_NVCC_HAS_HOST_EXP
#define SAMEBITS_NVCC_HAS_HOST_EXP 1  // nvcc::{expf, exp2f, exp10f} and their ftz:: forms
#endif
#ifndef SAMEBITS_NVCC_HAS_HOST_FAST_EXP
#define SAMEBITS_NVCC_HAS_HOST_FAST_EXP 1  // nvcc::fast::{expf, exp10f}
#endif
#ifndef SAMEBITS_NVCC_HAS_HOST_FAST
#define SAMEBITS_NVCC_HAS_HOST_FAST 1  // nvcc::fast::{logf, log2f} (MUFU lg2 model)
#endif

namespace {

constexpr bool kFtz = SAMEBITS_TEST_FTZ != 0;
constexpr const char* kBuild = kFtz ? "ftz" : "default";
constexpr std::uint32_t kChunk = 1u << 28;
constexpr int kMaxChunks = 16;                  // 16 x 2^28 = 2^32
constexpr std::uint32_t kPlantAt = 0x00123457u;  // index in the first chunk
constexpr unsigned long long kNone = ~0ull;      // empty slot of Tally::first

// ---- the functions ----------------------------------------------------------
enum Fn : int {
  kExpf, kExp2f, kExp10f, kLogf, kLog2f, kLog10f,  // nvcc:: (default) or nvcc::ftz:: (ftz build)
  kFastExpf, kFastExp10f, kFastLogf, kFastLog2f,   // nvcc::fast:: = __expf, __exp10f, __logf, __log2f
  kNumFns
};
const char* const kOursName[kNumFns] = {
    kFtz ? "nvcc::ftz::expf" : "nvcc::expf",     kFtz ? "nvcc::ftz::exp2f" : "nvcc::exp2f",
    kFtz ? "nvcc::ftz::exp10f" : "nvcc::exp10f", kFtz ? "nvcc::ftz::logf" : "nvcc::logf",
    kFtz ? "nvcc::ftz::log2f" : "nvcc::log2f",   kFtz ? "nvcc::ftz::log10f" : "nvcc::log10f",
    "nvcc::fast::expf", "nvcc::fast::exp10f", "nvcc::fast::logf", "nvcc::fast::log2f"};
const char* const kCudaName[kNumFns] = {"expf", "exp2f", "exp10f", "logf", "log2f", "log10f",
                                        "__expf", "__exp10f", "__logf", "__log2f"};

// samebits' device path. The nvcc headers declare the exponentials and fast::
// only in the device pass, so the body is compiled there only.
template <int F>
__device__ __forceinline__ float ours(float x) {
#if defined(SAMEBITS_DEVICE_NVIDIA)
#if SAMEBITS_TEST_FTZ
  namespace sb = samebits::nvcc::ftz;
#else
  namespace sb = samebits::nvcc;
#endif
  if constexpr (F == kExpf) return sb::expf(x);
  else if constexpr (F == kExp2f) return sb::exp2f(x);
  else if constexpr (F == kExp10f) return sb::exp10f(x);
  else if constexpr (F == kLogf) return sb::logf(x);
  else if constexpr (F == kLog2f) return sb::log2f(x);
  else if constexpr (F == kLog10f) return sb::log10f(x);
  else if constexpr (F == kFastExpf) return samebits::nvcc::fast::expf(x);
  else if constexpr (F == kFastExp10f) return samebits::nvcc::fast::exp10f(x);
  else if constexpr (F == kFastLogf) return samebits::nvcc::fast::logf(x);
  else return samebits::nvcc::fast::log2f(x);
#else
  return x;  // host pass: kernels are not compiled for the host
#endif
}

// CUDA's own, as this build's flags compile it.
template <int F>
__device__ __forceinline__ float cuda(float x) {
  if constexpr (F == kExpf) return ::expf(x);
  else if constexpr (F == kExp2f) return ::exp2f(x);
  else if constexpr (F == kExp10f) return ::exp10f(x);
  else if constexpr (F == kLogf) return ::logf(x);
  else if constexpr (F == kLog2f) return ::log2f(x);
  else if constexpr (F == kLog10f) return ::log10f(x);
  else if constexpr (F == kFastExpf) return __expf(x);
  else if constexpr (F == kFastExp10f) return __exp10f(x);
  else if constexpr (F == kFastLogf) return __logf(x);
  else return __log2f(x);
}

// One side of one function over base .. base + gridDim.x * blockDim.x - 1.
template <int F, bool Ours>
__global__ void eval(std::uint32_t base, std::uint32_t* out) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const float x = __uint_as_float(base + i);
  out[i] = __float_as_uint(Ours ? ours<F>(x) : cuda<F>(x));
}

using EvalKernel = void (*)(std::uint32_t, std::uint32_t*);
template <bool Ours>
constexpr EvalKernel kEval[kNumFns] = {eval<0, Ours>, eval<1, Ours>, eval<2, Ours>, eval<3, Ours>, eval<4, Ours>,
                                       eval<5, Ours>, eval<6, Ours>, eval<7, Ours>, eval<8, Ours>, eval<9, Ours>};

void launch_eval(int f, bool ours_side, std::uint32_t base, std::uint32_t* out) {
  (ours_side ? kEval<true> : kEval<false>)[f]<<<kChunk / 256, 256>>>(base, out);
  CHECK_CUDA(cudaGetLastError());
}

// ---- digest and comparison ----------------------------------------------------
__host__ __device__ inline std::uint64_t mix(std::uint64_t z) {  // splitmix64's finalizer
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
__host__ __device__ inline std::uint64_t digest_term(std::uint32_t x, std::uint32_t y) {
  return mix((std::uint64_t{x} << 32) | y);
}

struct Tally {
  unsigned long long mismatches;
  unsigned long long digest;    // of buffer a
  unsigned long long first[5];  // the 5 smallest mismatching inputs, ascending; kNone = empty
};

// Keeps the 5 smallest values ever offered, whatever the order of the offers:
// each slot keeps the minimum of what reaches it and passes the other on.
__device__ void offer_first(unsigned long long* slot, unsigned long long v) {
  if (v >= *reinterpret_cast<volatile unsigned long long*>(&slot[4])) return;  // slot[4] only decreases
  for (int k = 0; k < 5; ++k) {
    const unsigned long long old = atomicMin(&slot[k], v);
    if (old == kNone) return;
    v = old > v ? old : v;
  }
}

__device__ unsigned long long block_sum(unsigned long long v) {
  __shared__ unsigned long long part[32];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();  // part[] may still be read by a previous call
  if (lane == 0) part[warp] = v;
  __syncthreads();
  v = 0;
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? part[lane] : 0;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  }
  return v;  // valid in thread 0
}

constexpr unsigned kCmpBlocks = 4096, kCmpThreads = 256;  // blockDim a multiple of 32

// a: samebits (digested), b: the reference. Accumulates into *t over chunks.
__global__ void compare(const std::uint32_t* a, const std::uint32_t* b, std::uint32_t base, std::uint32_t n,
                        Tally* t) {
  unsigned long long count = 0, digest = 0;
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const std::uint32_t ya = a[i], yb = b[i];
    digest += digest_term(base + i, ya);
    if (ya != yb) {
      ++count;
      offer_first(t->first, base + i);
    }
  }
  count = block_sum(count);
  digest = block_sum(digest);
  if (threadIdx.x == 0) {
    atomicAdd(&t->digest, digest);
    if (count) atomicAdd(&t->mismatches, count);
  }
}

__global__ void bump(std::uint32_t* p, std::uint32_t delta) { *p += delta; }

// x * 1 on a subnormal x, both loaded from memory: 0 under -ftz=true.
__global__ void ftz_probe(const float* in, std::uint32_t* out) { *out = __float_as_uint(in[0] * in[1]); }

void reset(Tally* t) {
  CHECK_CUDA(cudaMemset(t, 0, sizeof(Tally)));
  CHECK_CUDA(cudaMemset(&t->first, 0xff, sizeof(t->first)));
}
void launch_compare(const std::uint32_t* a, const std::uint32_t* b, std::uint32_t base, Tally* t) {
  compare<<<kCmpBlocks, kCmpThreads>>>(a, b, base, kChunk, t);
  CHECK_CUDA(cudaGetLastError());
}
Tally fetch(const Tally* t) {
  Tally h;
  CHECK_CUDA(cudaMemcpy(&h, t, sizeof h, cudaMemcpyDeviceToHost));
  return h;
}
std::vector<std::uint32_t> firsts(const Tally& t) {
  std::vector<std::uint32_t> v;
  for (auto x : t.first)
    if (x != kNone) v.push_back(static_cast<std::uint32_t>(x));
  return v;
}

// ---- (B): the functions with a host path — the one table to extend ------------
// X(Fn, host function). The host build of the same header, called from host
// code; the device side is ours<Fn>.
#if SAMEBITS_TEST_FTZ
#define SB_HOST_NS samebits::nvcc::ftz
#else
#define SB_HOST_NS samebits::nvcc
#endif
#if SAMEBITS_NVCC_HAS_HOST_EXP
#define SAMEBITS_HOST_PATHS_EXP(X) X(kExpf, SB_HOST_NS::expf) X(kExp2f, SB_HOST_NS::exp2f) X(kExp10f, SB_HOST_NS::exp10f)
#else
#define SAMEBITS_HOST_PATHS_EXP(X)
#endif
#if SAMEBITS_NVCC_HAS_HOST_FAST_EXP && !SAMEBITS_TEST_FTZ  // fast:: has no ftz form
#define SAMEBITS_HOST_PATHS_FAST_EXP(X) \
  X(kFastExpf, samebits::nvcc::fast::expf) X(kFastExp10f, samebits::nvcc::fast::exp10f)
#else
#define SAMEBITS_HOST_PATHS_FAST_EXP(X)
#endif
#if SAMEBITS_NVCC_HAS_HOST_FAST && !SAMEBITS_TEST_FTZ
#define SAMEBITS_HOST_PATHS_FAST(X) \
  SAMEBITS_HOST_PATHS_FAST_EXP(X) X(kFastLogf, samebits::nvcc::fast::logf) X(kFastLog2f, samebits::nvcc::fast::log2f)
#else
#define SAMEBITS_HOST_PATHS_FAST(X) SAMEBITS_HOST_PATHS_FAST_EXP(X)
#endif
#define SAMEBITS_HOST_PATHS(X)                                                              \
  X(kLogf, SB_HOST_NS::logf) X(kLog2f, SB_HOST_NS::log2f) X(kLog10f, SB_HOST_NS::log10f)    \
  SAMEBITS_HOST_PATHS_EXP(X) SAMEBITS_HOST_PATHS_FAST(X)

template <int F>
float host_fn(float x);
#define SAMEBITS_HOST_DEF(F, FN) \
  template <>                    \
  float host_fn<F>(float x) { return FN(x); }
SAMEBITS_HOST_PATHS(SAMEBITS_HOST_DEF)
#undef SAMEBITS_HOST_DEF

#define SAMEBITS_HOST_ROW(F, FN) F,
constexpr int kHostPaths[] = {SAMEBITS_HOST_PATHS(SAMEBITS_HOST_ROW)};
#undef SAMEBITS_HOST_ROW

struct Diff {
  std::uint64_t count = 0;
  std::uint64_t digest = 0;          // of the host results
  std::vector<std::uint32_t> first;  // the smallest mismatching inputs
};

template <int F>
Diff host_compare(std::uint32_t base, const std::uint32_t* dev, std::uint32_t n, unsigned threads) {
  Diff d;
  std::mutex m;
  std::vector<std::thread> pool;
  const std::uint32_t per = n / threads;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      Diff mine;  // first: the first 5 of this range, so the merge keeps the 5 smallest
      const std::uint32_t lo = t * per, hi = (t + 1 == threads) ? n : lo + per;
      for (std::uint32_t i = lo; i < hi; ++i) {
        const std::uint32_t want = samebits::fp::to_bits(host_fn<F>(samebits::fp::from_bits(base + i)));
        mine.digest += digest_term(base + i, want);
        if (want != dev[i]) {
          if (mine.first.size() < 5) mine.first.push_back(base + i);
          ++mine.count;
        }
      }
      std::lock_guard<std::mutex> g(m);
      d.count += mine.count;
      d.digest += mine.digest;
      d.first.insert(d.first.end(), mine.first.begin(), mine.first.end());
    });
  }
  for (auto& th : pool) th.join();
  std::sort(d.first.begin(), d.first.end());
  if (d.first.size() > 5) d.first.resize(5);
  return d;
}

Diff host_compare(int f, std::uint32_t base, const std::uint32_t* dev, std::uint32_t n, unsigned threads) {
  switch (f) {
#define SAMEBITS_HOST_CASE(F, FN) \
  case F: return host_compare<F>(base, dev, n, threads);
    SAMEBITS_HOST_PATHS(SAMEBITS_HOST_CASE)
#undef SAMEBITS_HOST_CASE
  }
  std::fprintf(stderr, "no host path for function %d\n", f);
  std::exit(2);
}

// ---- output ---------------------------------------------------------------------
std::string hex_list(const std::vector<std::uint32_t>& v) {
  std::string s;
  char buf[16];
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s\"0x%08x\"", i ? ", " : "", v[i]);
    s += buf;
  }
  return s;
}

void print_pair(const std::string& pair, const char* kind, std::uint64_t inputs, std::uint64_t mismatches,
                const std::vector<std::uint32_t>& first, std::uint64_t digest, double secs) {
  std::printf("{\"pair\": \"%s\", \"build\": \"%s\", \"kind\": \"%s\", \"inputs\": %llu, \"mismatches\": %llu, "
              "\"first\": [%s], \"digest\": \"%016llx\", \"seconds\": %.2f}\n",
              pair.c_str(), kBuild, kind, static_cast<unsigned long long>(inputs),
              static_cast<unsigned long long>(mismatches), hex_list(first).c_str(),
              static_cast<unsigned long long>(digest), secs);
  std::fflush(stdout);
}

// Prints the control's line; true when exactly the planted input was reported.
bool print_control(const std::string& pair, const char* kind, std::uint64_t reported,
                   const std::vector<std::uint32_t>& first, std::uint32_t planted) {
  const bool ok = reported == 1 && first.size() == 1 && first[0] == planted;
  std::printf("{\"negative_control\": \"one planted one-ulp change\", \"pair\": \"%s\", \"build\": \"%s\", "
              "\"kind\": \"%s\", \"planted_input\": \"0x%08x\", \"reported\": %llu, \"first\": [%s], "
              "\"caught\": %s}\n",
              pair.c_str(), kBuild, kind, planted, static_cast<unsigned long long>(reported),
              hex_list(first).c_str(), ok ? "true" : "false");
  std::fflush(stdout);
  return ok;
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  int chunks = kMaxChunks;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--chunks") == 0 && i + 1 < argc) {
      chunks = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--chunks N]   (N in 1..16, default 16 = all 2^32 inputs)\n", argv[0]);
      return 2;
    }
  }
  if (chunks < 1 || chunks > kMaxChunks) {
    std::fprintf(stderr, "--chunks must be in 1..16\n");
    return 2;
  }
  const std::uint64_t inputs = std::uint64_t{kChunk} * static_cast<std::uint64_t>(chunks);
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());

  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));

  // Does this binary's device code flush, as SAMEBITS_TEST_FTZ says it does?
  float* d_probe_in;
  std::uint32_t* d_probe_out;
  CHECK_CUDA(cudaMalloc(&d_probe_in, 2 * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_probe_out, sizeof(std::uint32_t)));
  const float probe_in[2] = {samebits::fp::from_bits(0x00400000u), 1.0f};
  CHECK_CUDA(cudaMemcpy(d_probe_in, probe_in, sizeof probe_in, cudaMemcpyHostToDevice));
  ftz_probe<<<1, 1>>>(d_probe_in, d_probe_out);
  CHECK_CUDA(cudaGetLastError());
  std::uint32_t probe = 0;
  CHECK_CUDA(cudaMemcpy(&probe, d_probe_out, sizeof probe, cudaMemcpyDeviceToHost));
  const bool probe_ok = probe == (kFtz ? 0u : 0x00400000u);
  std::printf("{\"kind\": \"build\", \"build\": \"%s\", \"SAMEBITS_TEST_FTZ\": %d, \"SAMEBITS_NVCC_HAS_HOST_EXP\": %d, "
              "\"SAMEBITS_NVCC_HAS_HOST_FAST\": %d, \"ftz_probe\": \"0x%08x\", \"ftz_probe_ok\": %s, "
              "\"device\": \"%s\", \"host_threads\": %u, \"chunks\": %d, "
              "\"digest\": \"sum over inputs x of splitmix64((x << 32) | y(x)) mod 2^64\"}\n",
              kBuild, SAMEBITS_TEST_FTZ, SAMEBITS_NVCC_HAS_HOST_EXP, SAMEBITS_NVCC_HAS_HOST_FAST, probe,
              probe_ok ? "true" : "false", prop.name, threads, chunks);
  std::fflush(stdout);
  if (!probe_ok) {
    std::fprintf(stderr, "build mismatch: SAMEBITS_TEST_FTZ=%d but the device code %s subnormals\n",
                 SAMEBITS_TEST_FTZ, probe == 0 ? "flushes" : "keeps");
    return 2;
  }

  std::uint32_t *d_a, *d_b, *h_a;
  Tally *d_tally, *d_ctl;
  CHECK_CUDA(cudaMalloc(&d_a, std::size_t{kChunk} * 4));
  CHECK_CUDA(cudaMalloc(&d_b, std::size_t{kChunk} * 4));
  CHECK_CUDA(cudaMallocHost(&h_a, std::size_t{kChunk} * 4));
  CHECK_CUDA(cudaMalloc(&d_tally, sizeof(Tally)));
  CHECK_CUDA(cudaMalloc(&d_ctl, sizeof(Tally)));
  int failures = 0;

  // (A) samebits vs CUDA, on the GPU.
  std::vector<int> gpu_pairs = {kExpf, kExp2f, kExp10f, kLogf, kLog2f, kLog10f};
  if (!kFtz) gpu_pairs.insert(gpu_pairs.end(), {kFastExpf, kFastExp10f, kFastLogf, kFastLog2f});
  for (std::size_t p = 0; p < gpu_pairs.size(); ++p) {
    const int f = gpu_pairs[p];
    const std::string name = std::string(kOursName[f]) + " vs " + kCudaName[f];
    const auto t0 = std::chrono::steady_clock::now();
    reset(d_tally);
    for (int c = 0; c < chunks; ++c) {
      const std::uint32_t base = static_cast<std::uint32_t>(c) * kChunk;
      launch_eval(f, true, base, d_a);
      launch_eval(f, false, base, d_b);
      if (p == 0 && c == 0) {
        reset(d_ctl);
        bump<<<1, 1>>>(d_a + kPlantAt, 1u);
        CHECK_CUDA(cudaGetLastError());
        launch_compare(d_a, d_b, base, d_ctl);
        bump<<<1, 1>>>(d_a + kPlantAt, ~0u);  // -1: undo
        CHECK_CUDA(cudaGetLastError());
        const Tally ctl = fetch(d_ctl);
        if (!print_control(name, "gpu_vs_cuda", ctl.mismatches, firsts(ctl), base + kPlantAt)) ++failures;
      }
      launch_compare(d_a, d_b, base, d_tally);
    }
    const Tally t = fetch(d_tally);
    print_pair(name, "gpu_vs_cuda", inputs, t.mismatches, firsts(t), t.digest, since(t0));
    if (t.mismatches) ++failures;
  }

  // Informative: CUDA's functions vs CUDA's intrinsics (default build only).
  if (!kFtz) {
    const int info[][2] = {{kExpf, kFastExpf}, {kExp10f, kFastExp10f}, {kLogf, kFastLogf}, {kLog2f, kFastLog2f}};
    for (const auto& pr : info) {
      const std::string name = std::string(kCudaName[pr[0]]) + " vs " + kCudaName[pr[1]];
      const auto t0 = std::chrono::steady_clock::now();
      reset(d_tally);
      for (int c = 0; c < chunks; ++c) {
        const std::uint32_t base = static_cast<std::uint32_t>(c) * kChunk;
        launch_eval(pr[0], false, base, d_a);
        launch_eval(pr[1], false, base, d_b);
        launch_compare(d_a, d_b, base, d_tally);
      }
      const Tally t = fetch(d_tally);
      print_pair(name, "info", inputs, t.mismatches, firsts(t), t.digest, since(t0));
    }
  }

  // (B) samebits' host path vs its device path.
  for (std::size_t p = 0; p < sizeof kHostPaths / sizeof kHostPaths[0]; ++p) {
    const int f = kHostPaths[p];
    const std::string name = std::string(kOursName[f]) + " host vs device";
    const auto t0 = std::chrono::steady_clock::now();
    Diff total;
    for (int c = 0; c < chunks; ++c) {
      const std::uint32_t base = static_cast<std::uint32_t>(c) * kChunk;
      launch_eval(f, true, base, d_a);
      CHECK_CUDA(cudaMemcpy(h_a, d_a, std::size_t{kChunk} * 4, cudaMemcpyDeviceToHost));
      if (p == 0 && c == 0) {
        h_a[kPlantAt] += 1;
        const Diff ctl = host_compare(f, base, h_a, kChunk, threads);
        if (!print_control(name, "host_vs_gpu", ctl.count, ctl.first, base + kPlantAt)) ++failures;
        h_a[kPlantAt] -= 1;
      }
      const Diff d = host_compare(f, base, h_a, kChunk, threads);
      total.count += d.count;
      total.digest += d.digest;
      for (auto x : d.first)  // chunks in ascending order: the first 5 overall
        if (total.first.size() < 5) total.first.push_back(x);
    }
    print_pair(name, "host_vs_gpu", inputs, total.count, total.first, total.digest, since(t0));
    if (total.count) ++failures;
  }

  CHECK_CUDA(cudaFree(d_a));
  CHECK_CUDA(cudaFree(d_b));
  CHECK_CUDA(cudaFreeHost(h_a));
  CHECK_CUDA(cudaFree(d_tally));
  CHECK_CUDA(cudaFree(d_ctl));
  CHECK_CUDA(cudaFree(d_probe_in));
  CHECK_CUDA(cudaFree(d_probe_out));
  return failures ? 1 : 0;
}
