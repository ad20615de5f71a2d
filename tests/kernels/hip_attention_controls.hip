// Negative controls of tests/kernels/check_hip_attention.py: tiny kernels,
// compiled with the attention kernels' flags (and once more with
// -fgpu-flush-denormals-to-zero), each planting one thing the checker must
// refuse, and one clean kernel it must accept.
extern "C" __attribute__((global)) void control_clean(float* p, int* flag) {
  p[0] = __builtin_fmaf(p[1], p[2], p[3]);
  __hip_atomic_store(flag, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
}
// A floating-point atomic add in global memory (global_atomic_add_f32).
extern "C" __attribute__((global)) void control_global_float_atomic(float* p) {
  __hip_atomic_fetch_add(p, p[1], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
// A floating-point atomic add in LDS (ds_add_f32 / ds_add_rtn_f32).
extern "C" __attribute__((global)) void control_lds_float_atomic(float* p) {
  __attribute__((shared)) float s[64];
  s[__builtin_amdgcn_workitem_id_x() % 64] = 0.0f;
  __builtin_amdgcn_s_barrier();
  __hip_atomic_fetch_add(&s[0], p[0], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __builtin_amdgcn_s_barrier();
  p[1] = s[0];
}
// An integer atomic outside the ticket (the backward's main kernel only).
extern "C" __attribute__((global)) void control_int_atomic(int* p) {
  __hip_atomic_fetch_add(p, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
// A write of the MODE register: FP32 denormals flushed (s_setreg).
extern "C" __attribute__((global)) void control_setreg_mode(float* p) {
  __builtin_amdgcn_s_setreg(((4 - 1) << 11) | (4 << 6) | 1, 0);  // hwreg(HW_REG_MODE, 4, 4) = 0
  p[0] = p[1] * p[2];
}
