"""ctypes binding of libsamebits_kernels, the kernels' C ABI
(kernels/include/samebits/kernels/c_api.h): the library loader, the C
structures, the argument and result types of every function, and the status
check that turns a failed call into an exception (samebits.errors). The one
ctypes binding of the repository: the package, its tests and the device
scripts (tests/device/, through samebits._device) use it.

The rules on the arguments are the library's (kernels/src/validate/): this
module restates none. The codes below (dtype, libm, policy, status) are what
the package was written against; load() compares them with the names the
library reports (samebits_code_name, generated from the C++ enums) and refuses
a library whose codes differ.

Where the library is looked for (the first that exists is loaded):

  1. the environment variable SAMEBITS_KERNELS_LIB: the path of the file. When
     it is set, nothing else is tried: a path that does not load is an error.
  2. next to the package: samebits/lib/libsamebits_kernels.so, then
     samebits/libsamebits_kernels.so (where a packager copies it);
  3. when the package is used from a checkout of the repository
     (python/samebits/ with kernels/include/samebits/kernels/c_api.h two levels
     up): the repository's build folders, in this order:
       build-device/kernels/libsamebits_kernels.so   (the GPU machine's Meson build, -Ddevice_only=true)
       build-cuda/kernels/libsamebits_kernels.so
       build/kernels/libsamebits_kernels.so  (README's `meson setup build`)
       build-ci/kernels/libsamebits_kernels.so (.ci/run)
  4. the system loader: libsamebits_kernels.so (`meson install` puts it in the
     library folder; LD_LIBRARY_PATH applies).

When none loads, LibraryError lists every path tried and why. load() does it
once per process (thread-safe); load(path) loads a given file instead and
makes it the one the package uses.
"""
import ctypes as C
import os
import threading

from . import errors

LIB_NAME = "libsamebits_kernels.so"
ENV_VAR = "SAMEBITS_KERNELS_LIB"
C_ABI_VERSION = 3  # SAMEBITS_C_ABI_VERSION this package speaks

# dtype, libm and policy codes (c_api.h enums; stable), checked against the
# library's names at load (Library.__init__). Which libm a policy offers, which
# dtype an op takes: the library's rules, not these tables'.
F32, BF16, F16 = 0, 1, 2
DTYPE_CODES = {"float32": F32, "bfloat16": BF16, "float16": F16}
LIBM_CODES = {"nvcc": 0, "cr": 1, "nvcc-fast": 2}
POLICY_CODES = {"fma-chain": 0, "sm90-tensor-core": 1}
# samebits_code_kind: the tables samebits_code_name reads.
CODE_KINDS = {"status": 0, "dtype": 1, "libm": 2, "policy": 3}
# The scale that means "not given" (SAMEBITS_DEFAULT_SCALE): the binary32 nearest 1/sqrt(D).
DEFAULT_SCALE = float("nan")


class MmaParams(C.Structure):
    """samebits_mma_params: the tensor-core model's parameters (policy sm90-tensor-core)."""
    _fields_ = [("frac_bits", C.c_int32), ("group", C.c_int32), ("rounding", C.c_int32), ("c_join", C.c_int32),
                ("zero_exponent", C.c_int32), ("product_exponent", C.c_int32), ("zero_sign", C.c_int32),
                ("overflow", C.c_int32)]


class Tensor3(C.Structure):
    """samebits_tensor3: a [rows, heads, D] tensor, strides in elements."""
    _fields_ = [("data", C.c_void_p), ("row_stride", C.c_int64), ("head_stride", C.c_int64)]


class AttentionProblem(C.Structure):
    """samebits_attention_problem."""
    _fields_ = [
        ("num_seqs", C.c_int32),
        ("max_seqlen_q", C.c_int32), ("max_seqlen_k", C.c_int32),
        ("total_q", C.c_int64), ("total_k", C.c_int64),
        ("hq", C.c_int32), ("hkv", C.c_int32), ("d", C.c_int32),
        ("causal", C.c_int32),
        ("scale", C.c_float),
        ("in_dtype", C.c_int32), ("o_dtype", C.c_int32), ("grad_dtype", C.c_int32),
        ("libm", C.c_int32),
        # Pointers are addresses (int or None) in this binding, host and device alike.
        ("cu_seqlens_q", C.c_void_p), ("cu_seqlens_k", C.c_void_p),
        ("cu_seqlens_q_host", C.c_void_p), ("cu_seqlens_k_host", C.c_void_p),
        ("policy", C.c_int32),  # POLICY_CODES; 0 (fma-chain) unless set
        ("mma", C.c_void_p),    # address of an MmaParams, or None (the model's defaults)
    ]


class SparseMlaProblem(C.Structure):
    """samebits_sparse_mla_problem."""
    _fields_ = [
        ("tokens", C.c_int64), ("num_kv", C.c_int64),
        ("heads", C.c_int32), ("d", C.c_int32), ("topk", C.c_int32),
        ("scale", C.c_float),
        ("in_dtype", C.c_int32), ("o_dtype", C.c_int32), ("grad_dtype", C.c_int32),
        ("libm", C.c_int32),
        ("indices", C.c_void_p),
        ("indices_row_stride", C.c_int64),
        ("sink", C.c_void_p),
        ("error_flag", C.c_void_p),
        ("chunk_tokens", C.c_int64),
        ("validate_indices", C.c_int32),
    ]


# Data pointers (float*, int32_t*, void*) are all c_void_p: callers pass addresses
# as ints (numpy's arr.ctypes.data, torch's t.data_ptr()) or None.
_I32, _I64, _VP = C.c_int32, C.c_int64, C.c_void_p
_F32P = _I32P = _VP
_AP, _SP, _T3 = C.POINTER(AttentionProblem), C.POINTER(SparseMlaProblem), Tensor3

# name: (restype, argtypes) for every function of c_api.h, in its order.
# tests/python/test_lib.py checks this table against the header's prototypes.
FUNCTIONS = {
    "samebits_c_abi_version": (_I32, []),
    "samebits_last_error": (C.c_char_p, []),
    "samebits_has_cuda_kernels": (_I32, []),
    "samebits_code_name": (C.c_char_p, [_I32, _I32]),
    "samebits_attention_fingerprint": (_I32, [_I32, C.c_char_p, _I64]),
    "samebits_attention_problem_fingerprint": (_I32, [_AP, C.c_char_p, _I64]),
    "samebits_attention_forward": (_I32, [_AP, _T3, _T3, _T3, _T3, _F32P, _VP]),
    "samebits_attention_check": (_I32, [_AP, _I32]),
    "samebits_attention_backward_workspace_bytes": (_I64, [_I64, _I64, _I32, _I32]),
    "samebits_attention_backward_accum_offset": (_I64, [_I64, _I64, _I32, _I32, _I32]),
    "samebits_attention_backward_stored_ds_workspace_bytes": (_I64, [_AP]),
    "samebits_attention_backward": (_I32, [_AP, _T3, _T3, _T3, _T3, _T3, _F32P, _T3, _T3, _T3, _VP, _I64,
                                           _F32P, _F32P, _VP]),
    "samebits_attention_reference_forward": (_I32, [_AP, _F32P, _F32P, _F32P, _F32P, _F32P, _I32]),
    "samebits_attention_reference_backward": (_I32, [_AP, _F32P, _F32P, _F32P, _F32P, _F32P, _F32P, _F32P,
                                                     _F32P, _F32P, _I32]),
    "samebits_attention_reference_backward_handover": (_I32, [_AP, _F32P, _F32P, _F32P, _F32P, _F32P, _F32P, _F32P,
                                                              _F32P, _F32P, _F32P, _F32P, _F32P, _F32P, _I32]),
    "samebits_sparse_mla_fingerprint": (_I32, [_I32, C.c_char_p, _I64]),
    "samebits_sparse_mla_check": (_I32, [_SP, _I32]),
    "samebits_sparse_mla_forward": (_I32, [_SP, _T3, _VP, _I64, _T3, _F32P, _F32P, _VP]),
    "samebits_sparse_mla_backward_workspace_bytes": (_I64, [_SP]),
    "samebits_sparse_mla_backward": (_I32, [_SP, _T3, _VP, _I64, _T3, _T3, _F32P, _T3, _VP, _I64, _F32P, _VP,
                                            _I64, _VP]),
    "samebits_sparse_mla_check_index_error": (_I32, [_I32P, _VP]),
    "samebits_sparse_mla_reference_forward": (_I32, [_SP, _F32P, _F32P, _F32P, _F32P, _F32P, _I32]),
    "samebits_sparse_mla_reference_backward": (_I32, [_SP, _F32P, _F32P, _F32P, _F32P, _F32P, _F32P, _F32P,
                                                      _F32P, _I32]),
}
# Functions added to C ABI version 1 after its first release: a library built
# before them loads, and calling one says it is missing.
OPTIONAL = {"samebits_sparse_mla_reference_forward", "samebits_sparse_mla_reference_backward",
            "samebits_attention_reference_backward_handover",
            "samebits_attention_backward_stored_ds_workspace_bytes"}
# Functions whose return value is a status code (checked by Library.call).
STATUS_FUNCTIONS = {n for n, (r, _) in FUNCTIONS.items() if r is _I32} - {
    "samebits_c_abi_version", "samebits_has_cuda_kernels"}


def candidates():
    """The paths load() tries, in order, as (how it was found, path) pairs."""
    env = os.environ.get(ENV_VAR)
    if env is not None:
        return [(f"${ENV_VAR}", env)]
    here = os.path.dirname(os.path.abspath(__file__))
    out = [("next to the package", os.path.join(here, "lib", LIB_NAME)),
           ("next to the package", os.path.join(here, LIB_NAME))]
    repo = os.path.dirname(os.path.dirname(here))
    if os.path.isfile(os.path.join(repo, "kernels", "include", "samebits", "kernels", "c_api.h")):
        for rel in ("build-device/kernels", "build-cuda/kernels", "build/kernels", "build-ci/kernels"):
            out.append(("repository build folder", os.path.join(repo, rel, LIB_NAME)))
    out.append(("system loader", LIB_NAME))
    return out


class Library:
    """A loaded libsamebits_kernels: `lib` (the ctypes CDLL, every function
    typed), `path`, `cuda` (whether the GPU kernels are compiled in)."""

    def __init__(self, path, how="given"):
        self.path, self.how = path, how
        try:
            self.lib = C.CDLL(path)
        except OSError as e:
            raise errors.LibraryError(f"cannot load {path} ({how}): {e}") from None
        missing = []
        for name, (restype, argtypes) in FUNCTIONS.items():
            fn = getattr(self.lib, name, None)
            if fn is None:
                if name not in OPTIONAL:
                    missing.append(name)
                continue
            fn.restype, fn.argtypes = restype, argtypes
        if missing:
            raise errors.LibraryError(f"{path} ({how}) is not a samebits kernels library: it lacks "
                                      + ", ".join(missing))
        version = self.lib.samebits_c_abi_version()
        if version != C_ABI_VERSION:
            raise errors.LibraryError(f"{path} ({how}) speaks C ABI version {version}; this samebits package "
                                      f"speaks version {C_ABI_VERSION} (rebuild the library from the same "
                                      "checkout as the package)")
        differ = [f"{kind} {name!r}: code {code} here, the library's {theirs!r}"
                  for kind, table in code_tables().items() for name, code in table.items()
                  if (theirs := self.code_name(kind, code)) != name]
        if differ:
            raise errors.LibraryError(f"{path} ({how}) names its codes otherwise than this samebits package: "
                                      + "; ".join(differ))
        self.cuda = bool(self.lib.samebits_has_cuda_kernels())

    def code_name(self, kind, code):
        """The library's name of a code (samebits_code_name), or None."""
        raw = self.lib.samebits_code_name(CODE_KINDS[kind], code)
        return None if raw is None else raw.decode("ascii")

    def has(self, name):
        return getattr(self.lib, name, None) is not None

    def call(self, name, *args):
        """Calls a status-returning function; raises the status's exception
        with samebits_last_error()'s message when it is not SAMEBITS_OK."""
        fn = getattr(self.lib, name, None)
        if fn is None:
            raise errors.NotBuiltError(f"{name}: not in {self.path} (a library built before this function was "
                                       "added; rebuild it)", status=errors.NOT_BUILT, function=name)
        rc = fn(*args)
        if rc != errors.OK:
            raw = self.lib.samebits_last_error()
            raise errors.error_for_status(rc, name, raw.decode("utf-8", "replace") if raw else "")
        return rc

    def fingerprint(self, op, libm):
        fn = {"attention": "samebits_attention_fingerprint",
              "sparse_mla": "samebits_sparse_mla_fingerprint"}[op]
        buf = C.create_string_buffer(256)
        self.call(fn, libm_code(libm), buf, len(buf))
        return buf.value.decode("ascii")

    def check_attention(self, problem, backward=False):
        """samebits_attention_check: the problem's rules (everything but the
        tensors and the workspace) as the forward (backward) call applies them;
        raises the call's exception, with the library's message."""
        self.call("samebits_attention_check", C.byref(problem), int(bool(backward)))

    def check_sparse_mla(self, problem, backward=False):
        """samebits_sparse_mla_check, as check_attention."""
        self.call("samebits_sparse_mla_check", C.byref(problem), int(bool(backward)))

    def problem_fingerprint(self, policy, mma, libm):
        """samebits_attention_problem_fingerprint of a problem with this
        policy (a POLICY_CODES name), mma (8 C codes, or None: a null
        pointer, the model's defaults) and libm; the C ABI checks all three."""
        p = AttentionProblem(libm=libm_code(libm), policy=POLICY_CODES[policy])
        m = None
        if mma is not None:
            m = MmaParams(*mma)
            p.mma = C.addressof(m)
        buf = C.create_string_buffer(256)
        self.call("samebits_attention_problem_fingerprint", C.byref(p), buf, len(buf))
        return buf.value.decode("ascii")


_lock = threading.Lock()
_loaded = None


def load(path=None):
    """The library this process uses: load(path) loads that file (and uses it
    from then on); load() finds one by the rule in this module's docstring,
    once."""
    global _loaded
    with _lock:
        if path is not None:
            _loaded = Library(os.fspath(path))
            return _loaded
        if _loaded is not None:
            return _loaded
        tried = []
        for how, p in candidates():
            if how == "system loader" or os.path.exists(p):
                try:
                    _loaded = Library(p, how)
                    return _loaded
                except errors.LibraryError as e:
                    if how == f"${ENV_VAR}":
                        raise
                    tried.append(f"  {p} ({how}): {e}")
            else:
                if how == f"${ENV_VAR}":
                    raise errors.LibraryError(f"{ENV_VAR}={p}: no such file")
                tried.append(f"  {p} ({how}): no such file")
        raise errors.LibraryError(
            f"{LIB_NAME} not found. Build it (meson setup build && ninja -C build kernels/{LIB_NAME}; "
            f"-Dcuda=enabled for the GPU kernels) and set {ENV_VAR} to its path. Tried:\n" + "\n".join(tried))


def code_tables():
    """{kind: {name: code}}: the codes this package speaks (compared with the library's names at load)."""
    status = {"ok": errors.OK, "invalid_argument": errors.INVALID_ARGUMENT, "unsupported": errors.UNSUPPORTED,
              "cuda_error": errors.CUDA_ERROR, "not_built": errors.NOT_BUILT}
    return {"status": status, "dtype": DTYPE_CODES, "libm": LIBM_CODES, "policy": POLICY_CODES}


def name_code(table, name, what):
    """The code of a name (libm, policy, dtype): a name the C ABI has no code for is the Python side's
    to refuse (ValueError naming the argument); whether the code is allowed where it is used is the
    library's rule."""
    if not isinstance(name, str) or name not in table:
        raise ValueError(f"{what}: {name!r} unknown ({', '.join(repr(n) for n in table)})")
    return table[name]


def libm_code(libm):
    return name_code(LIBM_CODES, libm, "libm")


INT32_RANGE = (-2**31, 2**31 - 1)


def int32(name, x):
    """x as a C int32 field: ctypes would wrap a value outside the range silently."""
    if not INT32_RANGE[0] <= x <= INT32_RANGE[1]:
        raise ValueError(f"{name}: {x} does not fit the C ABI's int32")
    return x


# ---- problems built from checked plans (samebits._validate) ----------------

def attention_problem(plan, *, cu_q_device=None, cu_k_device=None, o_dtype=None, grad_dtype=None):
    """samebits_attention_problem of an AttentionPlan. The host copies of
    cu_seqlens (and the mma parameters, under sm90-tensor-core) live in the
    returned structure's _keep; cu_*_device are the device arrays' addresses
    (the reference ignores them: None makes them the host copies)."""
    n = len(plan.cu_q)
    hq_arr = (C.c_int32 * n)(*(int32("cu_seqlens", x) for x in plan.cu_q))
    hk_arr = (C.c_int32 * n)(*(int32("cu_seqlens_k", x) for x in plan.cu_k))
    host_q, host_k = C.addressof(hq_arr), C.addressof(hk_arr)
    in_dtype = plan.in_dtype
    p = AttentionProblem(
        num_seqs=int32("num_seqs", n - 1), max_seqlen_q=int32("max_seqlen_q", plan.max_q),
        max_seqlen_k=int32("max_seqlen_k", plan.max_k), total_q=plan.total_q, total_k=plan.total_k,
        hq=int32("hq", plan.hq), hkv=int32("hkv", plan.hkv), d=int32("d", plan.d), causal=int(plan.causal),
        scale=plan.scale,
        in_dtype=in_dtype, o_dtype=in_dtype if o_dtype is None else o_dtype,
        grad_dtype=in_dtype if grad_dtype is None else grad_dtype, libm=LIBM_CODES[plan.libm],
        cu_seqlens_q=host_q if cu_q_device is None else cu_q_device,
        cu_seqlens_k=host_k if cu_k_device is None else cu_k_device,
        cu_seqlens_q_host=host_q, cu_seqlens_k_host=host_k, policy=POLICY_CODES[plan.policy])
    mma = None
    if plan.mma is not None:
        mma = MmaParams(*plan.mma)
        p.mma = C.addressof(mma)
    p._keep = (hq_arr, hk_arr, mma)
    return p


def sparse_problem(plan, *, indices, sink=None, error_flag=None, validate_indices=False, chunk_tokens=0,
                   o_dtype=None, grad_dtype=None):
    """samebits_sparse_mla_problem of a SparsePlan; indices, sink, error_flag
    are addresses (device ones for the kernels, host ones for the reference)."""
    in_dtype = plan.in_dtype
    return SparseMlaProblem(
        tokens=plan.tokens, num_kv=plan.num_kv, heads=int32("heads", plan.heads), d=int32("d", plan.d),
        topk=int32("topk", plan.topk), scale=plan.scale,
        in_dtype=in_dtype, o_dtype=in_dtype if o_dtype is None else o_dtype,
        grad_dtype=in_dtype if grad_dtype is None else grad_dtype, libm=LIBM_CODES[plan.libm],
        indices=indices, indices_row_stride=plan.indices_row_stride, sink=sink, error_flag=error_flag,
        chunk_tokens=chunk_tokens, validate_indices=int(bool(validate_indices)))
