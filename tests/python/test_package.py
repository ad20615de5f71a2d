"""The samebits package as a package: importing it needs neither numpy, torch
nor the library; the exception classes are what docs/python.md says; every
module, and the device scripts of the later GPU session, byte-compile;
samebits.torch without torch says so.

    python3 tests/python/test_package.py
"""
import os
import py_compile
import subprocess
import sys
import tempfile
import unittest

import common

import samebits  # noqa: E402
from samebits import errors  # noqa: E402

PKG = os.path.join(common.ROOT, "python")


def run(code, **env):
    e = {k: v for k, v in os.environ.items() if k != "SAMEBITS_KERNELS_LIB"}
    e.update(PYTHONPATH=PKG, **env)
    p = subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


class Package(unittest.TestCase):
    def test_import_loads_nothing_heavy(self):
        rc, out = run("import sys, samebits; import samebits.errors; "
                      "print(sorted(m for m in ('numpy', 'torch', 'samebits._lib', 'samebits.comparison') "
                      "if m in sys.modules))")
        self.assertEqual((rc, out.strip()), (0, "[]"), out)
        # control: the probe does see a module that is imported
        rc, out = run("import sys, samebits, samebits._lib; print('samebits._lib' in sys.modules)")
        self.assertEqual(out.strip(), "True")

    def test_version_matches_pyproject(self):
        with open(os.path.join(PKG, "pyproject.toml")) as f:
            text = f.read()
        self.assertIn(f'version = "{samebits.__version__}"', text)

    def test_exception_classes(self):
        self.assertTrue(issubclass(errors.InvalidArgumentError, ValueError))
        self.assertTrue(issubclass(errors.UnsupportedError, NotImplementedError))
        self.assertTrue(issubclass(errors.NotBuiltError, RuntimeError))
        self.assertTrue(issubclass(errors.CudaError, RuntimeError))
        self.assertTrue(issubclass(errors.LibraryError, OSError))
        for cls in (errors.InvalidArgumentError, errors.UnsupportedError, errors.NotBuiltError, errors.CudaError,
                    errors.LibraryError):
            self.assertTrue(issubclass(cls, samebits.SamebitsError))
        e = errors.error_for_status(1, "f", "samebits attention: q is null")
        self.assertIsInstance(e, errors.InvalidArgumentError)
        self.assertEqual((e.message, e.status, e.function, str(e)),
                         ("samebits attention: q is null", 1, "f", "samebits attention: q is null [SAMEBITS_INVALID_ARGUMENT]"))
        self.assertIs(type(errors.error_for_status(4, "f", "m")), errors.NotBuiltError)
        self.assertIs(type(errors.error_for_status(9, "f", "m")), errors.SamebitsError)  # unknown codes: the base
        self.assertNotIsInstance(errors.error_for_status(2, "f", "m"), ValueError)  # control

    def test_everything_byte_compiles(self):
        files = []
        device = os.path.join(common.ROOT, "tests", "device")
        for top in (os.path.join(PKG, "samebits"), os.path.join(device, "python"), os.path.join(device, "parallel"),
                    os.path.join(common.ROOT, "tests", "python")):
            for d, _, names in os.walk(top):
                files += [os.path.join(d, n) for n in names if n.endswith(".py")]
        self.assertIn(os.path.join(PKG, "samebits", "torch.py"), files)
        self.assertIn(os.path.join(common.ROOT, "tests", "device", "python", "torch_ops_check.py"), files)
        self.assertIn(os.path.join(device, "parallel", "cp_tp_check.py"), files)
        with tempfile.TemporaryDirectory() as tmp:
            for i, f in enumerate(files):
                py_compile.compile(f, cfile=os.path.join(tmp, f"{i}.pyc"), doraise=True)
            bad = os.path.join(tmp, "bad.py")  # control: a syntax error is caught
            with open(bad, "w") as f:
                f.write("def f(:\n")
            with self.assertRaises(py_compile.PyCompileError):
                py_compile.compile(bad, cfile=bad + "c", doraise=True)

    def test_torch_module_without_torch(self):
        rc, out = run("import importlib.util, sys\n"
                      "if importlib.util.find_spec('torch'): print('HAS TORCH'); sys.exit(0)\n"
                      "import samebits.torch")
        if "HAS TORCH" in out:
            self.skipTest("torch is installed here")
        self.assertNotEqual(rc, 0)
        self.assertIn("No module named 'torch'", out)


if __name__ == "__main__":
    unittest.main(verbosity=1)
