#!/usr/bin/env python3
"""Runs the plain hardening_digest once per run-time floating-point mode
(MXCSR FTZ, DAZ, both; the three directed roundings; unmasked traps), without
and with samebits::fp::IeeeEnvironment, and checks:
  - with the guard, every function gives the plain bits in every mode (and the
    guard restores the caller's mode: the program checks that itself);
  - without it, samebits::cr gives the plain bits under FTZ/DAZ (it handles
    subnormals with integers); what else differs, or whether the process is
    killed (SIGFPE), is printed, as docs/libm/hardening.md records it.
Each comparison carries its negative control (planted one-ulp digests differ).

  check_modes.py EXE SPECIALS REFERENCE [--stride N]
"""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hardening_lib import run_digest, parse, compare, short

exe, specials, reference = sys.argv[1:4]
stride = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == '--stride' else '16411'
ref_head, ref = parse(open(reference).read())
n = len(ref)
failed = False
for mode in ['ftz', 'daz', 'ftz+daz', 'upward', 'downward', 'toward-zero', 'traps', 'traps-all']:
    base = [ '--specials', specials, '--stride', stride, '--mode', mode]
    rc, out, err = run_digest(exe, base)
    if rc == 2 and 'unknown mode' in err:
        print(f'RESULT mode {mode}: skipped (not available on this host)')
        continue
    if rc < 0:
        unguarded = f'killed by signal {-rc}'
        cr_ok = None
    elif rc != 0:
        print(f'mode {mode}: digest program failed (rc {rc})\n{err}')
        failed = True
        continue
    else:
        differ = compare(ref, parse(out)[1])
        unguarded = f'differ: {short(differ, n)}'
        cr_ok = not any(f.startswith('cr::') for f in differ)
    rc, out, err = run_digest(exe, base + ['--guard'])
    if rc != 0:
        print(f'mode {mode}: guarded run failed (rc {rc})\n{err}')
        failed = True
        continue
    guarded = compare(ref, parse(out)[1])
    print(f'RESULT mode {mode}: without the guard {unguarded}; with fp::IeeeEnvironment: '
          f'{"same bits, every function" if not guarded else "DIFFER " + short(guarded, n)}')
    if guarded:
        failed = True
    if mode in ('ftz', 'daz', 'ftz+daz') and cr_ok is not True:
        print(f'mode {mode}: samebits::cr must not depend on FTZ/DAZ')
        failed = True
sys.exit(1 if failed else 0)
