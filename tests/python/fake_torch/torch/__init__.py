"""A stand-in for the few parts of torch that samebits.torch touches, for
tests/python/test_torch_marshalling.py on machines without torch: tensors are
numpy buffers in host memory that say they live on "cuda:0". NOT torch: no
autograd, no dispatch; custom_op calls the function as it is. What the test
learns from it is only how samebits.torch fills the C ABI's arguments (the
C validation, which runs in full before SAMEBITS_NOT_BUILT, judges them).
"""
import contextlib

import numpy as np

__version__ = "0.0-fake"


class dtype:
    def __init__(self, name, np_dtype, size):
        self.name, self.np, self.itemsize = name, np.dtype(np_dtype), size

    def __repr__(self):
        return f"torch.{self.name}"

    __str__ = __repr__


float32 = dtype("float32", np.float32, 4)
float16 = dtype("float16", np.float16, 2)
bfloat16 = dtype("bfloat16", np.uint16, 2)  # bits only
float64 = dtype("float64", np.float64, 8)
int32 = dtype("int32", np.int32, 4)
int64 = dtype("int64", np.int64, 8)
uint8 = dtype("uint8", np.uint8, 1)


class device:
    def __init__(self, spec):
        spec = str(spec)
        self.type, _, idx = spec.partition(":")
        self.index = int(idx) if idx else 0

    def __str__(self):
        return f"{self.type}:{self.index}" if self.type == "cuda" else self.type

    def __eq__(self, other):
        return str(self) == str(other)

    def __hash__(self):
        return hash(str(self))


class Tensor:
    """A strided view of a numpy byte buffer: shape, strides (elements), offset (elements)."""

    def __init__(self, buf, dt, shape, strides=None, offset=0, dev="cuda:0"):
        self.buf, self.dtype, self.shape = buf, dt, tuple(shape)
        self._strides = strides if strides is not None else _contiguous(self.shape)
        self.offset, self.device = offset, device(dev)
        self.requires_grad = False

    def stride(self, dim=None):
        return self._strides if dim is None else self._strides[dim]

    def element_size(self):
        return self.dtype.itemsize

    def data_ptr(self):
        return self.buf.ctypes.data + self.offset * self.dtype.itemsize

    def dim(self):
        return len(self.shape)

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def tolist(self):  # contiguous tensors
        assert self.is_contiguous()
        n = self.numel()
        return self.buf.view(self.dtype.np)[self.offset:self.offset + n].reshape(self.shape).tolist()

    def is_contiguous(self):
        return self._strides == _contiguous(self.shape)

    def contiguous(self):
        return self if self.is_contiguous() else _copy(self)

    def clone(self):
        return _copy(self)

    def copy_(self, src):  # contiguous tensors of one dtype and size
        assert self.is_contiguous() and src.is_contiguous() and self.dtype is src.dtype and self.numel() == src.numel()
        n, a, b = self.numel(), self.offset, src.offset
        self.buf.view(self.dtype.np)[a:a + n] = src.buf.view(src.dtype.np)[b:b + n]
        return self

    def cpu(self):
        c = _copy(self)
        c.device = device("cpu")
        return c

    def new_empty(self, shape, dtype=None):
        return empty(shape, dtype=dtype or self.dtype, device=self.device)

    def view(self, *shape):
        if not self.is_contiguous():
            raise RuntimeError("fake torch: view of a non-contiguous tensor")
        if len(shape) == 1 and isinstance(shape[0], dtype):  # the same bytes as another dtype
            dt = shape[0]
            last = self.shape[-1] * self.dtype.itemsize // dt.itemsize
            return Tensor(self.buf, dt, self.shape[:-1] + (last,), None,
                          self.offset * self.dtype.itemsize // dt.itemsize, str(self.device))
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        if shape == (-1,):
            shape = (self.numel(),)
        return Tensor(self.buf, self.dtype, shape, None, self.offset, str(self.device))

    reshape = view

    def __getitem__(self, idx):  # rows a:b of the first dimension only
        if not isinstance(idx, slice) or idx.step not in (None, 1):
            raise NotImplementedError("fake torch: only t[a:b]")
        a, b, _ = idx.indices(self.shape[0])
        b = max(a, b)
        return Tensor(self.buf, self.dtype, (b - a,) + self.shape[1:], self._strides,
                      self.offset + a * self._strides[0], str(self.device))

    def requires_grad_(self, flag=True):
        self.requires_grad = flag
        return self

    def detach(self):
        return self


def _contiguous(shape):
    out, s = [], 1
    for n in reversed(shape):
        out.append(s)
        s *= max(n, 1)
    return tuple(reversed(out))


def _copy(t):
    out = empty(t.shape, dtype=t.dtype, device=t.device)
    src = np.lib.stride_tricks.as_strided(
        t.buf.view(t.dtype.np)[t.offset:], shape=t.shape, strides=[s * t.dtype.itemsize for s in t._strides])
    out.buf.view(t.dtype.np).reshape(t.shape)[...] = src
    return out


def empty(shape, dtype=float32, device="cuda:0"):
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    n = 1
    for s in shape:
        n *= s
    # 512-byte aligned, as the CUDA caching allocator's blocks are.
    raw = np.zeros(max(n, 1) * dtype.itemsize + 512, np.uint8)
    start = (-raw.ctypes.data) % 512
    return Tensor(raw[start:start + max(n, 1) * dtype.itemsize], dtype, shape, dev=str(device))


def empty_like(t):
    return empty(t.shape, dtype=t.dtype, device=t.device)


def zeros(*shape, dtype=float32, device="cuda:0"):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return empty(shape, dtype=dtype, device=device)


def tensor(values, dtype=int32, device="cuda:0"):
    t = empty((len(values),), dtype=dtype, device=device)
    t.buf.view(dtype.np)[:] = values
    return t


class _Stream:
    cuda_stream = 0


class cuda:  # noqa: N801 (a module in torch)
    @staticmethod
    def current_stream(dev=None):
        return _Stream()

    @staticmethod
    @contextlib.contextmanager
    def device(dev):
        yield


class _CustomOp:
    def __init__(self, name, fn):
        self.name, self.fn = name, fn
        self.fake = self.backward = self.setup_context = None

    def __call__(self, *args):
        return self.fn(*args)

    def register_fake(self, f):
        self.fake = f
        return f

    def register_autograd(self, backward, setup_context=None):
        self.backward, self.setup_context = backward, setup_context


class library:  # noqa: N801 (a module in torch)
    ops = {}

    @staticmethod
    def custom_op(name, mutates_args=()):
        def wrap(fn):
            op = _CustomOp(name, fn)
            library.ops[name] = op
            return op
        return wrap
