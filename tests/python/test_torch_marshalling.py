"""samebits.torch's calls into the C ABI, without torch or a GPU: under a
stand-in torch (tests/python/fake_torch: host buffers that say "cuda:0"),
samebits.torch.attention / sparse_mla, forward and the registered autograd
backward, reach the C entry points with arguments the whole C validation
accepts: a library built without CUDA then answers SAMEBITS_NOT_BUILT, which
it gives only after every check passed (c_api.cpp). Negative controls: a
misaligned q, a short workspace and a wrong cu_seqlens device copy are
refused by the C validation, by name, so the validation did look at what
samebits.torch passed. The same for the backward's hand-over (accum_in), and
samebits.parallel's refusals before any transfer, under a stand-in
torch.distributed that only says where the first collective was reached.

What this does not show: anything about torch itself (dispatch, autograd,
fake tensors, torch.compile) or the GPU results: tests/device/python/
torch_ops_check.py does, on a GPU machine. Skipped when torch is installed
(the real module is then tested there) and, for the NOT_BUILT checks, when
the library carries the CUDA kernels (it then asks the CUDA runtime about
every pointer and refuses host memory).

    SAMEBITS_KERNELS_LIB=build/kernels/libsamebits_kernels.so python3 tests/python/test_torch_marshalling.py
"""
import importlib.util
import os
import sys
import unittest

import common

common.need_numpy()
if importlib.util.find_spec("torch") is not None:
    print("SKIP: torch is installed; samebits.torch is checked with it by tests/device/python/torch_ops_check.py")
    sys.exit(common.SKIP)
sys.path.insert(0, os.path.join(common.HERE, "fake_torch"))

import numpy as np  # noqa: E402
import torch  # noqa: E402  (the stand-in)

import samebits  # noqa: E402
import samebits.torch as sbt  # noqa: E402
from samebits import _lib, errors  # noqa: E402

LIB = _lib.load(common.env("SAMEBITS_KERNELS_LIB"))
assert torch.__version__ == "0.0-fake"


def t(shape, dtype=torch.bfloat16, dev="cuda:0"):
    return torch.empty(shape, dtype=dtype, device=dev)


class Ctx:
    """What the autograd engine hands setup_context and backward."""

    def save_for_backward(self, *ts):
        self.saved_tensors = ts

    def mark_non_differentiable(self, *ts):
        self.non_differentiable = ts


def forward_and_backward(op, args, grads):
    """op's function, then its registered setup_context and backward, as autograd would call them."""
    out = op(*args)
    ctx = Ctx()
    op.setup_context(ctx, args, out)
    return out, ctx, lambda: op.backward(ctx, *grads)


@unittest.skipIf(LIB.cuda, "the library has the CUDA kernels: host buffers are refused before NOT_BUILT")
class ReachesTheKernels(unittest.TestCase):
    def not_built(self, fn, function):
        with self.assertRaises(errors.NotBuiltError) as cm:
            fn()
        self.assertEqual(cm.exception.function, function)
        self.assertIn("built without the CUDA kernels", cm.exception.message)

    def test_attention_packed_forward_and_backward(self):
        q, k, v = t((17, 8, 128)), t((17, 2, 128)), t((17, 2, 128))
        self.not_built(lambda: sbt.attention(q, k, v, causal=True, cu_seqlens=[0, 5, 17]), "samebits_attention_forward")
        op = torch.library.ops["samebits::attention_fwd"]
        # The backward through its registered formula: the forward's outputs stood in by allocations.
        orig = LIB.lib.samebits_attention_forward
        try:
            LIB.lib.samebits_attention_forward = lambda *a: 0  # the forward "ran"
            args = (q, k, v, [0, 5, 17], [0, 5, 17], True, None, "cr", "fma-chain", None)
            (o, lse), ctx, backward = forward_and_backward(op, args, (t((17, 8, 128)), None))
        finally:
            LIB.lib.samebits_attention_forward = orig
        self.assertEqual((o.shape, lse.shape, str(lse.dtype)), ((17, 8, 128), (17, 8), "torch.float32"))
        self.assertIs(ctx.non_differentiable[0], lse)
        self.not_built(backward, "samebits_attention_backward")

    def test_attention_batched_gqa_f16_strided(self):
        q, k, v = t((2, 9, 4, 64), torch.float16), t((2, 11, 2, 64), torch.float16), t((2, 11, 2, 64), torch.float16)
        self.not_built(lambda: sbt.attention(q, k, v, causal=False, scale=0.3), "samebits_attention_forward")
        # a [heads, rows, D] layout seen as [rows, heads, D] (strides (D, rows * D, 1))
        base = t((8, 33, 64))
        qh = torch.Tensor(base.buf, base.dtype, (33, 8, 64), (64, 33 * 64, 1))
        self.not_built(lambda: sbt.attention(qh, t((33, 8, 64)), t((33, 8, 64)), causal=True),
                       "samebits_attention_forward")

    def test_attention_controls(self):
        q, k, v = t((17, 8, 128)), t((17, 2, 128)), t((17, 2, 128))
        # A q one byte off its dtype's alignment: the C validation refuses it by name.
        qm = torch.Tensor(q.buf[1:], q.dtype, q.shape)
        qm.offset = 0
        with self.assertRaises(errors.InvalidArgumentError) as cm:
            sbt.attention(qm, k, v, causal=True)
        self.assertEqual(cm.exception.message, "samebits attention: q is misaligned for its dtype")
        # A workspace one 256-byte part short.
        op = torch.library.ops["samebits::attention_bwd"]
        orig = LIB.lib.samebits_attention_backward_workspace_bytes
        LIB.lib.samebits_attention_backward_workspace_bytes = lambda *a: orig(*a) - 256
        try:
            with self.assertRaises(errors.InvalidArgumentError) as cm:
                op(t((17, 8, 128)), q, k, v, t((17, 8, 128)), t((17, 8), torch.float32), [0, 17], [0, 17], True, None,
                   "nvcc", "fma-chain", None)
            self.assertIn("workspace_bytes", cm.exception.message)
        finally:
            LIB.lib.samebits_attention_backward_workspace_bytes = orig
        # The host copy of cu_seqlens is what the C validation reads: a wrong one is refused, by the
        # library (the op hands the list on as it is), naming it.
        fwd = torch.library.ops["samebits::attention_fwd"]
        with self.assertRaises(errors.InvalidArgumentError) as cm:
            fwd(q, k, v, [0, 18], [0, 17], True, None, "nvcc", "fma-chain", None)
        self.assertEqual(cm.exception.message, "samebits attention: cu_seqlens_q[num_seqs] = 18 differs from total_q = 17")
        self.assertEqual(cm.exception.function, "samebits_attention_forward")
        from samebits import _validate as V
        plan = V.check_attention(sbt.describe(q), sbt.describe(k), sbt.describe(v), causal=True)
        p = _lib.attention_problem(plan._replace(cu_q=(0, 16)), cu_q_device=1 << 12, cu_k_device=1 << 12)
        with self.assertRaises(errors.InvalidArgumentError) as cm:  # the C ABI's, on what it is given
            LIB.call("samebits_attention_forward", _lib.C.byref(p), sbt._t3(q), sbt._t3(k), sbt._t3(v),
                     sbt._t3(t((17, 8, 128))), t((17, 8), torch.float32).data_ptr(), None)
        self.assertIn("cu_seqlens_q[num_seqs] = 16 differs from total_q = 17", cm.exception.message)
        # scale 0: one meaning everywhere, refused (never the default); None is the default
        with self.assertRaises(errors.InvalidArgumentError) as cm:
            fwd(q, k, v, [0, 17], [0, 17], True, 0.0, "nvcc", "fma-chain", None)
        self.assertIn("samebits attention: scale = 0: an explicit scale must be finite and > 0", cm.exception.message)
        with self.assertRaises(errors.InvalidArgumentError) as cm2:
            sbt.attention(q, k, v, causal=True, scale=0.0)
        self.assertEqual((type(cm2.exception), cm2.exception.message), (type(cm.exception), cm.exception.message))
        # cu_seqlens given as a CUDA tensor: refused by name (host ints; no element-by-element copy)
        with self.assertRaises(ValueError) as cm:
            sbt.attention(q, k, v, causal=True, cu_seqlens=torch.tensor([0, 5, 17], dtype=torch.int32))
        self.assertTrue(str(cm.exception).startswith("cu_seqlens: a tensor on cuda:0; cu_seqlens are host ints"),
                        str(cm.exception))
        self.not_built(lambda: sbt.attention(q, k, v, causal=True, cu_seqlens=torch.tensor(
            [0, 5, 17], dtype=torch.int32, device="cpu")), "samebits_attention_forward")  # control: a CPU tensor

    def test_sparse_forward_and_backward(self):
        q, kv, idx = t((70, 16, 512)), t((150, 512)), t((70, 128), torch.int32)
        sink = t((16,), torch.float32)
        self.not_built(lambda: sbt.sparse_mla(q, kv, idx, attn_sink=sink), "samebits_sparse_mla_forward")
        self.not_built(lambda: sbt.sparse_mla(q, kv, idx, index_check="host", libm="cr"), "samebits_sparse_mla_forward")
        q32, kv32 = t((5, 2, 128), torch.float32), t((9, 128), torch.float32)
        self.not_built(lambda: sbt.sparse_mla(q32, kv32, t((5, 64), torch.int32)), "samebits_sparse_mla_forward")
        # The backward: a library without CUDA has no workspace size to give (-1): said as NOT_BUILT.
        bwd = torch.library.ops["samebits::sparse_mla_bwd"]
        self.not_built(lambda: bwd(t((70, 16, 512)), q, kv, idx, sink, t((70, 16, 512)), t((70, 16), torch.float32),
                                   None, "nvcc", False), "samebits_sparse_mla_backward_workspace_bytes")
        # ... and with a size, the C backward's whole validation.
        orig = LIB.lib.samebits_sparse_mla_backward_workspace_bytes
        LIB.lib.samebits_sparse_mla_backward_workspace_bytes = lambda p: 1 << 20
        try:
            self.not_built(lambda: bwd(t((70, 16, 512)), q, kv, idx, sink, t((70, 16, 512)),
                                       t((70, 16), torch.float32), None, "nvcc", False), "samebits_sparse_mla_backward")
            # control: a misaligned dout is refused by the C validation by name
            dm = t((70, 16, 512))
            dm = torch.Tensor(dm.buf[1:], dm.dtype, dm.shape)
            with self.assertRaises(errors.InvalidArgumentError) as cm:
                bwd(dm, q, kv, idx, sink, t((70, 16, 512)), t((70, 16), torch.float32), None, "nvcc", False)
            self.assertEqual(cm.exception.message, "samebits sparse-mla: dout is misaligned for its dtype")
        finally:
            LIB.lib.samebits_sparse_mla_backward_workspace_bytes = orig

    def test_sparse_autograd_formula(self):
        q, kv, idx, sink = t((70, 16, 512)), t((150, 512)), t((70, 128), torch.int32), t((16,), torch.float32)
        op = torch.library.ops["samebits::sparse_mla_fwd"]
        out = tuple(x for x in (t((70, 16, 512)), t((70, 16), torch.float32), t((70, 16), torch.float32)))
        ctx = Ctx()
        op.setup_context(ctx, (q, kv, idx, sink, None, "nvcc", False), out)
        self.assertEqual(ctx.non_differentiable, out[1:])
        seen = {}
        bwd = torch.library.ops["samebits::sparse_mla_bwd"]
        orig = bwd.fn
        bwd.fn = lambda *a: (seen.setdefault("args", a), (t((70, 16, 512)), t((150, 512)), t((16,), torch.float32)))[1]
        try:
            grads = op.backward(ctx, t((70, 16, 512)), None, None)
        finally:
            bwd.fn = orig
        self.assertEqual(len(grads), 7)  # one per forward input
        self.assertEqual([g is None for g in grads], [False, False, True, False, True, True, True])
        a = seen["args"]
        self.assertIs(a[1], q)
        self.assertIs(a[4], sink)
        self.assertIs(a[5], out[0])  # o as the forward stored it
        self.assertIs(a[6], out[1])  # the sink-inclusive lse


@unittest.skipIf(LIB.cuda, "the library has the CUDA kernels: host buffers are refused before NOT_BUILT")
class HandOver(unittest.TestCase):
    """The backward's accum_in (context parallelism's hand-over) reaches the C validation."""

    def args(self):
        q, k, v = t((17, 8, 128)), t((29, 2, 128)), t((29, 2, 128))
        return (t((17, 8, 128)), q, k, v, t((17, 8, 128)), t((17, 8), torch.float32), [0, 17], [0, 29], True, None,
                "nvcc")

    def test_accum_in_passes_the_c_validation(self):
        acc = (t((29, 8, 128), torch.float32), t((29, 8, 128), torch.float32))
        with self.assertRaises(errors.NotBuiltError) as cm:
            sbt._attention_backward_launch(*self.args(), accum_in=acc)
        self.assertEqual(cm.exception.function, "samebits_attention_backward")
        # control: a misaligned accumulator is refused by the C validation, by name
        bad = t((29, 8, 128), torch.float32)
        bad = torch.Tensor(bad.buf[1:], bad.dtype, bad.shape)
        with self.assertRaises(errors.InvalidArgumentError) as cm:
            sbt._attention_backward_launch(*self.args(), accum_in=(acc[0], bad))
        self.assertIn("accum_v_in", cm.exception.message)
        with self.assertRaises(ValueError) as cm:  # Python's check: [total_k, hq, d]
            sbt._attention_backward_launch(*self.args(), accum_in=(acc[0], t((28, 8, 128), torch.float32)))
        self.assertTrue(str(cm.exception).startswith("accum_in[1]: [28, 8, 128]"), str(cm.exception))


class ParallelChecksFirst(unittest.TestCase):
    """samebits.parallel's refusals on the torch side, before any transfer (the
    stand-in torch.distributed raises Reached at the first collective)."""

    def setUp(self):
        import torch.distributed as dist
        import samebits.parallel as sbp
        self.dist, self.sbp = dist, sbp
        dist.state.update(initialized=True, world=2, rank=1, backend="gloo")

    def tearDown(self):
        self.dist.state.update(initialized=False, world=1, rank=0, backend="gloo", recv_ok=False)

    def fwd(self, q=None, k=None, v=None, **kw):
        args = dict(seq_len=64, cp_rank=1, cp_size=2, causal=True)
        args.update(kw)
        q = q if q is not None else t((32, 8, 128))
        k = k if k is not None else t((32, 2, 128))
        v = v if v is not None else t((32, 2, 128))
        return self.sbp.cp_attention_forward(q, k, v, **args)

    def refused(self, exc, text, fn):
        with self.assertRaises(exc) as cm:
            fn()
        self.assertTrue(str(cm.exception).startswith(text), str(cm.exception))

    def test_forward(self):
        with self.assertRaises(self.dist.Reached) as cm:  # accepted: the K/V all-gather is reached (gloo: all_gather)
            self.fwd()
        self.assertEqual(cm.exception.args[0], "all_gather")
        self.dist.state["backend"] = "nccl"
        with self.assertRaises(self.dist.Reached) as cm:
            self.fwd()
        self.assertEqual(cm.exception.args[0], "all_gather_into_tensor")
        self.refused(errors.InvalidArgumentError, "q_local: 31 rows; CP rank 1 of 2 holds query rows [32, 64)",
                     lambda: self.fwd(q=t((31, 8, 128))))
        self.refused(errors.InvalidArgumentError, "k_local: 33 rows", lambda: self.fwd(k=t((33, 2, 128)),
                                                                                      v=t((33, 2, 128))))
        self.refused(TypeError, "v: dtype float16 but q is bfloat16",
                     lambda: self.fwd(v=t((32, 2, 128), torch.float16)))
        self.refused(ValueError, "v: on cpu", lambda: self.fwd(v=t((32, 2, 128), dev="cpu")))
        self.refused(errors.InvalidArgumentError, "seq_len: 1 rows for cp_size = 2", lambda: self.fwd(seq_len=1))
        self.refused(errors.InvalidArgumentError, "cp_rank: 2", lambda: self.fwd(cp_rank=2))
        self.refused(errors.InvalidArgumentError, "cp_rank: 0 but this process is rank 1", lambda: self.fwd(cp_rank=0))
        self.refused(errors.InvalidArgumentError, "cp_size: 4 but the group has 2 ranks",
                     lambda: self.fwd(cp_size=4, q=t((16, 8, 128)), k=t((16, 2, 128)), v=t((16, 2, 128))))
        self.dist.state["backend"] = "mpi"
        self.refused(errors.UnsupportedError, "group: backend 'mpi' unsupported", self.fwd)
        self.dist.state["initialized"] = False
        self.refused(errors.InvalidArgumentError, "group: torch.distributed is not initialized", self.fwd)

    def test_backward(self):
        q, do, o, lse = t((32, 8, 128)), t((32, 8, 128)), t((32, 8, 128)), t((32, 8), torch.float32)
        kk, vk = t((64, 2, 128)), t((64, 2, 128))

        def bwd(lse=lse, kk=kk, vk=vk, do=do, **kw):
            args = dict(seq_len=64, cp_rank=1, cp_size=2, causal=True)
            args.update(kw)
            return self.sbp.cp_attention_backward(do, q, o, lse, kk, vk, **args)

        with self.assertRaises(self.dist.Reached) as cm:  # accepted: rank 1 first receives rank 0's accumulators
            bwd()
        self.assertEqual(cm.exception.args[0], "recv")
        self.refused(errors.InvalidArgumentError, "lse_local: must be the forward's, [32, 8] torch.float32",
                     lambda: bwd(lse=t((32, 7), torch.float32)))
        self.refused(errors.InvalidArgumentError, "k_keys: 63 rows; CP rank 1 of 2 holds keys [0, 64)",
                     lambda: bwd(kk=t((63, 2, 128)), vk=t((63, 2, 128))))
        self.refused(ValueError, "dout: shape [31, 8, 128] but q", lambda: bwd(do=t((31, 8, 128))))
        if LIB.cuda:
            return  # host buffers are refused before NOT_BUILT
        # the backward's launch passes the whole C validation: rank 1 with the hand-over's accum_in
        # ([64 keys, 8, 128] after a stand-in receive), rank 0 not causal without it
        self.dist.state["recv_ok"] = True
        for rank, causal in ((1, True), (0, False)):
            self.dist.state["rank"] = rank
            with self.assertRaises(errors.NotBuiltError) as cm:
                bwd(cp_rank=rank, causal=causal)
            self.assertEqual(cm.exception.function, "samebits_attention_backward")


class TensorCorePolicy(unittest.TestCase):
    """policy="sm90-tensor-core" (and its mma) through samebits.torch: Python's
    checks first, then the C ABI's problem carries the policy and the
    model's parameters. The GPU entry points take the policy only with the
    hardware's model parameters (tc::kHardwareParams: the header's defaults)
    and refuse others with the library's message (SAMEBITS_UNSUPPORTED, before
    any pointer is looked at, so in a CUDA build too) — never a fallback to
    fma-chain."""
    GPU_REFUSAL = "describe other arithmetic (the CPU reference computes it)"

    def qkv(self, dtype=torch.bfloat16):
        return t((17, 8, 64), dtype), t((17, 2, 64), dtype), t((17, 2, 64), dtype)

    def assert_not_refused_for_policy(self, call):
        """The call launches or fails for a reason other than its policy (this
        library without CUDA: not built) — as the same call under fma-chain."""
        try:
            call()
        except errors.SamebitsError as e:
            self.assertNotIn("policy", e.message)
            if not LIB.cuda:
                self.assertIsInstance(e, errors.NotBuiltError)

    def test_forward_other_parameters_refused_by_the_library(self):
        q, k, v = self.qkv()
        for mma in ({"frac_bits": 24, "rounding": "nearest_even"}, samebits.MmaParams(group=8)):
            with self.assertRaises(errors.UnsupportedError) as cm:
                sbt.attention(q, k, v, causal=True, policy="sm90-tensor-core", mma=mma)
            self.assertEqual(cm.exception.function, "samebits_attention_check")  # asked before the op
            self.assertIn(self.GPU_REFUSAL, cm.exception.message)
            self.assertIsInstance(cm.exception, NotImplementedError)
            self.assertTrue(str(cm.exception).endswith("[SAMEBITS_UNSUPPORTED]"))
        # the hardware's parameters (None, or given explicitly): not refused for the policy
        for mma in (None, samebits.MmaParams()):
            self.assert_not_refused_for_policy(
                lambda: sbt.attention(q, k, v, causal=True, policy="sm90-tensor-core", mma=mma))
        qh = self.qkv(torch.float16)
        self.assert_not_refused_for_policy(lambda: sbt.attention(*qh, causal=False, policy="sm90-tensor-core"))
        # control: the same call under fma-chain
        self.assert_not_refused_for_policy(lambda: sbt.attention(q, k, v, causal=True))

    def test_problem_carries_policy_and_mma(self):
        q, k, v = self.qkv()
        seen = []
        orig = LIB.lib.samebits_attention_check  # what samebits.torch asks first, with the call's problem

        def record(p, *rest):
            s = p._obj  # the samebits_attention_problem passed by reference
            m = None if not s.mma else _lib.MmaParams.from_address(s.mma)
            seen.append((s.policy, s.in_dtype, None if m is None else tuple(getattr(m, f) for f, _ in m._fields_)))
            return orig(p, *rest)

        LIB.lib.samebits_attention_check = record
        try:
            for policy, mma in (("sm90-tensor-core", {"frac_bits": 24, "c_join": "after_products"}),
                                ("sm90-tensor-core", None), ("fma-chain", None)):
                try:
                    sbt.attention(q, k, v, causal=True, policy=policy, mma=mma)
                except errors.SamebitsError:
                    pass
        finally:
            LIB.lib.samebits_attention_check = orig
        self.assertEqual(seen, [(1, 1, (24, 16, 0, 1, 1, 0, 1, 0)), (1, 1, None), (0, 1, None)])

    def test_backward_other_parameters_refused_and_autograd_passes_the_policy(self):
        q, k, v = self.qkv()
        bwd = torch.library.ops["samebits::attention_bwd"]
        args = (t((17, 8, 64)), q, k, v, t((17, 8, 64)), t((17, 8), torch.float32), [0, 17], [0, 17], True, None,
                "nvcc")
        with self.assertRaises(errors.UnsupportedError) as cm:
            bwd(*args, "sm90-tensor-core", [24, 16, 0, 0, 0, 0, 0, 0])
        self.assertEqual(cm.exception.function, "samebits_attention_backward")
        self.assertIn(self.GPU_REFUSAL, cm.exception.message)
        self.assert_not_refused_for_policy(lambda: bwd(*args, "sm90-tensor-core", [25, 16, 0, 0, 1, 0, 1, 0]))
        with self.assertRaises(errors.InvalidArgumentError) as cm:  # the library's rule on mma, its message
            bwd(*args, "sm90-tensor-core", [25, 3, 0, 0, 0, 0, 0, 0])
        self.assertEqual(cm.exception.message, "samebits attention: mma: group: must be in [1, k] and divide k")
        # the registered autograd formula hands policy and mma on to the backward op
        fwd = torch.library.ops["samebits::attention_fwd"]
        ctx = Ctx()
        fwd_args = (q, k, v, [0, 17], [0, 17], True, None, "cr", "sm90-tensor-core", [24, 16, 0, 0, 0, 0, 0, 0])
        out = (t((17, 8, 64)), t((17, 8), torch.float32))
        fwd.setup_context(ctx, fwd_args, out)
        seen = {}
        orig = bwd.fn
        bwd.fn = lambda *a: (seen.setdefault("args", a), (t((17, 8, 64)), t((17, 2, 64)), t((17, 2, 64))))[1]
        try:
            grads = fwd.backward(ctx, t((17, 8, 64)), None)
        finally:
            bwd.fn = orig
        self.assertEqual(len(grads), len(fwd_args))  # one per forward input
        self.assertEqual(seen["args"][6:], ([0, 17], [0, 17], True, None, "cr", "sm90-tensor-core",
                                            [24, 16, 0, 0, 0, 0, 0, 0]))

    def test_stored_ds(self):
        """stored_ds: refused outside sm90-tensor-core and for a non-bool; with it, the backward op asks
        the C ABI for the stored-D^S workspace and passes that many bytes; the autograd formula hands
        it on; left out, the op's default (False) keeps the plain workspace."""
        q, k, v = self.qkv()
        with self.assertRaises(ValueError) as cm:
            sbt.attention(q, k, v, causal=True, stored_ds=True)
        self.assertIn('stored_ds: only policy "sm90-tensor-core"', str(cm.exception))
        with self.assertRaises(TypeError) as cm:
            sbt.attention(q, k, v, causal=True, policy="sm90-tensor-core", stored_ds=1)
        self.assertIn("stored_ds: True or False", str(cm.exception))
        bwd = torch.library.ops["samebits::attention_bwd"]
        args = (t((17, 8, 64)), q, k, v, t((17, 8, 64)), t((17, 8), torch.float32), [0, 17], [0, 17], True, None,
                "nvcc", "sm90-tensor-core", None)
        seen = []
        orig = LIB.lib.samebits_attention_backward
        LIB.lib.samebits_attention_backward = lambda *a: (seen.append(a[11]), 0)[1]  # workspace_bytes
        try:
            bwd(*args, True)
            bwd(*args)
        finally:
            LIB.lib.samebits_attention_backward = orig
        plain = LIB.lib.samebits_attention_backward_workspace_bytes(17, 17, 8, 64)
        up = (plain + 255) // 256 * 256
        self.assertEqual(seen, [up + 2 * 1 * 8 * 16384, plain])  # (17/64 -> 1) + 1 query tiles, 1 key block, hq 8
        with self.assertRaises(ValueError) as cm:  # the op's own check
            bwd(*args[:-2], "fma-chain", None, True)
        self.assertIn("stored_ds", str(cm.exception))
        # the autograd formula hands stored_ds on
        fwd = torch.library.ops["samebits::attention_fwd"]
        ctx = Ctx()
        fwd_args = (q, k, v, [0, 17], [0, 17], True, None, "nvcc", "sm90-tensor-core", None, True)
        fwd.setup_context(ctx, fwd_args, (t((17, 8, 64)), t((17, 8), torch.float32)))
        got = {}
        orig_fn = bwd.fn
        bwd.fn = lambda *a: (got.setdefault("args", a), (t((17, 8, 64)), t((17, 2, 64)), t((17, 2, 64))))[1]
        try:
            grads = fwd.backward(ctx, t((17, 8, 64)), None)
        finally:
            bwd.fn = orig_fn
        self.assertEqual(len(grads), len(fwd_args))
        self.assertEqual(got["args"][-1], True)

    def test_python_names_then_the_librarys_rules(self):
        q, k, v = self.qkv()
        for kw, exc, text in [
                (dict(policy="tc"), ValueError, "policy: 'tc' unknown"),
                (dict(policy="sm90-tensor-core", mma={"zero_sign": "negative"}), ValueError,
                 "mma.zero_sign: 'negative' unknown")]:
            with self.assertRaises(exc) as cm:
                sbt.attention(q, k, v, causal=True, **kw)
            self.assertIn(text, str(cm.exception))
            self.assertNotIsInstance(cm.exception, samebits.SamebitsError)  # a name: Python's
        # the rules on the values: the library's (samebits_attention_check, before the op), its class and message
        for args, kw, exc, message in [
                (self.qkv(), dict(mma={"group": 4}), errors.InvalidArgumentError,
                 "mma is read only by policy sm90-tensor-core (pass null)"),
                (self.qkv(), dict(policy="sm90-tensor-core", mma={"frac_bits": 0}), errors.InvalidArgumentError,
                 "mma: frac_bits: must be in [1, 40]"),
                (self.qkv(torch.float32), dict(policy="sm90-tensor-core"), errors.UnsupportedError,
                 "in_dtype float32: policy sm90-tensor-core takes bfloat16 or float16 inputs (the tensor-core "
                 "products take 16-bit operands)"),
                ((t((17, 8, 96)), t((17, 2, 96)), t((17, 2, 96))), dict(policy="sm90-tensor-core"),
                 errors.UnsupportedError, "d = 96: the head dim must be 64 or 128")]:
            with self.assertRaises(exc) as cm:
                sbt.attention(*args, causal=True, **kw)
            self.assertEqual((cm.exception.message, cm.exception.function),
                             ("samebits attention: " + message, "samebits_attention_check"))

    def test_op_signatures_torch_can_infer(self):
        """What torch.library.custom_op's schema inference takes (torch >= 2.4,
        torch/_library/infer_schema.py): annotated parameters of supported
        types, defaults only int, float, bool or None; the fake kernels take
        the same parameters. The stand-in torch checks none of this."""
        import inspect
        from typing import List, Optional
        allowed = {torch.Tensor, Optional[torch.Tensor], List[int], Optional[List[int]], int, float, Optional[float],
                   bool, str}
        for name in ("samebits::attention_fwd", "samebits::attention_bwd", "samebits::sparse_mla_fwd",
                     "samebits::sparse_mla_bwd"):
            op = torch.library.ops[name]
            sig = inspect.signature(op.fn)
            for pname, par in sig.parameters.items():
                self.assertIn(par.annotation, allowed, (name, pname))
                if par.default is not inspect.Parameter.empty:
                    self.assertTrue(par.default is None or type(par.default) in (int, float, bool), (name, pname))
            self.assertEqual(list(inspect.signature(op.fake).parameters), list(sig.parameters), name)
        sig = inspect.signature(torch.library.ops["samebits::attention_fwd"].fn)
        self.assertEqual(list(sig.parameters)[-3:], ["policy", "mma", "stored_ds"])
        self.assertNotIn(inspect.signature(lambda x: x).parameters["x"].annotation, allowed)  # control


class PythonChecksFirst(unittest.TestCase):
    def test_refusals_name_the_argument(self):
        q, k, v = t((17, 8, 128)), t((17, 2, 128)), t((17, 2, 128))
        with self.assertRaises(ValueError) as cm:
            sbt.attention(q, k, t((17, 2, 128), dev="cpu"), causal=True)
        self.assertIn("v: on cpu", str(cm.exception))
        self.assertNotIsInstance(cm.exception, samebits.SamebitsError)
        with self.assertRaises(TypeError) as cm:
            sbt.attention(q, k, np.zeros(3), causal=True)
        self.assertIn("v: a torch.Tensor is needed", str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            sbt.sparse_mla(t((70, 16, 512)), t((150, 512)), t((70, 128), torch.int32), index_check="none")
        self.assertIn("index_check", str(cm.exception))
        with self.assertRaises(TypeError) as cm:
            sbt.sparse_mla(t((70, 16, 512)), t((150, 512)), t((70, 128), torch.int64))
        self.assertIn("topk: dtype int64", str(cm.exception))


if __name__ == "__main__":
    unittest.main(verbosity=1)
