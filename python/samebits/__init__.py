"""samebits: GPU numerics reproducible bit for bit (docs/python.md).

    import samebits
    samebits.fingerprint("attention", "nvcc")   # the contract the bits follow
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

__all__ = ["fingerprint", "load_library", "has_cuda_kernels", "compare", "compare_files", "read_tensor_file",
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


def fingerprint(op="attention", libm="nvcc"):
    """The contract fingerprint of an op ("attention" or "sparse_mla") under a
    libm ("nvcc" or "cr"), from the C ABI, e.g.
    "samebits-attention/1 policy=fma-chain/1 B=64 libm=nvcc"."""
    if op not in OPS:
        raise ValueError(f"op: {op!r} unknown ({', '.join(OPS)})")
    return load_library().fingerprint(op, libm)


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
    if name == "CompareError":
        from .comparison import CompareError
        return CompareError
    raise AttributeError(f"module 'samebits' has no attribute {name!r}")
