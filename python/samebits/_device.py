"""The C ABI called directly on torch CUDA tensors, for the device checks and
benchmarks (tests/device/: kernels/, python/, parallel/, triton/): problems
built from sizes, the forward, backward and reference calls, the workspaces,
and the CUDA-event timer. It declares no C type of its own: the structures
and function types are samebits._lib's (the one ctypes binding), and every
call goes through Library.call (a refusal raises samebits.errors with the
library's message). Needs torch with CUDA; imported only by those scripts.

    from samebits._device import Samebits, SparseMla, time_ms
    sb = Samebits(path_or_None)            # samebits._lib.load(path)
    p = sb.problem(S, hq, hkv, d, "nvcc", "cuda")
    sb.forward(p, q, k, v, o, lse)
"""
import ctypes as C

import torch

from . import _lib

BF16 = _lib.BF16
LIBM = _lib.LIBM_CODES
Tensor3 = _lib.Tensor3
Problem = _lib.AttentionProblem
SparseProblem = _lib.SparseMlaProblem

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


def t3(x):
    """A [rows, heads, D] tensor as the C ABI's samebits_tensor3."""
    return Tensor3(x.data_ptr(), x.stride(0), x.stride(1))


def _stream():
    return torch.cuda.current_stream().cuda_stream


class Samebits:
    """The attention entry points of one library (samebits._lib.load(path); None: the package's rule)."""

    def __init__(self, path=None):
        self.library = _lib.load(path)
        self.lib = self.library.lib
        assert self.library.cuda, f"{self.library.path}: built without the CUDA kernels"

    def check(self, rc, what):
        """A raw status (a function called through .lib) as the package's exception."""
        if rc != 0:
            raise _lib.errors.error_for_status(rc, what, self.lib.samebits_last_error().decode())

    def problem(self, S, hq, hkv, d, libm, dev, causal=True, cu_q=None, cu_k=None, dtype=BF16, policy=0):
        """One sequence of S queries and S keys, or the packed sequences cu_q / cu_k; the default scale."""
        cu_q = cu_q or [0, S]
        cu_k = cu_k or [0, S]
        n = len(cu_q) - 1
        hq_ = (C.c_int32 * (n + 1))(*cu_q)
        hk_ = (C.c_int32 * (n + 1))(*cu_k)
        dq_ = torch.tensor(cu_q, dtype=torch.int32, device=dev)
        dk_ = torch.tensor(cu_k, dtype=torch.int32, device=dev)
        mq = max(b - a for a, b in zip(cu_q, cu_q[1:]))
        mk = max(b - a for a, b in zip(cu_k, cu_k[1:]))
        p = Problem(num_seqs=n, max_seqlen_q=mq, max_seqlen_k=mk, total_q=cu_q[-1], total_k=cu_k[-1], hq=hq,
                    hkv=hkv, d=d, causal=int(causal), scale=_lib.DEFAULT_SCALE, in_dtype=dtype, o_dtype=dtype,
                    grad_dtype=dtype, libm=LIBM[libm], cu_seqlens_q=dq_.data_ptr(), cu_seqlens_k=dk_.data_ptr(),
                    cu_seqlens_q_host=C.addressof(hq_), cu_seqlens_k_host=C.addressof(hk_), policy=policy)
        p._keep = (hq_, hk_, dq_, dk_)  # alive as long as the problem
        return p

    t3 = staticmethod(t3)

    def forward(self, p, q, k, v, o, lse):
        self.library.call("samebits_attention_forward", C.byref(p), t3(q), t3(k), t3(v), t3(o), lse.data_ptr(),
                          _stream())

    def workspace(self, p, stored_ds=False):
        """The backward's workspace; stored_ds: large enough for the tensor-core backward's stored D^S
        (attention-tc.md §21: its dq pass reads D^S back instead of recomputing it, the same bits)."""
        if stored_ds:
            n = self.lib.samebits_attention_backward_stored_ds_workspace_bytes(C.byref(p))
            assert n > 0, "no stored-D^S workspace for this problem (policy fma-chain?)"
        else:
            n = self.lib.samebits_attention_backward_workspace_bytes(p.total_q, p.total_k, p.hq, p.d)
        return torch.empty(n, dtype=torch.uint8, device="cuda")

    def backward(self, p, q, k, v, o, do, lse, dq, dk, dv, ws, accum_in=None):
        ak, av = (accum_in[0].data_ptr(), accum_in[1].data_ptr()) if accum_in is not None else (None, None)
        self.library.call("samebits_attention_backward", C.byref(p), t3(q), t3(k), t3(v), t3(o), t3(do),
                          lse.data_ptr(), t3(dq), t3(dk), t3(dv), ws.data_ptr(), ws.numel(), ak, av, _stream())

    def accumulators(self, p, ws):
        """Views of the per-head fp32 dK/dV accumulators in a backward workspace [total_k, hq, d]."""
        n = p.total_k * p.hq * p.d
        out = []
        for which in (0, 1):
            off = self.lib.samebits_attention_backward_accum_offset(p.total_q, p.total_k, p.hq, p.d, which)
            out.append(ws[off:off + 4 * n].view(torch.float32).view(p.total_k, p.hq, p.d))
        return out

    def reference(self, p, q, k, v, do):
        """CPU reference on the bf16 inputs widened exactly; returns fp32 o, lse, dq, dk, dv."""
        qf, kf, vf, dof = (x.float().cpu().contiguous() for x in (q, k, v, do))
        o = torch.empty_like(qf)
        lse = torch.empty(qf.shape[0], qf.shape[1], dtype=torch.float32)
        self.library.call("samebits_attention_reference_forward", C.byref(p), qf.data_ptr(), kf.data_ptr(),
                          vf.data_ptr(), o.data_ptr(), lse.data_ptr(), 0)
        o_stored = o.to(torch.bfloat16).float()  # the backward takes o as the caller stores it
        dq, dk, dv = torch.empty_like(qf), torch.empty_like(kf), torch.empty_like(vf)
        self.library.call("samebits_attention_reference_backward", C.byref(p), qf.data_ptr(), kf.data_ptr(),
                          vf.data_ptr(), o_stored.data_ptr(), dof.data_ptr(), lse.data_ptr(), dq.data_ptr(),
                          dk.data_ptr(), dv.data_ptr(), 0)
        return o, lse, dq, dk, dv


class SparseMla:
    """The sparse MLA entry points of the same library (c_api.h, samebits_sparse_mla_*)."""

    def __init__(self, sb):
        self.sb, self.library, self.lib = sb, sb.library, sb.lib

    def problem(self, q, kv, idx, libm, sink=None, chunk=0, flag=None):
        T, H, D = q.shape
        p = SparseProblem(tokens=T, num_kv=kv.shape[0], heads=H, d=D, topk=idx.shape[1], scale=_lib.DEFAULT_SCALE,
                          in_dtype=BF16, o_dtype=BF16, grad_dtype=BF16, libm=LIBM[libm], indices=idx.data_ptr(),
                          indices_row_stride=idx.stride(0), sink=sink.data_ptr() if sink is not None else None,
                          error_flag=flag.data_ptr() if flag is not None else None, chunk_tokens=chunk,
                          validate_indices=0)
        p._keep = (idx, sink, flag)
        return p

    def forward(self, p, q, kv, o, lse, lse_excl=None):
        self.library.call("samebits_sparse_mla_forward", C.byref(p), t3(q), kv.data_ptr(), kv.stride(0), t3(o),
                          lse.data_ptr(), lse_excl.data_ptr() if lse_excl is not None else None, _stream())

    def workspace(self, p):
        n = self.lib.samebits_sparse_mla_backward_workspace_bytes(C.byref(p))
        if n < 0:
            raise RuntimeError("sparse backward workspace: sizes refused")
        return torch.empty(n, dtype=torch.uint8, device="cuda")

    def backward(self, p, q, kv, o, do, lse, dq, dkv, dsink, ws):
        self.library.call("samebits_sparse_mla_backward", C.byref(p), t3(q), kv.data_ptr(), kv.stride(0), t3(o),
                          t3(do), lse.data_ptr(), t3(dq), dkv.data_ptr(), dkv.stride(0),
                          dsink.data_ptr() if dsink is not None else None, ws.data_ptr(), ws.numel(), _stream())
