// mufu_probe — measurements of the H200's MUFU ex2/lg2 instructions, the raw
// material of samebits::nvcc's host model (issue: nvcc personality).
//
// Dumps (to the directory argv[1], raw little-endian uint32 result encodings):
//   ex2_pos.u32   ex2.approx.ftz.f32( i 2^-23), i in [0, 2^23)
//   ex2_neg.u32   ex2.approx.ftz.f32(-i 2^-24), i in [0, 2^24)
//   lg2_e0.u32    lg2.approx.ftz.f32((1 + i 2^-23)),      i in [0, 2^23)
//   lg2_em1.u32   lg2.approx.ftz.f32((1 + i 2^-23) / 2),  i in [0, 2^23)
//   lg2_e1.u32    lg2.approx.ftz.f32((1 + i 2^-23) * 2),  i in [0, 2^23)
// tests/device/mufu_summarize.py compresses them into what comes back.
//
// Rule checks over every input a in (-126, 128), printed as JSON lines. The
// fixed-point value of a is computed exactly with integers: with
// |a| 2^F = q + rem (rem the discarded fraction), a "bucket" is
//   floor: floor(a 2^F)  (two's complement truncation)
//   trunc: sign(a) floor(|a| 2^F)  (sign-magnitude truncation)
// and a rule says hw(a) == ldexp(hw(f), n) where the bucket is n 2^F + j,
// 0 <= j < 2^F, f = j 2^-F (floor) — i.e. the output depends on the bucket
// only and scales exactly with its integer part. For trunc buckets of a < 0
// the value is -(n 2^F + j) and the rule is hw(a) == ldexp(hw(-j 2^-F), -n).
// Counts per (rule, F in {22, 23, 24, 25}, sign, |a| < 1 or >= 1).
// Also: ex2.approx.f32 == ex2.approx.ftz.f32 on (-126, 128).
//   nvcc -O3 -std=c++20 -arch=sm_90 tests/device/mufu_probe.cu -o mufu_probe && ./mufu_probe DIR
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cuda_check.cuh"

namespace {

__device__ __forceinline__ float ex2_ftz(float a) {
  float d;
  asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(d) : "f"(a));
  return d;
}
__device__ __forceinline__ float ex2_plain(float a) {
  float d;
  asm volatile("ex2.approx.f32 %0, %1;" : "=f"(d) : "f"(a));
  return d;
}
__device__ __forceinline__ float lg2_ftz(float a) {
  float d;
  asm volatile("lg2.approx.ftz.f32 %0, %1;" : "=f"(d) : "f"(a));
  return d;
}

__global__ void dump(int which, std::uint32_t* out, std::uint32_t n) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float m = 1.0f + static_cast<float>(i) * 0x1p-23f;  // exact
  float y;
  switch (which) {
    case 0: y = ex2_ftz(static_cast<float>(i) * 0x1p-23f); break;
    case 1: y = ex2_ftz(-static_cast<float>(i) * 0x1p-24f); break;
    case 2: y = lg2_ftz(m); break;
    case 3: y = lg2_ftz(m * 0.5f); break;
    default: y = lg2_ftz(m * 2.0f); break;
  }
  out[i] = __float_as_uint(y);
}

constexpr int kFirstF = 22;  // F = 22, 23, 24, 25
// counts[((rule * 4 + fi) * 2 + neg) * 2 + big] with rule 0 = floor, 1 = trunc;
// plus [64] inputs per (neg, big) at [64 + neg * 2 + big], [72] plain != ftz.
constexpr int kCounts = 80;

__global__ void rules(std::uint32_t base, unsigned long long* counts) {
  __shared__ unsigned long long local[kCounts];
  for (int i = threadIdx.x; i < kCounts; i += blockDim.x) local[i] = 0;
  __syncthreads();
  const std::uint32_t bits = base + blockIdx.x * blockDim.x + threadIdx.x;
  const float a = __uint_as_float(bits);
  if (a > -126.0f && a < 128.0f) {
    const float hw = ex2_ftz(a);
    if (__float_as_uint(ex2_plain(a)) != __float_as_uint(hw)) atomicAdd(&local[72], 1ull);
    const int neg = bits >> 31;
    const std::uint32_t ax = bits & 0x7fffffffu;
    const int big = ax >= 0x3f800000u;
    atomicAdd(&local[64 + neg * 2 + big], 1ull);
    // |a| = M 2^(E-23), M with its leading bit (0 for a = 0).
    const int be = static_cast<int>(ax >> 23);
    const std::uint64_t M = be ? ((ax & 0x7fffffu) | 0x800000u) : (ax & 0x7fffffu);
    const int E = be ? be - 127 : -126;
    for (int fi = 0; fi < 4; ++fi) {
      const int F = kFirstF + fi;
      const int s = E - 23 + F;  // |a| 2^F = M 2^s
      std::uint64_t q;
      bool rem;
      if (s >= 0) {
        q = M << s;
        rem = false;
      } else if (s > -40) {
        q = M >> -s;
        rem = (M & ((1ull << -s) - 1)) != 0;
      } else {
        q = 0;
        rem = M != 0;
      }
      const std::uint64_t one = 1ull << F;
      for (int rule = 0; rule < 2; ++rule) {
        float want;
        if (!neg) {
          // floor and trunc agree for a >= 0.
          const int n = static_cast<int>(q >> F);
          const float f = static_cast<float>(q & (one - 1)) * __uint_as_float((127u - F) << 23);
          want = ldexpf(ex2_ftz(f), n);
        } else if (rule == 0) {
          // floor(a 2^F) = -(q + rem): value -(q + rem) = -n' 2^F + j.
          const std::uint64_t v = q + (rem ? 1 : 0);
          const std::uint64_t n1 = (v + one - 1) >> F;  // ceil(v / 2^F)
          const std::uint64_t j = n1 * one - v;          // in [0, 2^F)
          const float f = static_cast<float>(j) * __uint_as_float((127u - F) << 23);
          want = ldexpf(ex2_ftz(f), -static_cast<int>(n1));
        } else {
          const int n = static_cast<int>(q >> F);
          const float f = -static_cast<float>(q & (one - 1)) * __uint_as_float((127u - F) << 23);
          want = ldexpf(ex2_ftz(f), -n);
        }
        if (__float_as_uint(want) != __float_as_uint(hw)) atomicAdd(&local[((rule * 4 + fi) * 2 + neg) * 2 + big], 1ull);
      }
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < kCounts; i += blockDim.x)
    if (local[i]) atomicAdd(&counts[i], local[i]);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  constexpr std::uint32_t n23 = 1u << 23, n24 = 1u << 24;
  std::uint32_t* d_buf;
  CHECK_CUDA(cudaMalloc(&d_buf, n24 * 4));
  std::vector<std::uint32_t> h(n24);
  const char* names[5] = {"ex2_pos.u32", "ex2_neg.u32", "lg2_e0.u32", "lg2_em1.u32", "lg2_e1.u32"};
  for (int k = 0; k < 5; ++k) {
    const std::uint32_t n = k == 1 ? n24 : n23;
    dump<<<n / 256, 256>>>(k, d_buf, n);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaMemcpy(h.data(), d_buf, n * 4, cudaMemcpyDeviceToHost));
    FILE* f = std::fopen((dir + "/" + names[k]).c_str(), "wb");
    if (!f || std::fwrite(h.data(), 4, n, f) != n) {
      std::fprintf(stderr, "cannot write %s\n", names[k]);
      return 2;
    }
    std::fclose(f);
  }
  unsigned long long* d_counts;
  CHECK_CUDA(cudaMalloc(&d_counts, kCounts * sizeof(unsigned long long)));
  CHECK_CUDA(cudaMemset(d_counts, 0, kCounts * sizeof(unsigned long long)));
  for (std::uint64_t c = 0; c < 16; ++c) rules<<<(1u << 28) / 256, 256>>>(static_cast<std::uint32_t>(c << 28), d_counts);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  unsigned long long counts[kCounts];
  CHECK_CUDA(cudaMemcpy(counts, d_counts, sizeof counts, cudaMemcpyDeviceToHost));
  std::printf("{\"check\": \"ex2.approx.f32 == ex2.approx.ftz.f32 on (-126, 128)\", \"mismatches\": %llu}\n", counts[72]);
  const char* rule_names[2] = {"floor", "trunc"};
  for (int rule = 0; rule < 2; ++rule)
    for (int fi = 0; fi < 4; ++fi)
      for (int neg = 0; neg < 2; ++neg)
        for (int big = 0; big < 2; ++big)
          std::printf("{\"rule\": \"%s\", \"F\": %d, \"sign\": \"%s\", \"range\": \"%s\", \"inputs\": %llu, "
                      "\"mismatches\": %llu}\n",
                      rule_names[rule], kFirstF + fi, neg ? "-" : "+", big ? "|a|>=1" : "|a|<1",
                      counts[64 + neg * 2 + big], counts[((rule * 4 + fi) * 2 + neg) * 2 + big]);
  return 0;
}
