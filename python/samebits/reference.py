"""The kernels' CPU references (the contracts in code) on numpy arrays,
through the C ABI: the bits the CUDA kernels must equal.

    from samebits import reference
    o, lse = reference.attention_forward(q, k, v, causal=True)
    dq, dk, dv = reference.attention_backward(q, k, v, o, dout, lse, causal=True)
    o, lse, lse_excl = reference.sparse_mla_forward(q, kv, topk, attn_sink=sink)
    dq, dkv, dsink = reference.sparse_mla_backward(q, kv, topk, o, dout, lse, attn_sink=sink)

Inputs are float32 numpy arrays (bf16 or f16 data widened exactly first: the
kernels compute in binary32 from the widened inputs), host memory; outputs
are float32. The backward takes o as the caller stored it (rounded to the
kernel's output dtype, as the GPU backward reads it) and the forward's lse.
Python checks what the C ABI cannot see (samebits._validate: shapes that
agree, float32 host arrays, names); the rules on the values are the
library's (its reference entry points refuse, naming the argument:
samebits.errors). Needs numpy.

Attention's arithmetic policy (docs/kernels/attention.md §7): policy=
"fma-chain" (default) or "sm90-tensor-core" (docs/kernels/attention-tc.md:
every product through the tensor-core model, whose parameters mma gives:
None for the defaults, samebits.MmaParams or a dict of its fields). The
tensor-core policy needs input_dtype="bfloat16" or "float16": the dtype
whose values the float32 arrays hold (the C ABI refuses an element that is
not one, naming it); fma-chain reads the binary32 values as they are
(input_dtype changes nothing there).

    o, lse = reference.attention_forward(q, k, v, causal=True, policy="sm90-tensor-core", input_dtype="bfloat16")
"""
import numpy as np

from . import _lib, _validate as V

__all__ = ["attention_forward", "attention_backward", "sparse_mla_forward", "sparse_mla_backward"]


def _arr(x, name):
    """x as a C-contiguous array (copied only when it is not one) and its
    description for the checks."""
    if not isinstance(x, np.ndarray):
        raise TypeError(f"{name}: a numpy array is needed, not {type(x).__name__}")
    x = np.ascontiguousarray(x)
    dt = x.dtype
    dtype = dt.name if dt.byteorder in ("=", "<", "|") else f"{dt.name} (big-endian)"
    return x, V.TensorDesc(tuple(x.shape), dtype, tuple(s // x.itemsize for s in x.strides), "cpu")


def _input_dtype(input_dtype):
    """The C problem's in_dtype: the dtype whose values the float32 arrays hold (None: float32; the
    library says which one a policy takes: sm90-tensor-core bfloat16 or float16, naming in_dtype)."""
    return "float32" if input_dtype is None else input_dtype


def attention_forward(q, k, v, *, causal, cu_seqlens=None, cu_seqlens_k=None, scale=None, libm="nvcc",
                      threads=0, policy="fma-chain", mma=None, input_dtype=None):
    """o [like q], lse [rows, hq] (float32): the attention contract's CPU
    reference. Layouts as samebits.torch.attention: q [Tq, Hq, D] and k, v
    [Tk, Hkv, D] (cu_seqlens: packed sequences) or [B, S, H, D]. policy,
    mma, input_dtype: the module's docstring."""
    (q, qd), (k, kd), (v, vd) = _arr(q, "q"), _arr(k, "k"), _arr(v, "v")
    plan = V.plan_attention(qd, kd, vd, causal=causal, cu_seqlens=cu_seqlens, cu_seqlens_k=cu_seqlens_k,
                            scale=scale, libm=libm, device_kind="cpu", dtypes=("float32",), policy=policy, mma=mma,
                            input_dtype=_input_dtype(input_dtype))
    o = np.empty(q.shape, np.float32)
    lse = np.empty((plan.total_q, plan.hq), np.float32)
    p = _lib.attention_problem(plan)
    _lib.load().call("samebits_attention_reference_forward", _lib.C.byref(p), q.ctypes.data, k.ctypes.data,
                     v.ctypes.data, o.ctypes.data, lse.ctypes.data, int(threads))
    if plan.batch is not None:
        lse = lse.reshape(plan.batch[0], plan.batch[1], plan.hq)
    return o, lse


def attention_backward(q, k, v, o, dout, lse, *, causal, cu_seqlens=None, cu_seqlens_k=None, scale=None,
                       libm="nvcc", threads=0, accum_in=None, return_accum=False, policy="fma-chain", mma=None,
                       input_dtype=None):
    """dq, dk, dv (float32) of the attention contract's CPU reference, from o
    as stored and the forward's lse. policy, mma, input_dtype: the module's
    docstring (o, as stored, need not be a value of input_dtype).

    The dK/dV hand-over of a split of the query rows (context parallelism,
    docs/kernels/attention.md §5): accum_in None (the accumulators start at
    +0) or a pair (accum_k, accum_v) of float32 [total_k, hq, d] arrays that
    the part holding the earlier rows left; with return_accum, also this
    part's pair: (dq, dk, dv, (accum_k, accum_v)). Either needs
    samebits_attention_reference_backward_handover in the library."""
    (q, qd), (k, kd), (v, vd), (dout, dd) = _arr(q, "q"), _arr(k, "k"), _arr(v, "v"), _arr(dout, "dout")
    plan = V.plan_attention(qd, kd, vd, causal=causal, cu_seqlens=cu_seqlens, cu_seqlens_k=cu_seqlens_k,
                            scale=scale, libm=libm, device_kind="cpu", dtypes=("float32",), dout=dd, policy=policy,
                            mma=mma, input_dtype=_input_dtype(input_dtype))
    (o, od), (lse, ld) = _arr(o, "o"), _arr(lse, "lse")
    if od.shape != qd.shape or od.dtype != "float32":
        raise ValueError(f"o: shape {list(od.shape)} {od.dtype}; must be q's shape, float32")
    if ld.dtype != "float32" or int(np.prod(ld.shape)) != plan.total_q * plan.hq:
        raise ValueError(f"lse: shape {list(ld.shape)} {ld.dtype}; must hold rows * hq = "
                         f"{plan.total_q * plan.hq} float32")
    dq, dk, dv = np.empty(q.shape, np.float32), np.empty(k.shape, np.float32), np.empty(v.shape, np.float32)
    p = _lib.attention_problem(plan)
    if accum_in is None and not return_accum:
        _lib.load().call("samebits_attention_reference_backward", _lib.C.byref(p), q.ctypes.data, k.ctypes.data,
                         v.ctypes.data, o.ctypes.data, dout.ctypes.data, lse.ctypes.data, dq.ctypes.data,
                         dk.ctypes.data, dv.ctypes.data, int(threads))
        return dq, dk, dv
    accum_shape = (plan.total_k, plan.hq, plan.d)
    ins = (None, None)
    if accum_in is not None:
        if not isinstance(accum_in, (tuple, list)) or len(accum_in) != 2:
            raise TypeError("accum_in: a pair (accum_k, accum_v) of float32 arrays, or None")
        ins = []
        for name, a in zip(("accum_in[0]", "accum_in[1]"), accum_in):
            a, ad = _arr(a, name)
            if ad.dtype != "float32" or ad.shape != accum_shape:
                raise ValueError(f"{name}: shape {list(ad.shape)} {ad.dtype}; must be [total_k, hq, d] = "
                                 f"{list(accum_shape)} float32")
            ins.append(a)
    outs = (np.empty(accum_shape, np.float32), np.empty(accum_shape, np.float32)) if return_accum else (None, None)
    addr = [None if a is None else a.ctypes.data for a in (*ins, *outs)]
    _lib.load().call("samebits_attention_reference_backward_handover", _lib.C.byref(p), q.ctypes.data,
                     k.ctypes.data, v.ctypes.data, o.ctypes.data, dout.ctypes.data, lse.ctypes.data, dq.ctypes.data,
                     dk.ctypes.data, dv.ctypes.data, *addr, int(threads))
    return (dq, dk, dv, outs) if return_accum else (dq, dk, dv)


def _sparse(q, kv, topk, attn_sink, scale, libm, dout=None):
    """The checked, contiguous arrays (q, kv, topk, sink, dout), the plan and
    the C problem (whose indices and sink point into those arrays)."""
    (q, qd), (kv, kvd), (topk, td) = _arr(q, "q"), _arr(kv, "kv"), _arr(topk, "topk")
    sink, sd = (None, None) if attn_sink is None else _arr(attn_sink, "attn_sink")
    dout, dd = (None, None) if dout is None else _arr(dout, "dout")
    plan = V.plan_sparse_mla(qd, kvd, td, attn_sink=sd, scale=scale, libm=libm, device_kind="cpu",
                             dtypes=("float32",), dout=dd)
    p = _lib.sparse_problem(plan, indices=topk.ctypes.data, sink=None if sink is None else sink.ctypes.data)
    return plan, p, (q, kv, topk, sink, dout)


def sparse_mla_forward(q, kv, topk, *, attn_sink=None, scale=None, libm="nvcc", threads=0):
    """o [T, H, D], lse [T, H] (sink-inclusive), lse_excl [T, H] (float32):
    the sparse MLA contract's CPU reference. topk: int32 [T, k], -1 a hole."""
    plan, p, (q, kv, topk, sink, _) = _sparse(q, kv, topk, attn_sink, scale, libm)
    o = np.empty(q.shape, np.float32)
    lse = np.empty((plan.tokens, plan.heads), np.float32)
    lse_excl = np.empty((plan.tokens, plan.heads), np.float32)
    _lib.load().call("samebits_sparse_mla_reference_forward", _lib.C.byref(p), q.ctypes.data, kv.ctypes.data,
                     o.ctypes.data, lse.ctypes.data, lse_excl.ctypes.data, int(threads))
    return o, lse, lse_excl


def sparse_mla_backward(q, kv, topk, o, dout, lse, *, attn_sink=None, scale=None, libm="nvcc", threads=0):
    """dq [T, H, D], dkv [num_kv, D], dsink [H] (None without a sink), float32,
    from o as stored and the forward's (sink-inclusive) lse."""
    plan, p, (q, kv, topk, sink, dout) = _sparse(q, kv, topk, attn_sink, scale, libm, dout=dout)
    (o, od), (lse, ld) = _arr(o, "o"), _arr(lse, "lse")
    if od.shape != tuple(q.shape) or od.dtype != "float32":
        raise ValueError(f"o: shape {list(od.shape)} {od.dtype}; must be q's shape, float32")
    if ld.dtype != "float32" or ld.shape != (plan.tokens, plan.heads):
        raise ValueError(f"lse: shape {list(ld.shape)} {ld.dtype}; must be [tokens, heads] float32")
    dq, dkv = np.empty(q.shape, np.float32), np.empty(kv.shape, np.float32)
    dsink = np.empty(plan.heads, np.float32) if plan.sink else None
    _lib.load().call("samebits_sparse_mla_reference_backward", _lib.C.byref(p), q.ctypes.data, kv.ctypes.data,
                     o.ctypes.data, dout.ctypes.data, lse.ctypes.data, dq.ctypes.data, dkv.ctypes.data,
                     None if dsink is None else dsink.ctypes.data, int(threads))
    return dq, dkv, dsink
