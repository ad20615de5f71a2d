#!/usr/bin/env python3
"""Negative-control runner: replays a corpus with a harness built with a planted
bug and passes only if the harness fails *with the expected finding*, so that a
control that fails for another reason (a missing file, a crash elsewhere) does
not count as caught.

    expect_finding.py HARNESS CORPUS "finding: ..."
"""
import subprocess
import sys

if len(sys.argv) != 4:
    sys.exit(__doc__)
harness, corpus, expected = sys.argv[1:]
p = subprocess.run([harness, corpus], capture_output=True, text=True)
print(p.stdout, end='')
print(p.stderr, end='', file=sys.stderr)
if p.returncode == 0:
    sys.exit(f'control NOT caught: {harness} replayed {corpus} without a finding')
if expected not in p.stderr:
    sys.exit(f'control failed for another reason (exit {p.returncode}); expected "{expected}"')
print(f'control caught as expected: {expected}')
