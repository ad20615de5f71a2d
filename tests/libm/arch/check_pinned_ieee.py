#!/usr/bin/env python3
"""samebits/libm/arch/ieee.hpp: add_rn, sub_rn, mul_rn, div_rn, fma_rn stay one
IEEE operation each under contraction flags, on the host (x86-64, -O3
-ffp-contract=fast -mfma), NVIDIA (nvcc sm_90, -fmad=true, also -use_fast_math)
and AMDGPU (clang++-22 HIP gfx942, -ffp-contract=fast): a product passed to
add_rn / sub_rn, or mul_rn's result passed to an add, is never fused into an
fma (div_rn is compiled, not counted: AMDGPU's correctly rounded division is
itself a sequence of fmas). Negative control: the same expressions written as
plain C++ are fused by the same compilers, so the check can see a fusion. Targets whose compiler is
missing are skipped; exit 77 if none is present.

    check_pinned_ieee.py "CXX..." INCLUDE_DIR
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

cxx, include = shlex.split(sys.argv[1]), sys.argv[2]
nvcc = shutil.which('nvcc') or ('/usr/local/cuda/bin/nvcc' if os.path.exists('/usr/local/cuda/bin/nvcc') else None)
clang = shutil.which('clang++-22')

# Each function: one pinned form and its plain twin (the control).
BODY = r'''
#include <samebits/libm/arch/ieee.hpp>
namespace a = samebits::arch;
#if PLAIN
#define ADD(x, y) ((x) + (y))
#define SUB(x, y) ((x) - (y))
#define MUL(x, y) ((x) * (y))
#define DIV(x, y) ((x) / (y))
#else
#define ADD(x, y) a::add_rn(x, y)
#define SUB(x, y) a::sub_rn(x, y)
#define MUL(x, y) a::mul_rn(x, y)
#define DIV(x, y) a::div_rn(x, y)
#endif
QUAL float f_add(float x, float y, float z) { return ADD(x * y, z); }
QUAL float f_sub(float x, float y, float z) { return SUB(z, x * y); }
QUAL float f_mul(float x, float y, float z) { return MUL(x, y) + z; }
QUAL float f_div(float x, float, float) { return DIV(x, 3.0f); }  // compiles; not counted
'''
KERNEL = r'''
extern "C" GLOBAL void k(float* p) {
  p[0] = f_add(p[1], p[2], p[3]); p[4] = f_sub(p[5], p[6], p[7]);
  p[8] = f_mul(p[9], p[10], p[11]);
}
'''

targets = []
if re.search(r'x86_64|amd64', subprocess.run(cxx + ['-dumpmachine'], capture_output=True, text=True).stdout):
    targets.append(('host x86-64', '.cpp', cxx + ['-std=c++20', '-O3', '-ffp-contract=fast', '-mfma', '-S', '-DQUAL=',
                                               '-DGLOBAL=', '-o', '-'],
                    r'\bvfn?m(add|sub)\d+ss\b', None))
if nvcc:
    for extra in ([], ['-use_fast_math']):
        targets.append(('nvcc sm_90' + (' -use_fast_math' if extra else ' -fmad=true'), '.cu',
                        [nvcc, '-arch=sm_90', '-std=c++20', '-O3', '-ptx', '-DQUAL=__device__', '-DGLOBAL=__global__',
                         '-o', '-'] + extra, r'\bfma\.rn(\.ftz)?\.f32\b', None))
if clang:
    targets.append(('clang HIP gfx942', '.hip',
                    [clang, '-x', 'hip', '--offload-arch=gfx942', '--cuda-device-only', '-nogpulib', '-nogpuinc',
                     '-std=c++20', '-O3', '-ffp-contract=fast', '-S', '-o', '-', '-DQUAL=__attribute__((device))',
                     '-DGLOBAL=__attribute__((global))'],
                    r'\bv_(fma|fmac|mad|mac|fmaak|fmamk)_f32', None))
if not targets:
    print('no compiler for any target: skipped')
    sys.exit(77)

failed = False
with tempfile.TemporaryDirectory() as d:
    for name, suffix, cmd, fused_re, _ in targets:
        path = os.path.join(d, 'k' + suffix)
        with open(path, 'w') as f:
            f.write(BODY + KERNEL)
        fused = {}
        for plain in (0, 1):
            p = subprocess.run(cmd + ['-I', include, f'-DPLAIN={plain}', path], capture_output=True, text=True)
            if p.returncode != 0:
                print(f'{name}: compile failed\n{p.stderr[-2000:]}')
                sys.exit(1)
            fused[plain] = len(re.findall(fused_re, p.stdout))
        ok = fused[0] == 0 and fused[1] > 0
        print(f'{"ok  " if ok else "FAIL"} {name}: fused multiply-adds: pinned {fused[0]} (must be 0), '
              f'plain C++ {fused[1]} (the control: must be > 0)')
        failed |= not ok
sys.exit(1 if failed else 0)
