"""Attention's arithmetic policy through the Python package (policy=, mma=,
input_dtype= of samebits.reference; samebits.fingerprint(policy=, mma=)) on
the library meson built, against the C ABI called directly (problems built
here on samebits._lib's structures, the one binding, which test_lib checks
against c_api.h; not through samebits.reference) and the `samebits
attention` CLI:

  - the CPU reference under sm90-tensor-core (bf16 and fp16, GQA, varlen,
    causal and not, the model's defaults and other parameters) gives
    bitwise the o, lse, dq, dk, dv of the direct C calls (uint32 encodings:
    +0 and -0 differ); controls: one flipped bit is one mismatch, +0 against
    -0 is one, other model parameters give other bits;
  - the two policies give different bits on the same bf16 inputs (and
    input_dtype changes nothing under fma-chain);
  - the dK/dV hand-over (accum_in) under sm90-tensor-core: a split at a
    16-row boundary equals one call bitwise, elsewhere the C refusal;
  - fingerprints: the strings of docs/kernels/attention-tc.md §9 for every
    parameter value, equal to the CLI's, one per distinct model;
  - each refusal's message: Python's for names and forms (policy, mma field
    names and enum value names, input_dtype), the library's for every rule on
    the values (policy x dtype, mma's ranges, mma under fma-chain, D, scale),
    through the reference's C entry point and again with Python bypassed; the
    GPU entry points' refusal of model parameters other than the hardware's
    (never a fallback to fma-chain).

    SAMEBITS_KERNELS_LIB=build/kernels/libsamebits_kernels.so SAMEBITS_EXE=build/cli/samebits \\
        python3 tests/python/test_policy.py
"""
import ctypes as C
import json
import subprocess
import unittest

import common

common.need_numpy()
import numpy as np  # noqa: E402

import samebits  # noqa: E402
from samebits import _lib, _validate as V, errors, reference as R  # noqa: E402

LIB = common.env("SAMEBITS_KERNELS_LIB")
EXE = common.env("SAMEBITS_EXE")
TC = "sm90-tensor-core"

# ---- the C ABI called directly (samebits._lib's structures, checked against c_api.h by test_lib;
# not through samebits.reference's marshalling) ----------

CMma, CProblem, CTensor3 = _lib.MmaParams, _lib.AttentionProblem, _lib.Tensor3
DLL = _lib.load(LIB).lib
BF16, F16, F32 = 1, 2, 0  # c_api.h samebits_dtype


class Direct:
    """One problem for the direct calls: cu_seqlens (host copies, also as
    the 'device' ones: the reference ignores those), dtype code, policy code
    and optional mma codes."""

    def __init__(self, cu_q, cu_k, hq, hkv, d, causal, dtype, policy, mma=None, libm=0):
        n = len(cu_q)
        self.cq, self.ck = (C.c_int32 * n)(*cu_q), (C.c_int32 * n)(*cu_k)
        lens_q = [b - a for a, b in zip(cu_q, cu_q[1:])]
        lens_k = [b - a for a, b in zip(cu_k, cu_k[1:])]
        self.p = CProblem(num_seqs=n - 1, max_seqlen_q=max(lens_q), max_seqlen_k=max(lens_k), total_q=cu_q[-1],
                          total_k=cu_k[-1], hq=hq, hkv=hkv, d=d, causal=int(causal), scale=float("nan"), in_dtype=dtype,
                          o_dtype=dtype, grad_dtype=dtype, libm=libm, cu_seqlens_q=C.addressof(self.cq),
                          cu_seqlens_k=C.addressof(self.ck), cu_seqlens_q_host=C.addressof(self.cq),
                          cu_seqlens_k_host=C.addressof(self.ck), policy=policy)
        if mma is not None:
            self.m = CMma(*mma)
            self.p.mma = C.addressof(self.m)

    def check(self, rc):
        if rc != 0:
            raise AssertionError(f"C call failed ({rc}): {DLL.samebits_last_error().decode()}")

    def forward(self, q, k, v):
        o = np.empty(q.shape, np.float32)
        lse = np.empty(q.shape[:2], np.float32)
        self.check(DLL.samebits_attention_reference_forward(C.byref(self.p), q.ctypes.data, k.ctypes.data,
                                                            v.ctypes.data, o.ctypes.data, lse.ctypes.data, 1))
        return o, lse

    def backward(self, q, k, v, o, do, lse):
        dq, dk, dv = np.empty(q.shape, np.float32), np.empty(k.shape, np.float32), np.empty(v.shape, np.float32)
        self.check(DLL.samebits_attention_reference_backward(
            C.byref(self.p), q.ctypes.data, k.ctypes.data, v.ctypes.data, o.ctypes.data, do.ctypes.data,
            lse.ctypes.data, dq.ctypes.data, dk.ctypes.data, dv.ctypes.data, 1))
        return dq, dk, dv

    def fingerprint(self):
        buf = C.create_string_buffer(256)
        self.check(DLL.samebits_attention_problem_fingerprint(C.byref(self.p), buf, len(buf)))
        return buf.value.decode()


# ---- helpers --------------------------------------------------------------------------

def bits(x):
    return np.ascontiguousarray(x, np.float32).view(np.uint32)


def mismatches(a, b):
    """Elements whose encodings differ (the shapes must be equal)."""
    assert a.shape == b.shape, (a.shape, b.shape)
    return int(np.count_nonzero(bits(a) != bits(b)))


def to_bf16(x):
    """float32 -> the nearest bfloat16 (ties to even), widened back: finite inputs."""
    u = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return u.astype(np.uint32).view(np.float32)


def to_dtype(x, dtype):
    return to_bf16(x) if dtype == "bfloat16" else x.astype(np.float16).astype(np.float32)


def inputs(tq, tk, hq, hkv, d, dtype, seed):
    rng = np.random.default_rng(seed)
    q, do = (to_dtype(rng.standard_normal((tq, hq, d)).astype(np.float32), dtype) for _ in range(2))
    k, v = (to_dtype(rng.standard_normal((tk, hkv, d)).astype(np.float32), dtype) for _ in range(2))
    q[0, 0, :3] = (0.0, -0.0, 0.0)  # signed zeros among the operands
    v[1, 0, 5] = -0.0
    return q, k, v, do


DTYPE_CODE = {"bfloat16": BF16, "float16": F16}
MMA_OTHER = {"frac_bits": 24, "group": 8, "rounding": "nearest_even"}
MMA_OTHER_CODES = (24, 8, 1, 0, 1, 0, 1, 0)  # the other fields at their defaults


# ---- the reference under sm90-tensor-core == the C ABI called directly ----------------

class ReferenceEqualsDirectC(unittest.TestCase):
    CASES = [  # cu_q, cu_k, hq, hkv, d, causal, dtype, mma
        ((0, 5, 21), (0, 9, 30), 4, 2, 64, True, "bfloat16", None),
        ((0, 5, 21), (0, 9, 30), 4, 2, 64, False, "bfloat16", MMA_OTHER),
        ((0, 17), (0, 17), 2, 1, 128, True, "float16", None),
        ((0, 3, 3, 40), (0, 3, 20, 150), 2, 2, 64, True, "bfloat16", None),  # an empty sequence, two key blocks
    ]

    def run_case(self, cu_q, cu_k, hq, hkv, d, causal, dtype, mma, seed=7):
        q, k, v, do = inputs(cu_q[-1], cu_k[-1], hq, hkv, d, dtype, seed)
        kw = dict(causal=causal, cu_seqlens=list(cu_q), cu_seqlens_k=list(cu_k), policy=TC, mma=mma,
                  input_dtype=dtype, threads=1)
        o, lse = R.attention_forward(q, k, v, **kw)
        o_stored = to_dtype(o, dtype)  # the backward takes o as a kernel stores it
        dq, dk, dv = R.attention_backward(q, k, v, o_stored, do, lse, **kw)
        codes = None if mma is None else V.check_policy(TC, mma)[1]
        direct = Direct(cu_q, cu_k, hq, hkv, d, causal, DTYPE_CODE[dtype], 1, codes)
        co, clse = direct.forward(q, k, v)
        cdq, cdk, cdv = direct.backward(q, k, v, o_stored, do, lse)
        return dict(o=o, lse=lse, dq=dq, dk=dk, dv=dv), dict(o=co, lse=clse, dq=cdq, dk=cdk, dv=cdv), \
            (q, k, v, do, o_stored, direct)

    def test_bitwise_equal(self):
        for case in self.CASES:
            py, c, _ = self.run_case(*case)
            self.assertEqual({n: mismatches(py[n], c[n]) for n in py}, {n: 0 for n in py}, case)
            # the outputs are not trivial: finite, nonzero somewhere
            for n in py:
                self.assertTrue(np.isfinite(py[n]).all() or n == "lse", (n, case))
                self.assertGreater(np.count_nonzero(py[n]), 0, (n, case))

    def test_controls(self):
        py, c, (q, k, v, do, o_stored, direct) = self.run_case(*self.CASES[0])
        # one flipped bit is one mismatch
        flipped = py["dk"].copy()
        bits(flipped)[3, 1, 17] ^= 1  # the lowest significand bit
        self.assertEqual(mismatches(flipped, c["dk"]), 1)
        # +0 against -0 is a mismatch (encodings, not values)
        a, b = py["o"].copy(), c["o"].copy()
        a[2, 3, 4], b[2, 3, 4] = 0.0, -0.0
        self.assertTrue(np.array_equal(a, b))  # equal as values ...
        self.assertEqual(mismatches(a, b), 1)  # ... not as encodings
        # other model parameters give other bits (the mma argument reaches the reference)
        o2, _ = R.attention_forward(q, k, v, causal=True, cu_seqlens=[0, 5, 21], cu_seqlens_k=[0, 9, 30],
                                    policy=TC, mma=MMA_OTHER, input_dtype="bfloat16", threads=1)
        self.assertGreater(mismatches(o2, py["o"]), 0)
        # and so does the direct call with them (the direct binding reads its mma)
        d2 = Direct((0, 5, 21), (0, 9, 30), 4, 2, 64, True, BF16, 1, MMA_OTHER_CODES)
        self.assertEqual(mismatches(d2.forward(q, k, v)[0], o2), 0)
        # a changed input changes the result (the call reads the arrays)
        q2 = q.copy()
        q2[7, 1, 9] = to_bf16(np.float32(q2[7, 1, 9] * 1.5 + 0.25))
        o3, _ = R.attention_forward(q2, k, v, causal=True, cu_seqlens=[0, 5, 21], cu_seqlens_k=[0, 9, 30],
                                    policy=TC, input_dtype="bfloat16", threads=1)
        diff = np.flatnonzero((bits(o3) != bits(py["o"])).any(axis=2).ravel())
        self.assertEqual(diff.tolist(), [7 * 4 + 1])  # only its row and head

    def test_threads_do_not_change_the_bits(self):
        cu_q, cu_k, hq, hkv, d, causal, dtype, _ = self.CASES[3]
        q, k, v, do = inputs(cu_q[-1], cu_k[-1], hq, hkv, d, dtype, 3)
        kw = dict(causal=causal, cu_seqlens=list(cu_q), cu_seqlens_k=list(cu_k), policy=TC, input_dtype=dtype)
        o1, l1 = R.attention_forward(q, k, v, threads=1, **kw)
        o4, l4 = R.attention_forward(q, k, v, threads=4, **kw)
        self.assertEqual((mismatches(o1, o4), mismatches(l1, l4)), (0, 0))


class PoliciesDiffer(unittest.TestCase):
    def test_same_bf16_inputs_other_bits(self):
        q, k, v, do = inputs(21, 30, 4, 2, 64, "bfloat16", 11)
        kw = dict(causal=True, cu_seqlens=[0, 5, 21], cu_seqlens_k=[0, 9, 30], threads=1)
        outs = {}
        for policy in ("fma-chain", TC):
            o, lse = R.attention_forward(q, k, v, policy=policy, input_dtype="bfloat16", **kw)
            dq, dk, dv = R.attention_backward(q, k, v, to_bf16(o), do, lse, policy=policy, input_dtype="bfloat16",
                                              **kw)
            outs[policy] = dict(o=o, lse=lse, dq=dq, dk=dk, dv=dv)
        diff = {n: mismatches(outs["fma-chain"][n], outs[TC][n]) for n in outs[TC]}
        for n, m in diff.items():
            self.assertGreater(m, outs[TC][n].size // 4, (n, diff))  # most elements differ
        # control: under fma-chain input_dtype changes nothing, and the default policy is fma-chain
        o_none, _ = R.attention_forward(q, k, v, **kw)
        self.assertEqual(mismatches(o_none, outs["fma-chain"]["o"]), 0)


class HandOver(unittest.TestCase):
    """samebits.reference.attention_backward's accum_in under sm90-tensor-core
    (attention-tc.md §6): a causal sequence of 48 rows split at row 16."""

    def setUp(self):
        self.q, self.k, self.v, self.do = inputs(48, 48, 2, 1, 64, "bfloat16", 5)
        self.kw = dict(causal=True, policy=TC, input_dtype="bfloat16", threads=1)
        o, self.lse = R.attention_forward(self.q, self.k, self.v, **self.kw)
        self.o = to_bf16(o)

    def part(self, s0, s1, accum_in):
        q, k, v, do, o, lse = self.q, self.k, self.v, self.do, self.o, self.lse
        return R.attention_backward(q[s0:s1], k[:s1], v[:s1], o[s0:s1], do[s0:s1], lse[s0:s1],
                                    cu_seqlens=[0, s1 - s0], cu_seqlens_k=[0, s1], accum_in=accum_in,
                                    return_accum=True, **self.kw)

    def test_split_at_16_equals_one_call(self):
        dq, dk, dv = R.attention_backward(self.q, self.k, self.v, self.o, self.do, self.lse, **self.kw)
        dq0, _, _, (ak, av) = self.part(0, 16, None)
        pad = lambda a: np.concatenate([a, np.zeros((32,) + a.shape[1:], np.float32)])  # noqa: E731
        dq1, dk1, dv1, _ = self.part(16, 48, (pad(ak), pad(av)))
        got = dict(dq=np.concatenate([dq0, dq1]), dk=dk1, dv=dv1)
        self.assertEqual({n: mismatches(got[n], w) for n, w in (("dq", dq), ("dk", dk), ("dv", dv))},
                         dict(dq=0, dk=0, dv=0))
        # control: the accumulators handed on are read (dropping them changes dk)
        _, dk_drop, _, _ = self.part(16, 48, (np.zeros((48, 2, 64), np.float32),) * 2)
        self.assertGreater(mismatches(dk_drop, dk), 0)

    def test_split_off_a_16_row_boundary_is_refused_by_the_c_abi(self):
        _, _, _, (ak, av) = self.part(0, 8, None)
        pad = lambda a: np.concatenate([a, np.zeros((40,) + a.shape[1:], np.float32)])  # noqa: E731
        with self.assertRaises(errors.InvalidArgumentError) as cm:
            self.part(8, 48, (pad(ak), pad(av)))
        self.assertEqual(cm.exception.function, "samebits_attention_reference_backward_handover")
        self.assertIn("handed-on dK/dV accumulators need every sequence to start at a 16-row group boundary",
                      cm.exception.message)


# ---- fingerprints ------------------------------------------------------------------------

FP_DEFAULT = "samebits-attention/1 policy=sm90-tc/1(F=25,G=16,R=rz,C=first,Z=ignored,P=raw,S=pos,O=inf,E=-133) Bk=128 libm="
# attention-tc.md §9: each non-default value of each field, and the key=value it shows as.
FP_VALUES = [("frac_bits", 1, "F=1"), ("frac_bits", 40, "F=40"), ("group", 1, "G=1"), ("group", 2, "G=2"),
             ("group", 4, "G=4"), ("group", 8, "G=8"), ("rounding", "nearest_even", "R=rn"),
             ("c_join", "after_products", "C=after"), ("zero_exponent", "fixed_m126", "Z=m126"),
             ("zero_exponent", "format_min", "Z=fmin"), ("product_exponent", "normalized", "P=norm"),
             ("zero_sign", "ieee", "S=ieee"), ("overflow", "saturate", "O=sat")]
DEFAULT_KV = {"frac_bits": "F=25", "group": "G=16", "rounding": "R=rz", "c_join": "C=first",
              "zero_exponent": "Z=ignored", "product_exponent": "P=raw", "zero_sign": "S=pos", "overflow": "O=inf"}


class Fingerprints(unittest.TestCase):
    def test_default_model_both_libms(self):
        for libm in ("nvcc", "cr"):
            self.assertEqual(samebits.fingerprint("attention", libm, policy=TC), FP_DEFAULT + libm)
            self.assertEqual(samebits.fingerprint("attention", libm, policy=TC, mma=samebits.MmaParams()),
                             FP_DEFAULT + libm)
            self.assertEqual(samebits.fingerprint("attention", libm),
                             f"samebits-attention/1 policy=fma-chain/1 B=64 libm={libm}")
            self.assertEqual(samebits.fingerprint("attention", libm, policy="fma-chain"),
                             samebits.fingerprint("attention", libm))

    def test_every_parameter_value_shows(self):
        seen = set()
        for field, value, kv in FP_VALUES:
            got = samebits.fingerprint("attention", policy=TC, mma={field: value})
            want = FP_DEFAULT.replace(DEFAULT_KV[field], kv) + "nvcc"
            self.assertEqual(got, want, (field, value))
            seen.add(got)
        self.assertEqual(len(seen), len(FP_VALUES))  # one string per model (control: none collapse)
        self.assertNotIn(FP_DEFAULT + "nvcc", seen)

    def test_forms_of_mma_agree_with_the_direct_call(self):
        want = Direct((0, 1), (0, 1), 1, 1, 64, False, BF16, 1, MMA_OTHER_CODES, libm=1).fingerprint()
        self.assertIn("(F=24,G=8,R=rn,", want)
        for mma in (MMA_OTHER, samebits.MmaParams(**MMA_OTHER), list(MMA_OTHER_CODES),
                    samebits.MmaParams(frac_bits=24, group=8, rounding=1)):
            self.assertEqual(samebits.fingerprint("attention", "cr", policy=TC, mma=mma), want, mma)
        # the direct call with a null mma is the defaults
        self.assertEqual(Direct((0, 1), (0, 1), 1, 1, 64, False, BF16, 1).fingerprint(), FP_DEFAULT + "nvcc")

    def test_cli_prints_the_same(self):
        for policy, dtype, want in ((TC, "bf16", FP_DEFAULT + "nvcc"), (TC, "fp16", FP_DEFAULT + "nvcc"),
                                    ("fma-chain", "bf16", samebits.fingerprint())):
            p = subprocess.run([EXE, "attention", "--policy", policy, "--dtype", dtype, "--seqlen", "16", "--hq", "2",
                                "--hkv", "1", "--d", "64", "--threads", "1", "--json"], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            fp = json.loads(p.stdout)["fingerprint"]
            self.assertEqual(fp, want)
            self.assertEqual(fp, samebits.fingerprint(policy=policy))
        # the CLI refuses float32 inputs under the policy, as the Python reference does (each naming its argument)
        p = subprocess.run([EXE, "attention", "--policy", TC, "--dtype", "f32", "--seqlen", "16", "--hq", "2", "--hkv",
                            "1", "--d", "64"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("in_dtype float32: policy sm90-tensor-core takes bfloat16 or float16 inputs", p.stderr)

    def test_refusals(self):
        cases = [(dict(policy="sm90-tc"), ValueError, "policy: 'sm90-tc' unknown"),
                 (dict(policy=None), ValueError, "policy: None unknown"),
                 (dict(policy=TC, op="sparse_mla"), ValueError, "op sparse_mla has policy fma-chain only"),
                 (dict(policy=TC, libm="glibc"), ValueError, "libm: 'glibc' unknown")]
        for kw, exc, text in cases:
            op = kw.pop("op", "attention")
            libm = kw.pop("libm", "nvcc")
            with self.assertRaises(exc) as cm:
                samebits.fingerprint(op, libm, **kw)
            self.assertIn(text, str(cm.exception))
            self.assertNotIsInstance(cm.exception, samebits.SamebitsError)  # Python's check (a name, an op)
        # mma under fma-chain: the library's rule (the problem fingerprint refuses it), its message
        with self.assertRaises(samebits.InvalidArgumentError) as cm:
            samebits.fingerprint("attention", mma={"frac_bits": 24})
        self.assertEqual(cm.exception.message, "samebits attention: mma is read only by policy sm90-tensor-core "
                                               "(pass null)")
        self.assertEqual(samebits.fingerprint("sparse_mla", policy="fma-chain"),
                         "samebits-sparse-mla/1 policy=fma-chain/1 B=64 libm=nvcc")  # control


# ---- the nvcc-fast libm (attention-tc.md §23): sm90-tensor-core's only ----------------------

class NvccFast(unittest.TestCase):
    CASE = ((0, 5, 21), (0, 9, 150), 4, 2, 64, True, "bfloat16")  # two key blocks

    def test_equals_direct_c_and_differs_from_nvcc(self):
        cu_q, cu_k, hq, hkv, d, causal, dtype = self.CASE
        q, k, v, do = inputs(cu_q[-1], cu_k[-1], hq, hkv, d, dtype, 11)
        out = {}
        for libm, code in (("nvcc-fast", 2), ("nvcc", 0)):
            kw = dict(causal=causal, cu_seqlens=list(cu_q), cu_seqlens_k=list(cu_k), policy=TC, input_dtype=dtype,
                      libm=libm, threads=1)
            o, lse = R.attention_forward(q, k, v, **kw)
            o_stored = to_dtype(o, dtype)
            dq, dk, dv = R.attention_backward(q, k, v, o_stored, do, lse, **kw)
            direct = Direct(cu_q, cu_k, hq, hkv, d, causal, DTYPE_CODE[dtype], 1, libm=code)
            co, clse = direct.forward(q, k, v)
            cdq, cdk, cdv = direct.backward(q, k, v, o_stored, do, lse)
            py = dict(o=o, lse=lse, dq=dq, dk=dk, dv=dv)
            c = dict(o=co, lse=clse, dq=cdq, dk=cdk, dv=cdv)
            self.assertEqual({n: mismatches(py[n], c[n]) for n in py}, {n: 0 for n in py}, libm)
            out[libm] = py
        # the libm is on the path: other bits than nvcc's
        self.assertGreater(sum(mismatches(out["nvcc-fast"][n], out["nvcc"][n]) for n in out["nvcc"]), 0)
        self.assertEqual(samebits.fingerprint("attention", "nvcc-fast", policy=TC), FP_DEFAULT + "nvcc-fast")

    def test_refused_outside_the_policy(self):
        cu_q, cu_k, hq, hkv, d, causal, dtype = self.CASE
        q, k, v, _ = inputs(cu_q[-1], cu_k[-1], hq, hkv, d, dtype, 11)
        with self.assertRaises(samebits.SamebitsError) as cm:
            R.attention_forward(q, k, v, causal=causal, cu_seqlens=list(cu_q), cu_seqlens_k=list(cu_k),
                                libm="nvcc-fast", threads=1)
        self.assertIn("libm nvcc-fast is offered by the sm90-tensor-core policy only", str(cm.exception))
        with self.assertRaises(samebits.SamebitsError) as cm:
            samebits.fingerprint("attention", "nvcc-fast")
        self.assertIn("nvcc-fast", str(cm.exception))
        with self.assertRaises(samebits.SamebitsError) as cm:
            samebits.fingerprint("sparse_mla", "nvcc-fast")
        self.assertEqual(cm.exception.message, "samebits sparse-mla: libm nvcc-fast is offered by the sm90-tensor-core "
                                               "policy only (policy fma-chain takes nvcc or cr)")


# ---- refusals ------------------------------------------------------------------------------

class Refusals(unittest.TestCase):
    def setUp(self):
        self.q, self.k, self.v, self.do = inputs(10, 10, 2, 1, 64, "bfloat16", 2)

    def refused(self, exc, text, fn):
        with self.assertRaises(exc) as cm:
            fn()
        self.assertIn(text, str(cm.exception))
        return cm.exception

    def test_python_names_then_the_librarys_rules(self):
        q, k, v = self.q, self.k, self.v
        fwd = lambda **kw: R.attention_forward(q, k, v, causal=True, **kw)  # noqa: E731
        # Python's: names and forms (what has no C code), naming the argument
        for exc, text, kw in [
                (ValueError, "policy: 'tensor-core' unknown ('fma-chain', 'sm90-tensor-core')", dict(policy="tensor-core")),
                (ValueError, "input_dtype: 'int8' unknown", dict(input_dtype="int8")),
                (ValueError, "mma.rounding: 'nearest' unknown (toward_zero, nearest_even)",
                 dict(policy=TC, input_dtype="bfloat16", mma={"rounding": "nearest"})),
                (TypeError, "mma.overflow: True is a bool", dict(policy=TC, input_dtype="bfloat16",
                                                                 mma={"overflow": True})),
                (ValueError, "mma: field 'F' unknown", dict(policy=TC, input_dtype="bfloat16", mma={"F": 25})),
                (ValueError, "mma: 7 codes", dict(policy=TC, input_dtype="bfloat16", mma=[25, 16, 0, 0, 0, 0, 0])),
                (TypeError, "mma: str is not an MmaParams", dict(policy=TC, input_dtype="bfloat16", mma="F=25"))]:
            e = self.refused(exc, text, lambda: fwd(**kw))
            self.assertNotIsInstance(e, samebits.SamebitsError, kw)  # Python's, before the C ABI
        # the library's rules, through the reference's C entry point: its class and message
        A = "samebits attention: "
        for exc, message, kw in [
                (errors.UnsupportedError, A + "in_dtype float32: policy sm90-tensor-core takes bfloat16 or float16 "
                                              "inputs (the tensor-core products take 16-bit operands)", dict(policy=TC)),
                (errors.UnsupportedError, A + "in_dtype float32: policy sm90-tensor-core takes bfloat16 or float16 "
                                              "inputs (the tensor-core products take 16-bit operands)",
                 dict(policy=TC, input_dtype="float32")),
                (errors.InvalidArgumentError, A + "mma is read only by policy sm90-tensor-core (pass null)",
                 dict(mma=samebits.MmaParams())),
                (errors.InvalidArgumentError, A + "mma: group: must be in [1, k] and divide k",
                 dict(policy=TC, input_dtype="bfloat16", mma={"group": 3})),
                (errors.InvalidArgumentError, A + "mma: frac_bits: must be in [1, 40]",
                 dict(policy=TC, input_dtype="bfloat16", mma={"frac_bits": 41})),
                (errors.InvalidArgumentError, A + "mma: zero_exponent: not a ZeroExponent value",
                 dict(policy=TC, input_dtype="bfloat16", mma={"zero_exponent": 3}))]:
            e = self.refused(exc, message, lambda: fwd(**kw))
            self.assertEqual((e.message, e.function), (message, "samebits_attention_reference_forward"), kw)
        # D not 64 or 128: the library's rule, under either policy
        q96 = np.zeros((10, 2, 96), np.float32)
        k96 = np.zeros((10, 1, 96), np.float32)
        self.refused(errors.UnsupportedError, "samebits attention: d = 96: the head dim must be 64 or 128",
                     lambda: R.attention_forward(q96, k96, k96, causal=True, policy=TC, input_dtype="bfloat16"))
        # and the backward checks the same
        self.refused(errors.UnsupportedError, "in_dtype float32: policy sm90-tensor-core",
                     lambda: R.attention_backward(q, k, v, q, self.do, np.zeros((10, 2), np.float32), causal=True,
                                                  policy=TC))
        # control: the valid calls pass, both policies
        R.attention_forward(q, k, v, causal=True, policy=TC, input_dtype="float16", mma={"group": 4})
        R.attention_forward(q, k, v, causal=True, policy="fma-chain", input_dtype="float32")

    def test_value_not_of_the_dtype_refused_by_the_c_abi(self):
        k = self.k.copy()
        k[4, 0, 7] = np.float32(0.1)  # not a bfloat16 value
        e = self.refused(errors.InvalidArgumentError, "is not a bfloat16 value",
                         lambda: R.attention_forward(self.q, k, self.v, causal=True, policy=TC,
                                                     input_dtype="bfloat16"))
        self.assertEqual(e.message, "samebits_attention_reference_forward: samebits attention reference: policy "
                                    "sm90-tensor-core: k[263] = 0x1.99999ap-4 is not a bfloat16 value (the inputs "
                                    "must be the dtype's values, widened exactly)")
        # 0.1 as float16 data is not a float16 value either; 0.099975586 (0x2e66) is one: control
        self.refused(errors.InvalidArgumentError, "is not a float16 value",
                     lambda: R.attention_forward(self.q, k, self.v, causal=True, policy=TC, input_dtype="float16"))
        k[4, 0, 7] = np.float16(0.1)
        R.attention_forward(self.q, k, self.v, causal=True, policy=TC, input_dtype="float16")

    def test_c_abi_validates_again(self):
        """What the Python checks would refuse, handed to the C ABI anyway (a
        plan edited after the checks): the C messages."""
        plan = V.check_attention(*(V.desc(x.shape, "float32", device="cpu") for x in (self.q, self.k, self.v)),
                                 causal=True, policy=TC, input_dtype="bfloat16", device_kind="cpu",
                                 dtypes=("float32",))
        lib = _lib.load()
        o, lse = np.empty_like(self.q), np.empty((10, 2), np.float32)

        def ref(pl):
            p = _lib.attention_problem(pl)
            lib.call("samebits_attention_reference_forward", C.byref(p), self.q.ctypes.data, self.k.ctypes.data,
                     self.v.ctypes.data, o.ctypes.data, lse.ctypes.data, 1)

        ref(plan)  # control: the plan as checked runs
        fn = "samebits attention: "
        for edit, exc, msg in [
                (dict(dtype="float32"), errors.UnsupportedError,
                 "in_dtype float32: policy sm90-tensor-core takes bfloat16 or float16 inputs (the tensor-core products "
                 "take 16-bit operands)"),
                (dict(mma=(25, 3, 0, 0, 0, 0, 0, 0)), errors.InvalidArgumentError,
                 "mma: group: must be in [1, k] and divide k"),
                (dict(mma=(0, 16, 0, 0, 0, 0, 0, 0)), errors.InvalidArgumentError,
                 "mma: frac_bits: must be in [1, 40]"),
                (dict(mma=(25, 16, 256, 0, 0, 0, 0, 0)), errors.InvalidArgumentError,
                 "mma: rounding: not a Rounding value"),  # 256 would wrap to 0 in a uint8
                (dict(mma=(25, 16, 0, 0, -1, 0, 0, 0)), errors.InvalidArgumentError,
                 "mma: zero_exponent: not a ZeroExponent value"),
                (dict(policy="fma-chain", mma=(25, 16, 0, 0, 0, 0, 0, 0)), errors.InvalidArgumentError,
                 "mma is read only by policy sm90-tensor-core (pass null)"),
                (dict(d=96), errors.UnsupportedError, "d = 96: the head dim must be 64 or 128"),
                (dict(scale=0.0), errors.InvalidArgumentError,
                 "scale = 0: an explicit scale must be finite and > 0 (NaN: not given, the default binary32 nearest "
                 "1/sqrt(D); 0 is refused, never read as the default)")]:
            with self.assertRaises(exc) as cm:
                ref(plan._replace(**edit))
            self.assertEqual(cm.exception.message, fn + msg, edit)
        # a policy code the binding does not know
        p = _lib.attention_problem(plan)
        p.policy = 2
        with self.assertRaises(errors.UnsupportedError) as cm:
            lib.call("samebits_attention_reference_forward", C.byref(p), self.q.ctypes.data, self.k.ctypes.data,
                     self.v.ctypes.data, o.ctypes.data, lse.ctypes.data, 1)
        self.assertEqual(cm.exception.message, fn + "policy code 2 unknown (0 fma-chain, 1 sm90-tensor-core)")
        # the problem fingerprint too, the check bypassed
        with self.assertRaises(errors.InvalidArgumentError) as cm:
            lib.problem_fingerprint(TC, (25, 16, 0, 0, 0, 0, 2, 0), "nvcc")
        self.assertEqual(cm.exception.message, "samebits attention: mma: zero_sign: not a ZeroSign value")

    def test_gpu_entry_point_takes_the_hardware_parameters_only(self):
        """samebits_attention_forward under sm90-tensor-core: with the hardware's
        model parameters (mma null, or the defaults given) not refused for the
        policy (this library launches, or says it was not built, or that host
        memory is not device memory — as under fma-chain); with other
        parameters SAMEBITS_UNSUPPORTED naming them, in a library with or
        without the CUDA kernels (before any pointer is looked at); never a
        result under fma-chain."""
        bufs = [np.zeros(1 << 14, np.float32) for _ in range(5)]  # outputs must not overlap inputs
        q, k, v, o = (CTensor3(b.ctypes.data, 2 * 64, 64) for b in bufs[:4])
        lse = bufs[4].ctypes.data
        for mma in (None, (25, 16, 0, 0, 1, 0, 1, 0)):
            direct = Direct((0, 8), (0, 8), 2, 2, 64, True, BF16, 1, mma)
            rc = DLL.samebits_attention_forward(C.byref(direct.p), q, k, v, o, lse, None)
            msg = DLL.samebits_last_error().decode()
            self.assertNotEqual(rc, errors.UNSUPPORTED, msg)
            self.assertNotIn("policy", msg)
        direct = Direct((0, 8), (0, 8), 2, 2, 64, True, BF16, 1, (24, 16, 0, 0, 0, 0, 0, 0))
        rc = DLL.samebits_attention_forward(C.byref(direct.p), q, k, v, o, lse, None)
        msg = DLL.samebits_last_error().decode()
        self.assertEqual(rc, errors.UNSUPPORTED, msg)
        self.assertIn("mma: policy sm90-tensor-core: the GPU computes its own tensor cores' arithmetic", msg)
        self.assertIn("the given mma parameters F=24,", msg)
        direct.p.policy = 0  # control: fma-chain with mma given is refused for the mma, not computed
        direct.p.mma = None
        rc = DLL.samebits_attention_forward(C.byref(direct.p), q, k, v, o, lse, None)
        self.assertNotEqual(rc, errors.UNSUPPORTED, DLL.samebits_last_error().decode())


if __name__ == "__main__":
    unittest.main(verbosity=1)
