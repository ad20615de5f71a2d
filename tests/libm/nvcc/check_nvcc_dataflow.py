#!/usr/bin/env python3
"""samebits::nvcc computes what CUDA's own functions compute.

Compiles tests/libm/nvcc/dataflow_kernels.cu to PTX with nvcc (sm_90) with
default flags, -ftz=true and -use_fast_math. CUDA's expf ... log10f and
__expf ... __log2f of the default build are what samebits::nvcc::* and
samebits::nvcc::fast::* reproduce; CUDA's functions of the -ftz=true build
are what samebits::nvcc::ftz::* reproduce. Ours must match in every build
(the user's flags must not change them). ptx_dataflow.py compares the stored value's
expression graph of each pair. Negative controls: a one-ulp change planted
in one constant of our PTX, and the exp constant placed in the log kernel's
place, must each be reported as different.

Exit 77 (meson: skipped) when nvcc is absent.
"""
import os, re, shutil, subprocess, sys, tempfile

here = os.path.dirname(os.path.abspath(__file__))
include, source = sys.argv[1], sys.argv[2]
nvcc = shutil.which('nvcc') or ('/usr/local/cuda/bin/nvcc' if os.path.exists('/usr/local/cuda/bin/nvcc') else None)
if not nvcc:
    print('nvcc not found: skipped')
    sys.exit(77)
checker = [sys.executable, os.path.join(here, 'ptx_dataflow.py')]


def ptx(flags, d, tag):
    out = os.path.join(d, f'{tag}.ptx')
    cmd = [nvcc, '-arch=sm_90', '-O3', '-std=c++20', '-I', include, '-ptx', source, '-o', out, *flags]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        print(' '.join(cmd)); print(r.stderr); sys.exit(1)
    return out


def same(a, ka, b, kb):
    r = subprocess.run(checker + [a, ka, b, kb], capture_output=True, text=True)
    print(r.stdout.strip())
    return r.returncode == 0


FUNCS = ['expf', 'exp2f', 'exp10f', 'logf', 'log2f', 'log10f']
FAST = ['__expf', '__exp10f', '__logf', '__log2f']
status = 0
pairs = 0
with tempfile.TemporaryDirectory() as d:
    ref = ptx([], d, 'default')
    ref_ftz = ptx(['-ftz=true'], d, 'cuda_ftz')
    for flags, tag in [([], 'default'), (['-ftz=true'], 'ftz'), (['-use_fast_math'], 'fast')]:
        ours = ptx(flags, d, 'ours_' + tag)
        for fn in FUNCS + FAST:
            print(f'[{tag} build] nvcc:  ', end='')
            pairs += 1
            if not same(ref, f'k_cuda_{fn}', ours, f'k_ours_{fn}'):
                status = 1
        for fn in FUNCS:
            print(f'[{tag} build] nvcc::ftz vs CUDA -ftz=true: ', end='')
            pairs += 1
            if not same(ref_ftz, f'k_cuda_{fn}', ours, f'k_oursftz_{fn}'):
                status = 1
    # Negative controls on our default-flags PTX.
    text = open(ref).read()
    for fn, const in (('expf', '0f32A57060'), ('logf', '0f3EAAAA78')):
        body = re.search(r'\.entry k_ours_' + fn + r'\(.*?\n\}', text, re.S).group(0)
        assert const in body, (fn, const)
        planted_const = '0f%08X' % (int(const[2:], 16) + 1)
        planted = text.replace(body, body.replace(const, planted_const))
        p = os.path.join(d, f'planted_{fn}.ptx')
        open(p, 'w').write(planted)
        print(f'[negative control: {const} -> {planted_const}] ', end='')
        if same(ref, f'k_cuda_{fn}', p, f'k_ours_{fn}'):
            print('  NOT caught'); status = 1
        else:
            print('  caught')
    print('[negative control: expf against logf] ', end='')
    if same(ref, 'k_cuda_expf', ref, 'k_ours_logf'):
        status = 1
print(f'{pairs} pairs compared; status {"ok" if status == 0 else "FAILED"}')
sys.exit(status)
