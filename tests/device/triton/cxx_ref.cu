// tests/device/triton/cxx_ref.cu — the C++ side of the samebits.triton checks,
// built as a shared library that triton_bitwise.py calls through ctypes on
// torch's device buffers (same process, same GPU, same inputs):
//   sb_apply(name, x, y, n)        y[i] = F(x[i]) for F named "nvcc.expf",
//                                  "nvcc.ftz.logf", "nvcc.fast.expf", "cr.log2f",
//                                  "cuda.expf", "cuda.__expf", ...; and F in
//                                  context: "ctx.nvcc.expf" = F(x) + x,
//                                  "ctxrn.nvcc.expf" = __fadd_rn(F(x), x)
//   sb_softmax(which, x, y, rows)  row softmax over rows of kCols floats:
//                                  which 0: samebits::nvcc::expf, 1: CUDA's __expf
// Built twice: default flags (libsb_ref.so) and -ftz=true (libsb_ref_ftz.so,
// for CUDA's own -ftz=true functions). Returns 0, or 2 for an unknown name
// (the caller stops: nothing is compared against an unknown function).
#include <cstring>

#include <samebits/libm.hpp>

namespace {

constexpr int kThreads = 256;

template <float (*F)(float)>
__global__ void apply_kernel(const float* __restrict__ x, float* __restrict__ y, long long n) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n; i += stride) y[i] = F(x[i]);
}

// CUDA's own functions, wrapped so they can be template arguments.
__device__ float cuda_expf(float x) { return expf(x); }
__device__ float cuda_exp2f(float x) { return exp2f(x); }
__device__ float cuda_exp10f(float x) { return exp10f(x); }
__device__ float cuda_logf(float x) { return logf(x); }
__device__ float cuda_log2f(float x) { return log2f(x); }
__device__ float cuda_log10f(float x) { return log10f(x); }
__device__ float cuda_fast_expf(float x) { return __expf(x); }
__device__ float cuda_fast_exp10f(float x) { return __exp10f(x); }
__device__ float cuda_fast_logf(float x) { return __logf(x); }
__device__ float cuda_fast_log2f(float x) { return __log2f(x); }

// The function in context: its result consumed by an add, written plainly
// (the compiler may contract the function's last multiply into the add, as
// it does for CUDA's own expf) and with __fadd_rn (no contraction possible).
template <float (*F)(float)>
__global__ void context_kernel(const float* __restrict__ x, float* __restrict__ y, long long n) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n; i += stride) y[i] = F(x[i]) + x[i];
}
template <float (*F)(float)>
__global__ void context_rn_kernel(const float* __restrict__ x, float* __restrict__ y, long long n) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n; i += stride)
    y[i] = __fadd_rn(F(x[i]), x[i]);
}

using Fn = void (*)(const float*, float*, long long);
template <float (*F)(float)>
void launch(const float* x, float* y, long long n) {
  apply_kernel<F><<<132 * 16, kThreads>>>(x, y, n);
}
template <float (*F)(float)>
void launch_context(const float* x, float* y, long long n) {
  context_kernel<F><<<132 * 16, kThreads>>>(x, y, n);
}
template <float (*F)(float)>
void launch_context_rn(const float* x, float* y, long long n) {
  context_rn_kernel<F><<<132 * 16, kThreads>>>(x, y, n);
}

struct Entry {
  const char* name;
  Fn fn;
};

#define SB_SIX(prefix, ns)                                                                           \
  {prefix "expf", launch<ns::expf>}, {prefix "exp2f", launch<ns::exp2f>},                           \
      {prefix "exp10f", launch<ns::exp10f>}, {prefix "logf", launch<ns::logf>},                     \
      {prefix "log2f", launch<ns::log2f>}, {prefix "log10f", launch<ns::log10f>}

const Entry kEntries[] = {
    SB_SIX("nvcc.", samebits::nvcc),
    SB_SIX("nvcc.ftz.", samebits::nvcc::ftz),
    SB_SIX("cr.", samebits::cr),
    {"nvcc.fast.expf", launch<samebits::nvcc::fast::expf>},
    {"nvcc.fast.exp10f", launch<samebits::nvcc::fast::exp10f>},
    {"nvcc.fast.logf", launch<samebits::nvcc::fast::logf>},
    {"nvcc.fast.log2f", launch<samebits::nvcc::fast::log2f>},
    {"cuda.expf", launch<cuda_expf>},
    {"cuda.exp2f", launch<cuda_exp2f>},
    {"cuda.exp10f", launch<cuda_exp10f>},
    {"cuda.logf", launch<cuda_logf>},
    {"cuda.log2f", launch<cuda_log2f>},
    {"cuda.log10f", launch<cuda_log10f>},
    {"cuda.__expf", launch<cuda_fast_expf>},
    {"cuda.__exp10f", launch<cuda_fast_exp10f>},
    {"cuda.__logf", launch<cuda_fast_logf>},
    {"cuda.__log2f", launch<cuda_fast_log2f>},
    // F(x) + x, plain and with __fadd_rn (the fusion check, docs/libm/triton.md)
    {"ctx.nvcc.expf", launch_context<samebits::nvcc::expf>},
    {"ctx.nvcc.exp10f", launch_context<samebits::nvcc::exp10f>},
    {"ctx.cuda.expf", launch_context<cuda_expf>},
    {"ctx.cuda.exp10f", launch_context<cuda_exp10f>},
    {"ctxrn.nvcc.expf", launch_context_rn<samebits::nvcc::expf>},
    {"ctxrn.nvcc.exp10f", launch_context_rn<samebits::nvcc::exp10f>},
    {"ctx.nvcc.fast.logf", launch_context<samebits::nvcc::fast::logf>},
    {"ctx.cuda.__logf", launch_context<cuda_fast_logf>},
    {"ctxrn.nvcc.fast.logf", launch_context_rn<samebits::nvcc::fast::logf>},
};

// Row softmax with the reduction order samebits.triton's test kernel uses
// (tests/device/triton/triton_bitwise.py, docs/libm/triton.md):
//   m = max of the row (exact in any order);  e[j] = EXP(x[j] - m);
//   s = pairwise tree over adjacent elements: level 1 adds e[2i] + e[2i+1],
//       each next level adds adjacent pairs of the previous one (10 levels);
//   y[j] = e[j] / s, rounded to nearest (div.rn).
constexpr int kCols = 1024;
static_assert((kCols & (kCols - 1)) == 0, "the pairwise tree needs a power-of-two row");

template <float (*EXP)(float)>
__global__ void softmax_kernel(const float* __restrict__ x, float* __restrict__ y) {
  __shared__ float e[kCols];
  __shared__ float part[kThreads];
  const float* row = x + static_cast<long long>(blockIdx.x) * kCols;
  float m = -INFINITY;
  for (int j = threadIdx.x; j < kCols; j += kThreads) m = fmaxf(m, row[j]);
  part[threadIdx.x] = m;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + s]);
    __syncthreads();
  }
  m = part[0];
  for (int j = threadIdx.x; j < kCols; j += kThreads) e[j] = EXP(row[j] - m);
  __syncthreads();
  // The tree in place: level with `width` sums left reads e[2i], e[2i+1]
  // (i < width) into registers, then, after a barrier, writes e[i].
  for (int width = kCols / 2; width >= 1; width /= 2) {
    float v[kCols / 2 / kThreads + 1];
    int k = 0;
    for (int i = threadIdx.x; i < width; i += kThreads) v[k++] = __fadd_rn(e[2 * i], e[2 * i + 1]);
    __syncthreads();
    k = 0;
    for (int i = threadIdx.x; i < width; i += kThreads) e[i] = v[k++];
    __syncthreads();
  }
  const float s = e[0];
  __syncthreads();
  for (int j = threadIdx.x; j < kCols; j += kThreads)
    y[static_cast<long long>(blockIdx.x) * kCols + j] = __fdiv_rn(EXP(row[j] - m), s);
}

}  // namespace

extern "C" int sb_apply(const char* name, const float* x, float* y, long long n) {
  for (const Entry& e : kEntries)
    if (std::strcmp(e.name, name) == 0) {
      e.fn(x, y, n);
      return cudaDeviceSynchronize() == cudaSuccess ? 0 : 3;
    }
  return 2;
}

extern "C" int sb_softmax_cols() { return kCols; }

extern "C" int sb_softmax(int which, const float* x, float* y, int rows) {
  if (which == 0) softmax_kernel<samebits::nvcc::expf><<<rows, kThreads>>>(x, y);
  else if (which == 1) softmax_kernel<cuda_fast_expf><<<rows, kThreads>>>(x, y);
  else return 2;
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 3;
}
