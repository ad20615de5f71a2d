#!/usr/bin/env python3
"""The attention kernels' SASS (what the GPU runs); needs cuobjdump, no GPU (device suite, meson
test --suite device; skipped, 77, where cuobjdump is missing):

    check_sass.py --cuobjdump CUOBJDUMP --division-cubin DIV.cubin BINARY...
        runs cuobjdump -sass on each BINARY (the kernels' C ABI library holds every kernel) and on
        DIV.cubin (tests/device/kernels/sass_division.cu: one __fdiv_rn, built by Meson)
    check_sass.py sass.txt [--division div.sass]      listings made by hand (cuobjdump -sass)

ptxas writes .FTZ forms in two places that keep IEEE results: integer division (F2I.FTZ.U32.TRUNC
on a reciprocal estimate: an integer result) and the correctly rounded division div.rn.f32 itself,
whose routine (FCHK, then a slow path) uses FADD.FTZ / FSETP.*.FTZ on operands it has scaled. The
division's signature is measured from a kernel that does one __fdiv_rn (--division); the inlined
divisions of a function (one FCHK each) share one slow-path routine. A violation: in an attention
function, .FTZ float instructions (other than F2I) other than exactly one division routine where
the function divides (FCHK present), or any where it does not; MUFU.EX2 / MUFU.LG2 in a cr instantiation; a floating-point
atomic (RED/ATOM ...ADD.F32/F16/BF16). Prints instruction counts and .FTZ per opcode and function
kind; exits 1 on a violation. Planted lines of each kind must be refused (negative controls).
"""
import collections
import os
import re
import shutil
import subprocess
import sys


def ftz_by_function(text):
    """{function: (Counter of .FTZ float opcodes other than F2I, number of FCHK)}"""
    out, name = {}, None
    for line in text.splitlines():
        m = re.search(r'Function : (\S+)', line)
        if m:
            name = m.group(1)
            out[name] = (collections.Counter(), 0)
            continue
        m = re.search(r'/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)', line)
        if not name or not m:
            continue
        op = m.group(1)
        c, n = out[name]
        if op.startswith('FCHK'):
            out[name] = (c, n + 1)
        elif '.FTZ' in op and not op.startswith(('F2I', 'MUFU')):
            c[op] += 1
    return out


DIVISION = collections.Counter({'FADD.FTZ': 2, 'FSETP.GTU.FTZ.AND': 2, 'FSETP.NEU.FTZ.AND': 4})


def check(text, division=None):
    division = division or DIVISION
    bad, counts, funcs, ftz = [], collections.Counter(), 0, collections.Counter()
    for fn, (c, nchk) in ftz_by_function(text).items():
        if 'attention' not in fn:
            continue
        # Every inlined division (one FCHK each) shares one slow-path routine per function.
        expected = division if nchk > 0 else collections.Counter()
        if c != expected:
            bad.append(f'{fn}: .FTZ float ops {dict(c)} != {"the division routine " + str(dict(division)) if nchk else "none (no division)"}')
    name = None
    for line in text.splitlines():
        m = re.search(r'Function : (\S+)', line)
        if m:
            name = m.group(1)
            funcs += 'attention' in name
            continue
        if not name or 'attention' not in name:
            continue
        m = re.search(r'/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)', line)
        if not m:
            continue
        op = m.group(1)
        counts[op.split('.')[0]] += 1
        is_cr = 'CrExpLog' in name
        kind = 'nvcc libm' if 'NvccExpLog' in name else 'cr libm' if is_cr else 'no libm'
        if '.FTZ' in op:
            ftz[(op, kind)] += 1
        if op.startswith(('MUFU.EX2', 'MUFU.LG2')) and is_cr:
            bad.append(f'{name} (cr libm): {op}')
        if op.startswith(('RED', 'ATOM')) and re.search(r'\.(ADD\.)?(F32|F16|BF16|F64|FTZ)', op):
            bad.append(f'{name}: float atomic {op}')
    check.ftz = ftz
    return funcs, counts, bad


def main():
    planted = ['FFMA.FTZ R1, R2, R3, R4 ;', 'FADD.FTZ R1, R2, R3 ;', 'FSETP.GTU.FTZ.AND P0, PT, R1, R2, PT ;',
               'MUFU.EX2 R1, R2 ;', 'RED.E.ADD.F32.FTZ.RN.STRONG.GPU [R2.64], R5 ;']
    ok_controls = True
    for p in planted:
        f, _, b = check(f'\tFunction : _Z9attention_CrExpLog\n        /*0000*/                   {p}\n')
        ok_controls &= bool(b)
    print(f'negative controls: {len(planted)} planted SASS lines {"refused" if ok_controls else "NOT all refused"}')
    division = None
    if '--cuobjdump' in sys.argv:
        tool = sys.argv[sys.argv.index('--cuobjdump') + 1]
        cubin = sys.argv[sys.argv.index('--division-cubin') + 1]
        binaries = [x for i, x in enumerate(sys.argv[1:], 1)
                    if not x.startswith('--') and sys.argv[i - 1] not in ('--cuobjdump', '--division-cubin')]
        if not (shutil.which(tool) or os.access(tool, os.X_OK)):
            print(f'{tool} not found: skipped (the SASS check needs cuobjdump, no GPU)')
            return 77

        def sass(path):
            r = subprocess.run([tool, '-sass', path], capture_output=True, text=True)
            if r.returncode != 0:
                raise SystemExit(f'cuobjdump -sass {path} failed: {r.stderr.strip()[:500]}')
            return r.stdout
        div_text = sass(cubin)
        text = ''.join(sass(b) for b in binaries)
    else:
        div_text = open(sys.argv[sys.argv.index('--division') + 1]).read() if '--division' in sys.argv else None
        text = open(sys.argv[1]).read()
    if div_text is not None:
        d = ftz_by_function(div_text)
        sigs = [c for c, n in d.values() if n == 1]
        if len(sigs) != 1:
            print('--division: expected one function with one FCHK'); return 1
        division = sigs[0]
        print(f'division signature (measured): {dict(division)}')
    funcs, counts, bad = check(text, division)
    print(f'attention functions: {funcs}; instructions by opcode (top): ' +
          ', '.join(f'{k} {v}' for k, v in counts.most_common(12)))
    for (op, kind), n in sorted(check.ftz.items(), key=lambda x: (x[0][1], x[0][0])):
        print(f'  .FTZ {op:28} in {kind:9} functions: {n}')
    for b in bad[:20]:
        print('FAIL', b)
    print(f'violations: {len(bad)}')
    return 0 if (ok_controls and not bad and funcs > 0) else 1


if __name__ == '__main__':
    sys.exit(main())
