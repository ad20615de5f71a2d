#!/usr/bin/env python3
"""samebits::cr in HIP device code uses only IEEE basic arithmetic.

Compiles hip_kernels.hip with clang for each AMD target (device only, no
ROCm headers) and reads every instruction of every kernel. Floating-point
instructions must come from an allow-list of basic operations (fma, add,
mul, exact integer-to-double conversion, scaleB/ldexp); anything else that
touches floating point — v_exp_f32, v_log_f32, v_rcp_*, v_rsq_*, v_sqrt_*,
v_sin/cos, v_div_*, v_frexp_* and the like — fails the check. Integer, move,
compare-on-integer, memory and control instructions are not floating point.

Negative control: the same check run on a kernel that calls __builtin_expf
(clang's own expf, which uses v_exp_f32) must fail.

Exit 77 (meson: skipped) when the compiler is absent.
"""
import os, re, shutil, subprocess, sys, tempfile

clang = sys.argv[1] if len(sys.argv) > 1 else 'clang++-22'
include = sys.argv[2]
source = sys.argv[3]
targets = ['gfx942', 'gfx950']

if shutil.which(clang) is None:
    print(f'{clang} not found: skipped')
    sys.exit(77)

FP_SUFFIX = re.compile(r'_(f16|f32|f64|bf16)(_|$)')
ALLOWED_FP = {
    'v_fma_f64', 'v_fmac_f64', 'v_add_f64', 'v_mul_f64',
    'v_cvt_f64_i32', 'v_cvt_f64_u32',   # exact: 32-bit integers fit in binary64
    'v_ldexp_f64',                       # IEEE 754 scaleB; exact where it is used
    'v_cvt_f64_f32',                     # IEEE 754 convertFormat, widening: exact (normal inputs only)
    'v_cvt_f32_f64',                     # IEEE 754 convertFormat, narrowing: correctly rounded
                                         # (normal results only: no flush can touch them)
}
FORBIDDEN = re.compile(r'^v_(exp|log|rcp|rsq|sqrt|sin|cos|div|frexp|fract|trig|rndne|floor|ceil|trunc)')


def mnemonics(asm_text):
    for line in asm_text.splitlines():
        s = line.strip()
        if not s or s.startswith(('.', ';', '#')) or s.endswith(':'):
            continue
        yield s.split()[0]


def base(m):
    return re.sub(r'_e(32|64|64_dpp|32_dpp|_sdwa)$', '', m)


def check(asm_text):
    bad = set()
    for m in mnemonics(asm_text):
        b = base(m)
        if FORBIDDEN.match(b) or (b.startswith('v_') and FP_SUFFIX.search(b) and b not in ALLOWED_FP):
            if not b.startswith(('v_cmp_', 'v_cndmask', 'v_mov', 'v_readfirstlane')):
                bad.add(b)
    return bad


def compile_for(target, src_path, extra=()):
    cmd = [clang, '-x', 'hip', f'--offload-arch={target}', '--cuda-device-only', '-nogpulib',
           '-nogpuinc', '-O3', '-std=c++20', '-I', include, '-S', '-o', '-', src_path, *extra]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print(' '.join(cmd))
        print(r.stderr)
        sys.exit(1)
    return r.stdout


status = 0
with tempfile.TemporaryDirectory() as d:
    control = os.path.join(d, 'control.hip')
    open(control, 'w').write(
        'extern "C" __attribute__((global)) void k(const float* x, float* y) {\n'
        '  y[0] = __builtin_expf(x[0]); }\n')
    for t in targets:
        asm = compile_for(t, source)
        kernels = len(re.findall(r'^k_\w+:', asm, re.M))
        bad = check(asm)
        fp = sorted({base(m) for m in mnemonics(asm) if FP_SUFFIX.search(base(m))})
        print(f'{t}: {kernels} kernels; floating-point instructions used: {", ".join(fp)}')
        if kernels != 6:
            print(f'{t}: expected 6 kernels, found {kernels}')
            status = 1
        if bad:
            print(f'{t}: FORBIDDEN instructions: {sorted(bad)}')
            status = 1
        ctrl = check(compile_for(t, control))
        if 'v_exp_f32' not in ctrl:
            print(f'{t}: negative control failed: __builtin_expf was not flagged')
            status = 1
        else:
            print(f'{t}: negative control flagged {sorted(ctrl)} as expected')
sys.exit(status)
