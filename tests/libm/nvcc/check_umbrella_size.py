#!/usr/bin/env python3
"""<samebits/libm.hpp> stays light: its preprocessed size (no line markers,
blank lines dropped) must stay under a bound, in the host compiler's pass and,
where the compilers exist, in nvcc's device pass (sm_90) and clang's HIP device
pass (gfx942). The device passes are measured as the growth over an empty
translation unit of the same compiler (CUDA's own headers are not ours).

    check_umbrella_size.py "CXX..." INCLUDE_DIR

Bound: 150,000 bytes in each pass, about 2x the umbrella today (59 to 70 KB);
before the MUFU tables left the headers (issue 15) it was 10.6 MB. Negative
control: a copy of the include tree whose libm.hpp pulls in 200 KB more (a
table as the MUFU tables were) must fail the same check.
"""
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

BOUND = 150_000
cxx, include = shlex.split(sys.argv[1]), sys.argv[2]
nvcc = shutil.which('nvcc') or ('/usr/local/cuda/bin/nvcc' if os.path.exists('/usr/local/cuda/bin/nvcc') else None)
clang = shutil.which('clang++-22')


def nonblank(text):
    return sum(len(line) + 1 for line in text.splitlines() if line.strip())


def preprocess(cmd, source, suffix):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'u' + suffix)
        with open(path, 'w') as f:
            f.write(source)
        p = subprocess.run(cmd + [path], capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f'preprocessing failed: {shlex.join(cmd)}\n{p.stderr[-3000:]}')
        return nonblank(p.stdout)


def sizes(inc):
    """(pass, bytes) for each pass available here."""
    user = '#include <samebits/libm.hpp>\n'
    out = [('host ' + os.path.basename(cxx[0]), preprocess(cxx + ['-std=c++20', '-E', '-P', '-I', inc, '-x', 'c++'], user, '.cpp'))]
    if nvcc:
        cmd = [nvcc, '-arch=sm_90', '-std=c++20', '-E', '-Xcompiler', '-P', '-I', inc]  # -E with -arch: the device pass (__CUDA_ARCH__=900)
        k = '__global__ void k(float* p) { p[0] = 0; }\n'
        out.append(('nvcc device (sm_90)', preprocess(cmd, user + k, '.cu') - preprocess(cmd, k, '.cu')))
    if clang:
        cmd = [clang, '-x', 'hip', '--offload-arch=gfx942', '--cuda-device-only', '-nogpulib', '-nogpuinc',
               '-std=c++20', '-E', '-P', '-I', inc]
        out.append(('clang HIP device (gfx942)', preprocess(cmd, user, '.hip') - preprocess(cmd, '\n', '.hip')))
    return out


def over(inc):
    return [(name, n) for name, n in sizes(inc) if n > BOUND]


real = sizes(include)
for name, n in real:
    print(f'{name}: {n} bytes (bound {BOUND})')
bad = [(name, n) for name, n in real if n > BOUND]

with tempfile.TemporaryDirectory() as d:
    planted = os.path.join(d, 'include')
    shutil.copytree(include, planted)
    umbrella = os.path.join(planted, 'samebits', 'libm.hpp')
    with open(os.path.join(planted, 'samebits', 'planted_table.hpp'), 'w') as f:
        f.write('#pragma once\ninline constexpr char planted_table[] =\n')
        for _ in range(2000):
            f.write('    "' + 'x' * 100 + '"\n')
        f.write('    ;\n')
    with open(umbrella, 'a') as f:
        f.write('#include "samebits/planted_table.hpp"\n')
    caught = over(planted)
    print(f'negative control (libm.hpp + a 200 KB table): over the bound in {len(caught)} of {len(real)} passes')

if bad:
    sys.exit(f'<samebits/libm.hpp> preprocesses past the bound: {bad}')
if len(caught) != len(real):
    sys.exit('negative control: the planted table was not caught in every pass')
