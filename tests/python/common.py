"""Shared by the tests of the samebits Python package (tests/python/*.py, meson
suite 'python'): the package from the source tree, numpy or a skip, and the
paths meson passes (SAMEBITS_KERNELS_LIB, SAMEBITS_EXE, SAMEBITS_TEST_DATA)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))

SKIP = 77


def need_numpy():
    try:
        import numpy  # noqa: F401
    except ImportError:
        print(f"SKIP: numpy is missing for {sys.executable} (install python3-numpy; meson looks for a python3 "
              "with numpy, then /usr/bin/python3)")
        sys.exit(SKIP)


def env(name):
    v = os.environ.get(name)
    if not v:
        print(f"SKIP: {name} is not set (meson test sets it)")
        sys.exit(SKIP)
    return v
