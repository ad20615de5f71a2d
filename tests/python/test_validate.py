"""samebits._validate on plain tensor descriptions (no torch, no GPU): what
only Python sees (shapes that disagree, devices, dtype names, a contiguous
last dimension, a batch that folds, host cu_seqlens, the Python types and
names), refused by Python naming the argument; and every rule on the values,
which is the library's (kernels/src/validate/rules.hpp): check_attention /
check_sparse_mla raise the library's error from samebits_attention_check /
samebits_sparse_mla_check, the same message and class as the call (asserted
against the C ABI called directly). Every refusal names its argument; every
refused case has an accepted twin (the negative control).

    SAMEBITS_KERNELS_LIB=build/kernels/libsamebits_kernels.so python3 tests/python/test_validate.py
"""
import ctypes as C
import math
import unittest

import common
from samebits import _lib, _validate as V, errors

LIB = _lib.load(common.env("SAMEBITS_KERNELS_LIB"))
d = V.desc


def att(q=(10, 8, 128), k=(10, 2, 128), v=None, dtype="bfloat16", **kw):
    """check_attention on contiguous descs; kw overrides descs or options."""
    qd = kw.pop("qd", None) or d(q, dtype)
    kd = kw.pop("kd", None) or d(k, dtype)
    vd = kw.pop("vd", None) or d(v or k, dtype)
    kw.setdefault("causal", True)
    return V.check_attention(qd, kd, vd, **kw)


def sp(q=(4, 16, 512), kv=(9, 512), topk=(4, 64), dtype="bfloat16", **kw):
    qd = kw.pop("qd", None) or d(q, dtype)
    kvd = kw.pop("kvd", None) or d(kv, dtype)
    td = kw.pop("td", None) or d(topk, "int32")
    return V.check_sparse_mla(qd, kvd, td, **kw)


class Refuses(unittest.TestCase):
    def refused(self, exc, words, fn, *a, **kw):
        with self.assertRaises(exc) as cm:
            fn(*a, **kw)
        msg = str(cm.exception)
        for w in words:
            self.assertIn(w, msg)
        return cm.exception

    def python(self, exc, words, fn, *a, **kw):
        """A refusal of Python's own (not the library's)."""
        e = self.refused(exc, words, fn, *a, **kw)
        self.assertNotIsInstance(e, errors.SamebitsError)
        return e

    def library(self, exc, message, fn, *a, **kw):
        """The library's refusal: its class, and exactly its message (which names the argument)."""
        e = self.refused(exc, [message], fn, *a, **kw)
        self.assertIsInstance(e, errors.SamebitsError)
        self.assertEqual(e.message, message)
        self.assertEqual(e.function, "samebits_attention_check" if message.startswith("samebits attention")
                         else "samebits_sparse_mla_check")
        return e


class AttentionPython(Refuses):
    """What only Python sees."""

    def test_accepts_the_plain_cases(self):
        p = att()
        self.assertEqual((p.total_q, p.total_k, p.hq, p.hkv, p.d, p.cu_q, p.cu_k), (10, 10, 8, 2, 128, (0, 10), (0, 10)))
        self.assertTrue(math.isnan(p.scale))  # not given: NaN, the C ABI's default
        self.assertEqual((p.libm, p.in_dtype, p.num_seqs, p.batch), ("nvcc", 1, 1, None))
        p = att(q=(2, 5, 4, 64), k=(2, 7, 4, 64))
        self.assertEqual((p.total_q, p.total_k, p.cu_q, p.cu_k, p.max_q, p.max_k, p.batch),
                         (10, 14, (0, 5, 10), (0, 7, 14), 5, 7, (2, 5, 7)))
        self.assertEqual(p.strides3["q"], (4 * 64, 64))
        p = att(cu_seqlens=[0, 3, 10], scale=0.5, libm="cr", dtype="float32")
        self.assertEqual((p.cu_q, p.max_q, p.scale, p.libm, p.in_dtype), ((0, 3, 10), 7, 0.5, "cr", 0))
        p = att(q=(4, 8, 128), k=(10, 2, 128), cu_seqlens=[0, 1, 4], cu_seqlens_k=[0, 3, 10])
        self.assertEqual((p.cu_q, p.cu_k), ((0, 1, 4), (0, 3, 10)))

    def test_dims_and_shapes(self):
        self.python(ValueError, ["q:", "[10, 1024]"], att, q=(10, 1024))
        self.python(ValueError, ["k:", "4 dimensions"], att, k=(1, 10, 2, 128))
        self.python(ValueError, ["v:", "shape [10, 4, 128]", "k is [10, 2, 128]"], att, v=(10, 4, 128))
        self.python(ValueError, ["v:", "[9, 2, 128]"], att, v=(9, 2, 128))
        self.python(ValueError, ["k:", "head dim 64"], att, k=(10, 2, 64))
        self.python(ValueError, ["k:", "batch 3", "q has batch 2"], att, q=(2, 5, 4, 64), k=(3, 5, 4, 64))
        att(q=(10, 8, 64), k=(10, 2, 64))

    def test_dtypes(self):
        self.python(TypeError, ["q:", "dtype float64", "bfloat16"], att, dtype="float64")
        for ok in ("bfloat16", "float16", "float32"):
            att(dtype=ok)
        self.python(TypeError, ["v:", "dtype float16", "q is bfloat16"], att, vd=d((10, 2, 128), "float16"))
        self.python(TypeError, ["dout:", "dtype float32"], att, dout=d((10, 8, 128), "float32"))
        att(dout=d((10, 8, 128), "bfloat16"))
        self.python(ValueError, ["dout:", "shape [10, 8, 64]"], att, dout=d((10, 8, 64), "bfloat16"))
        self.python(ValueError, ["input_dtype:", "'fp8'"], att, dtype="float32", input_dtype="fp8")

    def test_devices(self):
        self.python(ValueError, ["k:", "on cpu", "CUDA"], att, kd=d((10, 2, 128), "bfloat16", device="cpu"))
        self.python(ValueError, ["v:", "cuda:1", "q is on cuda:0"], att,
                    vd=d((10, 2, 128), "bfloat16", device="cuda:1"))
        att(qd=d((10, 8, 128), "bfloat16", device="cuda:1"), kd=d((10, 2, 128), "bfloat16", device="cuda:1"),
            vd=d((10, 2, 128), "bfloat16", device="cuda:1"))
        self.python(ValueError, ["q:", "on cuda:0", "host"], att, device_kind="cpu")

    def test_layouts(self):
        # last dimension not contiguous: a transposed [rows, D, heads] view seen as [rows, heads, D]
        self.python(ValueError, ["q:", "last dimension", "stride is 8", ".contiguous()"], att,
                    qd=d((10, 8, 128), "bfloat16", strides=(1024, 1, 8)))
        # accepted: a [heads, rows, D] layout seen as [rows, heads, D] (the library checks the strides)
        p = att(qd=d((10, 8, 128), "bfloat16", strides=(128, 1280, 1)))
        self.assertEqual(p.strides3["q"], (128, 1280))
        # [B, S, H, D] whose batch does not fold into rows (a slice of a longer sequence)
        self.python(ValueError, ["q:", "do not fold"], att, q=(2, 5, 4, 64), k=(2, 5, 4, 64),
                    qd=d((2, 5, 4, 64), "bfloat16", strides=(6 * 256, 256, 64, 1)))
        att(q=(2, 5, 4, 64), k=(2, 5, 4, 64), qd=d((2, 5, 4, 64), "bfloat16", strides=(5 * 256, 256, 64, 1)))
        att(q=(1, 5, 4, 64), k=(1, 5, 4, 64), qd=d((1, 5, 4, 64), "bfloat16", strides=(99999, 256, 64, 1)))

    def test_cu_seqlens_are_host_ints(self):
        self.python(TypeError, ["cu_seqlens:", "ints"], att, cu_seqlens=[0, 5.0, 10])
        self.python(TypeError, ["cu_seqlens:"], att, cu_seqlens="0,10")
        self.python(ValueError, ["cu_seqlens_k:", "without cu_seqlens"], att, cu_seqlens_k=[0, 10])
        self.python(ValueError, ["cu_seqlens_k:", "2 sequences", "has 1"], att, cu_seqlens=[0, 10],
                    cu_seqlens_k=[0, 5, 10])
        self.python(ValueError, ["cu_seqlens:", "give cu_seqlens_k"], att, k=(12, 2, 128), cu_seqlens=[0, 10])
        self.python(ValueError, ["cu_seqlens:", "only with packed"], att, q=(2, 5, 4, 64), k=(2, 5, 4, 64),
                    cu_seqlens=[0, 5, 10])
        self.python(ValueError, ["cu_seqlens:", "does not fit the C ABI's int32"], att, cu_seqlens=[0, 2**31, 10])

        class DeviceTensor:  # what a CUDA tensor looks like to this check (torch's .device, .tolist())
            def __init__(self, values, device):
                self.values, self.device = values, device

            def tolist(self):
                return list(self.values)

            def __iter__(self):
                raise AssertionError("iterated element by element")

        self.python(ValueError, ["cu_seqlens:", "a tensor on cuda:0", "host ints", ".tolist()"], att,
                    cu_seqlens=DeviceTensor([0, 3, 10], "cuda:0"))
        self.python(ValueError, ["cu_seqlens_k:", "a tensor on cuda:1"], att, q=(4, 8, 128),
                    cu_seqlens=[0, 1, 4], cu_seqlens_k=DeviceTensor([0, 3, 10], "cuda:1"))
        # control: a CPU tensor is converted once (tolist), not iterated
        self.assertEqual(att(cu_seqlens=DeviceTensor([0, 3, 10], "cpu")).cu_q, (0, 3, 10))
        att(cu_seqlens=(0, 0, 10, 10))  # empty sequences are sequences

    def test_option_types_and_names(self):
        self.python(TypeError, ["causal:"], att, causal=1)
        att(causal=False)
        self.python(TypeError, ["scale:"], att, scale="0.1")
        self.python(TypeError, ["scale:"], att, scale=True)
        self.python(ValueError, ["libm:", "'hipcc'"], att, libm="hipcc")
        self.python(ValueError, ["policy:", "'fma'"], att, policy="fma")
        self.python(ValueError, ["policy:", "1"], att, policy=1)
        self.assertEqual(V.default_scale(128), 0.08838834613561630)
        self.assertEqual(V.default_scale(64), 0.125)


class AttentionLibraryRules(Refuses):
    """The rules on the values: the library's refusal (samebits_attention_check), its message and class."""

    def test_shapes_heads_and_limits(self):
        A = "samebits attention: "
        self.library(errors.UnsupportedError, A + "d = 96: the head dim must be 64 or 128", att, q=(10, 8, 96),
                     k=(10, 2, 96))
        self.library(errors.InvalidArgumentError, A + "hq = 8, hkv = 3: hq must be a multiple of hkv (GQA)", att,
                     k=(10, 3, 128))
        self.library(errors.UnsupportedError, A + "hq = 65536: at most 65535 query heads", att, q=(1, 65536, 64),
                     k=(1, 1, 64))
        att(q=(1, 65535, 64), k=(1, 1, 64))
        self.library(errors.InvalidArgumentError, A + "num_seqs = 0: must be in 1 .. 65535", att, q=(0, 5, 4, 64),
                     k=(0, 5, 4, 64))
        self.library(errors.InvalidArgumentError, A + "num_seqs = 65536: must be in 1 .. 65535", att,
                     q=(65536, 1, 64), k=(65536, 1, 64), cu_seqlens=list(range(65537)))
        att(q=(65535, 1, 64), k=(65535, 1, 64), cu_seqlens=list(range(65536)))

    def test_cu_seqlens(self):
        A = "samebits attention: "
        self.library(errors.InvalidArgumentError, A + "cu_seqlens_q[0] = 1: must start at 0", att, cu_seqlens=[1, 10])
        self.library(errors.InvalidArgumentError, A + "cu_seqlens_q decreases at sequence 1 (6 -> 5)", att,
                     cu_seqlens=[0, 6, 5, 10])
        self.library(errors.InvalidArgumentError, A + "cu_seqlens_q[num_seqs] = 9 differs from total_q = 10", att,
                     cu_seqlens=[0, 9])
        self.library(errors.InvalidArgumentError, A + "num_seqs = 0: must be in 1 .. 65535", att, cu_seqlens=[0])
        att(cu_seqlens=[0, 4, 10])

    def test_scale_one_meaning(self):
        """None (or NaN, the C ABI's sentinel) is the default; a given scale is finite and > 0: 0 is refused
        (never read as the default), as are infinities and negatives, and values whose binary32 is 0 or inf."""
        A = "samebits attention: "
        for bad, shown in ((0.0, "0"), (-1.0, "-1"), (float("inf"), "inf"), (1e40, "inf"), (1e-50, "0")):
            self.library(errors.InvalidArgumentError,
                         A + f"scale = {shown}: an explicit scale must be finite and > 0 (NaN: not given, the default "
                             "binary32 nearest 1/sqrt(D); 0 is refused, never read as the default)", att, scale=bad)
        for ok in (None, float("nan"), 0.1, 1e-45):
            att(scale=ok)
        self.assertEqual(att(scale=0.1).scale, 0.1)  # handed on; the C ABI rounds it to binary32

    def test_policy_libm_dtype_mma(self):
        A = "samebits attention: "
        tc = "sm90-tensor-core"
        self.library(errors.UnsupportedError, A + "libm nvcc-fast is offered by the sm90-tensor-core policy only "
                                                  "(policy fma-chain takes nvcc or cr)", att, libm="nvcc-fast")
        att(libm="nvcc-fast", policy=tc)
        self.library(errors.UnsupportedError, A + "in_dtype float32: policy sm90-tensor-core takes bfloat16 or "
                                                  "float16 inputs (the tensor-core products take 16-bit operands)",
                     att, dtype="float32", policy=tc)
        att(dtype="float32")  # control: fma-chain takes float32
        self.library(errors.InvalidArgumentError, A + "mma is read only by policy sm90-tensor-core (pass null)", att,
                     mma=V.MmaParams())
        for field, bad, message in [("frac_bits", 0, "frac_bits: must be in [1, 40]"),
                                    ("group", 3, "group: must be in [1, k] and divide k"),
                                    ("rounding", 2, "rounding: not a Rounding value"),
                                    ("rounding", 256, "rounding: not a Rounding value"),  # would wrap to 0 in a uint8
                                    ("c_join", -1, "c_join: not a CJoin value")]:
            self.library(errors.InvalidArgumentError, A + "mma: " + message, att, policy=tc, mma={field: bad})
        self.library(errors.UnsupportedError, A + "mma: policy sm90-tensor-core: the GPU computes its own tensor "
                                                  "cores' arithmetic, named F=25,G=16,R=rz,C=first,Z=ignored,P=raw,"
                                                  "S=pos,O=inf,E=-133; the given mma parameters F=24,G=16,R=rz,C=first,"
                                                  "Z=ignored,P=raw,S=pos,O=inf,E=-133 describe other arithmetic (the "
                                                  "CPU reference computes it)", att, policy=tc, mma={"frac_bits": 24})
        att(policy=tc, mma=V.MmaParams())  # the hardware's parameters, given explicitly

    def test_the_check_is_the_call(self):
        """check_attention's refusal is the call's: samebits_attention_forward on the same problem (host
        buffers; the problem is refused before any pointer is looked at) gives the same status and message."""
        plan = V.plan_attention(d((10, 8, 96), "bfloat16"), d((10, 3, 96), "bfloat16"), d((10, 3, 96), "bfloat16"),
                                causal=True, scale=0.0)
        p = _lib.attention_problem(plan)
        rc_check = LIB.lib.samebits_attention_check(C.byref(p), 0)
        msg_check = LIB.lib.samebits_last_error()
        t = _lib.Tensor3(None, 0, 0)
        rc_call = LIB.lib.samebits_attention_forward(C.byref(p), t, t, t, t, None, None)
        self.assertEqual((rc_call, LIB.lib.samebits_last_error()), (rc_check, msg_check))
        self.assertEqual(msg_check, b"samebits attention: scale = 0: an explicit scale must be finite and > 0 (NaN: "
                                    b"not given, the default binary32 nearest 1/sqrt(D); 0 is refused, never read as "
                                    b"the default)")


class PolicyNames(Refuses):
    """policy= and mma=: names and forms are Python's; their values the library's."""

    def test_plan_carries_policy_and_codes(self):
        p = att()
        self.assertEqual((p.policy, p.mma), ("fma-chain", None))
        p = att(policy="sm90-tensor-core")
        self.assertEqual((p.policy, p.mma, p.in_dtype), ("sm90-tensor-core", None, 1))
        p = V.plan_attention(d((10, 8, 128), "float16"), d((10, 2, 128), "float16"), d((10, 2, 128), "float16"),
                             causal=True, policy="sm90-tensor-core", mma={"frac_bits": 24, "zero_exponent": "fixed_m126"})
        self.assertEqual((p.mma, p.in_dtype), ((24, 16, 0, 0, 2, 0, 1, 0), 2))
        # the reference's input_dtype is the plan's input dtype (its arrays are float32)
        p = V.plan_attention(d((10, 8, 128), "float32"), d((10, 2, 128), "float32"), d((10, 2, 128), "float32"),
                             causal=True, policy="sm90-tensor-core", input_dtype="bfloat16")
        self.assertEqual((p.dtype, p.in_dtype), ("bfloat16", 1))
        self.assertEqual(att(dtype="float32").in_dtype, 0)  # control: without it, the tensors' dtype

    def test_mma_defaults_are_the_c_headers(self):
        # c_api.h's samebits_mma_params comments: F 25, group 16, zero_exponent 1 (ignored),
        # zero_sign 1 (positive), the other enum codes 0
        self.assertEqual(V.MmaParams().codes(), (25, 16, 0, 0, 1, 0, 1, 0))
        self.assertEqual(V.MMA_FIELDS, ("frac_bits", "group", "rounding", "c_join", "zero_exponent",
                                        "product_exponent", "zero_sign", "overflow"))
        for field, names in V.MMA_ENUMS.items():
            for code, name in enumerate(names):
                self.assertEqual(V.MmaParams(**{field: name}).codes(), V.MmaParams(**{field: code}).codes())
        self.assertNotEqual(V.MmaParams(rounding="nearest_even").codes(), V.MmaParams().codes())  # control
        forms = [V.MmaParams(group=4, overflow="saturate"), {"group": 4, "overflow": 1}, (25, 4, 0, 0, 1, 0, 1, 1),
                 [25, 4, "toward_zero", 0, "ignored", 0, "positive", "saturate"]]
        self.assertEqual({V.check_policy("sm90-tensor-core", m)[1] for m in forms}, {(25, 4, 0, 0, 1, 0, 1, 1)})

    def test_python_refusals_name_the_argument(self):
        tc = "sm90-tensor-core"
        for field, bad, exc, words in [
                ("frac_bits", 25.0, TypeError, ["mma.frac_bits:", "not an int"]),
                ("rounding", "up", ValueError, ["mma.rounding: 'up' unknown", "toward_zero, nearest_even"]),
                ("zero_exponent", "fixed_m127", ValueError, ["mma.zero_exponent:", "format_min, ignored, fixed_m126"]),
                ("product_exponent", 1.0, TypeError, ["mma.product_exponent:", "neither a name"]),
                ("zero_sign", False, TypeError, ["mma.zero_sign: False is a bool"]),
                ("overflow", "sat", ValueError, ["mma.overflow: 'sat' unknown", "infinity, saturate"]),
                ("group", 2**40, ValueError, ["mma.group: 1099511627776 does not fit the C ABI's int32"])]:
            self.python(exc, words, att, policy=tc, mma={field: bad})
            self.python(exc, words, V.MmaParams, **{field: bad})
        self.python(ValueError, ["mma: field 'F' unknown"], att, policy=tc, mma={"F": 25})
        self.python(ValueError, ["mma: 9 codes"], att, policy=tc, mma=(25, 16, 0, 0, 0, 0, 0, 0, 0))
        self.python(TypeError, ["mma: int is not an MmaParams"], att, policy=tc, mma=25)
        # controls: the extremes of the valid ranges pass the library
        for ok in ({"frac_bits": 1}, {"frac_bits": 40}, {"group": 1}, {"zero_exponent": 2}, {"overflow": "saturate"}):
            p = V.plan_attention(d((10, 8, 128), "bfloat16"), d((10, 2, 128), "bfloat16"), d((10, 2, 128), "bfloat16"),
                                 causal=True, policy=tc, mma=ok)
            LIB.call("samebits_attention_problem_fingerprint", C.byref(_lib.attention_problem(p)),
                     C.create_string_buffer(256), 256)  # valid model parameters (the GPU check wants the hardware's)


class SparsePython(Refuses):
    def test_accepts_the_plain_cases(self):
        p = sp()
        self.assertEqual((p.tokens, p.num_kv, p.heads, p.d, p.topk, p.sink, p.q_strides, p.kv_row_stride,
                          p.indices_row_stride, p.in_dtype), (4, 9, 16, 512, 64, False, (16 * 512, 512), 512, 64, 1))
        p = sp(q=(4, 2, 128), kv=(9, 128), dtype="float32", attn_sink=d((2,), "float32"), scale=0.25, libm="cr")
        self.assertEqual((p.d, p.sink, p.scale, p.libm, p.in_dtype), (128, True, 0.25, "cr", 0))

    def test_shapes_dtypes_devices(self):
        self.python(ValueError, ["q:", "[tokens, heads, D]"], sp, q=(4, 512))
        self.python(ValueError, ["kv:", "[num_kv, D]"], sp, kv=(9, 1, 512))
        self.python(ValueError, ["topk:", "[tokens, k]"], sp, topk=(4,))
        self.python(ValueError, ["kv:", "head dim 128"], sp, kv=(9, 128))
        self.python(ValueError, ["topk:", "5 rows", "4 tokens"], sp, topk=(5, 64))
        self.python(ValueError, ["attn_sink:", "8 entries", "16 heads"], sp, attn_sink=d((8,), "float32"))
        self.python(ValueError, ["attn_sink:", "[heads]"], sp, attn_sink=d((16, 1), "float32"))
        sp(attn_sink=d((16,), "float32"))
        self.python(ValueError, ["dout:", "shape"], sp, dout=d((4, 8, 512), "bfloat16"))
        self.python(TypeError, ["kv:", "dtype float32", "q is bfloat16"], sp, kvd=d((9, 512), "float32"))
        self.python(TypeError, ["topk:", "int64", "int32"], sp, td=d((4, 64), "int64"))
        self.python(TypeError, ["attn_sink:", "bfloat16", "float32"], sp, attn_sink=d((16,), "bfloat16"))
        self.python(TypeError, ["dout:", "float32"], sp, dout=d((4, 16, 512), "float32"))
        self.python(ValueError, ["topk:", "on cpu"], sp, td=d((4, 64), "int32", device="cpu"))
        self.python(ValueError, ["attn_sink:", "cuda:2"], sp, attn_sink=d((16,), "float32", device="cuda:2"))
        self.python(ValueError, ["kv:", "last dimension"], sp, kvd=d((9, 512), "bfloat16", strides=(1, 9)))
        self.python(ValueError, ["topk:", "last dimension"], sp, td=d((4, 64), "int32", strides=(1, 4)))
        self.python(ValueError, ["attn_sink:", "contiguous"], sp, attn_sink=d((16,), "float32", strides=(2,)))
        self.python(ValueError, ["libm:"], sp, libm="glibc")
        self.assertEqual(sp(kvd=d((9, 512), "bfloat16", strides=(600, 1))).kv_row_stride, 600)


class SparseLibraryRules(Refuses):
    def test_sizes_dtypes_scale(self):
        S = "samebits sparse-mla: "
        self.library(errors.UnsupportedError, S + "d = 256: the head dim must be 512 (128: the dense-equality "
                                                  "instantiation)", sp, q=(4, 16, 256), kv=(9, 256))
        self.library(errors.UnsupportedError, S + "in_dtype float16: sparse MLA takes bfloat16 or float32 inputs", sp,
                     dtype="float16")
        self.library(errors.InvalidArgumentError, S + "topk = 0: must be in 1 .. 2^24", sp, topk=(4, 0))
        self.library(errors.InvalidArgumentError, S + "heads = 1048561: must be in 1 .. 1048560 (65535 blocks of 16 "
                                                      "heads)", sp, q=(1, 1048561, 128), kv=(9, 128), topk=(1, 4))
        sp(q=(1, 1048560, 128), kv=(9, 128), topk=(1, 4))  # the largest head count
        sp(q=(4, 80, 128), kv=(9, 128))  # any head count (the kernels take a partial last head group)
        sp(q=(40, 16, 128), kv=(3, 128), topk=(40, 4))  # num_kv below tokens: indices name kv rows
        self.library(errors.InvalidArgumentError, S + "scale = -0.5: an explicit scale must be finite and > 0 (NaN: "
                                                      "not given, the default binary32 nearest 1/sqrt(D); 0 is "
                                                      "refused, never read as the default)", sp, scale=-0.5)
        self.library(errors.UnsupportedError, S + "libm nvcc-fast is offered by the sm90-tensor-core policy only "
                                                  "(policy fma-chain takes nvcc or cr)", sp, libm="nvcc-fast")


if __name__ == "__main__":
    unittest.main(verbosity=1)
