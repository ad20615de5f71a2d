#!/usr/bin/python3
"""Write the fixtures of `samebits compare` into tests/data/compare/.

    /usr/bin/python3 tests/data/make_compare_fixtures.py

Deterministic: running it again rewrites the same bytes.

Where each file comes from:
  * every well-formed .npy file is numpy's own output (np.save or
    np.lib.format.write_array / write_array_header_1_0), except bf16_lv2.npy,
    which is bf16.npy with '|V2' replaced by '<V2' (the descr ml_dtypes'
    bfloat16 dtype reports; ml_dtypes is not a dependency of this project);
  * malformed .npy files (bad_*.npy, data_*.npy, shape_overflow_*.npy) are
    numpy output changed byte by byte, or a hand-built header around numpy's
    data bytes; their names say they are broken;
  * .safetensors files are written here with struct + json, following the
    safetensors format: an 8-byte little-endian header length N, N bytes of
    JSON (padded with spaces to a multiple of 8, as the reference writer
    does), then the byte buffer. numpy cannot write this format.
"""

import json
import os
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "compare")

# Base values: exact in f16 and bf16 except 0.1 (index [1, 2]), which is where
# the planted changes go, so that rounding shows up in the reports.
FLOATS = [0.5, 1.0, -2.5, 3.125, 0.0625, -7.75, 0.1, 100.0, -0.375, 12.0, 1.5, -1024.0]
INTS = [0, 1, -2, 3, 1000, -7, 42, 100, -375, 12, 2147483647, -2147483648]
PLANT = (1, 2)  # flat index 6

UINT_OF = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def path(name):
    return os.path.join(OUT, name)


def write(name, data):
    with open(path(name), "wb") as f:
        f.write(data)


def read(name):
    with open(path(name), "rb") as f:
        return f.read()


def bf16_bits(values):
    """float32 -> bfloat16 bit patterns, rounded to nearest even."""
    u = np.asarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def planted(arr, at=PLANT):
    """A copy with the encoding at `at` moved one step (one ulp; +1 for ints)."""
    out = arr.copy()
    bump(out.view(UINT_OF[out.dtype.itemsize]) if out.dtype.kind == "f" else out, at)
    return out


def bump(a, at):
    # Add one in the array's own type: numpy 1.24 turns uint64 + int into
    # float64 and would lose the change.
    a[at] = a[at] + a.dtype.type(1)


def npy_header(dict_text, version=1):
    """The bytes before the data of a .npy file with this header dict text,
    padded the way numpy pads (total a multiple of 64, ending in '\\n')."""
    pre = 10 if version == 1 else 12
    text = dict_text.encode("latin1")
    text += b" " * ((-(pre + len(text) + 1)) % 64) + b"\n"
    fmt = "<H" if version == 1 else "<I"
    return b"\x93NUMPY" + bytes([version, 0]) + struct.pack(fmt, len(text)) + text


def data_offset(npy_bytes):
    major = npy_bytes[6]
    if major == 1:
        return 10 + struct.unpack_from("<H", npy_bytes, 8)[0]
    return 12 + struct.unpack_from("<I", npy_bytes, 8)[0]


# ---- .npy ------------------------------------------------------------------------


def write_npy_fixtures():
    arrays = {
        "f64": np.array(FLOATS, dtype="<f8").reshape(3, 4),
        "f32": np.array(FLOATS, dtype="<f4").reshape(3, 4),
        "f16": np.array(FLOATS, dtype="<f2").reshape(3, 4),
        "i32": np.array(INTS, dtype="<i4").reshape(3, 4),
    }
    for name, arr in arrays.items():
        np.save(path(f"{name}.npy"), arr)
        np.save(path(f"{name}_copy.npy"), arr.copy())
        np.save(path(f"{name}_planted.npy"), planted(arr))
        # Big-endian: the same values, descr '>..'.
        np.save(path(f"{name}_be.npy"), arr.astype(arr.dtype.newbyteorder(">")))

    f32 = arrays["f32"]
    # Format versions 2.0 and 3.0 of the same array.
    for v in (2, 3):
        with open(path(f"f32_v{v}.npy"), "wb") as f:
            np.lib.format.write_array(f, f32, version=(v, 0))

    # Shapes () and (5,), and an empty array.
    np.save(path("scalar.npy"), np.array(3.5, dtype="<f4"))
    np.save(path("scalar_planted.npy"), planted(np.array([3.5], dtype="<f4"), (0,)).reshape(()))
    np.save(path("vec.npy"), np.arange(5, dtype="<f8") / 4)
    np.save(path("empty.npy"), np.zeros((0, 3), dtype="<f4"))

    # bfloat16. numpy has no bfloat16; ml_dtypes arrays are saved as 2-byte
    # void. view('V2') makes numpy write exactly that: descr '|V2'.
    bf = bf16_bits(FLOATS).reshape(3, 4)
    np.save(path("bf16.npy"), bf.view("V2"))
    np.save(path("bf16_planted.npy"), planted(bf).view("V2"))
    # ml_dtypes' bfloat16 dtype reports '<V2'; same bytes otherwise.
    write("bf16_lv2.npy", read("bf16.npy").replace(b"'|V2'", b"'<V2'", 1))
    # The workaround of writing str(dtype) into the header
    # (np.lib.format.write_array_header_1_0 + tofile) gives descr 'bfloat16'.
    with open(path("bf16_descr.npy"), "wb") as f:
        np.lib.format.write_array_header_1_0(
            f, {"descr": "bfloat16", "fortran_order": False, "shape": bf.shape})
        bf.tofile(f)
    # The bits as uint16: only bfloat16 with --as bf16.
    np.save(path("bf16_u2.npy"), bf)
    np.save(path("bf16_u2_be.npy"), bf.astype(">u2"))

    # Signed zeros: [+0, 1, 2] vs [-0, 1, 2].
    np.save(path("zero_pos.npy"), np.array([0.0, 1.0, 2.0], dtype="<f4"))
    np.save(path("zero_neg.npy"), np.array([-0.0, 1.0, 2.0], dtype="<f4"))

    # NaNs: the same element is a NaN with payload 0, a NaN with payload 1,
    # and the number 5.
    nan_a = np.array([1.0, 0.0, 2.0], dtype="<f4")
    nan_a.view(np.uint32)[1] = 0x7FC00000
    nan_b = nan_a.copy()
    nan_b.view(np.uint32)[1] = 0x7FC00001
    np.save(path("nan_a.npy"), nan_a)
    np.save(path("nan_b.npy"), nan_b)
    np.save(path("nan_num.npy"), np.array([1.0, 5.0, 2.0], dtype="<f4"))

    # Valid files compare cannot read.
    np.save(path("i64.npy"), np.arange(4, dtype="<i8"))
    np.save(path("fortran.npy"), np.asfortranarray(f32))

    # ---- malformed, derived from f32.npy ----
    good = read("f32.npy")
    write("bad_magic.npy", b"\x93NUMPX" + good[6:])
    write("bad_version.npy", good[:6] + bytes([4, 0]) + good[8:])
    write("header_too_long.npy", good[:8] + struct.pack("<H", 0xFFFF) + good[10:])
    data = good[data_offset(good):]
    write("bad_header.npy",
          npy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), 'extra': 1, }")
          + data)
    write("bad_header_syntax.npy",
          npy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4) ") + data)
    # 2^32 * 2^32 elements: the count overflows. 2^62 * 4 bytes: the size does.
    write("shape_overflow_count.npy",
          npy_header("{'descr': '<f4', 'fortran_order': False, "
                     "'shape': (4294967296, 4294967296), }") + data)
    write("shape_overflow_bytes.npy",
          npy_header("{'descr': '<f4', 'fortran_order': False, "
                     "'shape': (4611686018427387904,), }") + data)
    write("data_short.npy", good[:-4])
    write("data_long.npy", good + b"\0\0\0\0")


# ---- .safetensors ---------------------------------------------------------------


def st_file(header, buf, pad_to=8, raw_header=None):
    """header dict (or raw header bytes) + byte buffer -> file bytes."""
    h = raw_header if raw_header is not None else json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((-len(h)) % pad_to)
    return struct.pack("<Q", len(h)) + h + buf


def st_layout(tensors, metadata=None, order=None):
    """tensors: {name: (dtype, shape, bytes)}; laid out in `order` (names).
    Returns (header dict, byte buffer)."""
    header = {}
    if metadata is not None:
        header["__metadata__"] = metadata
    buf = b""
    for name in order or list(tensors):
        dt, shape, raw = tensors[name]
        header[name] = {"dtype": dt, "shape": list(shape),
                        "data_offsets": [len(buf), len(buf) + len(raw)]}
        buf += raw
    return header, buf


def st_tensors(plant=()):
    """The tensors of model.safetensors; names in `plant` get one planted change."""
    f64 = np.array(FLOATS[:6], dtype="<f8").reshape(2, 3)
    f32 = np.array(FLOATS, dtype="<f4").reshape(3, 4)
    f16 = np.array(FLOATS[5:10], dtype="<f2")
    bf = bf16_bits(FLOATS[4:8]).reshape(2, 2)
    i32 = np.array(INTS[8:], dtype="<i4")
    scalar = np.array(0.25, dtype="<f4")

    def p(name, arr, at):
        if name not in plant:
            return arr
        out = arr.copy()
        bump(out.view(UINT_OF[out.dtype.itemsize]) if out.dtype.kind in "fu" else out, at)
        return out

    return {
        "layer.0.weight_f64": ("F64", f64.shape, p("layer.0.weight_f64", f64, (1, 1)).tobytes()),
        "layer.0.weight_f32": ("F32", f32.shape, p("layer.0.weight_f32", f32, PLANT).tobytes()),
        "layer.1.bias_f16": ("F16", f16.shape, p("layer.1.bias_f16", f16, (3,)).tobytes()),
        "layer.1.weight_bf16": ("BF16", bf.shape, p("layer.1.weight_bf16", bf, (0, 1)).tobytes()),
        "step_i32": ("I32", i32.shape, p("step_i32", i32, (1,)).tobytes()),
        "scale": ("F32", (), p("scale", scalar.reshape(1), (0,)).tobytes()),
    }


def write_safetensors_fixtures():
    t = st_tensors()
    names = list(t)
    header, buf = st_layout(t, metadata={"format": "pt"})
    write("model.safetensors", st_file(header, buf))
    # The same tensors: other buffer order, other metadata, more padding.
    header, buf = st_layout(t, metadata={"writer": "fixtures"}, order=list(reversed(names)))
    write("model_reordered.safetensors", st_file(header, buf, pad_to=64))
    header, buf = st_layout(st_tensors(plant={"layer.0.weight_f32"}))
    write("model_planted.safetensors", st_file(header, buf))
    header, buf = st_layout(st_tensors(plant=set(names)))
    write("model_planted_all.safetensors", st_file(header, buf))
    # bfloat16 stored as U16: readable only with --as bf16.
    u = dict(t)
    u["layer.1.weight_bf16"] = ("U16",) + t["layer.1.weight_bf16"][1:]
    header, buf = st_layout(u)
    write("model_u16.safetensors", st_file(header, buf))

    # Tensor sets and types that do not pair up with model.safetensors.
    extra = dict(t)
    extra["extra.tensor"] = ("F32", (2,), np.array([1, 2], dtype="<f4").tobytes())
    write("model_extra_tensor.safetensors", st_file(*st_layout(extra)))
    fewer = {k: v for k, v in t.items() if k != "step_i32"}
    write("model_missing_tensor.safetensors", st_file(*st_layout(fewer)))
    dt = dict(t)
    dt["layer.0.weight_f32"] = ("F64", (3, 4), np.array(FLOATS, dtype="<f8").tobytes())
    write("model_dtype_mismatch.safetensors", st_file(*st_layout(dt)))
    sh = dict(t)
    sh["layer.0.weight_f32"] = ("F32", (4, 3), t["layer.0.weight_f32"][2])
    write("model_shape_mismatch.safetensors", st_file(*st_layout(sh)))

    # ---- malformed ----
    small = {"a": ("F32", (2,), np.array([1.5, -2.0], dtype="<f4").tobytes()),
             "b": ("F32", (2,), np.array([3.0, 4.0], dtype="<f4").tobytes())}
    good_h, good_buf = st_layout(small)  # a: [0, 8], b: [8, 16]

    def variant(name, mutate=None, raw=None, buf=good_buf):
        h = json.loads(json.dumps(good_h))
        if mutate:
            mutate(h)
        write(name, st_file(h, buf, raw_header=raw))

    write("st_small.safetensors", st_file(good_h, good_buf))
    variant("st_bad_json.safetensors", raw=b'{"a": {"dtype": "F32",')
    variant("st_not_object.safetensors", raw=b"[1, 2, 3]")
    variant("st_missing_field.safetensors", lambda h: h["a"].pop("shape"))
    variant("st_bad_field_type.safetensors", lambda h: h["a"].update(shape="2"))
    variant("st_negative_offset.safetensors", lambda h: h["a"].update(data_offsets=[-8, 8]))
    variant("st_float_offset.safetensors", lambda h: h["a"].update(data_offsets=[0, 8.0]))
    variant("st_begin_after_end.safetensors", lambda h: h["a"].update(data_offsets=[8, 0]))
    variant("st_outside.safetensors", lambda h: h["b"].update(data_offsets=[8, 24], shape=[4]))
    variant("st_overlap.safetensors", lambda h: h["b"].update(data_offsets=[4, 12]),
            buf=good_buf[:12])
    variant("st_hole.safetensors", lambda h: h["b"].update(data_offsets=[12, 20]),
            buf=good_buf + b"\0\0\0\0")
    variant("st_size_mismatch.safetensors", lambda h: h["b"].update(shape=[3]))
    variant("st_unsupported_dtype.safetensors",
            lambda h: h["b"].update(dtype="I64", shape=[1]))
    variant("st_duplicate_key.safetensors",
            raw=b'{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},'
                b'"a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}}')
    good = read("st_small.safetensors")
    write("st_header_too_long.safetensors", struct.pack("<Q", 4096) + good[8:])
    write("st_header_huge.safetensors", struct.pack("<Q", 1 << 40) + good[8:])
    write("st_truncated.safetensors", good[:5])


def main():
    os.makedirs(OUT, exist_ok=True)
    write_npy_fixtures()
    write_safetensors_fixtures()


if __name__ == "__main__":
    main()
