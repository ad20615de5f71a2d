// tests/device/kernels/ptx_controls.cu — the PTX check's compiled negative control (check_ptx.py
// --control-ptx / --control-cubin), built with -use_fast_math: each line below is something the
// kernels must never hold, and the check must find every one of them here.
//   a division (-use_fast_math: div.approx.ftz), .ftz arithmetic, a floating-point atomic,
//   expf in an entry named as a cr instantiation (ex2.approx there), and a stack frame (a local
//   array whose address a non-inlined function reads).
struct CrExpLog {};

__device__ __noinline__ float control_pick(const float* a, int i) { return a[i]; }

template <class L>
__global__ void attention_control_kernel(float* p, int i) {
  float a[32];
  for (int j = 0; j < 32; ++j) a[j] = p[j] * p[j + 1];
  p[0] = control_pick(a, i) / p[1];
  atomicAdd(p + 2, expf(p[3]));
}

template __global__ void attention_control_kernel<CrExpLog>(float*, int);
