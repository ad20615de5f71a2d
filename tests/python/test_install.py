"""`pip install --no-build-isolation ./python` works without an index (Debian's
setuptools and wheel; CI machines reach no package index): installed with
--target into a temporary folder from a copy of python/ (pip builds in the
source folder), the installed package is the one imported, carries
samebits.triton's files, and finds the library through SAMEBITS_KERNELS_LIB.
Skipped (77) when pip, setuptools or wheel is missing.

    SAMEBITS_KERNELS_LIB=build/kernels/libsamebits_kernels.so python3 tests/python/test_install.py
"""
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

import common

for mod in ("pip", "setuptools", "wheel"):
    if importlib.util.find_spec(mod) is None:
        print(f"SKIP: {mod} is missing for {sys.executable} (Debian: python3-pip python3-setuptools python3-wheel)")
        sys.exit(common.SKIP)

LIB = common.env("SAMEBITS_KERNELS_LIB")

with tempfile.TemporaryDirectory() as tmp:
    src, target = os.path.join(tmp, "src"), os.path.join(tmp, "site")
    shutil.copytree(os.path.join(common.ROOT, "python"), src,
                    ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_CACHE_DIR="1")
    cmd = [sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-index", "--target", target, src]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    print(" ".join(cmd), "->", p.returncode)
    if p.returncode != 0:
        print(p.stdout, p.stderr)
        sys.exit(1)
    # (samebits.triton needs triton to import: its files are checked for below.)
    probe = ("import samebits, os; "
             "print(os.path.dirname(samebits.__file__)); print(samebits.fingerprint('attention', 'cr')); "
             "print(os.path.isfile(os.path.join(os.path.dirname(samebits.__file__), 'triton', '_asm', 'nvcc.py')))")
    env.update(PYTHONPATH=target, SAMEBITS_KERNELS_LIB=LIB)
    p = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, cwd=tmp)
    got = p.stdout.split("\n")[:3]
    want = [os.path.join(target, "samebits"), "samebits-attention/1 policy=fma-chain/1 B=64 libm=cr", "True"]
    print("installed:", got)
    if p.returncode != 0 or got != want:
        print("FAIL: expected", want, p.stderr)
        sys.exit(1)
    # Control: without the install folder on the path, the probe cannot import samebits.
    env.update(PYTHONPATH=tmp)
    p = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, cwd=tmp)
    if p.returncode == 0:
        print("FAIL: samebits imported without the installed copy; the check above proves nothing")
        sys.exit(1)
    for module in ("_lib.py", "comparison.py", "torch.py", "reference.py", "_validate.py", "errors.py"):
        if not os.path.isfile(os.path.join(target, "samebits", module)):
            print(f"FAIL: samebits/{module} was not installed")
            sys.exit(1)
print("OK: pip install --no-build-isolation --no-index works; the installed samebits loads the library")
