"""What samebits.torch, samebits.reference and samebits.parallel check in Python
before the C ABI: only what the C ABI cannot see, on plain descriptions of
tensors (shape, dtype name, strides in elements, device string), so that it
runs and is tested without torch or a GPU:

  - the tensors as such: their number of dimensions, shapes that agree with
    one another (k's D is q's, v has k's shape, topk has q's tokens ...), one
    device, one input dtype, a dtype the C ABI has a code for, a contiguous
    last dimension (the C ABI takes two strides), a [batch, seq] that folds
    into rows, the sink contiguous;
  - the Python values: causal a bool, scale a number or None, cu_seqlens host
    ints (a list, a tuple, a CPU tensor or array; a CUDA tensor is refused:
    converting it would read the device element by element), names that have
    a code (libm, policy, mma's enum values, input_dtype).

TypeError for a wrong type or dtype, ValueError for a wrong shape, stride,
device or value, naming the argument. Every rule on the values (D, heads,
GQA, cu_seqlens monotone and totals, limits, scale > 0, policy x libm, policy x
dtype, mma's ranges, strides and overlaps) is the library's, written once in
C++ (kernels/src/validate/rules.hpp): check_attention / check_sparse_mla ask
it through samebits_attention_check / samebits_sparse_mla_check, and raise
its error (samebits.errors: the same message and class as the call would
give); plan_* build the problem without asking (samebits.reference's C entry
points validate it themselves).

The attention contract's arithmetic policies (docs/kernels/attention.md §7):
"fma-chain" (the default) and "sm90-tensor-core" (docs/kernels/attention-tc.md).
"""
import dataclasses
import math
import numbers
import operator
from typing import NamedTuple, Optional, Tuple, Union

from . import _lib

DTYPE_CODES = _lib.DTYPE_CODES
ATTENTION_DTYPES = tuple(DTYPE_CODES)  # the dtypes with a C ABI code (which one an op takes: the library's rule)
SPARSE_DTYPES = ATTENTION_DTYPES


# ---- the arithmetic policy and the tensor-core model's parameters ----------------

FMA_CHAIN, SM90_TENSOR_CORE = "fma-chain", "sm90-tensor-core"
POLICIES = tuple(_lib.POLICY_CODES)

# samebits_mma_params (c_api.h) field by field, in the struct's order: the
# enum fields' value names (samebits::mma::sm90's enums, index = the C code;
# tests/python/test_lib.py compares them with libm/include/samebits/libm/mma/sm90.hpp).
MMA_FIELDS = ("frac_bits", "group", "rounding", "c_join", "zero_exponent", "product_exponent", "zero_sign",
              "overflow")
MMA_ENUMS = {
    "rounding": ("toward_zero", "nearest_even"),
    "c_join": ("first_group", "after_products"),
    "zero_exponent": ("format_min", "ignored", "fixed_m126"),
    "product_exponent": ("raw", "normalized"),
    "zero_sign": ("ieee", "positive"),
    "overflow": ("infinity", "saturate"),
}


def _mma_code(field, value):
    """The C code of one MmaParams field: an enum value's name or an int (its
    range is the library's rule: samebits::mma::sm90::invalid_argument)."""
    where = f"mma.{field}"
    if isinstance(value, bool):
        raise TypeError(f"{where}: {value!r} is a bool; give an int" +
                        ("" if field in ("frac_bits", "group") else " code or a name"))
    if field in MMA_ENUMS and isinstance(value, str):
        names = MMA_ENUMS[field]
        if value not in names:
            raise ValueError(f"{where}: {value!r} unknown ({', '.join(names)})")
        return names.index(value)
    if not isinstance(value, numbers.Integral):
        raise TypeError(f"{where}: {value!r} is " + (f"neither a name ({', '.join(MMA_ENUMS[field])}) nor an int code"
                                                     if field in MMA_ENUMS else "not an int"))
    return _lib.int32(where, int(value))


@dataclasses.dataclass(frozen=True)
class MmaParams:
    """The tensor-core model's parameters (samebits::mma::sm90::Params,
    c_api.h's samebits_mma_params, docs/kernels/mma.md §2) that policy
    "sm90-tensor-core" takes; the defaults are the C header's (the hardware's
    reading, docs/kernels/mma.md §6; the GPU kernels take only these). Enum
    fields take the value's name or its C code. The values' ranges are the
    library's to check (samebits_attention_check, the calls, the fingerprint)."""
    frac_bits: int = 25                      # F: fractional bits kept below the largest exponent, 1..40
    group: int = 16                          # products per fused step: 1, 2, 4, 8 or 16
    rounding: Union[str, int] = "toward_zero"          # or "nearest_even"
    c_join: Union[str, int] = "first_group"            # or "after_products"
    zero_exponent: Union[str, int] = "ignored"         # or "format_min", "fixed_m126"
    product_exponent: Union[str, int] = "raw"          # or "normalized"
    zero_sign: Union[str, int] = "positive"            # or "ieee"
    overflow: Union[str, int] = "infinity"             # or "saturate"

    def __post_init__(self):
        self.codes()

    def codes(self):
        """The 8 C codes, in samebits_mma_params' field order."""
        return tuple(_mma_code(f, getattr(self, f)) for f in MMA_FIELDS)


def check_policy(policy, mma=None):
    """(policy, mma codes or None) of the policy keyword and its mma. mma:
    None (the model's defaults; the C ABI gets a null pointer), an
    MmaParams, a dict {field: value} (the other fields default), or a
    sequence of the 8 C codes in samebits_mma_params' order. Whether the
    policy reads mma, and the codes' ranges, are the library's rules."""
    _lib.name_code(_lib.POLICY_CODES, policy, "policy")
    if mma is None:
        return policy, None
    if isinstance(mma, MmaParams):
        return policy, mma.codes()
    if isinstance(mma, dict):
        unknown = [k for k in mma if k not in MMA_FIELDS]
        if unknown:
            raise ValueError(f"mma: field {unknown[0]!r} unknown ({', '.join(MMA_FIELDS)})")
        return policy, MmaParams(**mma).codes()
    if isinstance(mma, (list, tuple)):
        if len(mma) != len(MMA_FIELDS):
            raise ValueError(f"mma: {len(mma)} codes; a sequence needs the 8 of samebits_mma_params "
                             f"({', '.join(MMA_FIELDS)})")
        return policy, MmaParams(*mma).codes()
    raise TypeError(f"mma: {type(mma).__name__} is not an MmaParams, a dict or a sequence of 8 codes (None: the "
                    "defaults)")


class TensorDesc(NamedTuple):
    """What the checks need of a tensor: shape, dtype name ("bfloat16", as
    torch and numpy spell it without their prefix), strides in elements, and
    the device ("cuda:0", "cpu")."""
    shape: Tuple[int, ...]
    dtype: str
    strides: Tuple[int, ...]
    device: str


def contiguous_strides(shape):
    out, s = [], 1
    for n in reversed(shape):
        out.append(s)
        s *= max(int(n), 1)
    return tuple(reversed(out))


def desc(shape, dtype, strides=None, device="cuda:0"):
    """A TensorDesc; strides default to the contiguous (C order) ones."""
    shape = tuple(int(n) for n in shape)
    return TensorDesc(shape, dtype, contiguous_strides(shape) if strides is None else tuple(strides), device)


def _shape(t):
    return "[" + ", ".join(str(n) for n in t.shape) + "]"


def _device_kind(dev):
    return str(dev).split(":", 1)[0]


def _check_devices(named, device_kind):
    """named: [(name, desc)]; all on one device of kind device_kind."""
    first_name, first = named[0]
    for name, t in named:
        if _device_kind(t.device) != device_kind:
            if device_kind == "cuda":
                raise ValueError(f"{name}: on {t.device}; samebits.torch runs the CUDA kernels: every tensor must "
                                 "be on one CUDA device")
            raise ValueError(f"{name}: on {t.device}; the CPU reference takes host ({device_kind}) arrays")
        if t.device != first.device:
            raise ValueError(f"{name}: on {t.device} but {first_name} is on {first.device} (one device for all)")


def _last_contiguous(name, t):
    if t.shape and t.shape[-1] > 1 and t.strides[-1] != 1:
        raise ValueError(f"{name}: the last dimension must be contiguous (stride 1), its stride is "
                         f"{t.strides[-1]}; call .contiguous()")


def _dtype(name, t, allowed):
    if t.dtype not in allowed:
        raise TypeError(f"{name}: dtype {t.dtype} unsupported ({', '.join(allowed)})")


def check_libm(libm):
    """libm as a name the C ABI has a code for ("nvcc", "cr", "nvcc-fast"; which policy offers which
    is the library's rule)."""
    _lib.libm_code(libm)
    return libm


def check_scale(scale):
    """None -> NaN (the C ABI's "not given": the binary32 nearest 1/sqrt(D));
    a number is handed on as it is (converted to binary32 by the C ABI, whose
    rule refuses 0, infinities and negative values, naming scale)."""
    if scale is None:
        return _lib.DEFAULT_SCALE
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real):
        raise TypeError(f"scale: {scale!r} is not a number (None: the default 1/sqrt(D))")
    return float(scale)


def scale_arg(scale):
    """The registered ops' Optional[float] scale of a checked one (NaN: None, the default)."""
    return None if math.isnan(scale) else scale


def default_scale(d):
    """The binary32 nearest 1/sqrt(d): the kernels' default scale."""
    import struct
    return struct.unpack("<f", struct.pack("<f", 1.0 / math.sqrt(d)))[0]


def _cu(name, cu):
    """cu_seqlens as host ints: a sequence of ints, or a CPU tensor / array (converted once). A tensor
    on another device is refused: reading it here would copy it element by element."""
    if isinstance(cu, (str, bytes)):
        raise TypeError(f"{name}: a sequence of ints, not {type(cu).__name__}")
    device = getattr(cu, "device", None)
    if device is not None and _device_kind(device) != "cpu":
        raise ValueError(f"{name}: a tensor on {device}; cu_seqlens are host ints (a list, or a CPU tensor): "
                         "call .tolist() (or .cpu()) once, outside the step")
    if hasattr(cu, "tolist") and not isinstance(cu, (list, tuple)):
        cu = cu.tolist()
    try:
        return tuple(operator.index(x) for x in cu)
    except TypeError:
        raise TypeError(f"{name}: must be host ints (a list, a tuple, or a CPU tensor of integers)") from None


class AttentionPlan(NamedTuple):
    """The problem: what the C ABI's samebits_attention_problem and tensor3
    arguments are made of. `batch` is (B, Sq, Sk) for the [B, S, H, D] layout
    (folded into rows B*S), None for packed [rows, H, D]. strides3: name ->
    (row stride, head stride) of the [rows, heads, D] view. scale: NaN for the
    default."""
    total_q: int
    total_k: int
    hq: int
    hkv: int
    d: int
    cu_q: Tuple[int, ...]
    cu_k: Tuple[int, ...]
    max_q: int
    max_k: int
    causal: bool
    scale: float
    libm: str
    dtype: str
    batch: Optional[Tuple[int, int, int]]
    strides3: dict
    policy: str = FMA_CHAIN
    mma: Optional[Tuple[int, ...]] = None  # the 8 C codes, or None: the model's defaults (null in the C ABI)

    @property
    def num_seqs(self):
        return len(self.cu_q) - 1

    @property
    def in_dtype(self):
        return DTYPE_CODES[self.dtype]


def _rows_view(name, t):
    """(rows, heads, D, row stride, head stride) of a [rows, H, D] or
    [B, S, H, D] tensor (B and S folded into rows when the strides allow)."""
    if len(t.shape) == 3:
        rows, heads, d = t.shape
        return rows, heads, d, t.strides[0], t.strides[1]
    b, s, heads, d = t.shape
    if b == 1 or s == 1:
        row_stride = t.strides[1] if s > 1 else t.strides[0] if b > 1 else max(heads * d, 1)
    elif t.strides[0] == s * t.strides[1]:
        row_stride = t.strides[1]
    else:
        raise ValueError(f"{name}: its [batch, seq] dimensions do not fold into rows (strides {t.strides[0]}, "
                         f"{t.strides[1]} with seq {s}); call .contiguous()")
    return b * s, heads, d, row_stride, t.strides[2]


def _longest(cu):
    return max((b - a for a, b in zip(cu, cu[1:])), default=0)


def plan_attention(q, k, v, *, causal, cu_seqlens=None, cu_seqlens_k=None, scale=None, libm="nvcc",
                   device_kind="cuda", dtypes=ATTENTION_DTYPES, dout=None, policy=FMA_CHAIN, mma=None,
                   input_dtype=None):
    """attention's problem from TensorDescs q, k, v (optionally dout, the
    backward's incoming gradient, of q's shape and dtype), with only what the C
    ABI cannot see checked. Layouts: q [Tq, Hq, D], k and v [Tk, Hkv, D] with
    cu_seqlens (host ints, the same rows in q and k unless cu_seqlens_k is
    given) or one sequence; or q [B, Sq, Hq, D], k and v [B, Sk, Hkv, D] (B
    sequences, no cu_seqlens). policy, mma: check_policy. input_dtype (the CPU
    reference, whose arrays are float32): the dtype whose values they hold,
    the plan's input dtype (None: the tensors' own)."""
    policy, mma_codes = check_policy(policy, mma)
    named = [("q", q), ("k", k), ("v", v)] + ([("dout", dout)] if dout is not None else [])
    for name, t in named:
        if len(t.shape) not in (3, 4):
            raise ValueError(f"{name}: shape {_shape(t)}; expected [rows, heads, D] or [batch, seq, heads, D]")
    for name, t in named[1:]:
        if len(t.shape) != len(q.shape):
            raise ValueError(f"{name}: {len(t.shape)} dimensions but q has {len(q.shape)}")
    _check_devices(named, device_kind)
    for name, t in named:
        _dtype(name, t, dtypes)
        if t.dtype != q.dtype:
            raise TypeError(f"{name}: dtype {t.dtype} but q is {q.dtype} (one input dtype)")
    in_dtype = q.dtype
    if input_dtype is not None:
        _lib.name_code(DTYPE_CODES, input_dtype, "input_dtype")
        in_dtype = input_dtype
    batched = len(q.shape) == 4
    if batched and (k.shape[0] != q.shape[0] or v.shape[0] != q.shape[0]):
        bad = "k" if k.shape[0] != q.shape[0] else "v"
        raise ValueError(f"{bad}: batch {dict(named)[bad].shape[0]} but q has batch {q.shape[0]}")
    if v.shape != k.shape:
        raise ValueError(f"v: shape {_shape(v)} but k is {_shape(k)} (k and v must have one shape)")
    if dout is not None and dout.shape != q.shape:
        raise ValueError(f"dout: shape {_shape(dout)} but q (and o) is {_shape(q)}")
    d = q.shape[-1]
    if k.shape[-1] != d:
        raise ValueError(f"k: head dim {k.shape[-1]} but q has {d}")
    hq, hkv = q.shape[-2], k.shape[-2]
    for name, t in named:
        _last_contiguous(name, t)
    views = {name: _rows_view(name, t) for name, t in named}
    total_q, total_k = views["q"][0], views["k"][0]
    if not isinstance(causal, bool):
        raise TypeError(f"causal: must be True or False, got {causal!r}")
    if batched:
        if cu_seqlens is not None or cu_seqlens_k is not None:
            raise ValueError("cu_seqlens: only with packed [rows, heads, D] inputs (these are [batch, seq, heads, D])")
        b, sq, sk = q.shape[0], q.shape[1], k.shape[1]
        cu_q = tuple(i * sq for i in range(b + 1))
        cu_k = tuple(i * sk for i in range(b + 1))
        batch = (b, sq, sk)
    else:
        batch = None
        if cu_seqlens is None:
            if cu_seqlens_k is not None:
                raise ValueError("cu_seqlens_k: given without cu_seqlens")
            cu_q, cu_k = (0, total_q), (0, total_k)
        else:
            cu_q = _cu("cu_seqlens", cu_seqlens)
            cu_k = _cu("cu_seqlens_k", cu_seqlens_k) if cu_seqlens_k is not None else cu_q
            if cu_seqlens_k is None and total_k != total_q:
                raise ValueError(f"cu_seqlens: q has {total_q} rows and k {total_k}; give cu_seqlens_k for k's rows")
            if len(cu_k) != len(cu_q):
                raise ValueError(f"cu_seqlens_k: {len(cu_k) - 1} sequences but cu_seqlens has {len(cu_q) - 1}")
    return AttentionPlan(total_q, total_k, hq, hkv, d, cu_q, cu_k, _longest(cu_q), _longest(cu_k), causal,
                         check_scale(scale), check_libm(libm), in_dtype, batch,
                         {n: (v_[3], v_[4]) for n, v_ in views.items()}, policy, mma_codes)


def check_attention(q, k, v, *, backward=None, **kw):
    """plan_attention, then the library's rules on the problem (samebits_attention_check:
    the forward's, or the backward's when dout is given or backward is True), raising its
    error. For the GPU entry points (samebits.torch, samebits.parallel)."""
    plan = plan_attention(q, k, v, **kw)
    if backward is None:
        backward = kw.get("dout") is not None
    _lib.load().check_attention(_lib.attention_problem(plan, cu_q_device=0, cu_k_device=0), backward)
    return plan


class SparsePlan(NamedTuple):
    """The sparse MLA problem (samebits_sparse_mla_problem's sizes; scale NaN: the default)."""
    tokens: int
    num_kv: int
    heads: int
    d: int
    topk: int
    scale: float
    libm: str
    dtype: str
    sink: bool
    q_strides: Tuple[int, int]
    kv_row_stride: int
    indices_row_stride: int

    @property
    def in_dtype(self):
        return DTYPE_CODES[self.dtype]


def plan_sparse_mla(q, kv, topk, *, attn_sink=None, scale=None, libm="nvcc", device_kind="cuda",
                    dtypes=SPARSE_DTYPES, dout=None):
    """sparse_mla's problem from TensorDescs q [T, H, D], kv [num_kv, D], topk
    [T, K] int32 (-1 a hole), attn_sink [H] float32 or None (optionally dout,
    of q's shape and dtype), with only what the C ABI cannot see checked."""
    if len(q.shape) != 3:
        raise ValueError(f"q: shape {_shape(q)}; expected [tokens, heads, D]")
    if len(kv.shape) != 2:
        raise ValueError(f"kv: shape {_shape(kv)}; expected [num_kv, D] (one kv head, K == V == kv)")
    if len(topk.shape) != 2:
        raise ValueError(f"topk: shape {_shape(topk)}; expected [tokens, k] (int32 kv row indices, -1 a hole)")
    if attn_sink is not None and len(attn_sink.shape) != 1:
        raise ValueError(f"attn_sink: shape {_shape(attn_sink)}; expected [heads]")
    if dout is not None and dout.shape != q.shape:
        raise ValueError(f"dout: shape {_shape(dout)} but q (and o) is {_shape(q)}")
    named = [("q", q), ("kv", kv), ("topk", topk)] + ([("attn_sink", attn_sink)] if attn_sink is not None else []) + \
        ([("dout", dout)] if dout is not None else [])
    _check_devices(named, device_kind)
    _dtype("q", q, dtypes)
    for name, t in (("kv", kv), ("dout", dout)):
        if t is not None and t.dtype != q.dtype:
            raise TypeError(f"{name}: dtype {t.dtype} but q is {q.dtype} (one input dtype)")
    if topk.dtype != "int32":
        raise TypeError(f"topk: dtype {topk.dtype}; the indices must be int32 (-1 a hole)")
    if attn_sink is not None and attn_sink.dtype != "float32":
        raise TypeError(f"attn_sink: dtype {attn_sink.dtype}; must be float32")
    tokens, heads, d = q.shape
    num_kv, k = kv.shape[0], topk.shape[1]
    if kv.shape[1] != d:
        raise ValueError(f"kv: head dim {kv.shape[1]} but q has {d}")
    if topk.shape[0] != tokens:
        raise ValueError(f"topk: {topk.shape[0]} rows but q has {tokens} tokens")
    if attn_sink is not None and attn_sink.shape[0] != heads:
        raise ValueError(f"attn_sink: {attn_sink.shape[0]} entries but q has {heads} heads")
    for name, t in named:
        _last_contiguous(name, t)
    if attn_sink is not None and heads > 1 and attn_sink.strides[0] != 1:
        raise ValueError(f"attn_sink: must be contiguous (stride {attn_sink.strides[0]}); call .contiguous()")
    # A dimension of one row has no stride to speak of (torch may report anything): the dense one.
    return SparsePlan(tokens, num_kv, heads, d, k, check_scale(scale), check_libm(libm), q.dtype,
                      attn_sink is not None, (q.strides[0], q.strides[1]), kv.strides[0] if num_kv > 1 else d,
                      topk.strides[0] if tokens > 1 else k)


def check_sparse_mla(q, kv, topk, *, backward=None, validate_indices=False, **kw):
    """plan_sparse_mla, then the library's rules on the problem (samebits_sparse_mla_check),
    raising its error. For the GPU entry points."""
    plan = plan_sparse_mla(q, kv, topk, **kw)
    if backward is None:
        backward = kw.get("dout") is not None
    p = _lib.sparse_problem(plan, indices=None, validate_indices=validate_indices)
    _lib.load().check_sparse_mla(p, backward)
    return plan
