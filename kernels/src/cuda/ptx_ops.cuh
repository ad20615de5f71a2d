// kernels/src/cuda/ptx_ops.cuh — the raw instructions the attention kernels
// use beside samebits::arch's pinned IEEE ops (libm/arch/ieee.hpp): IEEE
// maxNum without .ftz (fmaxf may become max.ftz.f32 under -ftz=true, which
// would flush a subnormal score and change m).
#pragma once

#include "samebits/libm/platform.hpp"

namespace samebits::kernels::attention::cuda {

// maxNum: the non-NaN operand when one is NaN, NaN only when both are (§4.2).
SAMEBITS_DEVICE_FUNC float max_num(float a, float b) {
  float d;
  asm("max.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
  return d;
}

// The identity of max_num: a quiet NaN (maxNum(NaN, x) = x for every x, and
// the result stays NaN only when every member's score is NaN, as §4.2 says).
SAMEBITS_DEVICE_FUNC float max_identity() {
  return __int_as_float(0x7fffffff);
}

}  // namespace samebits::kernels::attention::cuda

// ---- ordered accumulation across blocks (§5.2 dq) --------------------------
// A flag a block publishes after its stores (release) and another block reads
// before its loads (acquire), both at GPU scope: the happens-before edge that
// orders one block's dq chain segment after the previous block's. Integer
// flags only; the floating-point data move with plain L2 loads and stores.
SAMEBITS_DEVICE_FUNC int load_acquire_gpu(const int* p) {
  int v;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
SAMEBITS_DEVICE_FUNC void store_release_gpu(int* p, int v) {
  asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
// 16-byte load and store at L2 (.cg: the SM's L1 is not coherent with other
// blocks' stores; the dq accumulators must come from L2).
SAMEBITS_DEVICE_FUNC float4 load_l2(const float* p) {
  float4 v;
  asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(p)
               : "memory");
  return v;
}
SAMEBITS_DEVICE_FUNC void store_l2(float* p, float4 v) {
  asm volatile("st.global.cg.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
               : "memory");
}

// ---- asynchronous global -> shared copies (sm_80+) -------------------------
// 16 bytes from global to shared without registers; committed as a group and
// waited for before the shared data are read.
SAMEBITS_DEVICE_FUNC void cp_async_16(void* smem_dst, const void* gmem_src) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem_dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem_src) : "memory");
}
SAMEBITS_DEVICE_FUNC void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
SAMEBITS_DEVICE_FUNC void cp_async_wait_all() { asm volatile("cp.async.wait_group 0;" ::: "memory"); }
