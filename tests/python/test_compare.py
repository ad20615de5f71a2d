"""samebits.compare (pure Python) against `samebits compare` (the CLI,
SAMEBITS_EXE) on the same files: the --json document, the table and the exit
status must be the CLI's, for every pair of the compare fixtures
(tests/data/compare/) under both NaN policies, --as bf16 and --max-report,
and for random tensors of every dtype with planted changes of every kind.
Then the semantics named one by one, each with its negative control, and
arrays / dicts in memory against the same data in files.

    SAMEBITS_EXE=build/cli/samebits python3 tests/python/test_compare.py
"""
import json
import os
import subprocess
import tempfile
import unittest

import common

common.need_numpy()
import numpy as np  # noqa: E402

import samebits  # noqa: E402
from samebits import comparison as SC  # noqa: E402

EXE = common.env("SAMEBITS_EXE")
DATA = os.path.join(common.ROOT, "tests", "data", "compare")
JSON_SYNTAX = "header is not valid JSON: "  # its wording is nlohmann's in the CLI, Python's here


def cli(a, b, opts=()):
    j = subprocess.run([EXE, "compare", a, b, "--json", *opts], capture_output=True, text=True)
    t = subprocess.run([EXE, "compare", a, b, *opts], capture_output=True, text=True)
    return j.returncode, json.loads(j.stdout), t.stdout


def kwargs(opts):
    return dict(nan_policy="class" if "class" in opts else "bits", as_bf16="bf16" in opts,
                max_report=int(opts[opts.index("--max-report") + 1]) if "--max-report" in opts else 10)


def python(a, b, opts=()):
    try:
        r = samebits.compare_files(a, b, **kwargs(opts))
        return r.exit_status, r.to_json(), r.text()
    except samebits.CompareError as e:
        return 2, e.to_json(), None


def differences(a, b, opts=(), statuses=None):
    """What differs between the CLI and the package on one pair (empty: nothing); the CLI's exit
    status is added to `statuses` when given."""
    rc, js, txt = cli(a, b, opts)
    if statuses is not None:
        statuses.add(rc)
    mrc, mjs, mtxt = python(a, b, opts)
    if rc == 2 and mrc == 2 and js["reason"].startswith(JSON_SYNTAX) and mjs["reason"].startswith(JSON_SYNTAX):
        return []
    out = []
    if rc != mrc:
        out.append(f"exit {rc} (CLI) != {mrc}")
    if js != mjs:
        out.append(f"json: CLI {json.dumps(js)[:300]} != {json.dumps(mjs)[:300]}")
    if rc != 2 and txt != mtxt:
        out.append(f"table: CLI\n{txt}\n!=\n{mtxt}")
    return out


OPTIONS = [(), ("--nan-policy", "class"), ("--as", "bf16", "--max-report", "3"), ("--max-report", "0")]


class AgainstTheCli(unittest.TestCase):
    def test_every_fixture_pair(self):
        files = sorted(os.listdir(DATA))
        npy = [f for f in files if f.endswith(".npy")]
        st = [f for f in files if f.endswith(".safetensors")]
        pairs = [(a, b) for a in npy for b in npy if a == b or a.split("_")[0] == b.split("_")[0]]
        pairs += [(a, b) for a in st for b in st] + [("f32.npy", "model.safetensors")]
        self.assertGreater(len(pairs), 700)
        statuses = set()
        for a, b in pairs:
            for opts in OPTIONS:
                self.assertEqual(differences(os.path.join(DATA, a), os.path.join(DATA, b), opts, statuses), [],
                                 (a, b, opts))
        self.assertEqual(statuses, {0, 1, 2})  # identical, different and refused pairs were all among them

    def test_the_check_sees_a_difference(self):
        # Negative control of differences(): a report that is not the CLI's is reported.
        a, b = os.path.join(DATA, "f32.npy"), os.path.join(DATA, "f32_planted.npy")
        rc, js, txt = cli(a, b)
        r = samebits.compare_files(a, b)
        self.assertEqual(r.to_json(), js)
        r.first_mismatches[0] = r.first_mismatches[0]._replace(flat_index=7)
        self.assertNotEqual(r.to_json(), js)
        self.assertEqual(r.text(), txt)
        r.tensors[0].max_abs_error *= 1 + 2**-40
        self.assertNotEqual(r.text(), txt)

    def test_random_tensors_of_every_dtype(self):
        rng = np.random.default_rng(2024)
        specs = [("<f8", np.uint64, 64), ("<f4", np.uint32, 32), (">f4", np.uint32, 32), ("<f2", np.uint16, 16),
                 ("|V2", np.uint16, 16), ("<u2", np.uint16, 16), ("<i4", np.uint32, 32), (">f8", np.uint64, 64)]
        with tempfile.TemporaryDirectory() as tmp:
            for descr, u, nbits in specs:
                n = 3000
                e = rng.integers(0, 2**nbits, n, dtype=np.uint64).astype(u)
                specials = {16: [0, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe00, 0x0001, 0x7f80, 0x7fc0, 0xff81],
                            32: [0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffc00000, 1,
                                 0x00800000, 0x7f7fffff, 0x80000001],
                            64: [0, 1 << 63, 0x7ff0 << 48, 0xfff0 << 48, 0x7ff8 << 48, (0x7ff0 << 48) + 1, 1,
                                 0x7fefffffffffffff, 0x8000000000000001]}[nbits]
                e[:len(specials)] = specials
                a = e.copy()
                # Changes: +-1, +-2, small and large ulp steps, sign flips, specials against specials.
                pick = rng.choice(n, 600, replace=False)
                steps = rng.choice([1, 2, 3, 5, 9, 100, 1 << (nbits // 2), 1 << (nbits - 3)], pick.size)
                signs = rng.choice([-1, 1], pick.size)
                a[pick] = ((a[pick].astype(object) + steps.astype(object) * signs) % (1 << nbits)).astype(u)
                a[len(specials):2 * len(specials)] = specials
                flip = rng.choice(n, 50, replace=False)
                a[flip] ^= u(1 << (nbits - 1))
                a[:len(specials)] = specials[::-1]
                dtype = np.dtype(descr)
                ef, af = os.path.join(tmp, "e.npy"), os.path.join(tmp, "a.npy")
                for path, bits_ in ((ef, e), (af, a)):
                    arr = bits_.view(dtype.newbyteorder("=")) if dtype.kind != "V" else bits_.view("V2")
                    np.save(path, arr.astype(dtype) if dtype.kind != "V" else arr)
                for opts in [("--max-report", "400"), ("--nan-policy", "class", "--max-report", "1000"),
                             ("--as", "bf16", "--max-report", "50")]:
                    self.assertEqual(differences(ef, af, opts), [], (descr, opts))
                r = samebits.compare_files(ef, af, max_report=400, as_bf16=True)
                self.assertGreater(r.total_mismatches, 500, descr)  # the planted changes are there
                hist = r.histogram
                self.assertGreater(sum(hist.ulp), 0, descr)
                if descr[1] != "i":
                    self.assertGreater(hist.value_class, 0, descr)


class Semantics(unittest.TestCase):
    def f(self, name):
        return os.path.join(DATA, name)

    def test_identical_and_one_planted_ulp(self):
        r = samebits.compare(self.f("f32.npy"), self.f("f32_copy.npy"))
        self.assertEqual((r.identical, r.exit_status, r.total_mismatches, r.total_elements), (True, 0, 0, 12))
        r = samebits.compare(self.f("f32.npy"), self.f("f32_planted.npy"))
        self.assertEqual((r.identical, r.exit_status, r.total_mismatches), (False, 1, 1))
        m = r.first_mismatches[0]
        self.assertEqual((m.index, m.flat_index, m.kind, m.ulp_distance), ((1, 2), 6, "ulp", 1))
        self.assertEqual((m.expected.hex, m.actual.hex, m.expected.decimal, m.actual.decimal),
                         ("0x3dcccccd", "0x3dccccce", "0.1", "0.10000001"))
        self.assertEqual(r.histogram.ulp[0], 1)

    def test_signed_zero(self):
        r = samebits.compare(self.f("zero_pos.npy"), self.f("zero_neg.npy"))
        self.assertEqual((r.total_mismatches, r.histogram.sign_of_zero, r.total_elements), (1, 1, 3))
        self.assertEqual(r.first_mismatches[0].kind, "sign_of_zero")
        self.assertIsNone(r.max_abs_error)  # not a numeric difference
        self.assertTrue(samebits.compare(self.f("zero_pos.npy"), self.f("zero_pos.npy")).identical)  # control

    def test_nan_payloads_under_both_policies(self):
        a, b = self.f("nan_a.npy"), self.f("nan_b.npy")
        bits_ = samebits.compare(a, b, nan_policy="bits")
        cls = samebits.compare(a, b, nan_policy="class")
        self.assertGreater(bits_.histogram.nan_payload, 0)
        self.assertEqual(cls.histogram.nan_payload, 0)
        self.assertEqual(bits_.total_mismatches - bits_.histogram.nan_payload, cls.total_mismatches)
        n = samebits.compare(a, self.f("nan_num.npy"), nan_policy="class")  # control: NaN vs a number still differs
        self.assertGreater(n.histogram.value_class, 0)
        e = SC.read_tensor_file(a).tensors[0]
        self.assertTrue(np.isnan(e.values()).any())

    def test_bf16_view(self):
        with self.assertRaises(samebits.CompareError) as cm:
            samebits.compare(self.f("bf16_u2.npy"), self.f("bf16_u2.npy"))
        self.assertIn("pass --as bf16", cm.exception.reason)
        r = samebits.compare(self.f("bf16_u2.npy"), self.f("bf16_u2_be.npy"), as_bf16=True)
        self.assertTrue(r.identical)
        self.assertEqual(r.tensors[0].dtype, "bf16")
        r = samebits.compare(self.f("bf16.npy"), self.f("bf16_planted.npy"))
        self.assertEqual((r.tensors[0].dtype, r.total_mismatches), ("bf16", 1))

    def test_refusals(self):
        with self.assertRaises(samebits.CompareError) as cm:
            samebits.compare(self.f("f32.npy"), self.f("f16.npy"))
        self.assertEqual(cm.exception.reason, f"dtype mismatch: f16 ('<f2') here but f32 ('<f4') in {self.f('f32.npy')}")
        self.assertEqual(cm.exception.file, self.f("f16.npy"))
        with self.assertRaises(samebits.CompareError) as cm:
            samebits.compare(self.f("model.safetensors"), self.f("model_shape_mismatch.safetensors"))
        self.assertIn("shape mismatch", cm.exception.reason)
        with self.assertRaises(samebits.CompareError) as cm:
            samebits.compare(self.f("f32.npy"), "/nonexistent.npy")
        self.assertEqual(str(cm.exception), "/nonexistent.npy: cannot open: No such file or directory")
        with self.assertRaises(samebits.CompareError) as cm:
            samebits.compare(self.f("f32.npy"), DATA)
        self.assertEqual(cm.exception.reason, "cannot read: is a directory")
        self.assertIsInstance(cm.exception, ValueError)


class InMemory(unittest.TestCase):
    def strip(self, j):
        """The report less what names the source (paths, format, dtype spellings, notes)."""
        out = {k: v for k, v in j.items() if k not in ("expected", "actual", "format")}
        out["tensors"] = [{k: v for k, v in t.items() if k not in ("expected_dtype", "actual_dtype", "notes")}
                          for t in out["tensors"]]
        return out

    def test_arrays_equal_files(self):
        rng = np.random.default_rng(7)
        e = rng.standard_normal((5, 7)).astype(np.float32)
        a = e.copy()
        a[2, 3] = np.nextafter(a[2, 3], np.float32(np.inf))
        a[4, 0] = -a[4, 0]
        a[0, 6] = np.nan
        with tempfile.TemporaryDirectory() as tmp:
            np.save(os.path.join(tmp, "e.npy"), e)
            np.save(os.path.join(tmp, "a.npy"), a)
            f = samebits.compare(os.path.join(tmp, "e.npy"), os.path.join(tmp, "a.npy"))
        m = samebits.compare(e, a)
        self.assertEqual(self.strip(m.to_json()), self.strip(f.to_json()))
        self.assertEqual((m.format, m.expected_path), ("array", None))
        self.assertEqual(m.total_mismatches, 3)
        # Strides and byte order do not matter, only the values in C order.
        m2 = samebits.compare(np.asfortranarray(e), a.astype(">f4"))
        self.assertEqual(self.strip(m2.to_json())["totals"], self.strip(f.to_json())["totals"])
        self.assertTrue(samebits.compare(e, e.copy()).identical)  # control
        self.assertTrue(samebits.compare(e.T, np.ascontiguousarray(e.T)).identical)
        self.assertFalse(samebits.compare(e.T.copy(), np.ascontiguousarray(e).reshape(7, 5)).identical)

    def test_dicts_equal_safetensors(self):
        ef = SC.read_tensor_file(os.path.join(DATA, "model.safetensors"))
        af = SC.read_tensor_file(os.path.join(DATA, "model_planted_all.safetensors"))

        def arrays(tf):
            out = {}
            for t in tf.tensors:
                view = {"f64": np.float64, "f32": np.float32, "f16": np.float16, "i32": np.int32}.get(t.dtype)
                out[t.name] = t.bits.view(view).reshape(t.shape) if view else t.bits.view("V2").reshape(t.shape)
            return out
        files = SC.compare_tensor_files(ef, af)
        mem = samebits.compare(arrays(ef), arrays(af))
        self.assertEqual(self.strip(mem.to_json()), self.strip(files.to_json()))
        self.assertEqual(mem.tensors_with_mismatches, len(mem.tensors))
        d = arrays(ef)
        d.pop(next(iter(d)))
        with self.assertRaises(samebits.CompareError) as cm:  # control: a missing name is refused
            samebits.compare(arrays(ef), d)
        self.assertIn("is missing (it is in expected)", str(cm.exception))

    def test_dtype_refusals(self):
        x = np.zeros(3, np.int64)
        with self.assertRaises(samebits.CompareError) as cm:
            samebits.compare(x, x)
        self.assertIn("unsupported dtype '<i8'", str(cm.exception))
        u = np.zeros(3, np.uint16)
        with self.assertRaises(samebits.CompareError):
            samebits.compare(u, u)
        self.assertTrue(samebits.compare(u, u, as_bf16=True).identical)
        with self.assertRaises(TypeError):
            samebits.compare([1.0], [1.0])
        with self.assertRaises(TypeError):
            samebits.compare(os.path.join(DATA, "f32.npy"), np.zeros(3, np.float32))


if __name__ == "__main__":
    unittest.main(verbosity=1)
