#!/usr/bin/env python3
"""The attention kernels' PTX keeps the contract's arithmetic whatever nvcc's flags (CI, no GPU).

    check_kernel_ptx.py NVCC SOURCE_ROOT [--flags "..."]...

Compiles kernels/src/cuda/attention_launch_{fwd,bwd}.cu to PTX (sm_90) with the default flags and
with -use_fast_math (which implies -ftz=true, -prec-div=false, -prec-sqrt=false, -fmad=true), and
checks every kernel entry: no .ftz outside the nvcc libm's ex2/lg2 (samebits::nvcc::expf uses
ex2.approx.ftz by design: it is what CUDA 13 emits), no div.approx / div.full, no floating-point
atomics (red/atom .add.f*), and no ex2/lg2 at all in the entries instantiated with the cr libm.
Negative controls: a planted line of each kind must be refused. Exit 77 (skip) without nvcc.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor


def violations(text, fast_math=False):
    """fast_math: the build had -use_fast_math. samebits::cr computes in binary64 and converts
    with cvt, which nvcc then writes cvt.ftz; cr routes subnormal inputs and results around those
    conversions, and cr's -use_fast_math build equals its default build on all 2^32 inputs on the
    H200 (device suite, cr_bitwise). So there, and only in cr entries, cvt.ftz is allowed."""
    bad = []
    entries = re.split(r'(?=^\.visible \.entry )', text, flags=re.M)
    for e in entries[1:]:
        name = re.match(r'\.visible \.entry (\S+)\(', e).group(1)
        is_cr = 'CrExpLog' in name
        for ln in e.splitlines():
            s = ln.strip()
            if re.search(r'\bdiv\.(approx|full)\b', s):
                bad.append(f'{name}: {s}')
            if re.search(r'\b(ex2|lg2)\.', s):
                if is_cr:
                    bad.append(f'{name} (cr libm): {s}')
            elif '.ftz' in s and not (fast_math and is_cr and re.match(r'cvt\.(rn\.)?ftz\.f(32|64)\.f(32|64)\b', s)):
                bad.append(f'{name}: {s}')
            if re.search(r'\b(atom|red)\.[a-z.]*add\.f(16|32|64)\b', s) or re.search(r'\b(atom|red)\.[a-z.]*add\.(bf16|f16x2)', s):
                bad.append(f'{name}: floating-point atomic: {s}')
    return len(entries) - 1, bad


PLANTED = [
    ('_Z4kNvccExpLog', 'div.approx.f32 %f1, %f2, %f3;'),
    ('_Z4kNvccExpLog', 'div.full.f32 %f1, %f2, %f3;'),
    ('_Z4kNvccExpLog', 'fma.rn.ftz.f32 %f1, %f2, %f3, %f4;'),
    ('_Z4kNvccExpLog', 'add.ftz.f32 %f1, %f2, %f3;'),
    ('_Z4kCrExpLog', 'ex2.approx.ftz.f32 %f1, %f2;'),
    ('_Z4kCrExpLog', 'lg2.approx.f32 %f1, %f2;'),
    ('_Z4kNvccExpLog', 'atom.global.add.f32 %f1, [%rd1], %f2;'),
    ('_Z4kNvccExpLog', 'red.global.add.f32 [%rd1], %f2;'),
]


def main():
    nvcc, root = sys.argv[1], sys.argv[2]
    if not shutil.which(nvcc) and not os.path.exists(nvcc):
        print('nvcc not found: skipped')
        return 77
    fail = 0
    for entry, line in PLANTED + [('_Z4kNvccExpLog', 'cvt.rn.ftz.f32.f64 %f1, %fd1;')]:
        _, bad = violations(f'.visible .entry {entry}(\n)\n{{\n\t{line}\n}}\n', fast_math=True)
        if not bad:
            print(f'FAIL: negative control not refused: {entry}: {line}')
            fail = 1
    print(f'negative controls: {len(PLANTED) + 1} planted lines, {"all refused" if not fail else "NOT all refused"}')
    units = ['attention_launch_fwd', 'attention_launch_bwd', 'sparse_mla_launch_fwd', 'sparse_mla_launch_bwd']
    builds = {'default': [], '-use_fast_math': ['-use_fast_math']}
    tmp = tempfile.mkdtemp()

    def compile_one(job):
        unit, build = job
        out = os.path.join(tmp, f'{unit}{build}.ptx')
        cmd = [nvcc, '-ptx', '-arch=sm_90', '-std=c++20', '-O3', f'-I{root}/libm/include', f'-I{root}/gpu/include', f'-I{root}/kernels/include', f'-I{root}/kernels/src',
               *builds[build], f'{root}/kernels/src/cuda/{unit}.cu', '-o', out]
        r = subprocess.run(cmd, capture_output=True, text=True)
        return unit, build, r, out

    jobs = [(u, b) for u in units for b in builds]
    with ThreadPoolExecutor(max_workers=2) as ex:
        for unit, build, r, out in ex.map(compile_one, jobs):
            if r.returncode != 0:
                print(f'FAIL: {unit} ({build}) did not compile:\n{r.stderr[-2000:]}')
                fail = 1
                continue
            n, bad = violations(open(out).read(), fast_math=build != 'default')
            print(f'{unit:22} {build:15} entries {n:4}  violations {len(bad)}')
            for b in bad[:10]:
                print('   ', b)
            fail |= bool(bad) or n == 0
    shutil.rmtree(tmp)
    print('kernel PTX: ok' if not fail else 'kernel PTX: FAILED')
    return fail


if __name__ == '__main__':
    sys.exit(main())
