"""samebits: GPU numerics reproducible bit for bit (docs/python.md).

    import samebits
    samebits.fingerprint("attention", "nvcc")   # the contract the bits follow
    samebits.fingerprint("attention", policy="sm90-tensor-core", mma=samebits.MmaParams(frac_bits=24))
    r = samebits.compare(expected, actual)      # `samebits compare` on arrays, tensors or files
    from samebits.torch import attention, sparse_mla   # autograd ops (CUDA; needs torch)
    from samebits import reference              # the CPU references on numpy arrays
    import samebits.triton as sbt               # the libm inside Triton kernels

Pure Python: the kernels are reached through the C ABI library
libsamebits_kernels.so (ctypes; where it is looked for: samebits._lib, or set
SAMEBITS_KERNELS_LIB). Importing this package needs neither the library,
numpy nor torch; each is loaded when first used.
"""
__version__ = "0.1.0"

from .errors import (CudaError, InvalidArgumentError, LibraryError, NotBuiltError, SamebitsError,  # noqa: F401
                     UnsupportedError)

__all__ = ["fingerprint", "MmaParams", "load_library", "has_cuda_kernels", "compare", "compare_files",
           "read_tensor_file",
           "CompareError", "SamebitsError", "InvalidArgumentError", "UnsupportedError", "CudaError",
           "NotBuiltError", "LibraryError"]

OPS = ("attention", "sparse_mla")


def load_library(path=None):
    """The C ABI library in use (samebits._lib.Library): found by the
    documented rule, or `path` (then used from here on)."""
    from . import _lib
    return _lib.load(path)


def has_cuda_kernels():
    """Whether the loaded library carries the GPU kernels (-Dcuda=enabled)."""
    return load_library().cuda


def fingerprint(op="attention", libm="nvcc", *, policy="fma-chain", mma=None):
    """The contract fingerprint of an op ("attention" or "sparse_mla") under a
    libm ("nvcc", "cr", or "nvcc-fast": sm90-tensor-core attention only) and,
    for attention, an arithmetic policy
    ("fma-chain" or "sm90-tensor-core", docs/kernels/attention-tc.md, whose
    tensor-core model's parameters mma names: None for the defaults, an
    MmaParams, a dict of its fields), from the C ABI, e.g.
    "samebits-attention/1 policy=fma-chain/1 B=64 libm=nvcc" or
    "samebits-attention/1 policy=sm90-tc/1(F=25,G=16,R=rz,C=first,Z=ignored,
    P=raw,S=pos,O=inf,E=-133) Bk=128 libm=nvcc" (one line)."""
    if op not in OPS:
        raise ValueError(f"op: {op!r} unknown ({', '.join(OPS)})")
    from . import _validate
    policy, codes = _validate.check_policy(policy, mma)
    if policy == _validate.FMA_CHAIN and codes is None:
        return load_library().fingerprint(op, libm)
    if op != "attention":
        raise ValueError(f"policy: {policy!r}, mma: {mma!r}: op {op} has policy fma-chain only (no mma)")
    # The library names the policy and its model's parameters, and refuses what it must (mma under fma-chain ...).
    return load_library().problem_fingerprint(policy, codes, libm)


def compare(expected, actual, *, nan_policy="bits", as_bf16=False, max_report=10):
    """`samebits compare` in Python: see samebits.comparison.compare."""
    from .comparison import compare as _compare
    return _compare(expected, actual, nan_policy=nan_policy, as_bf16=as_bf16, max_report=max_report)


def compare_files(expected_path, actual_path, *, nan_policy="bits", as_bf16=False, max_report=10):
    """`samebits compare EXPECTED ACTUAL` without the exit: see samebits.comparison."""
    from .comparison import compare_files as _compare_files
    return _compare_files(expected_path, actual_path, nan_policy=nan_policy, as_bf16=as_bf16,
                          max_report=max_report)


def read_tensor_file(path, *, as_bf16=False):
    """The tensors of a .npy or .safetensors file, read as strictly as the CLI
    reads them: see samebits.comparison.read_tensor_file."""
    from .comparison import read_tensor_file as _read
    return _read(path, as_bf16=as_bf16)


def __getattr__(name):
    if name == "MmaParams":
        from ._validate import MmaParams
        return MmaParams
    if name == "CompareError":
        from .comparison import CompareError
        return CompareError
    raise AttributeError(f"module 'samebits' has no attribute {name!r}")
