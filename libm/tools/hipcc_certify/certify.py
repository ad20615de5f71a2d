#!/usr/bin/env python3
"""check_hipcc_dataflow — certifies samebits::hipcc's AMD device path without a GPU.

For each compiler, target and floating-point mode, compiles
tests/libm/hipcc/dataflow_kernels.hip twice (clang's own __builtin_expf ...,
and samebits::hipcc::Functions<MODE, VERSION>), device only, and compares
with amdgpu_dataflow.py the dataflow of every function alone (k_F) and in a
refolding context (c_F). Negative controls, each of which must be reported
as different: a planted one-ulp change of a constant in our code (expf's
0x32a5705f and logf's 0x3377d1cf, edited in the assembly), a swapped
operation order (x_swapped_expf), and our expf without its value barrier in
the refolding context (x_nobarrier_expf); the last two in the modes whose expf
has the split reduction they alter (not afn).

  check_hipcc_dataflow.py INCLUDE_DIR KERNELS.hip [--json FILE] [--no-fail]
(--no-fail: exit 0 after writing the result, for the build step that records
it for `samebits report`; the test runs without it.)
Compilers: clang++-22 (gfx942, gfx950; our clang-22 sequences) and clang++-19
(gfx942; our clang-19 sequences), each where installed; a missing clang++-22
is an error, a missing clang++-19 is reported as not run. Exit 0: every pair
equal and every control caught.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import amdgpu_dataflow  # noqa: E402

FUNCS = ['expf', 'exp2f', 'exp10f', 'logf', 'log2f', 'log10f']
MODES = {'ieee': [], 'afn': ['-fapprox-func'], 'daz': ['-fgpu-flush-denormals-to-zero']}
CONFIGS = [('clang++-22', 'gfx942', 'v22'), ('clang++-22', 'gfx950', 'v22'), ('clang++-19', 'gfx942', 'v19')]


def compile_hip(cc, arch, flags, defines, inc, src, out):
    cmd = [cc, '-std=c++20', '-x', 'hip', f'--offload-arch={arch}', '--cuda-device-only', '-nogpulib', '-nogpuinc',
           '-O3', '-I', inc, *flags, *defines, '-S', src, '-o', out]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f'compile failed: {" ".join(cmd)}\n{r.stderr}')


def graph(path, kernel):
    return amdgpu_dataflow.graph(open(path).read(), kernel)


def main():
    args = sys.argv[1:]
    json_out = None
    no_fail = '--no-fail' in args
    if no_fail:
        args.remove('--no-fail')
    if '--json' in args:
        i = args.index('--json')
        json_out = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    inc, src = args
    if not shutil.which('clang++-22'):
        print('clang++-22 not found', file=sys.stderr)
        return 2
    rows, failures = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for cc, arch, version in CONFIGS:
            if not shutil.which(cc):
                print(f'{cc} {arch}: not run ({cc} not installed)')
                rows.append({'compiler': cc, 'target': arch, 'status': 'not run'})
                continue
            ver = subprocess.run([cc, '--version'], capture_output=True, text=True).stdout.splitlines()[0]
            for mode, flags in MODES.items():
                theirs = os.path.join(tmp, f'theirs_{cc}_{arch}_{mode}.s')
                ours = os.path.join(tmp, f'ours_{cc}_{arch}_{mode}.s')
                compile_hip(cc, arch, flags, ['-DTHEIRS'], inc, src, theirs)
                compile_hip(cc, arch, flags, [f'-DMODE={mode}', f'-DVERSION={version}'], inc, src, ours)
                for f in FUNCS:
                    for ctx in ('k', 'c'):
                        same = graph(theirs, f'{ctx}_{f}') == graph(ours, f'{ctx}_{f}')
                        failures += not same
                        rows.append({'compiler': ver, 'target': arch, 'mode': mode, 'function': f,
                                     'context': 'alone' if ctx == 'k' else 'refolding', 'same_dataflow': same})
                        if not no_fail or not same:
                            print(f'{cc} {arch} {mode:4} {f:6} {"alone    " if ctx == "k" else "refolding"} '
                                  f'{"same dataflow" if same else "DIFFERENT"}')
                # Negative controls: each must be reported as different.
                text = open(ours).read()
                controls = []
                for kernel, const, planted in (('k_expf', '0x32a5705f', '0x32a57060'),
                                               ('k_logf', '0x3377d1cf', '0x3377d1d0')):
                    if mode == 'afn' and kernel == 'k_logf':
                        const, planted = '0x3f317218', '0x3f317219'
                    if mode == 'afn' and kernel == 'k_expf':
                        const, planted = '0x3fb8aa3b', '0x3fb8aa3c'
                    if const not in text:
                        sys.exit(f'control: {const} not in our {kernel} ({cc} {arch} {mode})')
                    p = os.path.join(tmp, 'planted.s')
                    open(p, 'w').write(text.replace(const, planted))
                    controls.append((f'one-ulp change {const} -> {planted} in {kernel}',
                                     graph(theirs, kernel) != graph(p, kernel)))
                # The next two concern the split reduction of expf, which afn does not use.
                if mode != 'afn':
                    controls.append(('swapped operation order (x_swapped_expf)',
                                     graph(theirs, 'c_expf') != graph(ours, 'x_swapped_expf')))
                    controls.append(('expf without its value barrier, refolding context (x_nobarrier_expf)',
                                     graph(theirs, 'c_expf') != graph(ours, 'x_nobarrier_expf')))
                for what, caught in controls:
                    failures += not caught
                    rows.append({'compiler': ver, 'target': arch, 'mode': mode, 'negative_control': what,
                                 'caught': caught})
                    if not no_fail or not caught:
                        print(f'{cc} {arch} {mode:4} control: {what}: {"caught" if caught else "NOT CAUGHT"}')
    if json_out:
        with open(json_out, 'w') as fh:
            json.dump(rows, fh, indent=1)
    print(f'{failures} failure(s)')
    return 1 if failures and not no_fail else 0


if __name__ == '__main__':
    sys.exit(main())
