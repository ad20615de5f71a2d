"""The Python-side checks of samebits.torch and samebits.reference, on plain
descriptions of tensors (shape, dtype name, strides in elements, device
string), so that they run and are tested without torch or a GPU.

They refuse, naming the argument, what the C ABI would refuse (the C ABI
checks everything again: kernels/src/validate/) and what the Python layer
cannot hand it (a layout without a contiguous last dimension, a batch that
does not fold into rows). TypeError for a wrong type or dtype, ValueError for
a wrong shape, stride, device or value.

The limits mirror kernels/src/validate/attention_validate.cpp and
sparse_mla_validate.cpp (attention: D in {64, 128}, hq % hkv == 0,
hq <= 65535, num_seqs <= 65535, max_seqlen <= 2^30; sparse MLA: D in
{512, 128}, heads <= 1048560, tokens < 2^31, num_kv < 2^31 - 1, topk <= 2^24).

The attention contract's arithmetic policies (docs/kernels/attention.md §7):
"fma-chain" (the default) and "sm90-tensor-core" (docs/kernels/attention-tc.md:
bfloat16 or float16 inputs, D 64 or 128, the tensor-core model's parameters
MmaParams; CPU reference only for now: the GPU entry points refuse it).
"""
import dataclasses
import math
import numbers
import operator
import struct
from typing import NamedTuple, Optional, Tuple, Union

from . import _lib

DTYPE_CODES = {"float32": _lib.F32, "bfloat16": _lib.BF16, "float16": _lib.F16}
ELEMENT_SIZE = {"float32": 4, "bfloat16": 2, "float16": 2, "int32": 4, "float64": 8, "int64": 8}
ATTENTION_DTYPES = ("bfloat16", "float16", "float32")
SPARSE_DTYPES = ("bfloat16", "float32")
INT32_MAX = 2**31 - 1


# ---- the arithmetic policy and the tensor-core model's parameters ----------------

FMA_CHAIN, SM90_TENSOR_CORE = "fma-chain", "sm90-tensor-core"
POLICIES = (FMA_CHAIN, SM90_TENSOR_CORE)
TC_DTYPES = ("bfloat16", "float16")  # what sm90-tensor-core's products take

# samebits_mma_params (c_api.h) field by field, in the struct's order: the
# enum fields' value names (samebits::mma::sm90's enums, index = the C code).
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
MMA_FRAC_BITS = (1, 40)          # mma::sm90::kMaxFracBits
MMA_GROUPS = (1, 2, 4, 8, 16)    # divides the instruction's k = 16


def _mma_code(field, value):
    """The C code of one MmaParams field, or TypeError / ValueError naming it."""
    where = f"mma.{field}"
    if isinstance(value, bool):
        raise TypeError(f"{where}: {value!r} is a bool; give an int" +
                        ("" if field in ("frac_bits", "group") else " code or a name"))
    if field in MMA_ENUMS:
        names = MMA_ENUMS[field]
        if isinstance(value, str):
            if value not in names:
                raise ValueError(f"{where}: {value!r} unknown ({', '.join(names)})")
            return names.index(value)
        if not isinstance(value, numbers.Integral):
            raise TypeError(f"{where}: {value!r} is neither a name ({', '.join(names)}) nor an int code")
        if not 0 <= int(value) < len(names):
            raise ValueError(f"{where}: code {int(value)} unknown (" +
                             ", ".join(f"{i} {n}" for i, n in enumerate(names)) + ")")
        return int(value)
    if not isinstance(value, numbers.Integral):
        raise TypeError(f"{where}: {value!r} is not an int")
    v = int(value)
    if field == "frac_bits" and not MMA_FRAC_BITS[0] <= v <= MMA_FRAC_BITS[1]:
        raise ValueError(f"{where}: {v}; must be in [{MMA_FRAC_BITS[0]}, {MMA_FRAC_BITS[1]}]")
    if field == "group" and v not in MMA_GROUPS:
        raise ValueError(f"{where}: {v}; must divide 16 ({', '.join(map(str, MMA_GROUPS))}): products per fused step "
                         "of one k16 instruction")
    return v


@dataclasses.dataclass(frozen=True)
class MmaParams:
    """The tensor-core model's parameters (samebits::mma::sm90::Params,
    c_api.h's samebits_mma_params, docs/kernels/mma.md §2) that policy
    "sm90-tensor-core" takes; the defaults are the C header's (the hardware's
    reading, docs/kernels/mma.md §6; the GPU kernels take only these). Enum fields take the
    value's name or its C code; each field is checked here, naming it."""
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
    sequence of the 8 C codes in samebits_mma_params' order; only policy
    "sm90-tensor-core" reads it."""
    if not isinstance(policy, str) or policy not in POLICIES:
        raise ValueError(f"policy: {policy!r} unknown (\"fma-chain\" or \"sm90-tensor-core\")")
    if mma is None:
        return policy, None
    if policy != SM90_TENSOR_CORE:
        raise ValueError(f"mma: only policy \"sm90-tensor-core\" reads the tensor-core model's parameters; policy is "
                         f"{policy!r} (pass mma=None)")
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


def check_policy_dtype(policy, dtype, name):
    """policy sm90-tensor-core takes bfloat16 or float16 inputs only: a
    TypeError naming `name` (the argument that carries the dtype)."""
    if policy == SM90_TENSOR_CORE and dtype not in TC_DTYPES:
        raise TypeError(f"{name}: dtype {dtype} is not supported by policy sm90-tensor-core (bfloat16 or float16 "
                        "inputs only: the tensor-core products take 16-bit operands)")


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
    return dev.split(":", 1)[0]


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


def _check_rows_heads(name, rows, heads, d, row_stride, head_stride):
    """kernels/src/validate/attention_validate.cpp check_tensor, on strides:
    positive, the (row, head) spans of d elements not overlapping, offsets in
    int64 / 4."""
    if rows == 0:
        return
    if row_stride <= 0 or head_stride <= 0:
        raise ValueError(f"{name}: strides must be positive (row stride {row_stride}, head stride {head_stride}); "
                         "call .contiguous()")
    head_inner = head_stride <= row_stride
    inner, outer = (head_stride, row_stride) if head_inner else (row_stride, head_stride)
    inner_count, outer_count = (heads, rows) if head_inner else (rows, heads)
    if inner < d or (outer_count > 1 and inner_count > outer // inner):
        raise ValueError(f"{name}: strides (row {row_stride}, head {head_stride}) make rows or heads overlap; "
                         "call .contiguous()")
    last = (rows - 1) * row_stride + (heads - 1) * head_stride + d - 1
    if last > (2**63 - 1) // 4:
        raise ValueError(f"{name}: strides too large")


def _last_contiguous(name, t):
    if t.shape and t.shape[-1] > 1 and t.strides[-1] != 1:
        raise ValueError(f"{name}: the last dimension must be contiguous (stride 1), its stride is "
                         f"{t.strides[-1]}; call .contiguous()")


def _dtype(name, t, allowed):
    if t.dtype not in allowed:
        raise TypeError(f"{name}: dtype {t.dtype} unsupported ({', '.join(allowed)})")


def check_libm(libm):
    if not isinstance(libm, str) or libm not in _lib.LIBM_CODES:
        raise ValueError(f"libm: {libm!r} unknown (\"nvcc\", \"cr\" or \"nvcc-fast\")")
    return libm


def check_scale(scale):
    """None -> 0.0 (the C ABI's default: the binary32 nearest 1/sqrt(D));
    otherwise a finite positive number whose binary32 rounding (what the
    kernels use) is finite and positive."""
    if scale is None:
        return 0.0
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real):
        raise TypeError(f"scale: {scale!r} is not a number (None: the default 1/sqrt(D))")
    s = float(scale)
    if not math.isfinite(s) or s <= 0:
        raise ValueError(f"scale: {scale!r}; must be finite and > 0 (None: the default 1/sqrt(D))")
    try:
        s32 = struct.unpack("<f", struct.pack("<f", s))[0]
    except OverflowError:
        s32 = math.inf
    if not math.isfinite(s32) or s32 == 0:
        raise ValueError(f"scale: {scale!r} is not a finite positive binary32 number (the kernels' scale is binary32)")
    return s32


def default_scale(d):
    """The binary32 nearest 1/sqrt(d): the kernels' default scale."""
    return struct.unpack("<f", struct.pack("<f", 1.0 / math.sqrt(d)))[0]


def _cu(name, cu, total):
    if isinstance(cu, (str, bytes)):
        raise TypeError(f"{name}: a sequence of ints, not {type(cu).__name__}")
    try:
        vals = [operator.index(x) for x in cu]
    except TypeError:
        raise TypeError(f"{name}: must be a list of ints (host values; a CUDA tensor: .tolist() it, once)") from None
    if len(vals) < 2:
        raise ValueError(f"{name}: needs at least 2 entries [0, ..., total], has {len(vals)}")
    if len(vals) - 1 > 65535:
        raise ValueError(f"{name}: {len(vals) - 1} sequences; at most 65535")
    if vals[0] != 0:
        raise ValueError(f"{name}: must start at 0, starts at {vals[0]}")
    for s in range(len(vals) - 1):
        if vals[s + 1] < vals[s]:
            raise ValueError(f"{name}: decreases at sequence {s} ({vals[s]} -> {vals[s + 1]})")
    if vals[-1] != total:
        raise ValueError(f"{name}: ends at {vals[-1]} but the tensor has {total} rows")
    if vals[-1] > INT32_MAX:
        raise ValueError(f"{name}: {vals[-1]} rows; at most 2^31 - 1")
    return tuple(vals)


class AttentionPlan(NamedTuple):
    """The checked problem: what the C ABI's samebits_attention_problem and
    tensor3 arguments are made of. `batch` is (B, Sq, Sk) for the [B, S, H, D]
    layout (folded into rows B*S), None for packed [rows, H, D]. strides3:
    name -> (row stride, head stride) of the [rows, heads, D] view."""
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


def check_attention(q, k, v, *, causal, cu_seqlens=None, cu_seqlens_k=None, scale=None, libm="nvcc",
                    device_kind="cuda", dtypes=ATTENTION_DTYPES, dout=None, policy=FMA_CHAIN, mma=None,
                    input_dtype=None):
    """Checks attention's arguments (TensorDescs q, k, v; optionally dout, the
    backward's incoming gradient, of q's shape and dtype) and returns the
    AttentionPlan. Layouts: q [Tq, Hq, D], k and v [Tk, Hkv, D] with
    cu_seqlens (a sequence of ints, the same rows in q and k unless
    cu_seqlens_k is given) or one sequence; or q [B, Sq, Hq, D], k and v
    [B, Sk, Hkv, D] (B sequences, no cu_seqlens). policy, mma: check_policy.
    input_dtype (the CPU reference, whose arrays are float32): the dtype
    whose values they hold, which the plan takes as its input dtype (None:
    the tensors' own)."""
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
    if input_dtype is None:
        in_dtype = q.dtype
        check_policy_dtype(policy, in_dtype, "q")
    else:
        if input_dtype not in ATTENTION_DTYPES:
            raise ValueError(f"input_dtype: {input_dtype!r} unknown ({', '.join(ATTENTION_DTYPES)})")
        in_dtype = input_dtype
        check_policy_dtype(policy, in_dtype, "input_dtype")
    batched = len(q.shape) == 4
    if batched:
        if k.shape[0] != q.shape[0] or v.shape[0] != q.shape[0]:
            bad = "k" if k.shape[0] != q.shape[0] else "v"
            raise ValueError(f"{bad}: batch {dict(named)[bad].shape[0]} but q has batch {q.shape[0]}")
    if v.shape != k.shape:
        raise ValueError(f"v: shape {_shape(v)} but k is {_shape(k)} (k and v must have one shape)")
    if dout is not None and dout.shape != q.shape:
        raise ValueError(f"dout: shape {_shape(dout)} but q (and o) is {_shape(q)}")
    d = q.shape[-1]
    if d not in (64, 128):
        raise ValueError(f"q: head dim D = {d} unsupported (64 or 128)")
    if k.shape[-1] != d:
        raise ValueError(f"k: head dim {k.shape[-1]} but q has {d}")
    hq, hkv = q.shape[-2], k.shape[-2]
    if hq <= 0 or hkv <= 0 or hq % hkv != 0:
        raise ValueError(f"q, k: hq = {hq} query heads and hkv = {hkv} key heads; need hq a positive multiple of hkv")
    if hq > 65535:
        raise ValueError(f"q: {hq} heads; at most 65535")
    for name, t in named:
        _last_contiguous(name, t)
    views = {name: _rows_view(name, t) for name, t in named}
    for name, (rows, heads, dd, rs, hs) in views.items():
        _check_rows_heads(name, rows, heads, dd, rs, hs)
    total_q, total_k = views["q"][0], views["k"][0]
    if not isinstance(causal, bool):
        raise TypeError(f"causal: must be True or False, got {causal!r}")
    if batched:
        if cu_seqlens is not None or cu_seqlens_k is not None:
            raise ValueError("cu_seqlens: only with packed [rows, heads, D] inputs (these are [batch, seq, heads, D])")
        b, sq, sk = q.shape[0], q.shape[1], k.shape[1]
        if b == 0:
            raise ValueError("q: batch 0; need at least one sequence")
        cu_q = tuple(i * sq for i in range(b + 1))
        cu_k = tuple(i * sk for i in range(b + 1))
        if b > 65535:
            raise ValueError(f"q: batch {b}; at most 65535 sequences")
        batch = (b, sq, sk)
    else:
        batch = None
        if cu_seqlens is None:
            if cu_seqlens_k is not None:
                raise ValueError("cu_seqlens_k: given without cu_seqlens")
            cu_q, cu_k = (0, total_q), (0, total_k)
        else:
            cu_q = _cu("cu_seqlens", cu_seqlens, total_q)
            cu_k = _cu("cu_seqlens_k", cu_seqlens_k, total_k) if cu_seqlens_k is not None else cu_q
            if cu_seqlens_k is None and total_k != total_q:
                raise ValueError(f"cu_seqlens: q has {total_q} rows and k {total_k}; give cu_seqlens_k for k's rows")
            if len(cu_k) != len(cu_q):
                raise ValueError(f"cu_seqlens_k: {len(cu_k) - 1} sequences but cu_seqlens has {len(cu_q) - 1}")
    if total_q > INT32_MAX or total_k > INT32_MAX:
        raise ValueError(f"q, k: {max(total_q, total_k)} rows; at most 2^31 - 1")
    max_q = max(b - a for a, b in zip(cu_q, cu_q[1:]))
    max_k = max(b - a for a, b in zip(cu_k, cu_k[1:]))
    if max(max_q, max_k) > 2**30:
        raise ValueError(f"cu_seqlens: a sequence of {max(max_q, max_k)} rows; at most 2^30")
    return AttentionPlan(total_q, total_k, hq, hkv, d, cu_q, cu_k, max_q, max_k, causal, check_scale(scale),
                         check_libm(libm), in_dtype, batch, {n: (v_[3], v_[4]) for n, v_ in views.items()},
                         policy, mma_codes)


class SparsePlan(NamedTuple):
    """The checked sparse MLA problem (samebits_sparse_mla_problem's sizes)."""
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


def check_sparse_mla(q, kv, topk, *, attn_sink=None, scale=None, libm="nvcc", device_kind="cuda",
                     dtypes=SPARSE_DTYPES, dout=None):
    """Checks sparse_mla's arguments (TensorDescs q [T, H, D], kv [num_kv, D],
    topk [T, K] int32 with -1 for a hole, attn_sink [H] float32 or None;
    optionally dout, of q's shape and dtype) and returns the SparsePlan."""
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
    if d not in (512, 128):
        raise ValueError(f"q: head dim D = {d} unsupported (512; 128: the dense-equality instantiation)")
    if kv.shape[1] != d:
        raise ValueError(f"kv: head dim {kv.shape[1]} but q has {d}")
    if topk.shape[0] != tokens:
        raise ValueError(f"topk: {topk.shape[0]} rows but q has {tokens} tokens")
    if attn_sink is not None and attn_sink.shape[0] != heads:
        raise ValueError(f"attn_sink: {attn_sink.shape[0]} entries but q has {heads} heads")
    if not 1 <= heads <= 65535 * 16:
        raise ValueError(f"q: {heads} heads; must be in 1 .. 1048560")
    if tokens > INT32_MAX:
        raise ValueError(f"q: {tokens} tokens; at most 2^31 - 1")
    if num_kv >= INT32_MAX:
        raise ValueError(f"kv: {num_kv} rows; at most 2^31 - 2")
    if not 1 <= k <= 2**24:
        raise ValueError(f"topk: {k} slots per token; must be in 1 .. 2^24")
    for name, t in named:
        _last_contiguous(name, t)
    _check_rows_heads("q", tokens, heads, d, q.strides[0], q.strides[1])
    if dout is not None:
        _check_rows_heads("dout", tokens, heads, d, dout.strides[0], dout.strides[1])
    kv_rs = kv.strides[0]
    if num_kv > 1 and kv_rs < d:
        raise ValueError(f"kv: row stride {kv_rs} below D = {d} (rows overlap); call .contiguous()")
    if num_kv > 0 and kv_rs <= 0:
        raise ValueError(f"kv: row stride {kv_rs} must be positive; call .contiguous()")
    idx_rs = topk.strides[0]
    if tokens > 1 and idx_rs < k:
        raise ValueError(f"topk: row stride {idx_rs} below k = {k} (rows overlap); call .contiguous()")
    if attn_sink is not None and heads > 1 and attn_sink.strides[0] != 1:
        raise ValueError(f"attn_sink: must be contiguous (stride {attn_sink.strides[0]}); call .contiguous()")
    return SparsePlan(tokens, num_kv, heads, d, k, check_scale(scale), check_libm(libm), q.dtype,
                      attn_sink is not None, (q.strides[0], q.strides[1]), kv_rs if num_kv > 1 else d,
                      idx_rs if tokens > 1 else k)
