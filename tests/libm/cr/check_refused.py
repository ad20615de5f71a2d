#!/usr/bin/env python3
"""Compiles a one-line user of <samebits/libm.hpp> with a flag the library
cannot defend against and expects the build to stop with its #error.
Negative control: the same file without the flag must compile."""
import os, shlex, subprocess, sys, tempfile
compiler, include, flag, needle = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
src = '#include <samebits/libm.hpp>\nfloat f(float x) { return samebits::cr::expf(x); }\n'
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, 'user.cpp')
    open(path, 'w').write(src)
    base = shlex.split(compiler) + ['-std=c++20', '-I', include, '-c', path, '-o', os.path.join(d, 'u.o')]
    ok = subprocess.run(base, capture_output=True, text=True)
    if ok.returncode != 0:
        print('control failed: the header does not compile without', flag, '\n', ok.stderr)
        sys.exit(1)
    bad = subprocess.run(base + [flag], capture_output=True, text=True)
    if bad.returncode == 0 or needle not in bad.stderr:
        print(f'{flag}: expected the build to stop with an #error naming {needle}; got rc={bad.returncode}\n{bad.stderr}')
        sys.exit(1)
print(f'{flag}: refused as expected')
