"""The exceptions of the samebits package.

Every error the C ABI (kernels/include/samebits/kernels/c_api.h) returns
becomes one of these, carrying the status code, the C function's name and
samebits_last_error()'s text (which names the argument):

    status                      exception            also an instance of
    SAMEBITS_INVALID_ARGUMENT   InvalidArgumentError ValueError
    SAMEBITS_UNSUPPORTED        UnsupportedError     NotImplementedError
    SAMEBITS_CUDA_ERROR         CudaError            RuntimeError
    SAMEBITS_NOT_BUILT          NotBuiltError        RuntimeError
    any other code              SamebitsError        RuntimeError

Every rule on the arguments' values is the library's (kernels/src/validate/):
its refusal is one of these, with its message, whether it comes from a call
or from samebits_attention_check / samebits_sparse_mla_check, which
samebits.torch asks before launching. The library loader raises LibraryError
(also an OSError) when the library is absent, speaks another C ABI version or
names its codes otherwise. What only Python sees (a tensor's type, shapes
that disagree, devices, a non-contiguous last dimension, an unknown name,
cu_seqlens not on the host) raises the builtin TypeError (a wrong type or
dtype) or ValueError (a wrong shape, stride, device or value), naming the
argument.
"""

OK = 0
INVALID_ARGUMENT = 1
UNSUPPORTED = 2
CUDA_ERROR = 3
NOT_BUILT = 4

STATUS_NAMES = {
    OK: "SAMEBITS_OK",
    INVALID_ARGUMENT: "SAMEBITS_INVALID_ARGUMENT",
    UNSUPPORTED: "SAMEBITS_UNSUPPORTED",
    CUDA_ERROR: "SAMEBITS_CUDA_ERROR",
    NOT_BUILT: "SAMEBITS_NOT_BUILT",
}


class SamebitsError(RuntimeError):
    """A call into the C ABI failed. `status` is the C status code, `function`
    the C function called, `message` samebits_last_error()'s text as it is
    (str() of the exception adds the status name)."""

    def __init__(self, text, status=None, function=None, message=None):
        super().__init__(text)
        self.message = text if message is None else message
        self.status = status
        self.function = function


class InvalidArgumentError(SamebitsError, ValueError):
    """SAMEBITS_INVALID_ARGUMENT: an argument was refused (the message names it)."""


class UnsupportedError(SamebitsError, NotImplementedError):
    """SAMEBITS_UNSUPPORTED: a code, size or dtype the kernels do not implement."""


class CudaError(SamebitsError):
    """SAMEBITS_CUDA_ERROR: the CUDA runtime reported an error."""


class NotBuiltError(SamebitsError):
    """SAMEBITS_NOT_BUILT: the loaded library was built without the CUDA kernels
    (the call passed the whole validation)."""


class LibraryError(SamebitsError, OSError):
    """libsamebits_kernels could not be found or loaded, or its C ABI version
    is not the one this package speaks."""

    def __init__(self, message):
        SamebitsError.__init__(self, message)


_BY_STATUS = {
    INVALID_ARGUMENT: InvalidArgumentError,
    UNSUPPORTED: UnsupportedError,
    CUDA_ERROR: CudaError,
    NOT_BUILT: NotBuiltError,
}


def error_for_status(status, function, message):
    """The exception for a failed C call (status != 0)."""
    cls = _BY_STATUS.get(status, SamebitsError)
    name = STATUS_NAMES.get(status, f"status {status}")
    return cls(f"{message} [{name}]", status=status, function=function, message=message)
