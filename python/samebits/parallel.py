"""Attention on several GPUs: context parallelism (CP) and tensor parallelism
(TP) over torch.distributed, bitwise equal to one GPU (docs/kernels/parallel.md).

    import samebits.parallel as sbp
    cp_group, cp_rank, tp_rank = sbp.make_groups(cp_size, tp_size)   # after init_process_group
    o, lse, k_keys, v_keys = sbp.cp_attention_forward(q_local, k_local, v_local, seq_len=S, cp_rank=cp_rank,
                                                      cp_size=cp_size, causal=True, group=cp_group)
    dq, dk_local, dv_local = sbp.cp_attention_backward(do_local, q_local, o, lse, k_keys, v_keys, seq_len=S,
                                                       cp_rank=cp_rank, cp_size=cp_size, causal=True,
                                                       group=cp_group)

One sequence of S tokens. CP rank r holds query rows and K/V rows
[s_r, s_{r+1}) with s_r = round(S r / CP), the exact rational rounded half to
even (cp_bounds; Python's round(S * r / CP) while S * r < 2^53). TP rank t holds whole kv
groups: kv heads t*Hkv/TP .. (t+1)*Hkv/TP - 1 and their query heads
(tp_heads); attention needs no communication between TP ranks.

Forward: K and V are all-gathered (bytes), and the rank's query rows run
against keys 0 .. s_{r+1}-1 (causal: bottom-right aligned, the chunked-prefill
form of the contract; not causal: all S keys). Backward: rank r receives rank
r-1's fp32 dK/dV accumulators (rank 0 starts from +0), extends them with +0
rows for its new keys, runs samebits_attention_backward with them as
accum_k_in / accum_v_in and sends its own to rank r+1; the last rank's dk, dv
are the results, and it sends each rank the rows of its K/V shard
(dk_local, dv_local are returned on every rank). Collectives carry bytes
only (uint8 views): all_gather(_into_tensor) and send/recv; no reduction.

Backends: "nccl" (CUDA tensors moved directly) and "gloo" (every transfer
staged through host memory: what lets several ranks share one GPU, which NCCL
refuses). The plan (cp_bounds, tp_heads, cp_plan, cp_volumes) is pure Python:
importing this module needs no torch; the collectives and kernels import it
when called.
"""
from typing import NamedTuple, Tuple

from . import errors

__all__ = ["cp_bounds", "tp_heads", "cp_plan", "cp_volumes", "CPPlan", "HeadRange", "make_groups",
           "cp_gather_keys", "cp_attention_forward", "cp_attention_backward", "BACKENDS"]

BACKENDS = ("nccl", "gloo")
_FN = "samebits.parallel"


def _invalid(msg):
    return errors.InvalidArgumentError(msg, status=errors.INVALID_ARGUMENT, function=_FN)


def _int(name, x, lo):
    if isinstance(x, bool) or not isinstance(x, int):
        raise TypeError(f"{name}: an int is needed, not {type(x).__name__}")
    if x < lo:
        raise _invalid(f"{name}: {x}; must be >= {lo}")
    return x


# ---- the plan (no torch) ------------------------------------------------------------------------

def cp_bounds(seq_len, cp_size):
    """[s_0, ..., s_CP] with s_r = round(S r / CP): the exact rational S*r/CP
    rounded to the nearest integer, ties to even (integer arithmetic; the same
    as Python's round(S * r / CP) while S * r < 2^53). Rank r holds rows [s_r, s_{r+1}). Needs
    S >= CP (every rank holds at least one row)."""
    _int("seq_len", seq_len, 1)
    _int("cp_size", cp_size, 1)
    if seq_len < cp_size:
        raise _invalid(f"seq_len: {seq_len} rows for cp_size = {cp_size} ranks; every rank needs at least one "
                       "query row (seq_len >= cp_size)")
    out = []
    for r in range(cp_size + 1):
        q, rem = divmod(seq_len * r, cp_size)
        if 2 * rem > cp_size or (2 * rem == cp_size and q % 2 == 1):
            q += 1
        out.append(q)
    assert all(b > a for a, b in zip(out, out[1:])), out
    return out


class HeadRange(NamedTuple):
    """TP rank t's heads: query heads [q0, q1), kv heads [kv0, kv1)."""
    q0: int
    q1: int
    kv0: int
    kv1: int


def tp_heads(hq, hkv, tp_size, tp_rank):
    """The whole kv groups of TP rank tp_rank: kv heads tp_rank*Hkv/TP ..
    and their query heads (G = Hq/Hkv per kv head, in order). Hkv must be a
    multiple of TP: a kv group is never split (its dk/dv head fold would cross
    ranks)."""
    _int("hkv", hkv, 1)
    _int("hq", hq, 1)
    _int("tp_size", tp_size, 1)
    _int("tp_rank", tp_rank, 0)
    if hq % hkv:
        raise _invalid(f"hq: {hq} query heads are not a multiple of hkv = {hkv}")
    if hkv % tp_size:
        raise _invalid(f"tp_size: {tp_size} does not divide hkv = {hkv} key/value heads; each TP rank holds whole "
                       "kv groups")
    if tp_rank >= tp_size:
        raise _invalid(f"tp_rank: {tp_rank}; must be < tp_size = {tp_size}")
    per, g = hkv // tp_size, hq // hkv
    return HeadRange(tp_rank * per * g, (tp_rank + 1) * per * g, tp_rank * per, (tp_rank + 1) * per)


class CPPlan(NamedTuple):
    """What CP rank cp_rank holds, reads, receives and sends (rows)."""
    seq_len: int
    cp_size: int
    cp_rank: int
    causal: bool
    bounds: Tuple[int, ...]

    @property
    def q0(self):  # first query / K/V row of this rank
        return self.bounds[self.cp_rank]

    @property
    def q1(self):
        return self.bounds[self.cp_rank + 1]

    @property
    def rows(self):
        return self.q1 - self.q0

    @property
    def shard_rows(self):  # rows of every rank's shard, rank order
        return [b - a for a, b in zip(self.bounds, self.bounds[1:])]

    @property
    def keys(self):
        """Keys 0 .. keys-1 this rank's rows attend (the forward's and the
        backward's total_k): s_{r+1} causal (bottom-right aligned), S not."""
        return self.q1 if self.causal else self.seq_len

    @property
    def handover_in(self):
        """Key rows of the accumulators received from rank r-1 (its keys; 0 on
        rank 0): rows 0 .. handover_in-1 of this rank's accum_in, the rest +0."""
        return 0 if self.cp_rank == 0 else (self.bounds[self.cp_rank] if self.causal else self.seq_len)

    @property
    def handover_out(self):
        """Key rows of the accumulators sent to rank r+1 (0 on the last rank)."""
        return 0 if self.cp_rank == self.cp_size - 1 else self.keys

    @property
    def last(self):
        return self.cp_rank == self.cp_size - 1


def cp_plan(seq_len, cp_size, cp_rank, causal):
    """The checked CPPlan of CP rank cp_rank of cp_size over seq_len rows."""
    bounds = cp_bounds(seq_len, cp_size)
    _int("cp_rank", cp_rank, 0)
    if cp_rank >= cp_size:
        raise _invalid(f"cp_rank: {cp_rank}; must be < cp_size = {cp_size}")
    if not isinstance(causal, bool):
        raise TypeError(f"causal: must be True or False, got {causal!r}")
    return CPPlan(seq_len, cp_size, cp_rank, causal, tuple(bounds))


def cp_volumes(plan, hq, hkv, d, elem_bytes):
    """Bytes this rank receives and sends per forward + backward (hq, hkv: the
    rank's heads, after the TP split; elem_bytes: the input dtype's size):
    kv_gather (K and V all-gathered; shards padded to the largest when the
    split is uneven), handover (fp32 per-query-head accumulators, K and V),
    grad (the last rank sends each rank its dk, dv rows). What the layer
    counts in `stats` when it runs."""
    m = max(plan.shard_rows)
    even = min(plan.shard_rows) == m
    shard = (plan.rows if even else m) * hkv * d * elem_bytes
    kv = 2 * (plan.cp_size - 1) * shard
    acc = 2 * hq * d * 4
    row = 2 * hkv * d * elem_bytes
    grad_send = row * (plan.seq_len - plan.rows) if plan.last else 0
    grad_recv = 0 if plan.last else row * plan.rows
    return {"kv_gather_recv": kv, "kv_gather_send": kv,
            "handover_recv": acc * plan.handover_in, "handover_send": acc * plan.handover_out,
            "grad_recv": grad_recv, "grad_send": grad_send}


# ---- the steps, on any arrays and any transport ------------------------------------------------
# `comm`: all_gather(buf) -> the cp_size buffers concatenated along rows (rank
# order); send(x, dst, what); recv_into(x, src, what) (x a contiguous view,
# written in place). `kern`: forward(q, k, v) -> (o, lse);
# backward(dout, q, k, v, o, lse, accum_in) -> (dq, dk, dv, (accum_k, accum_v));
# accum_zeros(rows) -> a pair of +0 float32 [rows, hq, d]; zeros(shape, like);
# cat(list). _TorchComm and _TorchKernels below are one pair;
# tests/python/test_parallel.py runs the same steps on the CPU reference.

def _gather_rows(plan, comm, kern, x):
    """All ranks' shards of x ([rows, heads, d]) in row order: [S, heads, d].
    Shards of unequal length travel padded to the longest."""
    rows = plan.shard_rows
    m = max(rows)
    if min(rows) == m:
        return comm.all_gather(x)
    buf = kern.zeros((m,) + tuple(x.shape[1:]), x)
    buf[:x.shape[0]] = x
    full = comm.all_gather(buf)
    return kern.cat([full[r * m:r * m + n] for r, n in enumerate(rows)])


def _gather_keys(plan, comm, kern, k_local, v_local):
    k = _gather_rows(plan, comm, kern, k_local)
    v = _gather_rows(plan, comm, kern, v_local)
    return k[:plan.keys], v[:plan.keys]


def _backward_steps(plan, comm, kern, dout, q, o, lse, k_keys, v_keys):
    """Rank r: receive rank r-1's accumulators (rows 0 .. handover_in-1; the
    rest +0), run the backward with them, send its own to rank r+1; the last
    rank sends every rank its rows of dk, dv."""
    accum_in = None
    if plan.cp_rank > 0:
        accum_in = kern.accum_zeros(plan.keys)
        for a in accum_in:
            comm.recv_into(a[:plan.handover_in], plan.cp_rank - 1, "handover")
    dq, dk, dv, accum = kern.backward(dout, q, k_keys, v_keys, o, lse, accum_in)
    if not plan.last:
        for a in accum:
            comm.send(a[:plan.handover_out], plan.cp_rank + 1, "handover")
        dk_local = kern.zeros((plan.rows,) + tuple(dk.shape[1:]), dk)
        dv_local = kern.zeros((plan.rows,) + tuple(dv.shape[1:]), dv)
        comm.recv_into(dk_local, plan.cp_size - 1, "grad")
        comm.recv_into(dv_local, plan.cp_size - 1, "grad")
        return dq, dk_local, dv_local
    for r in range(plan.cp_size - 1):
        s0, s1 = plan.bounds[r], plan.bounds[r + 1]
        comm.send(dk[s0:s1], r, "grad")
        comm.send(dv[s0:s1], r, "grad")
    return dq, dk[plan.q0:plan.q1], dv[plan.q0:plan.q1]


# ---- torch.distributed and the CUDA kernels ---------------------------------------------------

def make_groups(cp_size, tp_size):
    """CP process groups for a world of cp_size * tp_size ranks, global rank =
    tp_rank * cp_size + cp_rank (every rank creates every group, in the same
    order, as torch.distributed requires). Returns (cp_group, cp_rank,
    tp_rank); cp_group is None (the default group) when tp_size == 1."""
    import torch.distributed as dist
    _int("cp_size", cp_size, 1)
    _int("tp_size", tp_size, 1)
    if not (dist.is_available() and dist.is_initialized()):
        raise _invalid("make_groups: torch.distributed is not initialized (init_process_group first)")
    world, rank = dist.get_world_size(), dist.get_rank()
    if world != cp_size * tp_size:
        raise _invalid(f"cp_size, tp_size: {cp_size} x {tp_size} != world size {world}")
    tp_rank, cp_rank = divmod(rank, cp_size)
    if tp_size == 1:
        return None, cp_rank, 0
    mine = None
    for t in range(tp_size):
        g = dist.new_group(list(range(t * cp_size, (t + 1) * cp_size)))
        if t == tp_rank:
            mine = g
    return mine, cp_rank, tp_rank


def _bytes(t):
    """The bytes of a contiguous tensor, as a uint8 view sharing its storage."""
    if not t.is_contiguous():
        raise ValueError("internal: a non-contiguous tensor handed to a collective")
    import torch
    return t.reshape(-1).view(torch.uint8)


class _TorchComm:
    """The transport over torch.distributed: bytes only. nccl moves CUDA
    memory; gloo stages every transfer through host memory."""

    def __init__(self, group, plan, stats):
        import torch
        import torch.distributed as dist
        self.torch, self.dist, self.group, self.plan = torch, dist, group, plan
        if not (dist.is_available() and dist.is_initialized()):
            raise _invalid("group: torch.distributed is not initialized (init_process_group first)")
        size, rank = dist.get_world_size(group), dist.get_rank(group)
        if size != plan.cp_size:
            raise _invalid(f"cp_size: {plan.cp_size} but the group has {size} ranks")
        if rank != plan.cp_rank:
            raise _invalid(f"cp_rank: {plan.cp_rank} but this process is rank {rank} of the group")
        self.backend = str(dist.get_backend(group)).lower()
        if self.backend not in BACKENDS:
            raise errors.UnsupportedError(f"group: backend {self.backend!r} unsupported (nccl, or gloo staged "
                                          "through host memory)", status=errors.UNSUPPORTED, function=_FN)
        self.stats = stats if stats is not None else {}

    def _count(self, key, n):
        self.stats[key] = self.stats.get(key, 0) + int(n)

    def _peer(self, r):
        return r if self.group is None else self.dist.get_global_rank(self.group, r)

    def _host(self, b):
        self._count("host_staged", b.numel())
        return b.cpu()

    def all_gather(self, x):
        torch, dist = self.torch, self.dist
        x = x.contiguous()
        b = _bytes(x)
        n = self.plan.cp_size
        self._count("kv_gather_send", (n - 1) * b.numel())
        self._count("kv_gather_recv", (n - 1) * b.numel())
        if self.backend == "nccl":
            out = torch.empty((n * x.shape[0],) + tuple(x.shape[1:]), dtype=x.dtype, device=x.device)
            dist.all_gather_into_tensor(_bytes(out), b, group=self.group)
            return out
        hb = self._host(b)
        parts = [torch.empty_like(hb) for _ in range(n)]
        dist.all_gather(parts, hb, group=self.group)
        out = torch.cat(parts).to(x.device)
        self._count("host_staged", out.numel())
        return out.view(x.dtype).view((n * x.shape[0],) + tuple(x.shape[1:]))

    def send(self, x, dst, what):
        b = _bytes(x.contiguous())
        self._count(what + "_send", b.numel())
        if self.backend == "gloo":
            b = self._host(b)
        self.dist.send(b, self._peer(dst), group=self.group)

    def recv_into(self, x, src, what):
        b = _bytes(x)
        self._count(what + "_recv", b.numel())
        if self.backend == "nccl":
            self.dist.recv(b, self._peer(src), group=self.group)
            return
        tmp = self.torch.empty(b.numel(), dtype=self.torch.uint8)
        self.dist.recv(tmp, self._peer(src), group=self.group)
        self._count("host_staged", b.numel())
        b.copy_(tmp)


class _TorchKernels:
    """The CUDA kernels through samebits.torch (the C ABI), one sequence per
    call: q [rows, hq, d] against k, v [keys, hkv, d]."""

    def __init__(self, causal=False, scale=None, libm="nvcc", hq=0, d=0, device=None):
        import torch
        from . import torch as sbt, _validate as V
        self.torch, self.sbt = torch, sbt
        # The ops' scale: None for the default (_check_args had the library check the values).
        self.causal, self.libm, self.scale = causal, V.check_libm(libm), V.scale_arg(V.check_scale(scale))
        self.hq, self.d, self.device = hq, d, device

    def forward(self, q, k, v):
        return self.sbt._attention_fwd(q, k, v, [0, q.shape[0]], [0, k.shape[0]], self.causal, self.scale, self.libm,
                                       "fma-chain", None)

    def backward(self, dout, q, k, v, o, lse, accum_in):
        return self.sbt._attention_backward_launch(dout, q, k, v, o, lse, [0, q.shape[0]], [0, k.shape[0]],
                                                   self.causal, self.scale, self.libm, accum_in=accum_in)

    def accum_zeros(self, rows):
        return tuple(self.torch.zeros((rows, self.hq, self.d), dtype=self.torch.float32, device=self.device)
                     for _ in range(2))

    def zeros(self, shape, like):
        return self.torch.zeros(tuple(shape), dtype=like.dtype, device=like.device)

    def cat(self, xs):
        return self.torch.cat(xs)


def _tensor(name, t):
    import torch
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name}: a torch.Tensor is needed, not {type(t).__name__}")
    if t.dim() != 3:
        raise _invalid(f"{name}: shape {list(t.shape)}; expected [rows, heads, D]")
    return t


def _check_rows(plan, named):
    for name, t, rows, what in named:
        if t.shape[0] != rows:
            raise _invalid(f"{name}: {t.shape[0]} rows; CP rank {plan.cp_rank} of {plan.cp_size} holds {what} "
                           f"({rows} rows; seq_len {plan.seq_len}, bounds {list(plan.bounds)})")


def _check_args(plan, q, k, v, causal, scale, libm, dout=None):
    """Before any communication: samebits._validate's attention checks on what
    the kernels will get (dtype, device, shapes: q, k, v, dout as named there)
    and the library's rules on the problem (D, GQA, scale, libm:
    samebits_attention_check), then the rows."""
    from . import torch as sbt, _validate as V
    named = [("q_local", q), ("k", k), ("v", v)] + ([("dout_local", dout)] if dout is not None else [])
    for name, t in named:
        _tensor(name, t)
    V.check_attention(sbt.describe(q), sbt.describe(k), sbt.describe(v), causal=causal,
                      cu_seqlens=[0, q.shape[0]], cu_seqlens_k=[0, k.shape[0]], scale=scale, libm=libm,
                      dout=None if dout is None else sbt.describe(dout))
    if dout is not None:
        _check_rows(plan, [("dout_local", dout, plan.rows, f"query rows [{plan.q0}, {plan.q1})")])
    _check_rows(plan, [("q_local", q, plan.rows, f"query rows [{plan.q0}, {plan.q1})")])


def cp_gather_keys(k_local, v_local, *, seq_len, cp_rank, cp_size, causal, group=None, stats=None):
    """K and V of keys 0 .. keys-1 (s_{r+1} causal, S not), all-gathered from
    every rank's shard [s_r, s_{r+1}): (k_keys, v_keys) [keys, hkv, D]. What
    cp_attention_forward does first; call it again for a backward that did not
    keep the forward's."""
    plan = cp_plan(seq_len, cp_size, cp_rank, causal)
    for name, t in (("k_local", k_local), ("v_local", v_local)):
        _tensor(name, t)
    if v_local.dtype != k_local.dtype or v_local.device != k_local.device or v_local.shape != k_local.shape:
        raise _invalid(f"v_local: {list(v_local.shape)} {v_local.dtype} on {v_local.device}; k_local is "
                       f"{list(k_local.shape)} {k_local.dtype} on {k_local.device} (they must match)")
    shard = f"K/V rows [{plan.q0}, {plan.q1})"
    _check_rows(plan, [("k_local", k_local, plan.rows, shard), ("v_local", v_local, plan.rows, shard)])
    comm = _TorchComm(group, plan, stats)
    if comm.backend == "nccl" and k_local.device.type != "cuda":
        raise _invalid(f"k_local: on {k_local.device}; the nccl backend moves CUDA tensors")
    return _gather_keys(plan, comm, _TorchKernels(), k_local, v_local)


def cp_attention_forward(q_local, k_local, v_local, *, seq_len, cp_rank, cp_size, causal, group=None, scale=None,
                         libm="nvcc", stats=None):
    """The forward of CP rank cp_rank: q_local, k_local, v_local are rows
    [s_r, s_{r+1}) of one sequence of seq_len rows ([rows, heads, D], this TP
    rank's heads). Returns (o_local, lse_local, k_keys, v_keys): o and lse of
    the rank's rows (bitwise those of one launch over the whole sequence) and
    the gathered keys (for cp_attention_backward). group: the CP process
    group (None: the default group); stats: a dict that collects the bytes
    moved (cp_volumes' keys, and host_staged for gloo)."""
    plan = cp_plan(seq_len, cp_size, cp_rank, causal)
    _check_args(plan, q_local, k_local, v_local, causal, scale, libm)
    k_keys, v_keys = cp_gather_keys(k_local, v_local, seq_len=seq_len, cp_rank=cp_rank, cp_size=cp_size,
                                    causal=causal, group=group, stats=stats)
    kern = _TorchKernels(causal, scale, libm, q_local.shape[1], q_local.shape[2], q_local.device)
    o, lse = kern.forward(q_local, k_keys, v_keys)
    return o, lse, k_keys, v_keys


def cp_attention_backward(dout_local, q_local, o_local, lse_local, k_keys, v_keys, *, seq_len, cp_rank, cp_size,
                          causal, group=None, scale=None, libm="nvcc", stats=None):
    """The backward of CP rank cp_rank, after cp_attention_forward (its o, lse,
    k_keys, v_keys; the same seq_len, ranks, causal, scale, libm). Ranks run
    in query order: rank r waits for rank r-1's dK/dV accumulators. Returns
    (dq_local, dk_local, dv_local): the gradients of this rank's q, k and v
    rows, bitwise those of one launch over the whole sequence (dk, dv are
    computed on the last rank and sent to each rank)."""
    import torch
    plan = cp_plan(seq_len, cp_size, cp_rank, causal)
    _check_args(plan, q_local, k_keys, v_keys, causal, scale, libm, dout=dout_local)
    keys = f"keys [0, {plan.keys})"
    _check_rows(plan, [("k_keys", k_keys, plan.keys, keys), ("v_keys", v_keys, plan.keys, keys)])
    for name, t, shape, dtype in (("o_local", o_local, tuple(q_local.shape), q_local.dtype),
                                  ("lse_local", lse_local, tuple(q_local.shape[:2]), torch.float32)):
        if not isinstance(t, torch.Tensor) or tuple(t.shape) != shape or t.dtype != dtype \
                or t.device != q_local.device:
            raise _invalid(f"{name}: must be the forward's, {list(shape)} {dtype} on {q_local.device}")
    comm = _TorchComm(group, plan, stats)
    if comm.backend == "nccl" and q_local.device.type != "cuda":
        raise _invalid(f"q_local: on {q_local.device}; the nccl backend moves CUDA tensors")
    kern = _TorchKernels(causal, scale, libm, q_local.shape[1], q_local.shape[2], q_local.device)
    return _backward_steps(plan, comm, kern, dout_local, q_local, o_local, lse_local, k_keys, v_keys)
