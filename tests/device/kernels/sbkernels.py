"""ctypes binding of libsamebits_kernels (kernels/include/samebits/kernels/c_api.h) for the
device scripts in this folder. (The user-facing Python package comes with issue 18.)"""
import ctypes as C

import torch


class Tensor3(C.Structure):
    _fields_ = [("data", C.c_void_p), ("row_stride", C.c_int64), ("head_stride", C.c_int64)]


class Problem(C.Structure):
    _fields_ = [
        ("num_seqs", C.c_int32), ("max_seqlen_q", C.c_int32), ("max_seqlen_k", C.c_int32),
        ("total_q", C.c_int64), ("total_k", C.c_int64),
        ("hq", C.c_int32), ("hkv", C.c_int32), ("d", C.c_int32),
        ("causal", C.c_int32), ("scale", C.c_float),
        ("in_dtype", C.c_int32), ("o_dtype", C.c_int32), ("grad_dtype", C.c_int32), ("libm", C.c_int32),
        ("cu_seqlens_q", C.c_void_p), ("cu_seqlens_k", C.c_void_p),
        ("cu_seqlens_q_host", C.POINTER(C.c_int32)), ("cu_seqlens_k_host", C.POINTER(C.c_int32)),
        ("policy", C.c_int32), ("mma", C.c_void_p),  # c_api.h version 2; 0 / None: fma-chain
    ]


BF16, LIBM = 1, {"nvcc": 0, "cr": 1, "nvcc-fast": 2}


# Cycles of torch.cuda._sleep queued ahead of each timed call by time_ms(..., queued=True): about
# 1 ms at an H100's or H200's clock, longer than the host takes to enqueue the events and fn's
# launches, so the end event minus the start event is fn's time on the device alone.
QUEUE_AHEAD_CYCLES = 2_000_000


def time_ms(fn, reps, warmup=3, before=None, queued=False):
    """Median of `reps` CUDA-event timings of fn() after `warmup` calls (the device scripts' timer);
    before(), when given, runs ahead of each timed call (e.g. a barrier across ranks).
    queued=False: the stream is idle when the start event is recorded, so the time includes the
    host's launch of fn's kernels (Python, ctypes, the library's checks). queued=True: a sleep
    kernel is queued first, so the stream is still busy while the host enqueues the start event,
    fn and the end event: the time is the device's alone, as a training step's back-to-back
    launches see it."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        if before is not None:
            before()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        if queued:
            torch.cuda._sleep(QUEUE_AHEAD_CYCLES)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e))
    times.sort()
    return times[len(times) // 2]


def peak_extra_mib(fn):
    """Peak device memory fn() allocates beyond what was allocated before it, MiB."""
    torch.cuda.synchronize()
    base = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    fn()
    torch.cuda.synchronize()
    return (torch.cuda.max_memory_allocated() - base) / 2**20


class Samebits:
    def __init__(self, path):
        self.lib = C.CDLL(path)
        L = self.lib
        L.samebits_last_error.restype = C.c_char_p
        L.samebits_attention_backward_workspace_bytes.restype = C.c_int64
        L.samebits_attention_backward_workspace_bytes.argtypes = [C.c_int64, C.c_int64, C.c_int32, C.c_int32]
        L.samebits_attention_forward.argtypes = [C.POINTER(Problem)] + [Tensor3] * 4 + [C.c_void_p, C.c_void_p]
        L.samebits_attention_backward.argtypes = ([C.POINTER(Problem)] + [Tensor3] * 5 + [C.c_void_p] + [Tensor3] * 3 +
                                                  [C.c_void_p, C.c_int64, C.c_void_p, C.c_void_p, C.c_void_p])
        L.samebits_attention_reference_forward.argtypes = [C.POINTER(Problem)] + [C.c_void_p] * 5 + [C.c_int32]
        L.samebits_attention_reference_backward.argtypes = [C.POINTER(Problem)] + [C.c_void_p] * 9 + [C.c_int32]
        assert L.samebits_has_cuda_kernels() == 1, "library built without the CUDA kernels"

    def check(self, rc, what):
        if rc != 0:
            raise RuntimeError(f"{what}: status {rc}: {self.lib.samebits_last_error().decode()}")

    def problem(self, S, hq, hkv, d, libm, dev, causal=True, cu_q=None, cu_k=None, dtype=BF16):
        """One sequence of S queries and S keys, or the packed sequences cu_q / cu_k."""
        cu_q = cu_q or [0, S]
        cu_k = cu_k or [0, S]
        n = len(cu_q) - 1
        hq_ = (C.c_int32 * (n + 1))(*cu_q)
        hk_ = (C.c_int32 * (n + 1))(*cu_k)
        dq_ = torch.tensor(cu_q, dtype=torch.int32, device=dev)
        dk_ = torch.tensor(cu_k, dtype=torch.int32, device=dev)
        mq = max(b - a for a, b in zip(cu_q, cu_q[1:]))
        mk = max(b - a for a, b in zip(cu_k, cu_k[1:]))
        p = Problem(n, mq, mk, cu_q[-1], cu_k[-1], hq, hkv, d, int(causal), 0.0, dtype, dtype, dtype, LIBM[libm],
                    dq_.data_ptr(), dk_.data_ptr(), hq_, hk_)
        p._keep = (hq_, hk_, dq_, dk_)  # alive as long as the problem
        return p

    @staticmethod
    def t3(x):  # [rows, heads, D]
        return Tensor3(x.data_ptr(), x.stride(0), x.stride(1))

    def forward(self, p, q, k, v, o, lse):
        self.check(self.lib.samebits_attention_forward(C.byref(p), self.t3(q), self.t3(k), self.t3(v), self.t3(o),
                                                       lse.data_ptr(), torch.cuda.current_stream().cuda_stream),
                   "forward")

    def workspace(self, p, stored_ds=False):
        """The backward's workspace; stored_ds: large enough for the tensor-core backward's stored D^S
        (attention-tc.md §21: its dq pass reads D^S back instead of recomputing it, the same bits)."""
        if stored_ds:
            f = self.lib.samebits_attention_backward_stored_ds_workspace_bytes
            f.restype = C.c_int64
            f.argtypes = [C.POINTER(Problem)]
            n = f(C.byref(p))
            assert n > 0, "no stored-D^S workspace for this problem (policy fma-chain?)"
        else:
            n = self.lib.samebits_attention_backward_workspace_bytes(p.total_q, p.total_k, p.hq, p.d)
        return torch.empty(n, dtype=torch.uint8, device="cuda")

    def backward(self, p, q, k, v, o, do, lse, dq, dk, dv, ws, accum_in=None):
        ak, av = (accum_in[0].data_ptr(), accum_in[1].data_ptr()) if accum_in is not None else (None, None)
        self.check(self.lib.samebits_attention_backward(
            C.byref(p), self.t3(q), self.t3(k), self.t3(v), self.t3(o), self.t3(do), lse.data_ptr(),
            self.t3(dq), self.t3(dk), self.t3(dv), ws.data_ptr(), ws.numel(), ak, av,
            torch.cuda.current_stream().cuda_stream), "backward")

    def accumulators(self, p, ws):
        """Views of the per-head fp32 dK/dV accumulators in a backward workspace [total_k, hq, d]."""
        L = self.lib
        L.samebits_attention_backward_accum_offset.restype = C.c_int64
        L.samebits_attention_backward_accum_offset.argtypes = [C.c_int64, C.c_int64, C.c_int32, C.c_int32, C.c_int32]
        n = p.total_k * p.hq * p.d
        out = []
        for which in (0, 1):
            off = L.samebits_attention_backward_accum_offset(p.total_q, p.total_k, p.hq, p.d, which)
            out.append(ws[off:off + 4 * n].view(torch.float32).view(p.total_k, p.hq, p.d))
        return out

    def reference(self, p, q, k, v, do):
        """CPU reference on the bf16 inputs widened exactly; returns fp32 o, lse, dq, dk, dv."""
        qf, kf, vf, dof = (x.float().cpu().contiguous() for x in (q, k, v, do))
        o = torch.empty_like(qf)
        lse = torch.empty(qf.shape[0], qf.shape[1], dtype=torch.float32)
        self.check(self.lib.samebits_attention_reference_forward(C.byref(p), qf.data_ptr(), kf.data_ptr(),
                                                                 vf.data_ptr(), o.data_ptr(), lse.data_ptr(), 0),
                   "reference forward")
        o_stored = o.to(torch.bfloat16).float()  # the backward takes o as the caller stores it
        dq, dk, dv = torch.empty_like(qf), torch.empty_like(kf), torch.empty_like(vf)
        self.check(self.lib.samebits_attention_reference_backward(
            C.byref(p), qf.data_ptr(), kf.data_ptr(), vf.data_ptr(), o_stored.data_ptr(), dof.data_ptr(),
            lse.data_ptr(), dq.data_ptr(), dk.data_ptr(), dv.data_ptr(), 0), "reference backward")
        return o, lse, dq, dk, dv




class SparseProblem(C.Structure):
    _fields_ = [
        ("tokens", C.c_int64), ("num_kv", C.c_int64),
        ("heads", C.c_int32), ("d", C.c_int32), ("topk", C.c_int32), ("scale", C.c_float),
        ("in_dtype", C.c_int32), ("o_dtype", C.c_int32), ("grad_dtype", C.c_int32), ("libm", C.c_int32),
        ("indices", C.c_void_p), ("indices_row_stride", C.c_int64),
        ("sink", C.c_void_p), ("error_flag", C.c_void_p),
        ("chunk_tokens", C.c_int64), ("validate_indices", C.c_int32),
    ]


class SparseMla:
    """The sparse MLA entry points of the same library (c_api.h, samebits_sparse_mla_*)."""

    def __init__(self, sb):
        self.sb = sb
        L = self.lib = sb.lib
        L.samebits_sparse_mla_forward.argtypes = ([C.POINTER(SparseProblem), Tensor3, C.c_void_p, C.c_int64, Tensor3,
                                                   C.c_void_p, C.c_void_p, C.c_void_p])
        L.samebits_sparse_mla_backward_workspace_bytes.restype = C.c_int64
        L.samebits_sparse_mla_backward_workspace_bytes.argtypes = [C.POINTER(SparseProblem)]
        L.samebits_sparse_mla_backward.argtypes = ([C.POINTER(SparseProblem), Tensor3, C.c_void_p, C.c_int64, Tensor3,
                                                    Tensor3, C.c_void_p, Tensor3, C.c_void_p, C.c_int64, C.c_void_p,
                                                    C.c_void_p, C.c_int64, C.c_void_p])

    def problem(self, q, kv, idx, libm, sink=None, chunk=0, flag=None):
        T, H, D = q.shape
        p = SparseProblem(T, kv.shape[0], H, D, idx.shape[1], 0.0, BF16, BF16, BF16, LIBM[libm], idx.data_ptr(),
                          idx.stride(0), sink.data_ptr() if sink is not None else None,
                          flag.data_ptr() if flag is not None else None, chunk, 0)
        p._keep = (idx, sink, flag)
        return p

    def forward(self, p, q, kv, o, lse, lse_excl=None):
        self.sb.check(self.lib.samebits_sparse_mla_forward(
            C.byref(p), Samebits.t3(q), kv.data_ptr(), kv.stride(0), Samebits.t3(o), lse.data_ptr(),
            lse_excl.data_ptr() if lse_excl is not None else None, torch.cuda.current_stream().cuda_stream),
            "sparse forward")

    def workspace(self, p):
        n = self.lib.samebits_sparse_mla_backward_workspace_bytes(C.byref(p))
        if n < 0:
            raise RuntimeError("sparse backward workspace: sizes refused")
        return torch.empty(n, dtype=torch.uint8, device="cuda")

    def backward(self, p, q, kv, o, do, lse, dq, dkv, dsink, ws):
        self.sb.check(self.lib.samebits_sparse_mla_backward(
            C.byref(p), Samebits.t3(q), kv.data_ptr(), kv.stride(0), Samebits.t3(o), Samebits.t3(do), lse.data_ptr(),
            Samebits.t3(dq), dkv.data_ptr(), dkv.stride(0), dsink.data_ptr() if dsink is not None else None,
            ws.data_ptr(), ws.numel(), torch.cuda.current_stream().cuda_stream), "sparse backward")
