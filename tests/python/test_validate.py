"""samebits._validate: the Python-side checks of samebits.torch and
samebits.reference on plain tensor descriptions (no torch, no GPU). Every
refusal names its argument; every refused case has an accepted twin (the
negative control: the check is not refusing everything).

    python3 tests/python/test_validate.py
"""
import unittest

import common  # noqa: F401  (the package from the source tree)
from samebits import _validate as V

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
        return msg


class AttentionChecks(Refuses):
    def test_accepts_the_plain_cases(self):
        p = att()
        self.assertEqual((p.total_q, p.total_k, p.hq, p.hkv, p.d, p.cu_q, p.cu_k), (10, 10, 8, 2, 128, (0, 10), (0, 10)))
        self.assertEqual((p.scale, p.libm, p.in_dtype, p.num_seqs, p.batch), (0.0, "nvcc", 1, 1, None))
        p = att(q=(2, 5, 4, 64), k=(2, 7, 4, 64))
        self.assertEqual((p.total_q, p.total_k, p.cu_q, p.cu_k, p.max_q, p.max_k, p.batch),
                         (10, 14, (0, 5, 10), (0, 7, 14), 5, 7, (2, 5, 7)))
        self.assertEqual(p.strides3["q"], (4 * 64, 64))
        p = att(cu_seqlens=[0, 3, 10], scale=0.5, libm="cr", dtype="float32")
        self.assertEqual((p.cu_q, p.max_q, p.scale, p.libm, p.in_dtype), ((0, 3, 10), 7, 0.5, "cr", 0))
        p = att(q=(4, 8, 128), k=(10, 2, 128), cu_seqlens=[0, 1, 4], cu_seqlens_k=[0, 3, 10])
        self.assertEqual((p.cu_q, p.cu_k), ((0, 1, 4), (0, 3, 10)))

    def test_dims_and_shapes(self):
        self.refused(ValueError, ["q:", "[10, 1024]"], att, q=(10, 1024))
        att(q=(10, 8, 128))
        self.refused(ValueError, ["k:", "4 dimensions"], att, k=(1, 10, 2, 128))
        self.refused(ValueError, ["v:", "shape [10, 4, 128]", "k is [10, 2, 128]"], att, v=(10, 4, 128))
        self.refused(ValueError, ["v:", "[9, 2, 128]"], att, v=(9, 2, 128))
        self.refused(ValueError, ["q:", "head dim D = 96"], att, q=(10, 8, 96), k=(10, 2, 96))
        att(q=(10, 8, 64), k=(10, 2, 64))
        self.refused(ValueError, ["k:", "head dim 64"], att, k=(10, 2, 64))
        self.refused(ValueError, ["hq = 8", "hkv = 3"], att, k=(10, 3, 128))
        self.refused(ValueError, ["q:", "65536 heads"], att, q=(1, 65536, 64), k=(1, 1, 64))
        att(q=(1, 65535, 64), k=(1, 1, 64))
        self.refused(ValueError, ["k:", "batch 3", "q has batch 2"], att, q=(2, 5, 4, 64), k=(3, 5, 4, 64))
        self.refused(ValueError, ["batch 0"], att, q=(0, 5, 4, 64), k=(0, 5, 4, 64))

    def test_dtypes(self):
        self.refused(TypeError, ["q:", "dtype float64", "bfloat16"], att, dtype="float64")
        for ok in ("bfloat16", "float16", "float32"):
            att(dtype=ok)
        self.refused(TypeError, ["v:", "dtype float16", "q is bfloat16"], att, vd=d((10, 2, 128), "float16"))
        self.refused(TypeError, ["dout:", "dtype float32"], att, dout=d((10, 8, 128), "float32"))
        att(dout=d((10, 8, 128), "bfloat16"))
        self.refused(ValueError, ["dout:", "shape [10, 8, 64]"], att, dout=d((10, 8, 64), "bfloat16"))

    def test_devices(self):
        self.refused(ValueError, ["k:", "on cpu", "CUDA"], att, kd=d((10, 2, 128), "bfloat16", device="cpu"))
        self.refused(ValueError, ["v:", "cuda:1", "q is on cuda:0"], att,
                     vd=d((10, 2, 128), "bfloat16", device="cuda:1"))
        att(qd=d((10, 8, 128), "bfloat16", device="cuda:1"), kd=d((10, 2, 128), "bfloat16", device="cuda:1"),
            vd=d((10, 2, 128), "bfloat16", device="cuda:1"))
        self.refused(ValueError, ["q:", "on cuda:0", "host"], att, device_kind="cpu")

    def test_strides(self):
        # last dimension not contiguous: a transposed [rows, D, heads] view seen as [rows, heads, D]
        self.refused(ValueError, ["q:", "last dimension", "stride is 8", ".contiguous()"], att,
                     qd=d((10, 8, 128), "bfloat16", strides=(1024, 1, 8)))
        # heads overlap: head stride below D
        self.refused(ValueError, ["k:", "overlap"], att, kd=d((10, 2, 128), "bfloat16", strides=(256, 64, 1)))
        # rows overlap: row stride below heads * D with heads inner
        self.refused(ValueError, ["q:", "overlap"], att, qd=d((10, 8, 128), "bfloat16", strides=(512, 128, 1)))
        # expanded (stride 0) rows
        self.refused(ValueError, ["v:", "positive"], att, vd=d((10, 2, 128), "bfloat16", strides=(0, 128, 1)))
        # accepted twins: a [heads, rows, D] layout seen as [rows, heads, D], and padded rows
        p = att(qd=d((10, 8, 128), "bfloat16", strides=(128, 1280, 1)))
        self.assertEqual(p.strides3["q"], (128, 1280))
        att(kd=d((10, 2, 128), "bfloat16", strides=(300, 128, 1)))
        # [B, S, H, D] whose batch does not fold into rows (a slice of a longer sequence)
        self.refused(ValueError, ["q:", "do not fold"], att, q=(2, 5, 4, 64), k=(2, 5, 4, 64),
                     qd=d((2, 5, 4, 64), "bfloat16", strides=(6 * 256, 256, 64, 1)))
        att(q=(2, 5, 4, 64), k=(2, 5, 4, 64), qd=d((2, 5, 4, 64), "bfloat16", strides=(5 * 256, 256, 64, 1)))
        att(q=(1, 5, 4, 64), k=(1, 5, 4, 64), qd=d((1, 5, 4, 64), "bfloat16", strides=(99999, 256, 64, 1)))

    def test_cu_seqlens(self):
        self.refused(ValueError, ["cu_seqlens:", "start at 0"], att, cu_seqlens=[1, 10])
        self.refused(ValueError, ["cu_seqlens:", "decreases at sequence 1"], att, cu_seqlens=[0, 6, 5, 10])
        self.refused(ValueError, ["cu_seqlens:", "ends at 9", "10 rows"], att, cu_seqlens=[0, 9])
        self.refused(ValueError, ["cu_seqlens:", "at least 2"], att, cu_seqlens=[0])
        self.refused(TypeError, ["cu_seqlens:", "ints"], att, cu_seqlens=[0, 5.0, 10])
        self.refused(TypeError, ["cu_seqlens:"], att, cu_seqlens="0,10")
        self.refused(ValueError, ["cu_seqlens_k:", "without cu_seqlens"], att, cu_seqlens_k=[0, 10])
        self.refused(ValueError, ["cu_seqlens_k:", "2 sequences", "has 1"], att, cu_seqlens=[0, 10],
                     cu_seqlens_k=[0, 5, 10])
        self.refused(ValueError, ["cu_seqlens:", "give cu_seqlens_k"], att, k=(12, 2, 128), cu_seqlens=[0, 10])
        self.refused(ValueError, ["cu_seqlens:", "only with packed"], att, q=(2, 5, 4, 64), k=(2, 5, 4, 64),
                     cu_seqlens=[0, 5, 10])
        self.refused(ValueError, ["cu_seqlens:", "65536 sequences"], att, q=(65536, 1, 64), k=(65536, 1, 64),
                     cu_seqlens=list(range(65537)))
        att(q=(65535, 1, 64), k=(65535, 1, 64), cu_seqlens=list(range(65536)))
        att(cu_seqlens=(0, 0, 10, 10))  # empty sequences are sequences

    def test_options(self):
        self.refused(TypeError, ["causal:"], att, causal=1)
        att(causal=False)
        self.refused(TypeError, ["causal:"], V.check_attention, d((10, 8, 128), "bfloat16"),
                     d((10, 2, 128), "bfloat16"), d((10, 2, 128), "bfloat16"), causal=None)
        for bad in (0.0, -1.0, float("nan"), float("inf"), 1e40, 1e-50):
            self.refused(ValueError, ["scale:"], att, scale=bad)
        self.refused(TypeError, ["scale:"], att, scale="0.1")
        self.refused(TypeError, ["scale:"], att, scale=True)
        self.assertEqual(att(scale=0.1).scale, 0.10000000149011612)  # rounded to binary32
        self.refused(ValueError, ["libm:", "'hipcc'"], att, libm="hipcc")
        self.assertEqual(V.default_scale(128), 0.08838834613561630)
        self.assertEqual(V.default_scale(64), 0.125)


class PolicyChecks(Refuses):
    """policy= and mma= (attention's arithmetic policy, attention-tc.md)."""

    def test_plan_carries_policy_and_codes(self):
        p = att()
        self.assertEqual((p.policy, p.mma), ("fma-chain", None))
        p = att(policy="sm90-tensor-core")
        self.assertEqual((p.policy, p.mma, p.in_dtype), ("sm90-tensor-core", None, 1))
        p = att(policy="sm90-tensor-core", dtype="float16", mma={"frac_bits": 24, "zero_exponent": "fixed_m126"})
        self.assertEqual((p.mma, p.in_dtype), ((24, 16, 0, 0, 2, 0, 1, 0), 2))
        # the reference's input_dtype is the plan's input dtype (its arrays are float32)
        p = att(dtype="float32", device_kind="cuda", policy="sm90-tensor-core", input_dtype="bfloat16")
        self.assertEqual((p.dtype, p.in_dtype), ("bfloat16", 1))
        self.assertEqual(att(dtype="float32").in_dtype, 0)  # control: without it, the tensors' dtype

    def test_mma_defaults_are_the_c_headers(self):
        # c_api.h's samebits_mma_params comments: F 25, group 16, zero_exponent 1 (ignored),
        # zero_sign 1 (positive), the other enum codes 0
        self.assertEqual(V.MmaParams().codes(), (25, 16, 0, 0, 1, 0, 1, 0))
        self.assertEqual(V.MMA_FIELDS, ("frac_bits", "group", "rounding", "c_join", "zero_exponent",
                                        "product_exponent", "zero_sign", "overflow"))
        # names and codes are one model; each name is its code
        for field, names in V.MMA_ENUMS.items():
            for code, name in enumerate(names):
                self.assertEqual(V.MmaParams(**{field: name}).codes(), V.MmaParams(**{field: code}).codes())
        self.assertNotEqual(V.MmaParams(rounding="nearest_even").codes(), V.MmaParams().codes())  # control
        # the forms of mma agree
        forms = [V.MmaParams(group=4, overflow="saturate"), {"group": 4, "overflow": 1}, (25, 4, 0, 0, 1, 0, 1, 1),
                 [25, 4, "toward_zero", 0, "ignored", 0, "positive", "saturate"]]
        self.assertEqual({V.check_policy("sm90-tensor-core", m)[1] for m in forms}, {(25, 4, 0, 0, 1, 0, 1, 1)})

    def test_refusals_name_the_argument(self):
        tc = "sm90-tensor-core"
        self.refused(ValueError, ["policy:", "'fma'", "\"fma-chain\" or \"sm90-tensor-core\""], att, policy="fma")
        self.refused(ValueError, ["policy:", "1"], att, policy=1)
        self.refused(ValueError, ["mma:", "only policy \"sm90-tensor-core\"", "pass mma=None"], att,
                     mma=V.MmaParams())
        self.refused(ValueError, ["mma:", "only policy"], att, mma={})
        # fp32 inputs under the tensor-core policy: the tensors' argument (q), or input_dtype
        self.refused(TypeError, ["q:", "dtype float32", "policy sm90-tensor-core", "bfloat16 or float16"], att,
                     dtype="float32", policy=tc)
        self.refused(TypeError, ["input_dtype:", "dtype float32"], att, dtype="float32", policy=tc,
                     input_dtype="float32")
        self.refused(ValueError, ["input_dtype:", "'fp8'"], att, dtype="float32", input_dtype="fp8")
        att(dtype="float32", policy="fma-chain")  # control: fma-chain takes float32
        self.refused(ValueError, ["q:", "head dim D = 256"], att, q=(10, 8, 256), k=(10, 2, 256), policy=tc)
        for field, bad, exc, words in [
                ("frac_bits", 0, ValueError, ["mma.frac_bits: 0", "[1, 40]"]),
                ("frac_bits", 41, ValueError, ["mma.frac_bits: 41"]),
                ("frac_bits", 25.0, TypeError, ["mma.frac_bits:", "not an int"]),
                ("group", 3, ValueError, ["mma.group: 3", "divide 16"]),
                ("group", 32, ValueError, ["mma.group: 32"]),
                ("group", 0, ValueError, ["mma.group: 0"]),
                ("rounding", "up", ValueError, ["mma.rounding: 'up' unknown", "toward_zero, nearest_even"]),
                ("rounding", 2, ValueError, ["mma.rounding: code 2 unknown", "0 toward_zero, 1 nearest_even"]),
                ("rounding", 256, ValueError, ["mma.rounding: code 256"]),  # would wrap to 0 in a uint8
                ("c_join", -1, ValueError, ["mma.c_join: code -1"]),
                ("zero_exponent", "fixed_m127", ValueError, ["mma.zero_exponent:", "format_min, ignored, fixed_m126"]),
                ("product_exponent", 1.0, TypeError, ["mma.product_exponent:", "neither a name"]),
                ("zero_sign", False, TypeError, ["mma.zero_sign: False is a bool"]),
                ("overflow", "sat", ValueError, ["mma.overflow: 'sat' unknown", "infinity, saturate"])]:
            self.refused(exc, words, att, policy=tc, mma={field: bad})
            self.refused(exc, words, V.MmaParams, **{field: bad})
        self.refused(ValueError, ["mma: field 'F' unknown"], att, policy=tc, mma={"F": 25})
        self.refused(ValueError, ["mma: 9 codes"], att, policy=tc, mma=(25, 16, 0, 0, 0, 0, 0, 0, 0))
        self.refused(TypeError, ["mma: int is not an MmaParams"], att, policy=tc, mma=25)
        # controls: the extremes of the valid ranges
        for ok in ({"frac_bits": 1}, {"frac_bits": 40}, {"group": 1}, {"zero_exponent": 2}, {"overflow": "saturate"}):
            att(policy=tc, mma=ok)


class SparseChecks(Refuses):
    def test_accepts_the_plain_cases(self):
        p = sp()
        self.assertEqual((p.tokens, p.num_kv, p.heads, p.d, p.topk, p.sink, p.q_strides, p.kv_row_stride,
                          p.indices_row_stride, p.in_dtype), (4, 9, 16, 512, 64, False, (16 * 512, 512), 512, 64, 1))
        p = sp(q=(4, 2, 128), kv=(9, 128), dtype="float32", attn_sink=d((2,), "float32"), scale=0.25, libm="cr")
        self.assertEqual((p.d, p.sink, p.scale, p.libm, p.in_dtype), (128, True, 0.25, "cr", 0))

    def test_shapes(self):
        self.refused(ValueError, ["q:", "[tokens, heads, D]"], sp, q=(4, 512))
        self.refused(ValueError, ["kv:", "[num_kv, D]"], sp, kv=(9, 1, 512))
        self.refused(ValueError, ["topk:", "[tokens, k]"], sp, topk=(4,))
        self.refused(ValueError, ["q:", "D = 256"], sp, q=(4, 16, 256), kv=(9, 256))
        self.refused(ValueError, ["kv:", "head dim 128"], sp, kv=(9, 128))
        self.refused(ValueError, ["topk:", "5 rows", "4 tokens"], sp, topk=(5, 64))
        self.refused(ValueError, ["attn_sink:", "8 entries", "16 heads"], sp, attn_sink=d((8,), "float32"))
        self.refused(ValueError, ["attn_sink:", "[heads]"], sp, attn_sink=d((16, 1), "float32"))
        sp(attn_sink=d((16,), "float32"))
        self.refused(ValueError, ["topk:", "0 slots"], sp, topk=(4, 0))
        self.refused(ValueError, ["dout:", "shape"], sp, dout=d((4, 8, 512), "bfloat16"))

    def test_dtypes(self):
        self.refused(TypeError, ["q:", "float16", "bfloat16, float32"], sp, dtype="float16")
        self.refused(TypeError, ["kv:", "dtype float32", "q is bfloat16"], sp, kvd=d((9, 512), "float32"))
        self.refused(TypeError, ["topk:", "int64", "int32"], sp, td=d((4, 64), "int64"))
        self.refused(TypeError, ["attn_sink:", "bfloat16", "float32"], sp, attn_sink=d((16,), "bfloat16"))
        self.refused(TypeError, ["dout:", "float32"], sp, dout=d((4, 16, 512), "float32"))

    def test_devices_and_strides(self):
        self.refused(ValueError, ["topk:", "on cpu"], sp, td=d((4, 64), "int32", device="cpu"))
        self.refused(ValueError, ["attn_sink:", "cuda:2"], sp, attn_sink=d((16,), "float32", device="cuda:2"))
        self.refused(ValueError, ["kv:", "last dimension"], sp, kvd=d((9, 512), "bfloat16", strides=(1, 9)))
        self.refused(ValueError, ["kv:", "row stride 256"], sp, kvd=d((9, 512), "bfloat16", strides=(256, 1)))
        self.assertEqual(sp(kvd=d((9, 512), "bfloat16", strides=(600, 1))).kv_row_stride, 600)
        self.refused(ValueError, ["topk:", "row stride 32"], sp, td=d((4, 64), "int32", strides=(32, 1)))
        self.refused(ValueError, ["topk:", "last dimension"], sp, td=d((4, 64), "int32", strides=(1, 4)))
        self.refused(ValueError, ["q:", "overlap"], sp, qd=d((4, 16, 512), "bfloat16", strides=(512, 256, 1)))
        self.refused(ValueError, ["attn_sink:", "contiguous"], sp, attn_sink=d((16,), "float32", strides=(2,)))
        self.refused(ValueError, ["libm:"], sp, libm="glibc")
        self.refused(ValueError, ["scale:"], sp, scale=-0.5)


if __name__ == "__main__":
    unittest.main(verbosity=1)
