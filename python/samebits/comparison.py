"""`samebits compare` in Python: bitwise comparison of tensors, with the
CLI's semantics (docs/compare.md) and no exit.

    import samebits
    r = samebits.compare(expected, actual)            # numpy arrays, torch tensors, or dicts of them
    r = samebits.compare("ref.safetensors", "run.safetensors", nan_policy="class", max_report=20)
    r.identical, r.total_mismatches, r.first_mismatches[0].index, r.first_mismatches[0].expected.hex
    print(r)          # the CLI's table, character for character
    r.to_json()       # the CLI's --json document (schema samebits-compare/1), as a dict

Two elements match when their encodings are equal: +0 and -0 differ; a NaN
matches only the NaN with the same bits, or any NaN under nan_policy="class".
Mismatches are counted by kind (sign of zero, NaN payload, class, ulp distance
bins 1, 2, 3-4, 5-8, ...) with max abs / rel error over the finite pairs, and
the first `max_report` are listed (tensor order, then C order) with their
index, both values (shortest decimal, hex bits), kind and ulp distance.

A pure-Python equivalent of oracle/src/compare.cpp and tensor_io.cpp (the
strict .npy and .safetensors readers), checked against the CLI on the same
files by tests/python/test_compare_cli.py. Its messages are the CLI's, except
the text of a JSON syntax error inside a safetensors header (Python's json
module words it) and which duplicate key is named when a header has several.
Needs numpy; torch only when torch tensors are given.

Files: both .npy or both .safetensors (format by content, then extension).
Arrays: numpy arrays (float64, float32, float16, int32; bfloat16 as
ml_dtypes' dtype or 2-byte void; uint16/int16 as bfloat16 bits with
as_bf16=True), torch tensors (the same dtypes and torch.bfloat16; copied to
the host), compared in C order whatever their strides; a dict {name: array}
is compared as a safetensors file is, by name.
"""
import errno
import json
import math
import os
import stat
from typing import List, NamedTuple, Optional, Tuple

import numpy as np

__all__ = ["compare", "compare_files", "compare_tensor_files", "read_tensor_file", "CompareError",
           "CompareResult", "TensorReport", "Mismatch", "ElementValue", "Histogram", "Tensor", "TensorFile",
           "describe_element", "to_chars"]

MAX_FILE_BYTES = 1 << 40
MAX_HEADER_BYTES = 100_000_000
U64_MAX = 2**64 - 1


class CompareError(ValueError):
    """The inputs cannot be compared (unreadable, malformed, unsupported, or a
    dtype, shape or tensor name that differs): what the CLI reports with exit
    status 2. `file` is the path (or "expected"/"actual" for in-memory
    inputs, "" when none applies), `reason` what is wrong; str() is
    "file: reason" as the CLI prints it."""

    def __init__(self, file, reason):
        super().__init__(f"{file}: {reason}" if file else reason)
        self.file, self.reason = file, reason

    def to_json(self):
        """The CLI's --json error document."""
        return {"error": str(self), "file": self.file, "reason": self.reason, "exit_status": 2}


# ---- dtypes and encodings ------------------------------------------------------

class _Fmt(NamedTuple):
    size: int
    uint: type
    exp_bits: int
    mant_bits: int

    @property
    def sign(self):
        return 1 << (self.exp_bits + self.mant_bits)

    @property
    def inf(self):
        return ((1 << self.exp_bits) - 1) << self.mant_bits


_FMT = {"f64": _Fmt(8, np.uint64, 11, 52), "f32": _Fmt(4, np.uint32, 8, 23), "f16": _Fmt(2, np.uint16, 5, 10),
        "bf16": _Fmt(2, np.uint16, 8, 7), "i32": _Fmt(4, np.uint32, 0, 0)}
_NARROW = {"f16": (5, 10), "bf16": (8, 7)}


def quote_for_message(s, max_len=200):
    """oracle's quote_for_message: s in single quotes, bytes < 0x20, 0x7f, '\\'
    and '\\'' as \\xNN, cut after max_len bytes (None: never)."""
    b = s.encode("utf-8", "surrogateescape") if isinstance(s, str) else bytes(s)
    out = bytearray(b"'")
    for n, c in enumerate(b):
        if max_len is not None and n == max_len:
            out += b"..."
            break
        if c < 0x20 or c == 0x7F or c in (0x5C, 0x27):
            out += b"\\x%02x" % c
        else:
            out.append(c)
    out += b"'"
    return out.decode("utf-8", "replace")


def _digits(text):
    """(digits, exponent) of a decimal text: value = int(digits) * 10**exponent,
    no trailing zeros in digits."""
    mant, _, exp = text.partition("e")
    exp = int(exp) if exp else 0
    ip, _, fp = mant.partition(".")
    digits = (ip + fp).lstrip("0")
    e = exp - len(fp)
    if not digits:
        return "0", 0
    stripped = digits.rstrip("0")
    return stripped, e + len(digits) - len(stripped)


def to_chars(x, f32=False):
    """std::to_chars(x) of libstdc++ (the shortest text that reads back to the
    same double, or float when f32): fixed or scientific, whichever is shorter,
    fixed on a tie; a fixed integer is written exactly; nan, -nan, inf, -inf."""
    if math.isnan(x):
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    s = "-" if math.copysign(1.0, x) < 0 else ""
    if math.isinf(x):
        return s + "inf"
    if x == 0:
        return s + "0"
    a = abs(x)
    D, e = _digits(np.format_float_scientific(np.float32(a), unique=True, trim="-") if f32 else repr(a))
    n, X = len(D), e + len(D) - 1
    sci_len = n + (1 if n > 1 else 0) + 2 + max(2, len(str(abs(X))))
    fix_len = n + e if e >= 0 else (n + 1 if n + e > 0 else 2 - e)
    if sci_len < fix_len:
        return s + D[0] + ("." + D[1:] if n > 1 else "") + "e" + ("-" if X < 0 else "+") + "%02d" % abs(X)
    if e >= 0:
        return s + str(int(a))
    if n + e > 0:
        return s + D[:n + e] + "." + D[n + e:]
    return s + "0." + "0" * (-e - n) + D


def _round_narrow(x, exp_bits, mant_bits):
    """oracle's round_narrow: a double to binary16 / bfloat16 bits, nearest-even."""
    sign_bit = 1 << (exp_bits + mant_bits)
    inf = ((1 << exp_bits) - 1) << mant_bits
    sign = sign_bit if math.copysign(1.0, x) < 0 else 0
    if math.isnan(x):
        return sign | inf | (1 << (mant_bits - 1))
    ax = abs(x)
    if math.isinf(ax):
        return sign | inf
    if ax == 0:
        return sign
    bias = (1 << (exp_bits - 1)) - 1
    emin, emax = 1 - bias, bias
    e = math.frexp(ax)[1] - 1
    if e > emax:
        return sign | inf
    e = max(e, emin)
    q = round(math.ldexp(ax, mant_bits - e))  # exact scaling; round() is nearest-even
    implicit = 1 << mant_bits
    if q == 2 * implicit:
        q = implicit
        e += 1
        if e > emax:
            return sign | inf
    if q < implicit:
        return sign | q
    return sign | ((e + bias) << mant_bits) | (q - implicit)


def _to_double(dtype, b):
    b = int(b)
    if dtype == "f64":
        return float(np.array([b], np.uint64).view(np.float64)[0])
    if dtype == "f32":
        return float(np.array([b], np.uint32).view(np.float32)[0])
    if dtype == "f16":
        return float(np.array([b], np.uint16).view(np.float16)[0])
    if dtype == "bf16":
        return float(np.array([b << 16], np.uint32).view(np.float32)[0])
    return float(b - (1 << 32) if b >= 1 << 31 else b)


class ElementValue(NamedTuple):
    bits: int      # the encoding
    decimal: str   # shortest decimal that reads back to the same encoding
    hex: str       # the bits, zero-padded to the element width: 0x3fc00000


def describe_element(dtype, bits):
    """oracle's describe_element: the decimal and hex renderings of one element."""
    bits = int(bits)
    size = _FMT[dtype].size
    hx = "0x%0*x" % (2 * size, bits)
    d = _to_double(dtype, bits)
    if dtype == "i32":
        dec = str(bits - (1 << 32) if bits >= 1 << 31 else bits)
    elif math.isnan(d):
        dec = "-nan" if math.copysign(1.0, d) < 0 else "nan"
    elif dtype in ("f64", "f32"):
        dec = to_chars(d, f32=dtype == "f32")
    else:
        eb, mb = _NARROW[dtype]
        for p in range(1, 18):
            dec = "%.*g" % (p, d)
            if _round_narrow(float(dec), eb, mb) == bits:
                break
    return ElementValue(bits, dec, hx)


# ---- reports -------------------------------------------------------------------

KIND_LABEL = {"sign_of_zero": "sign of zero", "nan_payload": "NaN payload", "class": "class", "ulp": "ulp"}
BINS = 65


def bin_min(k):
    return 1 if k == 0 else (1 << (k - 1)) + 1


def bin_max(k):
    return U64_MAX if k >= 64 else 1 << k


def bin_label(k):
    lo, hi = bin_min(k), bin_max(k)
    return str(lo) if lo == hi else f"{lo}-{hi}"


class Histogram:
    """Mismatches by kind; finite pairs by ulp distance in bins: bin k holds
    2^(k-1) < d <= 2^k, bin 0 d == 1."""

    def __init__(self):
        self.sign_of_zero = self.nan_payload = self.value_class = 0
        self.ulp = [0] * BINS

    def add(self, o):
        self.sign_of_zero += o.sign_of_zero
        self.nan_payload += o.nan_payload
        self.value_class += o.value_class
        self.ulp = [a + b for a, b in zip(self.ulp, o.ulp)]

    def total(self):
        return self.sign_of_zero + self.nan_payload + self.value_class + sum(self.ulp)

    def to_json(self):
        return {"sign_of_zero": self.sign_of_zero, "nan_payload": self.nan_payload, "class": self.value_class,
                "ulp": [{"min": bin_min(k), "max": bin_max(k), "count": c} for k, c in enumerate(self.ulp) if c]}

    def rows(self):
        rows = []
        if self.sign_of_zero:
            rows.append(["sign of zero", str(self.sign_of_zero)])
        if self.nan_payload:
            rows.append(["NaN payload", str(self.nan_payload)])
        if self.value_class:
            rows.append(["class", str(self.value_class)])
        rows += [[bin_label(k) + " ulp", str(c)] for k, c in enumerate(self.ulp) if c]
        return rows


class Mismatch(NamedTuple):
    tensor: str               # "" for a single array / .npy
    flat_index: int           # C order
    index: Tuple[int, ...]    # one entry per dimension
    expected: ElementValue
    actual: ElementValue
    kind: str                 # "sign_of_zero", "nan_payload", "class", "ulp"
    ulp_distance: int         # kind == "ulp" only (0 otherwise)


class TensorReport:
    def __init__(self, name, dtype, shape, elements, expected_dtype, actual_dtype, notes):
        self.name, self.dtype, self.shape, self.elements = name, dtype, tuple(shape), elements
        self.expected_dtype, self.actual_dtype, self.notes = expected_dtype, actual_dtype, notes
        self.mismatches = 0
        self.max_abs_error = self.max_rel_error = None  # over finite, numerically different pairs
        self.histogram = Histogram()

    def to_json(self):
        return {"name": self.name or None, "dtype": self.dtype, "shape": list(self.shape),
                "expected_dtype": self.expected_dtype, "actual_dtype": self.actual_dtype, "notes": list(self.notes),
                "elements": self.elements, "mismatches": self.mismatches,
                "max_abs_error": _error_json(self.max_abs_error), "max_rel_error": _error_json(self.max_rel_error),
                "histogram": self.histogram.to_json()}


def _error_json(v):
    return None if v is None else "inf" if math.isinf(v) else v


class CompareResult:
    """The report of one comparison: what `samebits compare` prints, as data.
    identical / exit_status (0 identical, 1 mismatches) say the verdict."""

    def __init__(self, expected_path, actual_path, fmt, nan_policy, max_report):
        self.expected_path, self.actual_path, self.format = expected_path, actual_path, fmt
        self.nan_policy, self.max_report = nan_policy, max_report
        self.tensors: List[TensorReport] = []
        self.first_mismatches: List[Mismatch] = []
        self.total_elements = self.total_mismatches = self.tensors_with_mismatches = 0
        self.max_abs_error: Optional[float] = None
        self.max_rel_error: Optional[float] = None
        self.histogram = Histogram()

    @property
    def identical(self):
        return self.total_mismatches == 0

    @property
    def exit_status(self):
        return 0 if self.identical else 1

    def __repr__(self):
        return (f"<CompareResult {'IDENTICAL' if self.identical else 'DIFFERENT'}: {self.total_mismatches} "
                f"mismatches in {self.total_elements} elements, {len(self.tensors)} tensors>")

    def to_json(self):
        """The CLI's --json document (samebits-compare/1) as a dict."""
        return {
            "schema": "samebits-compare/1", "expected": self.expected_path, "actual": self.actual_path,
            "format": self.format, "nan_policy": self.nan_policy, "max_report": self.max_report,
            "identical": self.identical, "exit_status": self.exit_status,
            "tensors": [t.to_json() for t in self.tensors],
            "first_mismatches": [{"tensor": m.tensor or None, "index": list(m.index), "flat_index": m.flat_index,
                                  "expected": {"value": m.expected.decimal, "bits": m.expected.hex},
                                  "actual": {"value": m.actual.decimal, "bits": m.actual.hex},
                                  "kind": m.kind, "ulp_distance": m.ulp_distance if m.kind == "ulp" else None}
                                 for m in self.first_mismatches],
            "mismatches_not_shown": self.total_mismatches - len(self.first_mismatches),
            "totals": {"tensors": len(self.tensors), "tensors_with_mismatches": self.tensors_with_mismatches,
                       "elements": self.total_elements, "mismatches": self.total_mismatches,
                       "max_abs_error": _error_json(self.max_abs_error),
                       "max_rel_error": _error_json(self.max_rel_error), "histogram": self.histogram.to_json()},
        }

    def text(self):
        """The CLI's table (oracle's print_report), character for character."""
        out = []
        w = out.append
        ep = "(in memory)" if self.expected_path is None else self.expected_path
        ap = "(in memory)" if self.actual_path is None else self.actual_path
        w(f"expected: {ep}\nactual:   {ap}\n"
          f"format: {self.format}, NaN policy: {self.nan_policy}\n")
        for t in self.tensors:
            for n in t.notes:
                w("note: " + ("" if not t.name else quote_for_message(t.name) + ": ") + n + "\n")
        w("\n")
        rows = [["tensor", "dtype", "shape", "elements", "mismatches", "max abs err", "max rel err"]]
        for t in self.tensors:
            rows.append([_table_name(t.name), t.dtype, _shape_text(t.shape), str(t.elements), str(t.mismatches),
                         _error_text(t.max_abs_error), _error_text(t.max_rel_error)])
        if len(self.tensors) > 1:
            rows.append(["total", "", "", str(self.total_elements), str(self.total_mismatches),
                         _error_text(self.max_abs_error), _error_text(self.max_rel_error)])
        _table(out, rows)
        if self.first_mismatches:
            w(f"\nfirst {len(self.first_mismatches)} of "
              f"{_count(self.total_mismatches, 'mismatch', 'mismatches')}:\n")
            mrows = [["tensor", "index", "expected", "actual", "kind", "distance"]]
            for m in self.first_mismatches:
                mrows.append([_table_name(m.tensor), _shape_text(m.index),
                              f"{m.expected.decimal} ({m.expected.hex})", f"{m.actual.decimal} ({m.actual.hex})",
                              KIND_LABEL[m.kind], str(m.ulp_distance) if m.kind == "ulp" else "-"])
            _table(out, mrows, "  ")
        elif self.total_mismatches:
            w(f"\n({_count(self.total_mismatches, 'mismatch', 'mismatches')}, none listed: --max-report 0)\n")
        if self.total_mismatches:
            any_int = any(t.dtype == "i32" for t in self.tensors)
            w("\nmismatches by kind and distance" + (" (ulps; for i32 |a-b|)" if any_int else "") +
              (", all tensors" if len(self.tensors) > 1 else "") + ":\n")
            _table(out, self.histogram.rows(), "  ")
            if len(self.tensors) > 1:
                w("per tensor:\n")
                for t in self.tensors:
                    if not t.mismatches:
                        continue
                    w("  " + _table_name(t.name) + ":" +
                      ", ".join(" " * (i == 0) + f"{r[0]}: {r[1]}" for i, r in enumerate(t.histogram.rows())) + "\n")
        w("\n")
        if self.identical:
            w(f"IDENTICAL: {_count(self.total_elements, 'element', 'elements')} in "
              f"{_count(len(self.tensors), 'tensor', 'tensors')}, 0 mismatches\n")
        else:
            w(f"DIFFERENT: {_count(self.total_mismatches, 'mismatch', 'mismatches')} in "
              f"{_count(self.total_elements, 'element', 'elements')}; {self.tensors_with_mismatches} of "
              f"{_count(len(self.tensors), 'tensor', 'tensors')} with mismatches\n")
        return "".join(out)

    __str__ = text


def _count(n, one, many):
    return f"{n} {one if n == 1 else many}"


def _error_text(v):
    return "-" if v is None else "inf" if math.isinf(v) else to_chars(v)


def _shape_text(s):
    return "[" + ", ".join(str(x) for x in s) + "]"


def _table_name(name):
    if not name:
        return "(array)"
    return quote_for_message(name, None)[1:-1]


def _table(out, rows, indent=""):
    width = []
    blen = [[len(c.encode("utf-8")) for c in r] for r in rows]  # the C++ pads by bytes
    for r in blen:
        for i, n in enumerate(r):
            if len(width) <= i:
                width.append(0)
            width[i] = max(width[i], n)
    for r, lens in zip(rows, blen):
        line = indent
        for i, c in enumerate(r):
            line += c
            if i + 1 < len(r):
                line += " " * (width[i] - lens[i] + 2)
        out.append(line + "\n")


# ---- tensors and files ---------------------------------------------------------

class Tensor:
    """One tensor: name ("" for .npy or a single array), dtype ("f64", "f32",
    "f16", "bf16", "i32"), source_dtype (as the file or array spells it), note
    (how it was interpreted), shape, and bits: the encodings, a flat numpy
    array of unsigned integers of the element's width, in C order."""

    def __init__(self, name, dtype, source_dtype, note, shape, bits):
        self.name, self.dtype, self.source_dtype, self.note = name, dtype, source_dtype, note
        self.shape, self.bits = tuple(shape), bits
        self.elements = int(bits.size)

    def values(self):
        """The elements as float64 (exact for every dtype here), in the shape."""
        return _as_double(self.dtype, self.bits).reshape(self.shape)

    def __repr__(self):
        return f"<Tensor {self.name or '(array)'} {self.dtype} {list(self.shape)}>"


class TensorFile:
    def __init__(self, path, fmt, tensors, metadata=None):
        self.path, self.format, self.tensors, self.metadata = path, fmt, tensors, metadata or {}

    def __getitem__(self, name):
        for t in self.tensors:
            if t.name == name:
                return t
        raise KeyError(name)


def read_file_bytes(path, max_file_bytes=MAX_FILE_BYTES):
    """A whole regular file, size-checked (oracle's read_file_bytes)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise CompareError(path, "cannot open: " + os.strerror(e.errno or errno.EIO)) from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise CompareError(path, "cannot read: is a directory")
        if not stat.S_ISREG(st.st_mode):
            raise CompareError(path, "cannot read: not a regular file")
        if st.st_size > max_file_bytes:
            raise CompareError(path, f"file is {st.st_size} bytes, more than the {max_file_bytes}-byte limit")
        chunks, got = [], 0
        while got < st.st_size:
            b = os.read(fd, st.st_size - got)
            if not b:
                raise CompareError(path, f"file shrank while being read (expected {st.st_size} bytes, got {got})")
            chunks.append(b)
            got += len(b)
        if os.read(fd, 1):
            raise CompareError(path, "file grew while being read")
        return b"".join(chunks)
    finally:
        os.close(fd)


NPY_MAGIC = b"\x93NUMPY"


def detect_format(b, path):
    if b[:6] == NPY_MAGIC:
        return "npy"
    slash, dot = path.rfind("/"), path.rfind(".")
    ext = path[dot:].lower() if dot >= 0 and (slash < 0 or dot > slash) else ""
    if ext == ".npy":
        return "npy"
    if ext == ".safetensors":
        return "safetensors"
    if len(b) >= 10:
        n = int.from_bytes(b[:8], "little")
        if 2 <= n <= len(b) - 8 and b[8:9] == b"{":
            return "safetensors"
    raise CompareError(path, "unrecognized format: no .npy magic (\\x93NUMPY), no .npy or .safetensors extension, "
                             "and no safetensors header")


class _DictParser:
    """The npy header dictionary, exactly as oracle's DictParser reads it
    (on the header's bytes, as latin-1 characters)."""

    def __init__(self, s):
        self.s, self.pos = s, 0

    def fail(self, at, why):
        raise ValueError(f"{why} (at offset {at} of the header)")

    def peek(self):
        return self.s[self.pos] if self.pos < len(self.s) else None

    def skip_ws(self):
        while self.pos < len(self.s) and self.s[self.pos] in " \t\n\r":
            self.pos += 1

    def expect(self, c, why):
        if self.peek() != c:
            self.fail(self.pos, why + ", found the end of the header" if self.peek() is None else why)
        self.pos += 1

    def string_literal(self, what):
        q = self.peek()
        if q not in ("'", '"'):
            self.fail(self.pos, "expected " + what)
        self.pos += 1
        start = self.pos
        while self.pos < len(self.s) and self.s[self.pos] != q:
            if self.s[self.pos] == "\\":
                self.fail(self.pos, "escape sequences in strings are not supported")
            if self.s[self.pos] == "\n":
                self.fail(self.pos, "unterminated string")
            self.pos += 1
        if self.pos == len(self.s):
            self.fail(start - 1, "unterminated string")
        self.pos += 1
        return self.s[start:self.pos - 1]

    def boolean(self):
        if self.s.startswith("True", self.pos):
            self.pos += 4
            return True
        if self.s.startswith("False", self.pos):
            self.pos += 5
            return False
        self.fail(self.pos, "fortran_order must be True or False")

    def integer(self):
        start = self.pos
        if self.peek() == "-":
            self.fail(self.pos, "negative shape dimension")
        if self.peek() is None or not "0" <= self.peek() <= "9":
            self.fail(self.pos, "expected a non-negative integer in shape")
        if self.peek() == "0" and self.pos + 1 < len(self.s) and "0" <= self.s[self.pos + 1] <= "9":
            self.fail(self.pos, "integer with a leading zero")
        while self.peek() is not None and "0" <= self.peek() <= "9":
            self.pos += 1
        v = int(self.s[start:self.pos])
        if v > U64_MAX:
            raise OverflowError(f"shape dimension {self.s[start:self.pos]} overflows 64 bits")
        return v

    def tuple(self):
        dims = []
        open_at = self.pos
        self.expect("(", "shape must be a tuple like (), (5,) or (3, 4)")
        self.skip_ws()
        trailing_comma = False
        while self.peek() != ")":
            dims.append(self.integer())
            self.skip_ws()
            trailing_comma = False
            if self.peek() == ",":
                self.pos += 1
                self.skip_ws()
                trailing_comma = True
            elif self.peek() != ")":
                self.fail(self.pos, "expected ',' or ')' in shape")
        self.pos += 1
        if len(dims) == 1 and not trailing_comma:
            self.fail(open_at, f"shape ({dims[0]}) is not a tuple; write ({dims[0]},)")
        return dims

    def parse(self):
        descr, fortran, shape = None, None, None
        seen = set()
        self.skip_ws()
        self.expect("{", "the header must start with '{'")
        self.skip_ws()
        while self.peek() != "}":
            key_at = self.pos
            key = self.string_literal("a key (a quoted string)")
            self.skip_ws()
            self.expect(":", "expected ':' after key")
            self.skip_ws()
            if key in ("descr", "fortran_order", "shape"):
                if key in seen:
                    self.fail(key_at, "duplicate key " + _q1(key))
                seen.add(key)
            if key == "descr":
                if self.peek() == "[":
                    self.fail(self.pos, "descr is a list: structured dtypes are not supported")
                descr = self.string_literal("descr to be a quoted string")
            elif key == "fortran_order":
                fortran = self.boolean()
            elif key == "shape":
                shape = self.tuple()
            else:
                self.fail(key_at, "unexpected key " + _q1(key) + " (allowed: descr, fortran_order, shape)")
            self.skip_ws()
            if self.peek() == ",":
                self.pos += 1
                self.skip_ws()
            elif self.peek() != "}":
                self.fail(self.pos, "expected ',' or '}' after the value of " + _q1(key))
        self.pos += 1
        self.skip_ws()
        if self.pos != len(self.s):
            self.fail(self.pos, "unexpected characters after the closing '}'")
        for k in ("descr", "fortran_order", "shape"):
            if k not in seen:
                self.fail(self.pos, f"missing key '{k}'")
        return descr, fortran, shape


def _q1(s):
    """quote_for_message of a latin-1 string holding raw bytes."""
    return quote_for_message(s.encode("latin-1"))


def _shape_sizes(shape, itemsize):
    """(elements, nbytes), or the reason (overflow) as a str."""
    if 0 in shape:
        elements = 0
    else:
        elements = 1
        for d in shape:
            if elements > U64_MAX // d:
                return "element count overflows 64 bits"
            elements *= d
    if elements > U64_MAX // itemsize:
        return "byte size overflows 64 bits"
    return elements, elements * itemsize


def _npy_dtype(descr, as_bf16):
    """(dtype, swap, note) or the reason it is unsupported (a str)."""
    q = _q1(descr)
    if descr == "bfloat16":
        return "bf16", False, "descr 'bfloat16' read as little-endian bfloat16"
    if descr in ("|V2", "<V2"):
        return ("bf16", False, "descr " + q + " (2-byte void) read as bfloat16 (np.save writes ml_dtypes bfloat16 "
                "arrays as 2-byte void)")
    supported = (" (compare reads f8, f4, f2, i4 with byte order '<' '>' or '=', and bfloat16 as '|V2', '<V2' or "
                 "'bfloat16')")
    if len(descr) != 3:
        return "unsupported dtype " + q + supported
    order, kind, size = descr
    if order not in "<>=|":
        return "unsupported dtype " + q + supported
    t = {("f", "8"): "f64", ("f", "4"): "f32", ("f", "2"): "f16", ("i", "4"): "i32"}.get((kind, size))
    note = ""
    if kind in "ui" and size == "2":
        if not as_bf16:
            return "unsupported dtype " + q + " (if it holds bfloat16 bits, pass --as bf16)"
        t = "bf16"
        note = "descr " + q + " read as bfloat16 bits (--as bf16)"
    if t is None:
        return "unsupported dtype " + q + supported
    if order == "|":
        return "unsupported dtype " + q + " (byte order '|' is for single bytes; expected '<' or '>')"
    if order == "=":
        note += ("; " if note else "") + "byte order '=' read as little-endian"
    if order == ">":
        note += ("; " if note else "") + "big-endian data byte-swapped"
    return t, order == ">", note


def _shape_str(shape, python_tuple):
    s = ", ".join(str(d) for d in shape)
    if python_tuple:
        return "(" + s + ("," if len(shape) == 1 else "") + ")"
    return "[" + s + "]"


def _bits_of(buf, offset, dtype, elements, swap):
    f = _FMT[dtype]
    a = np.frombuffer(buf, dtype=np.dtype(f.uint).newbyteorder(">" if swap else "<"), count=elements,
                      offset=offset)
    return a.astype(f.uint) if swap or a.dtype.byteorder == ">" else a


def parse_npy(b, path, as_bf16=False):
    size = len(b)
    if size < 6 or b[:6] != NPY_MAGIC:
        raise CompareError(path, "bad magic: not a .npy file (expected \\x93NUMPY at offset 0)")
    if size < 8:
        raise CompareError(path, "file ends inside the .npy version field")
    major, minor = b[6], b[7]
    if not (major in (1, 2, 3) and minor == 0):
        raise CompareError(path, f"unsupported .npy version {major}.{minor} (supported: 1.0, 2.0, 3.0)")
    len_bytes = 2 if major == 1 else 4
    prefix = 8 + len_bytes
    if size < prefix:
        raise CompareError(path, "file ends inside the .npy header length field")
    header_len = int.from_bytes(b[8:prefix], "little")
    if header_len > size - prefix:
        raise CompareError(path, f"header longer than the file: the header length field says {header_len} bytes "
                                 f"but only {size - prefix} follow it")
    text = b[prefix:prefix + header_len].decode("latin-1")
    try:
        descr, fortran, shape = _DictParser(text).parse()
    except OverflowError as e:
        raise CompareError(path, str(e)) from None
    except ValueError as e:
        raise CompareError(path, "unparsable header: " + str(e)) from None
    dt = _npy_dtype(descr, as_bf16)
    if isinstance(dt, str):
        raise CompareError(path, dt)
    dtype, swap, note = dt
    if fortran:
        raise CompareError(path, "Fortran-order arrays are not supported")
    sizes = _shape_sizes(shape, _FMT[dtype].size)
    if isinstance(sizes, str):
        raise CompareError(path, f"shape {_shape_str(shape, True)} of {_q1(descr)}: {sizes}")
    elements, nbytes = sizes
    data_at = prefix + header_len
    avail = size - data_at
    needs = (f"shape {_shape_str(shape, True)} of {_q1(descr)} needs {nbytes} bytes of data, the file has {avail}")
    if avail < nbytes:
        raise CompareError(path, "data shorter than the shape says: " + needs)
    if avail > nbytes:
        raise CompareError(path, f"data longer than the shape says: {needs} ({avail - nbytes} extra)")
    t = Tensor("", dtype, descr.encode("latin-1").decode("utf-8", "replace"), note, shape,
               _bits_of(b, data_at, dtype, elements, swap))
    return TensorFile(path, "npy", [t])


class _TooDeep(Exception):
    pass


def _json_dump(v):
    """nlohmann's dump() of a value, closely enough for messages."""
    if isinstance(v, float):
        return repr(v)
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


def _json_uint(v, tensor, what):
    who = "tensor " + quote_for_message(tensor) + ": "
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(who + what + " is not a number (" + _json_dump(v)[:40] + ")")
    if isinstance(v, int) and 0 <= v <= U64_MAX:
        return v
    if isinstance(v, int) and -(2**63) <= v < 0:
        raise ValueError(f"{who}negative {what} ({v})")
    raise ValueError(f"{who}{what} is not an integer ({_json_dump(float(v))})")


_ST_DTYPES = {"F64": "f64", "F32": "f32", "F16": "f16", "BF16": "bf16", "I32": "i32"}


def _tensor_entry(name, v, buffer_size, as_bf16):
    who = "tensor " + quote_for_message(name) + ": "

    def bad(why):
        return ValueError(who + why)
    if not isinstance(v, dict):
        raise bad("entry is not a JSON object")
    for k in sorted(v, key=lambda s: s.encode("utf-8", "surrogatepass")):
        if k not in ("dtype", "shape", "data_offsets"):
            raise bad("unexpected field " + quote_for_message(k) + " (allowed: dtype, shape, data_offsets)")
    for k in ("dtype", "shape", "data_offsets"):
        if k not in v:
            raise bad(f"missing field '{k}'")
    jd, js, jo = v["dtype"], v["shape"], v["data_offsets"]
    if not isinstance(jd, str):
        raise bad("field 'dtype' is not a string")
    if not isinstance(js, list):
        raise bad("field 'shape' is not an array")
    if not isinstance(jo, list) or len(jo) != 2:
        raise bad("field 'data_offsets' is not an array of two integers [begin, end]")
    shape = [_json_uint(d, name, "shape dimension") for d in js]
    begin = _json_uint(jo[0], name, "data offset")
    end = _json_uint(jo[1], name, "data offset")
    note = ""
    if jd in _ST_DTYPES:
        dtype = _ST_DTYPES[jd]
    elif jd in ("U16", "I16"):
        if not as_bf16:
            raise bad("unsupported dtype " + quote_for_message(jd) + " (if it holds bfloat16 bits, pass --as bf16)")
        dtype, note = "bf16", jd + " read as bfloat16 bits (--as bf16)"
    else:
        raise bad("unsupported dtype " + quote_for_message(jd) + " (compare reads F64, F32, F16, BF16, I32)")
    sizes = _shape_sizes(shape, _FMT[dtype].size)
    if isinstance(sizes, str):
        raise bad(f"shape {_shape_str(shape, False)} of {jd}: {sizes}")
    elements, nbytes = sizes
    offs = f"[{begin}, {end}]"
    if begin > end:
        raise bad(f"data_offsets {offs}: begin > end")
    if end > buffer_size:
        raise bad(f"data_offsets {offs} outside the byte buffer ({buffer_size} bytes)")
    if end - begin != nbytes:
        raise bad(f"data_offsets {offs} span {end - begin} bytes but shape {_shape_str(shape, False)} of {jd} "
                  f"needs {nbytes}")
    return dict(name=name, dtype=dtype, source_dtype=jd, note=note, shape=shape, elements=elements, begin=begin,
                end=end)


def _depth_ok(v, limit=16):
    """nlohmann's callback depth (enclosing containers of any value or key)
    stays <= limit."""
    stack = [(v, 0)]
    while stack:
        x, d = stack.pop()
        if d > limit:
            return False
        if isinstance(x, dict):
            stack.extend((y, d + 1) for y in x.values())
            if x and d + 1 > limit:
                return False
        elif isinstance(x, list):
            stack.extend((y, d + 1) for y in x)
    return True


def parse_safetensors(b, path, as_bf16=False, max_header_bytes=MAX_HEADER_BYTES):
    size = len(b)
    if size < 8:
        raise CompareError(path, f"file is {size} bytes, too short for the 8-byte safetensors header length")
    n = int.from_bytes(b[:8], "little")
    if n > max_header_bytes:
        raise CompareError(path, f"header length {n} exceeds the limit of {max_header_bytes} bytes")
    if n > size - 8:
        raise CompareError(path, f"header longer than the file: the header length field says {n} bytes but only "
                                 f"{size - 8} follow it")
    hb = b[8:8 + n]
    buffer_at, buffer_size = 8 + n, size - 8 - n
    duplicates = []

    def pairs(kv):
        d = {}
        for k, v in kv:
            if k in d and not duplicates:
                duplicates.append(k)
            d[k] = v
        return d

    def constant(c):
        raise ValueError(f"{c} is not JSON")
    try:
        j = json.loads(hb.decode("utf-8"), object_pairs_hook=pairs, parse_constant=constant)
    except RecursionError:
        raise CompareError(path, "header is not valid safetensors JSON: nested deeper than 16 levels") from None
    except ValueError as e:  # json.JSONDecodeError, UnicodeDecodeError
        raise CompareError(path, f"header is not valid JSON: {e}") from None
    if not _depth_ok(j):
        raise CompareError(path, "header is not valid safetensors JSON: nested deeper than 16 levels")
    if not isinstance(j, dict):
        raise CompareError(path, "header is not a JSON object")
    if n == 0 or hb[:1] != b"{":
        raise CompareError(path, "header must begin with '{' (no leading whitespace)")
    if duplicates:
        raise CompareError(path, "header has the key " + quote_for_message(duplicates[0]) + " more than once")
    metadata, entries = {}, []
    try:
        for key in sorted(j, key=lambda s: s.encode("utf-8", "surrogatepass")):
            v = j[key]
            if key == "__metadata__":
                if not isinstance(v, dict):
                    raise ValueError("__metadata__ is not a JSON object")
                for mk in sorted(v, key=lambda s: s.encode("utf-8", "surrogatepass")):
                    if not isinstance(v[mk], str):
                        raise ValueError("__metadata__ value for " + quote_for_message(mk) + " is not a string")
                    metadata[mk] = v[mk]
                continue
            entries.append(_tensor_entry(key, v, buffer_size, as_bf16))
    except ValueError as e:
        raise CompareError(path, str(e)) from None

    def rng(e):
        return f"[{e['begin']}, {e['end']}]"
    cursor, prev = 0, None
    for e in sorted(entries, key=lambda e: (e["begin"], e["end"], e["name"].encode("utf-8", "surrogatepass"))):
        if e["begin"] < cursor:
            raise CompareError(path, f"tensors {quote_for_message(prev['name'])} {rng(prev)} and "
                                     f"{quote_for_message(e['name'])} {rng(e)} overlap")
        if e["begin"] > cursor:
            raise CompareError(path, f"hole in the byte buffer: bytes [{cursor}, {e['begin']}) before tensor "
                                     f"{quote_for_message(e['name'])} belong to no tensor")
        cursor, prev = e["end"], e
    if cursor != buffer_size:
        raise CompareError(path, f"hole in the byte buffer: bytes [{cursor}, {buffer_size}) at its end belong to "
                                 "no tensor")
    tensors = [Tensor(e["name"], e["dtype"], e["source_dtype"], e["note"], e["shape"],
                      _bits_of(b, buffer_at + e["begin"], e["dtype"], e["elements"], False)) for e in entries]
    tensors.sort(key=lambda t: t.name.encode("utf-8", "surrogatepass"))
    return TensorFile(path, "safetensors", tensors, metadata)


def read_tensor_file(path, *, as_bf16=False):
    """The tensors of a .npy or .safetensors file (a TensorFile), read as
    strictly as `samebits compare` reads them; CompareError naming the file
    and the problem otherwise."""
    path = os.fspath(path)
    b = read_file_bytes(path)
    fmt = detect_format(b, path)
    return parse_npy(b, path, as_bf16) if fmt == "npy" else parse_safetensors(b, path, as_bf16)


# ---- in-memory inputs ------------------------------------------------------------

_NP_DTYPES = {"float64": "f64", "float32": "f32", "float16": "f16", "int32": "i32"}


def _tensor_of_array(x, name, side, as_bf16):
    """A Tensor of a numpy array or a torch tensor (compared in C order)."""
    mod = type(x).__module__
    if mod.startswith("torch"):
        import torch
        if not isinstance(x, torch.Tensor):
            raise TypeError(f"{side}: {_what(name)}a {type(x).__name__} is not a tensor or an array")
        src = str(x.dtype)
        t = x.detach()
        if t.dtype == torch.bfloat16:
            return Tensor(name, "bf16", src, "", tuple(t.shape),
                          t.cpu().contiguous().view(torch.int16).numpy().view(np.uint16).reshape(-1))
        if t.dtype in (torch.int16, getattr(torch, "uint16", torch.int16)):
            if not as_bf16:
                raise CompareError(side, f"{_what(name)}unsupported dtype {quote_for_message(src)} "
                                         "(if it holds bfloat16 bits, pass as_bf16=True)")
            return Tensor(name, "bf16", src, src + " read as bfloat16 bits (as_bf16)", tuple(t.shape),
                          t.cpu().contiguous().view(torch.int16).numpy().view(np.uint16).reshape(-1))
        kind = {torch.float64: "f64", torch.float32: "f32", torch.float16: "f16", torch.int32: "i32"}.get(t.dtype)
        if kind is None:
            raise CompareError(side, f"{_what(name)}unsupported dtype {quote_for_message(src)} (compare reads "
                                     "float64, float32, float16, bfloat16, int32)")
        a = t.cpu().contiguous().numpy()
        return Tensor(name, kind, src, "", tuple(t.shape), a.reshape(-1).view(_FMT[kind].uint))
    if isinstance(x, np.generic):
        x = np.asarray(x)
    if not isinstance(x, np.ndarray):
        raise TypeError(f"{side}: {_what(name)}a {type(x).__name__} is not a numpy array, torch tensor, dict of "
                        "them, or a file path")
    dt = x.dtype
    src = dt.str if dt.name != "bfloat16" else "bfloat16"
    note = ""
    if dt.name == "bfloat16" or (dt.kind == "V" and dt.itemsize == 2 and dt.fields is None):
        kind = "bf16"
        if dt.kind == "V":
            note = f"dtype {quote_for_message(src)} (2-byte void) read as bfloat16"
    elif dt.kind in "ui" and dt.itemsize == 2:
        if not as_bf16:
            raise CompareError(side, f"{_what(name)}unsupported dtype {quote_for_message(src)} (if it holds "
                                     "bfloat16 bits, pass as_bf16=True)")
        kind, note = "bf16", f"dtype {quote_for_message(src)} read as bfloat16 bits (as_bf16)"
    else:
        kind = _NP_DTYPES.get(dt.name) if dt.fields is None else None
        if kind is None:
            raise CompareError(side, f"{_what(name)}unsupported dtype {quote_for_message(src)} (compare reads "
                                     "float64, float32, float16, int32, and bfloat16)")
    u = np.dtype(_FMT[kind].uint).newbyteorder(dt.byteorder if dt.byteorder in "<>" else "=")
    bits = np.ascontiguousarray(x).view(u).reshape(-1)
    if bits.dtype.byteorder == ">" or (bits.dtype.byteorder == "=" and not np.little_endian):
        bits = bits.astype(_FMT[kind].uint)
    return Tensor(name, kind, src, note, tuple(x.shape), bits)


def _what(name):
    return "" if not name else "tensor " + quote_for_message(name) + ": "


def _file_of(x, side, as_bf16):
    if isinstance(x, TensorFile):
        return x
    if isinstance(x, dict):
        for k in x:
            if not isinstance(k, str):
                raise TypeError(f"{side}: dict key {k!r} is not a str (tensor names are strings)")
        ts = [_tensor_of_array(v, k, side, as_bf16) for k, v in x.items()]
        ts.sort(key=lambda t: t.name.encode("utf-8", "surrogatepass"))
        return TensorFile(None, "dict", ts)
    return TensorFile(None, "array", [_tensor_of_array(x, "", side, as_bf16)])


# ---- comparison ------------------------------------------------------------------

def _as_double(dtype, bits):
    if dtype == "f64":
        return bits.view(np.float64)
    if dtype == "f32":
        return bits.view(np.float32).astype(np.float64)
    if dtype == "f16":
        return bits.view(np.float16).astype(np.float64)
    if dtype == "bf16":
        return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
    return bits.view(np.int32).astype(np.float64)


def _bin_of(d):
    """Histogram bin of uint64 distances >= 1: 0 for 1, else bit_width(d - 1)."""
    x = d - np.uint64(1)
    n = np.zeros(x.shape, np.int64)
    for s in (32, 16, 8, 4, 2, 1):
        m = x >= (np.uint64(1) << np.uint64(s))
        n[m] += s
        x[m] >>= np.uint64(s)
    return n + (x > 0)


def _ordinal(f, b):
    """Monotone position of non-NaN encodings (int64): -0 one below +0."""
    b = b.astype(np.uint64)
    sign = np.uint64(f.sign)
    mag = (b & (sign - np.uint64(1))).astype(np.int64)
    return np.where((b & sign) != 0, -mag - 1, mag)


def _compare_tensor(e, a, policy, r, report):
    eb, ab = e.bits, a.bits
    if eb.size == 0 or np.array_equal(eb, ab):
        return
    idx = np.flatnonzero(eb != ab)
    ev, av = eb[idx], ab[idx]
    f = _FMT[e.dtype]
    n = idx.size
    kinds = np.full(n, 3, np.int8)  # 0 sign_of_zero, 1 nan_payload, 2 class, 3 ulp
    dist = np.zeros(n, np.uint64)
    if e.dtype == "i32":
        x, y = ev.view(np.int32).astype(np.int64), av.view(np.int32).astype(np.int64)
        dist = np.abs(x - y).astype(np.uint64)
        ulp = np.ones(n, bool)
    else:
        mask, inf = f.uint(f.sign - 1), f.uint(f.inf)
        em, am = ev & mask, av & mask
        enan, anan = em > inf, am > inf
        both = enan & anan
        if policy == "class":
            keep = ~both
            idx, ev, av, em, am, enan, anan = (z[keep] for z in (idx, ev, av, em, am, enan, anan))
            n = idx.size
            kinds, dist, both = kinds[keep], dist[keep], np.zeros(n, bool)
        kinds[both] = 1
        one = enan ^ anan
        kinds[one] = 2
        rest = ~(enan | anan)
        zero = rest & (em == 0) & (am == 0)
        kinds[zero] = 0
        cls = rest & ~zero & ((em == inf) | (am == inf))
        kinds[cls] = 2
        ulp = rest & ~zero & ~cls
        oe, oa = _ordinal(f, ev[ulp]), _ordinal(f, av[ulp])
        ue, ua = oe.view(np.uint64), oa.view(np.uint64)
        dist[ulp] = np.where(oe > oa, ue - ua, ua - ue)
    if ulp.any():
        de, da = _as_double(e.dtype, ev[ulp]), _as_double(e.dtype, av[ulp])
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            aerr = np.abs(da - de)
            rerr = np.where(de == 0, np.inf, aerr / np.abs(de))
        r.max_abs_error = max(r.max_abs_error or 0.0, float(aerr.max()))
        r.max_rel_error = max(r.max_rel_error or 0.0, float(rerr.max()))
    r.mismatches += int(n)
    h = r.histogram
    h.sign_of_zero += int((kinds == 0).sum())
    h.nan_payload += int((kinds == 1).sum())
    h.value_class += int((kinds == 2).sum())
    if ulp.any():
        counts = np.bincount(_bin_of(dist[ulp]), minlength=BINS)
        h.ulp = [a_ + int(c) for a_, c in zip(h.ulp, counts)]
    room = report.max_report - len(report.first_mismatches)
    names = ("sign_of_zero", "nan_payload", "class", "ulp")
    for i in range(min(room, n)):
        flat = int(idx[i])
        index = np.unravel_index(flat, e.shape) if e.shape else ()
        k = names[int(kinds[i])]
        report.first_mismatches.append(Mismatch(e.name, flat, tuple(int(z) for z in index),
                                                describe_element(e.dtype, ev[i]), describe_element(e.dtype, av[i]),
                                                k, int(dist[i]) if k == "ulp" else 0))


def compare_tensor_files(expected, actual, *, nan_policy="bits", max_report=10):
    """Pairs the tensors of two TensorFiles and compares them (oracle's
    compare_tensor_files): CompareError when they cannot be compared."""
    if nan_policy not in ("bits", "class"):
        raise ValueError(f"nan_policy: {nan_policy!r} (bits or class)")
    if isinstance(max_report, bool) or not isinstance(max_report, int) or max_report < 0:
        raise ValueError(f"max_report: {max_report!r}; a non-negative int")
    ep, ap = expected.path or "expected", actual.path or "actual"
    if expected.format != actual.format:
        raise CompareError(ap, f"format mismatch: this is a .{actual.format} file but {ep} is a "
                               f".{expected.format} file; both must be the same format")
    by_name = {t.name: t for t in actual.tensors}
    pairs = []
    for e in expected.tensors:
        if e.name not in by_name:
            raise CompareError(ap, f"tensor {quote_for_message(e.name)} is missing (it is in {ep})")
        pairs.append((e, by_name[e.name]))
    enames = {t.name for t in expected.tensors}
    for a in actual.tensors:
        if a.name not in enames:
            raise CompareError(ep, f"tensor {quote_for_message(a.name)} is missing (it is in {ap})")
    for e, a in pairs:
        what = "" if expected.format in ("npy", "array") else "tensor " + quote_for_message(e.name) + ": "
        if e.dtype != a.dtype:
            raise CompareError(ap, f"{what}dtype mismatch: {a.dtype} ({quote_for_message(a.source_dtype)}) here but "
                                   f"{e.dtype} ({quote_for_message(e.source_dtype)}) in {ep}")
        if e.shape != a.shape:
            raise CompareError(ap, f"{what}shape mismatch: {_shape_text(a.shape)} here but {_shape_text(e.shape)} "
                                   f"in {ep}")
    rep = CompareResult(expected.path, actual.path, expected.format, nan_policy, max_report)
    for e, a in pairs:
        notes = ([f"expected: {e.note}"] if e.note else []) + ([f"actual: {a.note}"] if a.note else [])
        r = TensorReport(e.name, e.dtype, e.shape, e.elements, e.source_dtype, a.source_dtype, notes)
        _compare_tensor(e, a, nan_policy, r, rep)
        rep.total_elements += r.elements
        rep.total_mismatches += r.mismatches
        rep.tensors_with_mismatches += r.mismatches != 0
        rep.histogram.add(r.histogram)
        if r.max_abs_error is not None:
            rep.max_abs_error = max(rep.max_abs_error or 0.0, r.max_abs_error)
        if r.max_rel_error is not None:
            rep.max_rel_error = max(rep.max_rel_error or 0.0, r.max_rel_error)
        rep.tensors.append(r)
    return rep


def compare_files(expected_path, actual_path, *, nan_policy="bits", as_bf16=False, max_report=10):
    """`samebits compare EXPECTED ACTUAL [--nan-policy] [--as bf16] [--max-report]`
    without the exit: the CompareResult, or CompareError (the CLI's exit 2)."""
    e = read_tensor_file(expected_path, as_bf16=as_bf16)
    a = read_tensor_file(actual_path, as_bf16=as_bf16)
    return compare_tensor_files(e, a, nan_policy=nan_policy, max_report=max_report)


def compare(expected, actual, *, nan_policy="bits", as_bf16=False, max_report=10):
    """Bitwise comparison with `samebits compare`'s semantics. expected and
    actual: two file paths (str or os.PathLike: compare_files), or two numpy
    arrays / torch tensors, or two dicts {name: array or tensor} (compared by
    name, as safetensors files are), or TensorFiles. Returns a CompareResult;
    raises CompareError when they cannot be compared (dtype, shape or names
    differ; the CLI's exit 2)."""
    paths = [isinstance(x, (str, bytes, os.PathLike)) for x in (expected, actual)]
    if all(paths):
        return compare_files(os.fsdecode(expected), os.fsdecode(actual), nan_policy=nan_policy, as_bf16=as_bf16,
                             max_report=max_report)
    if any(paths):
        raise TypeError("expected, actual: both file paths or neither")
    return compare_tensor_files(_file_of(expected, "expected", as_bf16), _file_of(actual, "actual", as_bf16),
                                nan_policy=nan_policy, max_report=max_report)
