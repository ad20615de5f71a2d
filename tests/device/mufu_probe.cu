// mufu_probe — measurements of the H200's MUFU ex2/lg2 instructions, the raw
// material of samebits::nvcc's host model (issue: nvcc personality).
//
// Writes, to the directory given as argv[1]:
//   ex2_pos.u32   ex2.approx.ftz.f32(i * 2^-23), i in [0, 2^23)       (32 MiB)
//   ex2_neg.u32   ex2.approx.ftz.f32(-i * 2^-23), i in [0, 2^23)
//   lg2_m.u32     lg2.approx.ftz.f32(1 + i * 2^-23), i in [0, 2^23)
// and prints, as JSON lines, checks of the rules in ../shared/FACTS.md over
// all 2^32 inputs:
//   - ex2.approx.f32 == ex2.approx.ftz.f32 for every x in (-126, 128);
//   - for a >= 0: ex2.ftz(a) == ldexp(ex2.ftz(F), floor(a)), F = floor(frac(a) 2^23) 2^-23;
//   - the same rule for a < 0 (FACTS: fails on 321,816,543 inputs) and two
//     candidate rules for the negative side (ceil instead of floor, and
//     1/ex2(-a) rounded), so the next step starts from counts.
// tests/device/mufu_summarize.py turns the dumps into the compressed summary
// that comes back from the device (a few MiB).
//   nvcc -O3 -std=c++20 -arch=sm_90 tests/device/mufu_probe.cu -o mufu_probe && ./mufu_probe $OUT
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cuda_check.cuh"

namespace {

__device__ __forceinline__ float ex2_ftz(float a) {
  float d;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(d) : "f"(a));
  return d;
}
__device__ __forceinline__ float ex2_plain(float a) {
  float d;
  asm("ex2.approx.f32 %0, %1;" : "=f"(d) : "f"(a));
  return d;
}
__device__ __forceinline__ float lg2_ftz(float a) {
  float d;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(d) : "f"(a));
  return d;
}

__global__ void dump(int which, std::uint32_t* out) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  float y;
  if (which == 0) y = ex2_ftz(static_cast<float>(i) * 0x1p-23f);
  else if (which == 1) y = ex2_ftz(-static_cast<float>(i) * 0x1p-23f);
  else y = lg2_ftz(1.0f + static_cast<float>(i) * 0x1p-23f);
  out[i] = __float_as_uint(y);
}

// Rule checks over a chunk of 2^32 inputs; counters in global memory.
__global__ void rules(std::uint32_t base, const std::uint32_t* pos, const std::uint32_t* neg,
                      unsigned long long* counts) {
  const std::uint32_t bits = base + blockIdx.x * blockDim.x + threadIdx.x;
  const float a = __uint_as_float(bits);
  if (!(a > -126.0f && a < 128.0f)) return;
  const float hw = ex2_ftz(a);
  if (__float_as_uint(ex2_plain(a)) != __float_as_uint(hw)) atomicAdd(&counts[0], 1ull);
  const float fl = floorf(a);
  const float frac = a - fl;  // exact for |a| < 2^23
  const std::uint32_t i_floor = static_cast<std::uint32_t>(frac * 0x1p23f);  // floor(frac 2^23)
  const float rule_floor = ldexpf(__uint_as_float(pos[i_floor]), static_cast<int>(fl));
  if (a >= 0.0f) {
    atomicAdd(&counts[1], 1ull);
    if (__float_as_uint(rule_floor) != __float_as_uint(hw)) atomicAdd(&counts[2], 1ull);
  } else {
    atomicAdd(&counts[3], 1ull);
    if (__float_as_uint(rule_floor) != __float_as_uint(hw)) atomicAdd(&counts[4], 1ull);
    // Candidate: the negative side indexed by ceil(|a| 2^23) on the negative table.
    const float na = -a;
    const float nfl = floorf(na);
    const std::uint32_t j = static_cast<std::uint32_t>((na - nfl) * 0x1p23f);
    const float rule_neg = ldexpf(__uint_as_float(neg[j]), -static_cast<int>(nfl));
    if (__float_as_uint(rule_neg) != __float_as_uint(hw)) atomicAdd(&counts[5], 1ull);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  constexpr std::uint32_t n = 1u << 23;
  std::uint32_t *d_pos, *d_neg, *d_lg2;
  CHECK_CUDA(cudaMalloc(&d_pos, n * 4));
  CHECK_CUDA(cudaMalloc(&d_neg, n * 4));
  CHECK_CUDA(cudaMalloc(&d_lg2, n * 4));
  dump<<<n / 256, 256>>>(0, d_pos);
  dump<<<n / 256, 256>>>(1, d_neg);
  dump<<<n / 256, 256>>>(2, d_lg2);
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<std::uint32_t> h(n);
  const char* names[3] = {"ex2_pos.u32", "ex2_neg.u32", "lg2_m.u32"};
  std::uint32_t* bufs[3] = {d_pos, d_neg, d_lg2};
  for (int k = 0; k < 3; ++k) {
    CHECK_CUDA(cudaMemcpy(h.data(), bufs[k], n * 4, cudaMemcpyDeviceToHost));
    FILE* f = std::fopen((dir + "/" + names[k]).c_str(), "wb");
    if (!f || std::fwrite(h.data(), 4, n, f) != n) {
      std::fprintf(stderr, "cannot write %s\n", names[k]);
      return 2;
    }
    std::fclose(f);
  }
  unsigned long long* d_counts;
  CHECK_CUDA(cudaMalloc(&d_counts, 8 * sizeof(unsigned long long)));
  CHECK_CUDA(cudaMemset(d_counts, 0, 8 * sizeof(unsigned long long)));
  for (std::uint64_t c = 0; c < 16; ++c)
    rules<<<(1u << 28) / 256, 256>>>(static_cast<std::uint32_t>(c << 28), d_pos, d_neg, d_counts);
  CHECK_CUDA(cudaDeviceSynchronize());
  unsigned long long counts[8];
  CHECK_CUDA(cudaMemcpy(counts, d_counts, sizeof counts, cudaMemcpyDeviceToHost));
  std::printf("{\"check\": \"ex2.approx.f32 == ex2.approx.ftz.f32 on (-126, 128)\", \"mismatches\": %llu}\n", counts[0]);
  std::printf("{\"check\": \"a >= 0: ex2(a) == ldexp(T+[floor(frac(a) 2^23)], floor(a))\", \"inputs\": %llu, \"mismatches\": %llu}\n",
              counts[1], counts[2]);
  std::printf("{\"check\": \"a < 0: the same rule\", \"inputs\": %llu, \"mismatches\": %llu}\n", counts[3], counts[4]);
  std::printf("{\"check\": \"a < 0: ldexp(T-[floor(frac(-a) 2^23)], -floor(-a))\", \"inputs\": %llu, \"mismatches\": %llu}\n",
              counts[3], counts[5]);
  return 0;
}
