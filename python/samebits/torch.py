"""samebits' kernels as PyTorch autograd ops (torch.library custom ops).

    import samebits.torch as sbt
    o = sbt.attention(q, k, v, causal=True)                       # [rows, Hq, D] or [B, S, Hq, D]
    o = sbt.attention(q, k, v, causal=True, cu_seqlens=[0, 300, 1000])   # packed sequences
    o = sbt.sparse_mla(q, kv, topk, attn_sink=sink)               # DeepSeek-V4 sparse MLA
    dq, dk, dv = torch.autograd.grad(o, (q, k, v), do)

Results are the CUDA kernels' (kernels/src/cuda), whose bits the contracts fix
(docs/kernels/attention.md, docs/kernels/sparse_mla.md; fingerprints:
samebits.fingerprint): the same as the C++ host API and the C ABI on the same
inputs, and as the CPU reference (samebits.reference). They run on the
current CUDA stream of the inputs' device.

Ops registered (namespace "samebits"), each with a fake (meta) kernel for
torch.compile and an autograd formula:
  samebits::attention_fwd(q, k, v, cu_seqlens_q, cu_seqlens_k, causal, scale, libm, policy, mma) -> (o, lse)
  samebits::attention_bwd(dout, q, k, v, o, lse, cu_seqlens_q, cu_seqlens_k, causal, scale, libm, policy, mma)
      -> (dq, dk, dv)
  samebits::sparse_mla_fwd(q, kv, topk, attn_sink, scale, libm, validate_indices) -> (o, lse, lse_excl)
  samebits::sparse_mla_bwd(dout, q, kv, topk, attn_sink, o, lse, scale, libm, validate_indices) -> (dq, dkv, dsink)
(scale None: the default, the binary32 nearest 1/sqrt(D); a given scale is
finite and > 0, 0 is refused as everywhere (c_api.h); cu_seqlens as lists of
ints; policy "fma-chain" or "sm90-tensor-core", mma None or the 8 codes of
c_api.h's samebits_mma_params; dsink is an empty tensor without a sink).
Policy sm90-tensor-core runs the wgmma kernels (sm_90a, compute capability
9.0) with the hardware's model parameters only: other mma values are refused
(samebits.UnsupportedError carrying the library's message), never computed
by a fallback. lse
outputs are not differentiable. The backward ops have no autograd formula
(no double backward).

Arguments are checked in Python only for what the C ABI cannot see
(samebits._validate: tensor types, shapes that agree, devices, dtype names,
a contiguous last dimension, host cu_seqlens; TypeError / ValueError naming
the argument); every rule on the values is the library's, asked before
launching (samebits_attention_check / samebits_sparse_mla_check) and again by
the call: samebits.errors' exceptions carrying its message. Needs torch >= 2.4
(torch.library.custom_op) and a library built with -Dcuda=enabled
(samebits.errors.NotBuiltError otherwise).

Not graph-capturable as they stand: cu_seqlens are copied to the device per
call, sparse_mla's index check reads a flag back (index_check="device") or
the indices (index_check="host").
"""
from typing import List, Optional, Tuple

import torch

from . import _lib, _validate as V, errors

if not hasattr(torch, "library") or not hasattr(torch.library, "custom_op"):
    raise ImportError(f"samebits.torch needs torch >= 2.4 (torch.library.custom_op); this is torch {torch.__version__}")

__all__ = ["attention", "sparse_mla", "describe"]

Tensor = torch.Tensor


def describe(t):
    """The TensorDesc of a torch tensor (what samebits._validate checks)."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"a torch.Tensor is needed, not {type(t).__name__}")
    return V.TensorDesc(tuple(t.shape), str(t.dtype).replace("torch.", ""), tuple(t.stride()), str(t.device))


def _named(t, name):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name}: a torch.Tensor is needed, not {type(t).__name__}")
    return describe(t)


def _t3(t, strides=None):
    rs, hs = strides if strides is not None else (t.stride(0), t.stride(1))
    return _lib.Tensor3(t.data_ptr(), rs, hs)


def _stream(dev):
    return torch.cuda.current_stream(dev).cuda_stream


def _cu_device(cu, dev):
    return torch.tensor(list(cu), dtype=torch.int32, device=dev)


# ---- attention ---------------------------------------------------------------------

def _attention_plan(q, k, v, cu_q, cu_k, causal, scale, libm, policy, mma, dout=None):
    # The call validates the problem (the library's rules); here only what it cannot see.
    return V.plan_attention(_named(q, "q"), _named(k, "k"), _named(v, "v"), causal=causal, cu_seqlens=cu_q,
                            cu_seqlens_k=cu_k, scale=scale, libm=libm,
                            dout=None if dout is None else _named(dout, "dout"), policy=policy, mma=mma)


def _mma_arg(plan):
    """The ops' mma argument of a plan: None or the 8 C codes as a list."""
    return None if plan.mma is None else list(plan.mma)


@torch.library.custom_op("samebits::attention_fwd", mutates_args=())
def _attention_fwd(q: Tensor, k: Tensor, v: Tensor, cu_seqlens_q: List[int], cu_seqlens_k: List[int],
                   causal: bool, scale: Optional[float], libm: str, policy: str,
                   mma: Optional[List[int]], stored_ds: bool = False) -> Tuple[Tensor, Tensor]:
    # stored_ds: read by the backward only (the autograd formula hands it on).
    plan = _attention_plan(q, k, v, cu_seqlens_q, cu_seqlens_k, causal, scale, libm, policy, mma)
    lib = _lib.load()
    o = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    lse = torch.empty((q.shape[0], q.shape[1]), dtype=torch.float32, device=q.device)
    with torch.cuda.device(q.device):
        cu_q = _cu_device(plan.cu_q, q.device)
        cu_k = cu_q if plan.cu_k == plan.cu_q else _cu_device(plan.cu_k, q.device)
        p = _lib.attention_problem(plan, cu_q_device=cu_q.data_ptr(), cu_k_device=cu_k.data_ptr())
        lib.call("samebits_attention_forward", _lib.C.byref(p), _t3(q), _t3(k), _t3(v), _t3(o), lse.data_ptr(),
                 _stream(q.device))
    return o, lse


@_attention_fwd.register_fake
def _(q, k, v, cu_seqlens_q, cu_seqlens_k, causal, scale, libm, policy, mma, stored_ds=False):
    return q.new_empty(q.shape), q.new_empty((q.shape[0], q.shape[1]), dtype=torch.float32)


def _attention_backward_launch(dout, q, k, v, o, lse, cu_seqlens_q, cu_seqlens_k, causal, scale, libm,
                               accum_in=None, policy="fma-chain", mma=None, stored_ds=False):
    """One samebits_attention_backward call: (dq, dk, dv, accumulators).
    accum_in: None (the dK/dV accumulators start at +0) or a pair of float32
    [total_k, hq, d] contiguous tensors on q's device, the accumulators a
    context-parallel part holding earlier query rows handed on (contract §5).
    accumulators: this call's, (accum_k, accum_v) float32 [total_k, hq, d]
    views of the backward's workspace (what the next part takes as
    accum_in). stored_ds (policy sm90-tensor-core): a workspace large enough
    for the dq pass to read the D^S the dK/dV pass stores
    (samebits_attention_backward_stored_ds_workspace_bytes; the same bits,
    O(hq * Lq * Lk) bytes of memory, about 1.3 GB at S = 4096 for Qwen3-8B
    shapes; faster with libm nvcc: docs/kernels/attention-tc.md §21, §28)."""
    if stored_ds and policy != "sm90-tensor-core":
        raise ValueError(f"stored_ds: only policy \"sm90-tensor-core\" has a stored-D^S backward (policy {policy!r})")
    plan = _attention_plan(q, k, v, cu_seqlens_q, cu_seqlens_k, causal, scale, libm, policy, mma, dout=dout)
    for name, t, shape, dtype in (("o", o, q.shape, q.dtype), ("lse", lse, (q.shape[0], q.shape[1]), torch.float32)):
        if tuple(t.shape) != tuple(shape) or t.dtype != dtype or t.device != q.device:
            raise ValueError(f"{name}: {list(t.shape)} {t.dtype} on {t.device}; the forward's is {list(shape)} {dtype} "
                             f"on {q.device}")
    if not lse.is_contiguous():
        raise ValueError("lse: must be contiguous")
    V._last_contiguous("o", describe(o))
    accum_shape = (plan.total_k, plan.hq, plan.d)
    if accum_in is not None:
        if not isinstance(accum_in, (tuple, list)) or len(accum_in) != 2:
            raise TypeError("accum_in: a pair (accum_k, accum_v) of tensors, or None")
        for name, t in zip(("accum_in[0]", "accum_in[1]"), accum_in):
            if not isinstance(t, torch.Tensor):
                raise TypeError(f"{name}: a torch.Tensor is needed, not {type(t).__name__}")
            if tuple(t.shape) != accum_shape or t.dtype != torch.float32 or t.device != q.device:
                raise ValueError(f"{name}: {list(t.shape)} {t.dtype} on {t.device}; must be [total_k, hq, d] = "
                                 f"{list(accum_shape)} float32 on {q.device}")
            if not t.is_contiguous():
                raise ValueError(f"{name}: must be contiguous")
    lib = _lib.load()
    dq = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    dk = torch.empty(k.shape, dtype=k.dtype, device=q.device)
    dv = torch.empty(v.shape, dtype=v.dtype, device=q.device)
    nbytes = lib.lib.samebits_attention_backward_workspace_bytes(plan.total_q, plan.total_k, plan.hq, plan.d)
    if nbytes < 0:
        raise ValueError(f"q, k: the backward's workspace for total_q = {plan.total_q}, total_k = {plan.total_k}, "
                         f"hq = {plan.hq}, d = {plan.d} overflows int64")
    with torch.cuda.device(q.device):
        cu_q = _cu_device(plan.cu_q, q.device)
        cu_k = cu_q if plan.cu_k == plan.cu_q else _cu_device(plan.cu_k, q.device)
        p = _lib.attention_problem(plan, cu_q_device=cu_q.data_ptr(), cu_k_device=cu_k.data_ptr())
        if stored_ds:
            if getattr(lib.lib, "samebits_attention_backward_stored_ds_workspace_bytes", None) is None:
                raise errors.NotBuiltError(
                    f"samebits_attention_backward_stored_ds_workspace_bytes: not in {lib.path} (a library built "
                    "before it; rebuild it)", status=errors.NOT_BUILT,
                    function="samebits_attention_backward_stored_ds_workspace_bytes")
            nbytes = lib.lib.samebits_attention_backward_stored_ds_workspace_bytes(_lib.C.byref(p))
            if nbytes < 0:
                raise ValueError("stored_ds: the stored-D^S workspace of this problem overflows int64")
        ws = torch.empty(max(nbytes, 1), dtype=torch.uint8, device=q.device)
        ak, av = (None, None) if accum_in is None else (accum_in[0].data_ptr(), accum_in[1].data_ptr())
        lib.call("samebits_attention_backward", _lib.C.byref(p), _t3(q), _t3(k), _t3(v), _t3(o), _t3(dout),
                 lse.data_ptr(), _t3(dq), _t3(dk), _t3(dv), ws.data_ptr(), nbytes, ak, av, _stream(q.device))
    n = plan.total_k * plan.hq * plan.d
    accum = []
    for which in (0, 1):
        off = lib.lib.samebits_attention_backward_accum_offset(plan.total_q, plan.total_k, plan.hq, plan.d, which)
        accum.append(ws[off:off + 4 * n].view(torch.float32).view(accum_shape))
    return dq, dk, dv, tuple(accum)


@torch.library.custom_op("samebits::attention_bwd", mutates_args=())
def _attention_bwd(dout: Tensor, q: Tensor, k: Tensor, v: Tensor, o: Tensor, lse: Tensor, cu_seqlens_q: List[int],
                   cu_seqlens_k: List[int], causal: bool, scale: Optional[float], libm: str, policy: str,
                   mma: Optional[List[int]], stored_ds: bool = False) -> Tuple[Tensor, Tensor, Tensor]:
    dq, dk, dv, _ = _attention_backward_launch(dout, q, k, v, o, lse, cu_seqlens_q, cu_seqlens_k, causal, scale, libm,
                                               policy=policy, mma=mma, stored_ds=stored_ds)
    return dq, dk, dv


@_attention_bwd.register_fake
def _(dout, q, k, v, o, lse, cu_seqlens_q, cu_seqlens_k, causal, scale, libm, policy, mma, stored_ds=False):
    return q.new_empty(q.shape), k.new_empty(k.shape), v.new_empty(v.shape)


def _attention_setup(ctx, inputs, output):
    q, k, v, cu_q, cu_k, causal, scale, libm, policy, mma = inputs[:10]
    stored_ds = bool(inputs[10]) if len(inputs) > 10 else False  # a caller may leave the default out
    o, lse = output
    ctx.save_for_backward(q, k, v, o, lse)
    ctx.args = (cu_q, cu_k, causal, scale, libm, policy, mma) + ((stored_ds,) if stored_ds else ())
    ctx.n_inputs = len(inputs)
    ctx.mark_non_differentiable(lse)


def _attention_backward(ctx, grad_o, grad_lse):
    q, k, v, o, lse = ctx.saved_tensors
    dq, dk, dv = _attention_bwd(grad_o.contiguous(), q, k, v, o, lse, *ctx.args)
    return (dq, dk, dv) + (None,) * (ctx.n_inputs - 3)  # one per forward input


_attention_fwd.register_autograd(_attention_backward, setup_context=_attention_setup)


def attention(q, k, v, *, causal, cu_seqlens=None, cu_seqlens_k=None, scale=None, libm="nvcc", return_lse=False,
              policy="fma-chain", mma=None, stored_ds=False):
    """Deterministic attention (docs/kernels/attention.md), differentiable in
    q, k, v.

    q [rows, Hq, D], k and v [rows_k, Hkv, D] (packed sequences: cu_seqlens
    = [0, end_0, end_1, ...], host ints, the same for k unless cu_seqlens_k is
    given; a CUDA tensor is refused: host ints, converted once by the
    caller; none: one sequence), or q [B, Sq, Hq, D], k and v [B, Sk, Hkv, D].
    D 64 or 128, Hq a multiple of Hkv (GQA), dtype bfloat16, float16 or
    float32 (one for all), one CUDA device, last dimension contiguous. causal
    (required): bottom-right aligned. scale: None for the binary32 nearest
    1/sqrt(D), else a finite number > 0 (rounded to binary32; 0 is refused,
    never read as the default). libm: "nvcc"
    (CUDA's expf/logf bits), "cr" (correctly rounded) or "nvcc-fast" (nvcc
    -use_fast_math's expf/logf; policy "sm90-tensor-core" only). policy: the
    contract's arithmetic policy, "fma-chain" (default) or
    "sm90-tensor-core" (docs/kernels/attention-tc.md: bfloat16 or float16
    inputs; mma: the tensor-core model's parameters, None for the defaults,
    samebits.MmaParams or a dict). On the GPU the wgmma kernels compute
    the hardware's own arithmetic: mma other than its parameters is
    refused (samebits.UnsupportedError, the library's message), never
    computed by fma-chain; samebits.reference computes any mma on the CPU.
    stored_ds (sm90-tensor-core only): the backward's dq pass reads the D^S
    its dK/dV pass stores instead of recomputing it — the same bits, a
    workspace of O(Hq * Sq * Sk) bytes (1.3 GB for one sequence of 4096 at
    Hq 32), 2-4 % faster forward+backward up to S = 4096 on an H100
    (docs/kernels/attention-tc.md §21).

    Returns o (q's shape and dtype), or (o, lse) with return_lse: lse
    [rows, Hq] (or [B, Sq, Hq]) float32, natural log, not differentiable."""
    if not isinstance(stored_ds, bool):
        raise TypeError(f"stored_ds: True or False, not {type(stored_ds).__name__}")
    if stored_ds and policy != "sm90-tensor-core":
        raise ValueError(f"stored_ds: only policy \"sm90-tensor-core\" has a stored-D^S backward (policy {policy!r})")
    # Before the op (and at trace time): what the C ABI cannot see, then its rules on the problem.
    plan = V.check_attention(_named(q, "q"), _named(k, "k"), _named(v, "v"), causal=causal, cu_seqlens=cu_seqlens,
                             cu_seqlens_k=cu_seqlens_k, scale=scale, libm=libm, policy=policy, mma=mma)
    if plan.batch is not None:
        b, sq, sk = plan.batch
        q3 = q.reshape(b * sq, q.shape[2], q.shape[3])
        k3 = k.reshape(b * sk, k.shape[2], k.shape[3])
        v3 = v.reshape(b * sk, v.shape[2], v.shape[3])
    else:
        q3, k3, v3 = q, k, v
    o, lse = _attention_fwd(q3, k3, v3, list(plan.cu_q), list(plan.cu_k), plan.causal, V.scale_arg(plan.scale),
                            plan.libm, plan.policy, _mma_arg(plan), *((True,) if stored_ds else ()))
    if plan.batch is not None:
        o = o.view(q.shape)
        lse = lse.view(q.shape[0], q.shape[1], q.shape[2])
    return (o, lse) if return_lse else o


# ---- sparse MLA -----------------------------------------------------------------------

def _sparse_plan(q, kv, topk, attn_sink, scale, libm, dout=None):
    # The call validates the problem (the library's rules); here only what it cannot see.
    return V.plan_sparse_mla(_named(q, "q"), _named(kv, "kv"), _named(topk, "topk"),
                             attn_sink=None if attn_sink is None else _named(attn_sink, "attn_sink"),
                             scale=scale, libm=libm, dout=None if dout is None else _named(dout, "dout"))


@torch.library.custom_op("samebits::sparse_mla_fwd", mutates_args=())
def _sparse_mla_fwd(q: Tensor, kv: Tensor, topk: Tensor, attn_sink: Optional[Tensor], scale: Optional[float],
                    libm: str, validate_indices: bool) -> Tuple[Tensor, Tensor, Tensor]:
    plan = _sparse_plan(q, kv, topk, attn_sink, scale, libm)
    lib = _lib.load()
    o = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    lse = torch.empty((q.shape[0], q.shape[1]), dtype=torch.float32, device=q.device)
    lse_excl = torch.empty((q.shape[0], q.shape[1]), dtype=torch.float32, device=q.device)
    with torch.cuda.device(q.device):
        stream = _stream(q.device)
        flag = None if validate_indices else torch.zeros(1, dtype=torch.int32, device=q.device)
        p = _lib.sparse_problem(plan, indices=topk.data_ptr(), sink=None if attn_sink is None else attn_sink.data_ptr(),
                                error_flag=None if flag is None else flag.data_ptr(), validate_indices=validate_indices)
        lib.call("samebits_sparse_mla_forward", _lib.C.byref(p), _t3(q), kv.data_ptr(), plan.kv_row_stride, _t3(o),
                 lse.data_ptr(), lse_excl.data_ptr(), stream)
        if flag is not None:
            lib.call("samebits_sparse_mla_check_index_error", flag.data_ptr(), stream)
    return o, lse, lse_excl


@_sparse_mla_fwd.register_fake
def _(q, kv, topk, attn_sink, scale, libm, validate_indices):
    shape2 = (q.shape[0], q.shape[1])
    return q.new_empty(q.shape), q.new_empty(shape2, dtype=torch.float32), q.new_empty(shape2, dtype=torch.float32)


@torch.library.custom_op("samebits::sparse_mla_bwd", mutates_args=())
def _sparse_mla_bwd(dout: Tensor, q: Tensor, kv: Tensor, topk: Tensor, attn_sink: Optional[Tensor], o: Tensor,
                    lse: Tensor, scale: Optional[float], libm: str,
                    validate_indices: bool) -> Tuple[Tensor, Tensor, Tensor]:
    plan = _sparse_plan(q, kv, topk, attn_sink, scale, libm, dout=dout)
    for name, t, shape, dtype in (("o", o, q.shape, q.dtype), ("lse", lse, (q.shape[0], q.shape[1]), torch.float32)):
        if tuple(t.shape) != tuple(shape) or t.dtype != dtype or t.device != q.device:
            raise ValueError(f"{name}: {list(t.shape)} {t.dtype} on {t.device}; the forward's is {list(shape)} {dtype} "
                             f"on {q.device}")
    if not lse.is_contiguous():
        raise ValueError("lse: must be contiguous")
    V._last_contiguous("o", describe(o))
    lib = _lib.load()
    dq = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    dkv = torch.empty(kv.shape, dtype=kv.dtype, device=q.device)
    dsink = torch.empty((plan.heads,) if attn_sink is not None else (0,), dtype=torch.float32, device=q.device)
    with torch.cuda.device(q.device):
        stream = _stream(q.device)
        flag = None if validate_indices else torch.zeros(1, dtype=torch.int32, device=q.device)
        p = _lib.sparse_problem(plan, indices=topk.data_ptr(), sink=None if attn_sink is None else attn_sink.data_ptr(),
                                error_flag=None if flag is None else flag.data_ptr(), validate_indices=validate_indices)
        nbytes = lib.lib.samebits_sparse_mla_backward_workspace_bytes(_lib.C.byref(p))
        if nbytes < 0:
            if not lib.cuda:
                raise errors.NotBuiltError(f"samebits_sparse_mla_backward_workspace_bytes: {lib.path} was built without "
                                           "the CUDA kernels", status=errors.NOT_BUILT,
                                           function="samebits_sparse_mla_backward_workspace_bytes")
            raise ValueError(f"q, kv, topk: the backward's workspace size for tokens = {plan.tokens}, heads = "
                             f"{plan.heads}, topk = {plan.topk}, num_kv = {plan.num_kv} is out of range")
        ws = torch.empty(max(nbytes, 1), dtype=torch.uint8, device=q.device)
        lib.call("samebits_sparse_mla_backward", _lib.C.byref(p), _t3(q), kv.data_ptr(), plan.kv_row_stride, _t3(o),
                 _t3(dout), lse.data_ptr(), _t3(dq), dkv.data_ptr(), dkv.stride(0) if plan.num_kv > 1 else plan.d,
                 dsink.data_ptr() if attn_sink is not None else None, ws.data_ptr(), nbytes, stream)
        if flag is not None:
            lib.call("samebits_sparse_mla_check_index_error", flag.data_ptr(), stream)
    return dq, dkv, dsink


@_sparse_mla_bwd.register_fake
def _(dout, q, kv, topk, attn_sink, o, lse, scale, libm, validate_indices):
    n = q.shape[1] if attn_sink is not None else 0
    return q.new_empty(q.shape), kv.new_empty(kv.shape), q.new_empty((n,), dtype=torch.float32)


def _sparse_setup(ctx, inputs, output):
    q, kv, topk, attn_sink, scale, libm, validate_indices = inputs
    o, lse, lse_excl = output
    ctx.save_for_backward(q, kv, topk, attn_sink, o, lse)
    ctx.args = (scale, libm, validate_indices)
    ctx.mark_non_differentiable(lse, lse_excl)


def _sparse_backward(ctx, grad_o, grad_lse, grad_lse_excl):
    q, kv, topk, attn_sink, o, lse = ctx.saved_tensors
    dq, dkv, dsink = _sparse_mla_bwd(grad_o.contiguous(), q, kv, topk, attn_sink, o, lse, *ctx.args)
    return dq, dkv, None, (dsink if attn_sink is not None else None), None, None, None


_sparse_mla_fwd.register_autograd(_sparse_backward, setup_context=_sparse_setup)

_INDEX_CHECKS = ("device", "host")


def sparse_mla(q, kv, topk, *, attn_sink=None, scale=None, libm="nvcc", index_check="device", return_lse=False):
    """DeepSeek-V4 sparse MLA (docs/kernels/sparse_mla.md), differentiable in
    q, kv and attn_sink.

    q [T, H, D] (D 512; 128 the dense-equality instantiation), kv [num_kv, D]
    (K == V == kv), both bfloat16 or both float32; topk [T, k] int32 kv row
    indices (-1: a hole; every head of a token shares its list); attn_sink
    None or [H] float32. One CUDA device, last dimensions contiguous. scale:
    None for the binary32 nearest 1/sqrt(D), else a finite number > 0 (0 is
    refused). index_check: "device" (default:
    the kernels raise a flag on an index outside -1 .. num_kv - 1, read back
    after the call: InvalidArgumentError) or "host" (every index checked on
    the host before launching). Either way an out-of-range index is an error,
    never a silent result.

    Returns o (q's shape and dtype), or (o, lse, lse_excl) with return_lse:
    [T, H] float32, sink-inclusive and sink-exclusive, not differentiable."""
    if index_check not in _INDEX_CHECKS:
        raise ValueError(f"index_check: {index_check!r} ({' or '.join(_INDEX_CHECKS)})")
    plan = V.check_sparse_mla(_named(q, "q"), _named(kv, "kv"), _named(topk, "topk"),
                              attn_sink=None if attn_sink is None else _named(attn_sink, "attn_sink"), scale=scale,
                              libm=libm, validate_indices=index_check == "host")
    o, lse, lse_excl = _sparse_mla_fwd(q, kv, topk, attn_sink, V.scale_arg(plan.scale), plan.libm,
                                       index_check == "host")
    return (o, lse, lse_excl) if return_lse else o
