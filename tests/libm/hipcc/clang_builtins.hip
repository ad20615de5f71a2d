// clang's own binary32 exp/log family for AMDGPU, one kernel per function: the
// reference that samebits::hipcc reproduces (issue: hipcc personality). Under
// ROCm >= 6, HIP's expf() and friends reach these builtins through OCML
// (expected, not verified here: no ROCm device library on this machine).
// Compiled device-only by libm/tools/dump_hipcc_sequences.sh.
extern "C" __attribute__((global)) void k_expf(float* p) { p[0] = __builtin_expf(p[0]); }
extern "C" __attribute__((global)) void k_exp2f(float* p) { p[0] = __builtin_exp2f(p[0]); }
extern "C" __attribute__((global)) void k_exp10f(float* p) { p[0] = __builtin_exp10f(p[0]); }
extern "C" __attribute__((global)) void k_logf(float* p) { p[0] = __builtin_logf(p[0]); }
extern "C" __attribute__((global)) void k_log2f(float* p) { p[0] = __builtin_log2f(p[0]); }
extern "C" __attribute__((global)) void k_log10f(float* p) { p[0] = __builtin_log10f(p[0]); }
