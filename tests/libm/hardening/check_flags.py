#!/usr/bin/env python3
"""Builds hardening_digest with one compiler and one flag set, runs it, and
checks the outcome against the expected one:
  same         every function gives the plain build's bits
  refused:TEXT the build stops with samebits' #error, whose message has TEXT
  startup-ftz  the program starts with FTZ/DAZ set (crtfastmath.o); cr gives
               the plain bits anyway, every function does inside
               fp::IeeeEnvironment (the documented guard)
Exit 77 (skipped) when the compiler is absent or rejects the flags itself.
Every comparison carries its negative control (planted one-ulp digests must
differ). Prints one RESULT line for docs/libm/hardening.md.

  check_flags.py --compiler CMD --flags 'F ...' --expect E --source digest.cpp
                 --include DIR --specials FILE --reference REF [--cuda] [--stride N]
                 [--link LIB ...]
"""
import argparse, os, shlex, shutil, subprocess, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hardening_lib import run_digest, parse, compare, short

ap = argparse.ArgumentParser()
for a in ('--compiler', '--flags', '--expect', '--source', '--include', '--specials', '--reference'):
    ap.add_argument(a, required=True)
ap.add_argument('--cuda', action='store_true', help='compiler is nvcc: the host pass of a .cu file')
ap.add_argument('--stride', default='16411')
ap.add_argument('--link', action='append', default=[],
                help='a library to link (compiled once with the project flags), repeatable')
a = ap.parse_args()

cc = shlex.split(a.compiler)
flags = shlex.split(a.flags)
label = f'{os.path.basename(cc[0])} {a.flags or "(plain)"}'
if shutil.which(cc[0]) is None:
    print(f'RESULT {label}: skipped ({cc[0]} not found)')
    sys.exit(77)

with tempfile.TemporaryDirectory() as d:
    if not a.cuda:
        # Does the compiler take the flags at all (apart from samebits)?
        probe = os.path.join(d, 'probe.cpp')
        open(probe, 'w').write('int main() { return 0; }\n')
        p = subprocess.run(cc + ['-std=c++20', probe, '-o', os.path.join(d, 'probe')] + flags,
                           capture_output=True, text=True)
        if p.returncode != 0:
            msg = (p.stderr.strip().splitlines() or ['?'])[0]
            print(f'RESULT {label}: skipped (the compiler rejects the flags: {msg})')
            sys.exit(77)
    exe = os.path.join(d, 'digest')
    src = a.source
    base = cc + ['-std=c++20', '-O2', '-I', a.include, '-I', os.path.dirname(os.path.abspath(src))]
    if a.cuda:
        base += ['-arch=sm_90', '-x', 'cu']
    link = list(a.link)
    if a.cuda:  # after -x cu every input is CUDA source: name libraries by -L/-l
        link = []
        for lib in a.link:
            name = os.path.basename(lib)
            link += ['-L', os.path.dirname(os.path.abspath(lib)), '-l' + name[3:].rsplit('.', 1)[0]]
    b = subprocess.run(base + [src, '-o', exe] + flags + link, capture_output=True, text=True, errors='replace')
    if b.returncode != 0:
        errs = [l for l in b.stderr.splitlines() if 'samebits/libm:' in l]
        if a.expect.startswith('refused:'):
            needle = a.expect[len('refused:'):]
            if errs and needle in errs[0]:
                msg = errs[0].split('samebits/libm:', 1)[1].split('.')[0].strip()
                print(f'RESULT {label}: refused ({msg})')
                sys.exit(0)
        print(f'{label}: build failed, expected {a.expect}\n{b.stderr[-4000:]}')
        sys.exit(1)
    if a.expect.startswith('refused:'):
        print(f'{label}: built, expected the build to stop with an #error naming {a.expect[8:]}')
        sys.exit(1)

    ref_head, ref = parse(open(a.reference).read())
    args = ['--specials', a.specials, '--stride', a.stride]
    rc, out, err = run_digest(exe, args)
    if rc != 0:
        print(f'{label}: digest program failed (rc {rc})\n{err}')
        sys.exit(1)
    head, got = parse(out)
    if head.get('inputs') != ref_head.get('inputs'):
        print(f'{label}: input sets differ: {head.get("inputs")} vs {ref_head.get("inputs")}')
        sys.exit(1)
    differ = compare(ref, got)
    startup = head.get('startup-mode', '?')
    if not differ:
        outcome = 'same'
        text = 'same bits, every function'
    else:
        cr_differ = [f for f in differ if f.startswith('cr::')]
        rc, out, err = run_digest(exe, args + ['--guard'])
        if rc != 0:
            print(f'{label}: guarded digest program failed (rc {rc})\n{err}')
            sys.exit(1)
        guarded = compare(ref, parse(out)[1])
        if startup != 'ieee' and not cr_differ and not guarded:
            outcome = 'startup-ftz'
            text = (f'starts in mode {startup} (crtfastmath.o); differ without the guard: '
                    f'{short(differ, len(ref))}; with fp::IeeeEnvironment: same bits, every function')
        else:
            outcome = 'different'
            text = (f'DIFFERENT BITS (startup mode {startup}): {short(differ, len(ref))}; '
                    f'guarded: {short(guarded, len(ref))}')
    print(f'RESULT {label}: {text}')
    if outcome != a.expect:
        print(f'{label}: expected {a.expect}, got {outcome}')
        sys.exit(1)
