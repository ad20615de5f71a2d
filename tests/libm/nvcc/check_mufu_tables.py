#!/usr/bin/env python3
"""The committed MUFU tables (libm/src/nvcc_mufu_{ex2,lg2}_tables.hpp) are what
their generators (libm/tools/gen_mufu_{ex2,lg2}.py) make from the committed H200
measurements (docs/libm/results/h200/mufu/*.npz.xz), byte for byte.

    check_mufu_tables.py SOURCE_ROOT

The generators need numpy (Debian: python3-numpy): if this interpreter lacks
it, the check re-runs itself under /usr/bin/python3; without numpy anywhere it
exits 77 (skipped). The lg2 generator compiles a small C++ helper (CXX, default
c++). Negative control: the same comparison against a copy of each committed
file with one table character changed (one to three entries) must fail.
"""
import os
import subprocess
import sys

try:
    import numpy  # noqa: F401
except ImportError:
    if os.path.exists('/usr/bin/python3') and os.path.realpath(sys.executable) != os.path.realpath('/usr/bin/python3'):
        os.execv('/usr/bin/python3', ['/usr/bin/python3'] + sys.argv)
    print('numpy not found (python3-numpy): skipped')
    sys.exit(77)

root = sys.argv[1]
TABLES = [('gen_mufu_ex2.py', 'nvcc_mufu_ex2_tables.hpp'), ('gen_mufu_lg2.py', 'nvcc_mufu_lg2_tables.hpp')]


def first_difference(a, b):
    la, lb = a.splitlines(), b.splitlines()
    for k, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return f'line {k + 1}'
    return f'length ({len(la)} vs {len(lb)} lines)' if len(la) != len(lb) else None


def plant(text):
    """One base64 character of the table text changed (the middle of the file)."""
    k = text.index('\n      "', len(text) // 2) + 8  # first character of a table line
    c = text[k]
    return text[:k] + ('B' if c != 'B' else 'C') + text[k + 1:]


failed = False
for gen, name in TABLES:
    committed_path = os.path.join(root, 'libm', 'src', name)
    p = subprocess.run([sys.executable, os.path.join(root, 'libm', 'tools', gen)], capture_output=True, text=True)
    if p.returncode != 0:
        print(f'{gen} failed:\n{p.stderr}')
        sys.exit(1)
    committed = open(committed_path).read()
    diff = first_difference(p.stdout, committed)
    if diff:
        print(f'{committed_path} is stale (first difference: {diff}): '
              f'regenerate it with python3 libm/tools/{gen} > libm/src/{name}')
        failed = True
    else:
        print(f'{name}: current ({len(committed)} bytes; {p.stderr.strip().splitlines()[-1]})')
    control = first_difference(p.stdout, plant(committed))
    print(f'  negative control (one table character changed): {"caught at " + control if control else "NOT caught"}')
    failed |= control is None
sys.exit(1 if failed else 0)
