// CUDA's own binary32 exp/log functions, one kernel each, for reading the
// sequences nvcc inlines: nvcc -arch=sm_90 -O3 -ptx tests/libm/nvcc/cuda_functions.cu -o - [-ftz=true]
extern "C" __global__ void k_expf(const float* x, float* y) { y[threadIdx.x] = expf(x[threadIdx.x]); }
extern "C" __global__ void k_exp2f(const float* x, float* y) { y[threadIdx.x] = exp2f(x[threadIdx.x]); }
extern "C" __global__ void k_exp10f(const float* x, float* y) { y[threadIdx.x] = exp10f(x[threadIdx.x]); }
extern "C" __global__ void k_logf(const float* x, float* y) { y[threadIdx.x] = logf(x[threadIdx.x]); }
extern "C" __global__ void k_log2f(const float* x, float* y) { y[threadIdx.x] = log2f(x[threadIdx.x]); }
extern "C" __global__ void k_log10f(const float* x, float* y) { y[threadIdx.x] = log10f(x[threadIdx.x]); }
extern "C" __global__ void k___expf(const float* x, float* y) { y[threadIdx.x] = __expf(x[threadIdx.x]); }
extern "C" __global__ void k___exp10f(const float* x, float* y) { y[threadIdx.x] = __exp10f(x[threadIdx.x]); }
extern "C" __global__ void k___logf(const float* x, float* y) { y[threadIdx.x] = __logf(x[threadIdx.x]); }
extern "C" __global__ void k___log2f(const float* x, float* y) { y[threadIdx.x] = __log2f(x[threadIdx.x]); }
