// tests/device/kernels/check_common.cuh — what the device check programs
// (attention_check.cu, sparse_mla_check.cu) share: error macros, host tensors
// in a dtype (encodings and exact widening), device buffers, the encoding
// comparison with its digest, and the flipped-bit negative control.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "samebits/kernels/attention/api.hpp"
#include "samebits/kernels/dtype.hpp"

#define CHECK_CUDA(call)                                                                                  \
  do {                                                                                                    \
    cudaError_t err_ = (call);                                                                            \
    if (err_ != cudaSuccess) {                                                                            \
      std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorString(err_), __FILE__, __LINE__, \
                   #call);                                                                                \
      std::exit(2);                                                                                       \
    }                                                                                                     \
  } while (0)

#define CHECK_STATUS(call)                                                                      \
  do {                                                                                          \
    const samebits::kernels::attention::Status st_ = (call);                                                              \
    if (!st_.ok()) {                                                                            \
      std::fprintf(stderr, "%s at %s:%d: %s\n", #call, __FILE__, __LINE__, st_.message.c_str()); \
      std::exit(2);                                                                             \
    }                                                                                           \
    CHECK_CUDA(cudaGetLastError());                                                             \
  } while (0)

namespace check {

namespace sk = samebits::kernels;

std::uint64_t fnv1a(const void* data, std::size_t n) {
  const auto* b = static_cast<const unsigned char*>(data);
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

std::string hex(std::uint64_t x) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(x));
  return buf;
}

// A tensor in a dtype: raw encodings, and its exact binary32 widening.
struct HostTensor {
  sk::DType t = sk::DType::f32;
  std::vector<unsigned char> bytes;
  std::int64_t n = 0;
  void resize(sk::DType dt, std::int64_t count) {
    t = dt;
    n = count;
    bytes.assign(static_cast<std::size_t>(count * sk::dtype_size(dt)), 0);
  }
  void set(std::int64_t i, float x) { sk::store_from_f32(bytes.data(), t, i, x); }
  float get(std::int64_t i) const { return sk::load_as_f32(bytes.data(), t, i); }
  std::vector<float> widened() const {
    std::vector<float> w(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) w[i] = get(i);
    return w;
  }
  std::uint32_t encoding(std::int64_t i) const {
    if (sk::dtype_size(t) == 4) {
      std::uint32_t u;
      std::memcpy(&u, bytes.data() + 4 * i, 4);
      return u;
    }
    std::uint16_t u;
    std::memcpy(&u, bytes.data() + 2 * i, 2);
    return u;
  }
};

HostTensor random_tensor(sk::DType t, std::int64_t n, std::mt19937_64& rng) {
  std::normal_distribution<float> nd(0.0f, 1.0f);
  HostTensor h;
  h.resize(t, n);
  for (std::int64_t i = 0; i < n; ++i) h.set(i, nd(rng));
  return h;
}

HostTensor rounded(sk::DType t, const std::vector<float>& x) {
  HostTensor h;
  h.resize(t, static_cast<std::int64_t>(x.size()));
  for (std::size_t i = 0; i < x.size(); ++i) h.set(static_cast<std::int64_t>(i), x[i]);
  return h;
}

struct DeviceBuffer {
  void* ptr = nullptr;
  std::size_t bytes = 0;
  explicit DeviceBuffer(std::size_t b) : bytes(b) {
    CHECK_CUDA(cudaMalloc(&ptr, std::max<std::size_t>(b, 16)));
    CHECK_CUDA(cudaMemset(ptr, 0xff, std::max<std::size_t>(b, 16)));
  }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void upload(const void* src) { if (bytes) CHECK_CUDA(cudaMemcpy(ptr, src, bytes, cudaMemcpyHostToDevice)); }
  void poison() { CHECK_CUDA(cudaMemset(ptr, 0xff, std::max<std::size_t>(bytes, 16))); }
  template <class T>
  T* as() const { return static_cast<T*>(ptr); }
};

// Mismatched encodings between a GPU tensor (copied back) and the expected one.
struct Compare {
  std::int64_t mismatches = 0;
  std::int64_t first = -1;
  std::uint32_t got = 0, want = 0;
  std::uint64_t digest = 0;
};

Compare compare(const DeviceBuffer& dev, const HostTensor& want) {
  HostTensor got;
  got.resize(want.t, want.n);
  if (want.n) CHECK_CUDA(cudaMemcpy(got.bytes.data(), dev.ptr, got.bytes.size(), cudaMemcpyDeviceToHost));
  Compare c;
  for (std::int64_t i = 0; i < want.n; ++i) {
    if (got.encoding(i) != want.encoding(i)) {
      if (c.first < 0) {
        c.first = i;
        c.got = got.encoding(i);
        c.want = want.encoding(i);
      }
      ++c.mismatches;
    }
  }
  c.digest = fnv1a(got.bytes.data(), got.bytes.size());
  return c;
}

// Negative control: flip the lowest bit of element i in device memory, compare
// again (must be exactly one more mismatch when i matched, one fewer when it
// did not), then restore.
bool control(const DeviceBuffer& dev, const HostTensor& want, std::int64_t i, std::int64_t before) {
  if (want.n == 0) return true;
  const int es = sk::dtype_size(want.t);
  unsigned char* addr = dev.as<unsigned char>() + i * es;
  unsigned char byte;
  CHECK_CUDA(cudaMemcpy(&byte, addr, 1, cudaMemcpyDeviceToHost));  // little-endian: lowest bit of the element
  const unsigned char flipped = byte ^ 1u;
  CHECK_CUDA(cudaMemcpy(addr, &flipped, 1, cudaMemcpyHostToDevice));
  HostTensor got;
  got.resize(want.t, want.n);
  CHECK_CUDA(cudaMemcpy(got.bytes.data(), dev.ptr, got.bytes.size(), cudaMemcpyDeviceToHost));
  std::int64_t after = 0;
  for (std::int64_t k = 0; k < want.n; ++k) after += got.encoding(k) != want.encoding(k);
  CHECK_CUDA(cudaMemcpy(addr, &byte, 1, cudaMemcpyHostToDevice));
  return after == before + 1 || after == before - 1;
}

}  // namespace check
