#!/usr/bin/env python3
"""certify — samebits::hipcc's AMD device path emits clang's own code, without a GPU.

For each compiler, target and floating-point mode, compiles KERNELS.hip
(kernels.hip next to this file) twice — clang's own __builtin_expf ..., and
samebits::hipcc::Functions<MODE, VERSION> — device only, and compares with
amdgpu_code.py every function alone (k_F: load, call, store) and in a
refolding context (c_F: arithmetic before and after the call):

  code      the strict comparison: the instruction multiset (opcode with its
            encoding, modifiers, operand kinds: VGPR / SGPR / literal / inline
            constant), the count of VALU instructions, and the instruction
            graph whose leaves say where each constant lives — equal up to
            register names and scheduling. Wait states (s_nop) are reported.
  dataflow  the lenient comparison this check made before (constants by
            value wherever they live, copies looked through): reported.

One difference is known and allowed, exactly: clang 22's exp2f alone on a
uniform input (k_exp2f, ieee and afn) — the exponent of its v_ldexp_f32 passes
a "+v" asm barrier (amdgcn_ops.hpp: LLVM would otherwise rewrite
ldexp(y, c ? -64 : 0) into a select of multiplies), so ours copies the
uniform exponent into a VGPR (one v_mov_b32 more) where clang reads the SGPR.
Anything else, or that difference anywhere else, fails.

Hardening: our code compiled with -ffp-contract=fast (which changes clang's
own expf and logf) is compared with clang's code under HIP's defaults.

Negative controls, each of which must be reported as different by the code
comparison: a planted one-ulp change of a constant in our code (expf's
0x32a5705f and logf's 0x3377d1cf, edited in the assembly), a swapped
operation order (x_swapped_expf), our expf without its value barrier in the
refolding context (x_nobarrier_expf), and logf with the finite test as it
was before (x_oldinf_logf: +inf behind a "+v" barrier, one v_mov_b32 more;
the dataflow comparison does not see it, and the row records that).

  certify.py INCLUDE_DIR KERNELS.hip [--json FILE] [--no-fail]
(--no-fail: exit 0 after writing the result, for the build step that records
it for `samebits report`; the test runs without it.)
Compilers: clang++-22 (gfx942, gfx950; our clang-22 sequences) and clang++-19
(gfx942; our clang-19 sequences), each where installed; a missing clang++-22
is an error, a missing clang++-19 is reported as not run. Exit 0: every pair
equal (or the known difference, exactly) and every control caught.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import amdgpu_code  # noqa: E402

FUNCS = ['expf', 'exp2f', 'exp10f', 'logf', 'log2f', 'log10f']
MODES = {'ieee': [], 'afn': ['-fapprox-func'], 'daz': ['-fgpu-flush-denormals-to-zero']}
# ours compiled with these flags on top of the mode's, against clang's code in that mode
HARDENING = {'ieee': ['-ffp-contract=fast']}
CONFIGS = [('clang++-22', 'gfx942', 'v22'), ('clang++-22', 'gfx950', 'v22'), ('clang++-19', 'gfx942', 'v19')]
KNOWN = {('v22', 'ieee', 'k_exp2f'), ('v22', 'afn', 'k_exp2f')}
KNOWN_EXTRA = 'v_mov_b32_e32 v s'


def compile_hip(cc, arch, flags, defines, inc, src, out):
    cmd = [cc, '-std=c++20', '-x', 'hip', f'--offload-arch={arch}', '--cuda-device-only', '-nogpulib', '-nogpuinc',
           '-O3', '-I', inc, *flags, *defines, '-S', src, '-o', out]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f'compile failed: {" ".join(cmd)}\n{r.stderr}')
    return open(out).read()


def without_copies(node):
    """The graph with register copies (v_mov_b32 vN, sM) looked through."""
    if node[0] == 'op':
        if node[1] == 'v_mov_b32_e32' and len(node[2]) == 1:
            return without_copies(node[2][0])
        return ('op', node[1], tuple(without_copies(a) for a in node[2]))
    return tuple(without_copies(c) if isinstance(c, tuple) else c for c in node)


def is_known_difference(theirs, ours, kernel):
    """Ours is theirs plus exactly one copy of an SGPR into a VGPR."""
    a, b = amdgpu_code.profile(theirs, kernel), amdgpu_code.profile(ours, kernel)
    extra = b['multiset'] - a['multiset']
    missing = a['multiset'] - b['multiset']
    if extra.get(KNOWN_EXTRA) != 1 or b['valu'] != a['valu'] + 1:
        return False
    # the one copy changes its consumer's operand kinds (v_ldexp_f32 v v s -> v v v), nothing else
    extra[KNOWN_EXTRA] -= 1
    if sum(extra.values()) != 1 or sum(missing.values()) != 1:
        return False
    return without_copies(amdgpu_code.code_graph(theirs, kernel)) == without_copies(amdgpu_code.code_graph(ours, kernel))


def compare(theirs, tk, ours, ok):
    same, diffs = amdgpu_code.code_equal(theirs, tk, ours, ok)
    pa, pb = amdgpu_code.profile(theirs, tk), amdgpu_code.profile(ours, ok)
    return same, diffs, pa, pb


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

    def report(ok, line):
        if not no_fail or not ok:
            print(line)

    with tempfile.TemporaryDirectory() as tmp:
        for cc, arch, version in CONFIGS:
            if not shutil.which(cc):
                print(f'{cc} {arch}: not run ({cc} not installed)')
                rows.append({'compiler': cc, 'target': arch, 'status': 'not run'})
                continue
            ver = subprocess.run([cc, '--version'], capture_output=True, text=True).stdout.splitlines()[0]
            for mode, flags in MODES.items():
                theirs = compile_hip(cc, arch, flags, ['-DTHEIRS'], inc, src, os.path.join(tmp, f'theirs_{mode}.s'))
                ours_defs = [f'-DMODE={mode}', f'-DVERSION={version}']
                ours = compile_hip(cc, arch, flags, ours_defs, inc, src, os.path.join(tmp, f'ours_{mode}.s'))
                variants = [('', ours)]
                if mode in HARDENING:
                    hard = HARDENING[mode]
                    variants.append((' '.join(hard), compile_hip(cc, arch, flags + hard, ours_defs, inc,
                                                                 src, os.path.join(tmp, f'ours_{mode}_hard.s'))))
                for hardening, text in variants:
                    for f in FUNCS:
                        for ctx in ('k', 'c'):
                            kernel = f'{ctx}_{f}'
                            same, diffs, pa, pb = compare(theirs, kernel, text, kernel)
                            status = 'same code' if same else 'DIFFERENT'
                            if not same and (version, mode, kernel) in KNOWN and is_known_difference(theirs, text, kernel):
                                status, same = 'known: +1 v_mov (uniform exponent)', True
                            dataflow = amdgpu_code.graph(theirs, kernel) == amdgpu_code.graph(text, kernel)
                            failures += not same
                            context = 'alone' if ctx == 'k' else 'refolding'
                            rows.append({'compiler': ver, 'target': arch, 'mode': mode + (f' + ours {hardening}' if hardening else ''),
                                         'function': f, 'context': context, 'same_code': same, 'code': status,
                                         'same_dataflow': dataflow,
                                         'valu': [pa['valu'], pb['valu']], 'instructions': [pa['instructions'], pb['instructions']],
                                         'wait_states': [pa['wait_states'], pb['wait_states']]})
                            report(same, f'{cc} {arch} {mode:4}{" ours " + hardening if hardening else ""} {f:6} {context:9} '
                                   f'{status}; VALU {pa["valu"]}/{pb["valu"]} (clang/ours), wait states '
                                   f'{pa["wait_states"]}/{pb["wait_states"]}' + ''.join(f'\n    {d}' for d in diffs if status == 'DIFFERENT'))
                # Negative controls: each must be reported as different.
                controls = []
                for kernel, const, planted in (('k_expf', '0x32a5705f', '0x32a57060'),
                                               ('k_logf', '0x3377d1cf', '0x3377d1d0')):
                    if mode == 'afn' and kernel == 'k_logf':
                        const, planted = '0x3f317218', '0x3f317219'
                    if mode == 'afn' and kernel == 'k_expf':
                        const, planted = '0x3fb8aa3b', '0x3fb8aa3c'
                    if const not in ours:
                        sys.exit(f'control: {const} not in our {kernel} ({cc} {arch} {mode})')
                    controls.append((f'one-ulp change {const} -> {planted} in {kernel}', theirs, kernel,
                                     ours.replace(const, planted), kernel))
                # The next two concern the split reduction of expf, which afn does not use;
                # the last the finite test of logf, which afn does not have.
                if mode != 'afn':
                    controls.append(('swapped operation order (x_swapped_expf)', theirs, 'c_expf', ours, 'x_swapped_expf'))
                    controls.append(('expf without its value barrier, refolding context (x_nobarrier_expf)',
                                     theirs, 'c_expf', ours, 'x_nobarrier_expf'))
                    controls.append(('logf with +inf behind a "+v" barrier, as before (x_oldinf_logf)',
                                     theirs, 'c_logf', ours, 'x_oldinf_logf'))
                for what, ta, ka, tb, kb in controls:
                    same, diffs, pa, pb = compare(ta, ka, tb, kb)
                    caught = not same
                    dataflow_caught = amdgpu_code.graph(ta, ka) != amdgpu_code.graph(tb, kb)
                    failures += not caught
                    rows.append({'compiler': ver, 'target': arch, 'mode': mode, 'negative_control': what,
                                 'caught': caught, 'caught_by_dataflow': dataflow_caught,
                                 'valu': [pa['valu'], pb['valu']]})
                    report(caught, f'{cc} {arch} {mode:4} control: {what}: {"caught" if caught else "NOT CAUGHT"} '
                           f'(dataflow comparison: {"caught" if dataflow_caught else "not caught"}; VALU {pa["valu"]}/{pb["valu"]})')
    if json_out:
        with open(json_out, 'w') as fh:
            json.dump(rows, fh, indent=1)
    print(f'{failures} failure(s)')
    return 1 if failures and not no_fail else 0


if __name__ == '__main__':
    sys.exit(main())
