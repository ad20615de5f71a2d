"""samebits.parallel without torch or a GPU: the plan (query ranges, head
groups, hand-over shapes, volumes, refusals by name) and the layer's own steps
(parallel._gather_keys, parallel._backward_steps) run by CP x TP ranks as
threads on the CPU reference (samebits.reference, the contract in code) over
an in-process transport that moves bytes: o, lse, dq, dk, dv bitwise equal to
the unsplit reference, summed over every rank, every element covered once.

Negative controls: one flipped bit is one mismatch; a layer that drops the
hand-over (each rank from +0) is caught; summing per-rank partial
accumulators afterwards (what an all-reduce would do) gives other bits.

What this does not show: anything of torch.distributed, NCCL, gloo or the GPU
kernels (tests/device/parallel/cp_tp_check.py does, on a GPU machine).

    SAMEBITS_KERNELS_LIB=build/kernels/libsamebits_kernels.so python3 tests/python/test_parallel.py
"""
import queue
import subprocess
import sys
import threading
import unittest

import common

common.need_numpy()
import numpy as np  # noqa: E402

from samebits import _lib, _validate as V, errors, parallel as P, reference as R  # noqa: E402

LIB = _lib.load(common.env("SAMEBITS_KERNELS_LIB"))
if not LIB.has("samebits_attention_reference_backward_handover"):
    print("SKIP: the library lacks samebits_attention_reference_backward_handover (built before it)")
    sys.exit(common.SKIP)


def mism(a, b):
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype == np.float32, (a.shape, b.shape)
    return int((a.view(np.uint32) != b.view(np.uint32)).sum())


class World:
    """The transport of one CP group of threads: bytes only, in rank order."""

    def __init__(self, n):
        self.n = n
        self.barrier = threading.Barrier(n, timeout=60)
        self.slots = [None] * n
        self.q = {(a, b): queue.Queue() for a in range(n) for b in range(n)}


class ThreadComm:
    """parallel's comm interface (see _gather_rows) over a World, counting bytes
    as samebits.parallel._TorchComm does. drop_handover: the accumulators sent
    on are replaced by +0 (a layer without the hand-over: negative control)."""

    def __init__(self, world, rank, drop_handover=False):
        self.w, self.rank, self.drop = world, rank, drop_handover
        self.stats = {}

    def _count(self, key, n):
        self.stats[key] = self.stats.get(key, 0) + n

    def all_gather(self, x):
        x = np.ascontiguousarray(x)
        self._count("kv_gather_send", (self.w.n - 1) * x.nbytes)
        self._count("kv_gather_recv", (self.w.n - 1) * x.nbytes)
        self.w.barrier.wait()
        self.w.slots[self.rank] = x.tobytes()
        self.w.barrier.wait()
        out = np.frombuffer(b"".join(self.w.slots), x.dtype).reshape((self.w.n * x.shape[0],) + x.shape[1:]).copy()
        self.w.barrier.wait()
        return out

    def send(self, x, dst, what):
        b = np.ascontiguousarray(x).tobytes()
        self._count(what + "_send", len(b))
        if self.drop and what == "handover":
            b = bytes(len(b))
        self.w.q[(self.rank, dst)].put(b)

    def recv_into(self, x, src, what):
        b = self.w.q[(src, self.rank)].get(timeout=60)
        if len(b) != x.nbytes:
            raise RuntimeError(f"rank {self.rank}: {len(b)} bytes from rank {src} for a {x.nbytes}-byte {what}")
        self._count(what + "_recv", len(b))
        x[...] = np.frombuffer(b, x.dtype).reshape(x.shape)


class RefKernels:
    """parallel's kern interface on the CPU reference (float32 inputs: o is
    stored as computed)."""

    def __init__(self, causal, libm, hq, d):
        self.causal, self.libm, self.hq, self.d = causal, libm, hq, d

    def forward(self, q, k, v):
        return R.attention_forward(q, k, v, causal=self.causal, cu_seqlens=[0, q.shape[0]],
                                   cu_seqlens_k=[0, k.shape[0]], libm=self.libm, threads=1)

    def backward(self, dout, q, k, v, o, lse, accum_in):
        return R.attention_backward(q, k, v, o, dout, lse, causal=self.causal, cu_seqlens=[0, q.shape[0]],
                                    cu_seqlens_k=[0, k.shape[0]], libm=self.libm, threads=1, accum_in=accum_in,
                                    return_accum=True)

    def accum_zeros(self, rows):
        return tuple(np.zeros((rows, self.hq, self.d), np.float32) for _ in range(2))

    def zeros(self, shape, like):
        return np.zeros(shape, like.dtype)

    def cat(self, xs):
        return np.concatenate(xs)


def inputs(S, hq, hkv, d, seed):
    rng = np.random.default_rng(seed)
    q, do = (rng.standard_normal((S, hq, d)).astype(np.float32) for _ in range(2))
    k, v = (rng.standard_normal((S, hkv, d)).astype(np.float32) for _ in range(2))
    return q, k, v, do


def unsplit(q, k, v, do, causal, libm):
    o, lse = R.attention_forward(q, k, v, causal=causal, libm=libm)
    dq, dk, dv = R.attention_backward(q, k, v, o, do, lse, causal=causal, libm=libm)
    return {"o": o, "lse": lse, "dq": dq, "dk": dk, "dv": dv}


def run_ranks(q, k, v, do, *, cp, tp, causal, libm, drop_handover=False):
    """CP x TP threads, each running the layer's steps on its shard; returns
    {(cp_rank, tp_rank): (plan, heads, outputs, stats)}."""
    S, hq, d = q.shape[0], q.shape[1], q.shape[2]
    hkv = k.shape[1]
    worlds = [World(cp) for _ in range(tp)]
    out, failures = {}, []

    def rank(r, t):
        try:
            plan = P.cp_plan(S, cp, r, causal)
            h = P.tp_heads(hq, hkv, tp, t)
            rows = slice(plan.q0, plan.q1)
            ql, dol = q[rows, h.q0:h.q1].copy(), do[rows, h.q0:h.q1].copy()
            kl, vl = k[rows, h.kv0:h.kv1].copy(), v[rows, h.kv0:h.kv1].copy()
            comm = ThreadComm(worlds[t], r, drop_handover)
            kern = RefKernels(causal, libm, h.q1 - h.q0, d)
            k_keys, v_keys = P._gather_keys(plan, comm, kern, kl, vl)
            o, lse = kern.forward(ql, k_keys, v_keys)
            dq, dk, dv = P._backward_steps(plan, comm, kern, dol, ql, o, lse, k_keys, v_keys)
            out[(r, t)] = (plan, h, {"o": o, "lse": lse, "dq": dq, "dk": dk, "dv": dv}, comm.stats)
        except BaseException as e:  # noqa: B902 — reported by the main thread
            failures.append((r, t, e))
            for w in worlds:
                w.barrier.abort()

    threads = [threading.Thread(target=rank, args=(r, t)) for t in range(tp) for r in range(cp)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    if failures:
        raise failures[0][2]
    assert len(out) == cp * tp
    return out


def compare(ref, ranks):
    """Mismatches per output summed over the ranks, and the elements compared
    (each rank's rows and heads of the unsplit results)."""
    mm = {n: 0 for n in ref}
    count = {n: 0 for n in ref}
    for plan, h, got, _ in ranks.values():
        rows = slice(plan.q0, plan.q1)
        want = {"o": ref["o"][rows, h.q0:h.q1], "lse": ref["lse"][rows, h.q0:h.q1],
                "dq": ref["dq"][rows, h.q0:h.q1], "dk": ref["dk"][rows, h.kv0:h.kv1],
                "dv": ref["dv"][rows, h.kv0:h.kv1]}
        for n in ref:
            mm[n] += mism(want[n], got[n])
            count[n] += want[n].size
    return mm, count


class Plan(unittest.TestCase):
    def test_bounds_are_round_half_even(self):
        for cp in range(1, 10):
            for S in range(cp, 700):
                b = P.cp_bounds(S, cp)
                self.assertEqual(b, [round(S * r / cp) for r in range(cp + 1)], (S, cp))
                self.assertEqual((b[0], b[-1]), (0, S))
                self.assertTrue(all(y > x for x, y in zip(b, b[1:])))
        self.assertEqual(P.cp_bounds(6, 4), [0, 2, 3, 4, 6])  # 1.5 -> 2, 4.5 -> 4: ties to even
        self.assertEqual(P.cp_bounds(130, 3), [0, 43, 87, 130])
        self.assertEqual(P.cp_bounds(16384, 8), [2048 * r for r in range(9)])
        big = 2**40 + 3
        self.assertEqual(P.cp_bounds(big, 7)[3], (3 * big + 3) // 7)  # integers: exact where floats are not

    def test_heads(self):
        self.assertEqual(P.tp_heads(32, 8, 2, 0), (0, 16, 0, 4))
        self.assertEqual(P.tp_heads(32, 8, 2, 1), (16, 32, 4, 8))
        self.assertEqual(P.tp_heads(32, 8, 8, 5), (20, 24, 5, 6))
        self.assertEqual(P.tp_heads(4, 2, 1, 0), (0, 4, 0, 2))

    def test_plan_shapes(self):
        p = P.cp_plan(130, 3, 1, True)
        self.assertEqual((p.q0, p.q1, p.rows, p.keys, p.handover_in, p.handover_out), (43, 87, 44, 87, 43, 87))
        p = P.cp_plan(130, 3, 0, True)
        self.assertEqual((p.keys, p.handover_in, p.handover_out, p.last), (43, 0, 43, False))
        p = P.cp_plan(130, 3, 2, True)
        self.assertEqual((p.keys, p.handover_in, p.handover_out, p.last), (130, 87, 0, True))
        p = P.cp_plan(130, 3, 1, False)
        self.assertEqual((p.keys, p.handover_in, p.handover_out), (130, 130, 130))

    def test_volumes_of_the_doc(self):
        """docs/kernels/parallel.md's numbers: S = 16384, Hq 32, Hkv 8, D 128, bf16, TP 1."""
        MiB = 2**20
        v = P.cp_volumes(P.cp_plan(16384, 4, 3, True), 32, 8, 128, 2)
        self.assertEqual(v["kv_gather_recv"], 48 * MiB)  # 64 MiB x (CP-1)/CP
        self.assertEqual((v["handover_recv"], v["handover_send"]), (384 * MiB, 0))
        self.assertEqual(v["grad_send"], 3 * 4096 * 8 * 128 * 2 * 2)
        v = P.cp_volumes(P.cp_plan(16384, 4, 2, True), 32, 8, 128, 2)
        self.assertEqual((v["handover_recv"], v["handover_send"]), (256 * MiB, 384 * MiB))
        v = P.cp_volumes(P.cp_plan(16384, 2, 0, False), 32, 8, 128, 2)
        self.assertEqual(v["handover_send"], 512 * MiB)
        v = P.cp_volumes(P.cp_plan(16384, 8, 0, True), 16, 4, 128, 2)  # TP 2
        self.assertEqual(v["kv_gather_recv"], 32 * MiB * 7 // 8)  # K and V of 4 kv heads: 32 MiB

    def test_refusals_name_the_argument(self):
        cases = [
            (lambda: P.cp_bounds(3, 4), errors.InvalidArgumentError, "seq_len: 3 rows for cp_size = 4"),
            (lambda: P.cp_bounds(4, 0), errors.InvalidArgumentError, "cp_size: 0"),
            (lambda: P.cp_bounds(True, 1), TypeError, "seq_len: an int"),
            (lambda: P.cp_plan(64, 2, 2, True), errors.InvalidArgumentError, "cp_rank: 2; must be < cp_size = 2"),
            (lambda: P.cp_plan(64, 2, -1, True), errors.InvalidArgumentError, "cp_rank: -1"),
            (lambda: P.cp_plan(64, 2, 0, 1), TypeError, "causal:"),
            (lambda: P.tp_heads(32, 8, 3, 0), errors.InvalidArgumentError, "tp_size: 3 does not divide hkv = 8"),
            (lambda: P.tp_heads(32, 8, 2, 2), errors.InvalidArgumentError, "tp_rank: 2"),
            (lambda: P.tp_heads(30, 8, 2, 0), errors.InvalidArgumentError, "hq: 30"),
        ]
        for fn, exc, text in cases:
            with self.assertRaises(exc) as cm:
                fn()
            self.assertTrue(str(cm.exception).startswith(text), str(cm.exception))
        self.assertTrue(issubclass(errors.InvalidArgumentError, ValueError))
        # accepted twins
        P.cp_bounds(4, 4), P.cp_plan(64, 2, 1, True), P.tp_heads(32, 8, 4, 3)

    def test_import_needs_no_torch(self):
        code = ("import sys, samebits.parallel as p; p.cp_plan(10, 2, 1, True); "
                "print('torch' in sys.modules, 'numpy' in sys.modules)")
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={"PYTHONPATH": common.os.path.join(common.ROOT, "python")})
        self.assertEqual((r.returncode, r.stdout.strip()), (0, "False False"), r.stderr)


class ReferenceHandover(unittest.TestCase):
    """samebits.reference.attention_backward's accum_in / return_accum (the C ABI's
    samebits_attention_reference_backward_handover)."""

    def test_zeros_in_is_the_plain_backward(self):
        q, k, v, do = inputs(70, 4, 2, 64, 3)
        o, lse = R.attention_forward(q, k, v, causal=True)
        plain = R.attention_backward(q, k, v, o, do, lse, causal=True)
        zeros = tuple(np.zeros((70, 4, 64), np.float32) for _ in range(2))
        dq, dk, dv, acc = R.attention_backward(q, k, v, o, do, lse, causal=True, accum_in=zeros, return_accum=True)
        self.assertEqual([mism(a, b) for a, b in zip(plain, (dq, dk, dv))], [0, 0, 0])
        self.assertGreater(mism(acc[0], zeros[0]), 0)  # the accumulators came back
        ones = tuple(np.ones((70, 4, 64), np.float32) for _ in range(2))  # control: accum_in is read
        _, dk1, _ = R.attention_backward(q, k, v, o, do, lse, causal=True, accum_in=ones)
        self.assertGreater(mism(dk1, dk), 0)

    def test_refusals(self):
        q, k, v, do = inputs(70, 4, 2, 64, 3)
        o, lse = R.attention_forward(q, k, v, causal=True)
        with self.assertRaises(ValueError) as cm:
            R.attention_backward(q, k, v, o, do, lse, causal=True,
                                 accum_in=(np.zeros((70, 4, 64), np.float32), np.zeros((69, 4, 64), np.float32)))
        self.assertTrue(str(cm.exception).startswith("accum_in[1]: shape [69, 4, 64]"), str(cm.exception))
        with self.assertRaises(TypeError):
            R.attention_backward(q, k, v, o, do, lse, causal=True, accum_in=np.zeros((70, 4, 64), np.float32))
        # the C ABI's own refusal: an accumulator pair given half
        plan = V.plan_attention(V.desc(q.shape, "float32", device="cpu"), V.desc(k.shape, "float32", device="cpu"),
                                V.desc(v.shape, "float32", device="cpu"), causal=True, device_kind="cpu",
                                dtypes=("float32",))
        p = _lib.attention_problem(plan)
        out = [np.empty_like(x) for x in (q, k, v)]
        acc = np.zeros((70, 4, 64), np.float32)
        args = [_lib.C.byref(p)] + [x.ctypes.data for x in (q, k, v, o, do, lse)] + [x.ctypes.data for x in out]
        with self.assertRaises(errors.InvalidArgumentError) as cm:
            LIB.call("samebits_attention_reference_backward_handover", *args, None, None, acc.ctypes.data, None, 1)
        self.assertEqual(cm.exception.message, "samebits attention: accum_k_out, accum_v_out: give both or neither")
        with self.assertRaises(errors.InvalidArgumentError) as cm:
            LIB.call("samebits_attention_reference_backward_handover", *args, acc.ctypes.data, None, None, None, 1)
        self.assertEqual(cm.exception.message, "samebits attention: accum_k_in, accum_v_in: give both or neither")
        LIB.call("samebits_attention_reference_backward_handover", *args, None, None, None, None, 1)  # accepted


class Simulation(unittest.TestCase):
    HQ, HKV, D = 4, 2, 64

    def run_case(self, S, cp, tp, causal, libm="nvcc", seed=0):
        q, k, v, do = inputs(S, self.HQ, self.HKV, self.D, seed)
        ref = unsplit(q, k, v, do, causal, libm)
        ranks = run_ranks(q, k, v, do, cp=cp, tp=tp, causal=causal, libm=libm)
        return q, k, v, do, ref, ranks

    def test_cp_tp_bitwise_equal_to_unsplit(self):
        n = 0
        for S in (64, 130):
            for cp in (2, 3):
                for tp in (1, 2):
                    for causal in (True, False):
                        libm = "cr" if (S, cp, tp) == (130, 3, 2) else "nvcc"
                        with self.subTest(S=S, cp=cp, tp=tp, causal=causal, libm=libm):
                            q, k, v, do, ref, ranks = self.run_case(S, cp, tp, causal, libm, seed=S + cp)
                            mm, count = compare(ref, ranks)
                            self.assertEqual(mm, {k_: 0 for k_ in ref})
                            self.assertEqual(count, {k_: a.size for k_, a in ref.items()})  # each element once
                            for (r, t), (plan, h, _, stats) in ranks.items():
                                want = P.cp_volumes(plan, h.q1 - h.q0, h.kv1 - h.kv0, self.D, 4)
                                self.assertEqual({k_: stats.get(k_, 0) for k_ in want}, want, (r, t))
                            n += 1
        self.assertEqual(n, 16)

    def test_controls(self):
        S, cp, tp, causal = 130, 3, 2, True
        q, k, v, do, ref, ranks = self.run_case(S, cp, tp, causal)
        self.assertEqual(sum(compare(ref, ranks)[0].values()), 0)
        # one flipped bit of one element: one mismatch
        plan, h, got, _ = ranks[(1, 1)]
        got["dk"] = got["dk"].copy()
        got["dk"].view(np.uint32)[3, 0, 5] ^= 1
        self.assertEqual(compare(ref, ranks)[0], {"o": 0, "lse": 0, "dq": 0, "dk": 1, "dv": 0})
        # the hand-over dropped (each rank from +0): o, lse, dq unchanged, dk and dv wrong
        dropped = run_ranks(q, k, v, do, cp=cp, tp=tp, causal=causal, libm="nvcc", drop_handover=True)
        mm, _ = compare(ref, dropped)
        self.assertEqual((mm["o"], mm["lse"], mm["dq"]), (0, 0, 0))
        self.assertGreater(mm["dk"], 1000)
        self.assertGreater(mm["dv"], 1000)

    def test_presummed_partials_give_other_bits(self):
        """Each part's accumulators from +0, summed afterwards in rank order (what
        an all-reduce of partials would compute), then the contract's head fold:
        the same sums in another order, close to and not bitwise the contract's."""
        S, cp, causal = 130, 3, True
        q, k, v, do, ref, _ = self.run_case(S, cp, 1, causal)
        bounds = P.cp_bounds(S, cp)
        total = [np.zeros((S, self.HQ, self.D), np.float32) for _ in range(2)]
        for s0, s1 in zip(bounds, bounds[1:]):
            o, lse = R.attention_forward(q[s0:s1], k[:s1], v[:s1], causal=causal, cu_seqlens=[0, s1 - s0],
                                         cu_seqlens_k=[0, s1])
            _, _, _, acc = R.attention_backward(q[s0:s1], k[:s1], v[:s1], o, do[s0:s1], lse, causal=causal,
                                                cu_seqlens=[0, s1 - s0], cu_seqlens_k=[0, s1], return_accum=True)
            for tot, a in zip(total, acc):
                tot[:s1] += a
        G = self.HQ // self.HKV
        scale = np.float32(V.default_scale(self.D))
        dk = np.empty_like(ref["dk"])
        dv = np.empty_like(ref["dv"])
        for g in range(self.HKV):
            rk, rv = total[0][:, g * G].copy(), total[1][:, g * G].copy()
            for hh in range(1, G):
                rk += total[0][:, g * G + hh]
                rv += total[1][:, g * G + hh]
            dk[:, g], dv[:, g] = rk * scale, rv
        self.assertGreater(mism(ref["dk"], dk) + mism(ref["dv"], dv), 0)
        err = np.abs(dk - ref["dk"]).max() / np.abs(ref["dk"]).max()
        self.assertLess(err, 1e-5)
        # control: the same fold of the hand-over's own accumulators (one chain) gives the contract's bits
        _, _, _, acc = R.attention_backward(q, k, v, ref["o"], do, ref["lse"], causal=causal, return_accum=True)
        for g in range(self.HKV):
            rk = acc[0][:, g * G].copy()
            for hh in range(1, G):
                rk += acc[0][:, g * G + hh]
            dk[:, g] = rk * scale
        self.assertEqual(mism(ref["dk"], dk), 0)


if __name__ == "__main__":
    unittest.main(verbosity=1)
