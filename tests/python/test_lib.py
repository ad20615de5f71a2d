"""The C ABI through ctypes (samebits._lib, samebits.reference) on the library
meson built (SAMEBITS_KERNELS_LIB): the binding against c_api.h, the loader's
rule and errors, fingerprints, workspace sizes, the CPU references against a
float64 numpy model, the C validation's refusals as exceptions carrying the C
message, and the GPU entry points (SAMEBITS_NOT_BUILT in a library built
without CUDA; refused in one built with it, on a machine without a GPU).
Every equality has a negative control.

    SAMEBITS_KERNELS_LIB=build/kernels/libsamebits_kernels.so python3 tests/python/test_lib.py
"""
import ctypes as C
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import common

common.need_numpy()
import numpy as np  # noqa: E402

import samebits  # noqa: E402
from samebits import _lib, errors, reference as R  # noqa: E402

LIB = common.env("SAMEBITS_KERNELS_LIB")
HEADER = os.path.join(common.ROOT, "kernels", "include", "samebits", "kernels", "c_api.h")


# ---- c_api.h, parsed -------------------------------------------------------------

def _ctype(decl, structs):
    decl = " ".join(decl.replace("*", " * ").split())
    if decl.endswith("*"):
        base = decl[:-1].replace("const ", "").strip()
        if base == "char":
            return C.c_char_p
        if base in structs:
            return C.POINTER(structs[base])
        return C.c_void_p
    return {"int32_t": C.c_int32, "int64_t": C.c_int64, "float": C.c_float, "samebits_tensor3": _lib.Tensor3}[decl]


def parse_header(text):
    """{function: (restype, [argtypes])}, {struct: [(field, ctype)]} of c_api.h."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    structs = {"samebits_attention_problem": _lib.AttentionProblem, "samebits_sparse_mla_problem": _lib.SparseMlaProblem,
               "samebits_tensor3": _lib.Tensor3, "samebits_mma_params": _lib.MmaParams}
    fields = {}
    for name, body in re.findall(r"typedef struct (\w+) \{(.*?)\}", text, flags=re.S):
        out = []
        for line in body.split(";"):
            line = " ".join(line.split())
            if not line:
                continue
            m = re.match(r"((?:const )?\w+\s*\**)\s*(.+)", line)
            typ, names = m.group(1), m.group(2)
            for n in names.split(","):
                n = n.strip()
                t = typ + "*" * n.count("*")
                out.append((n.strip("* "), C.c_void_p if "*" in t else _ctype(t, {})))
        fields[name] = out
    funcs = {}
    for ret, name, args in re.findall(r"\b((?:const )?\w+\s*\*?)\s*(samebits_\w+)\s*\(([^)]*)\)\s*;", text):
        argtypes = []
        if args.strip() != "void":
            for a in args.split(","):
                a = " ".join(a.split())
                m = re.match(r"(.*?[\s*])(\w+)$", a)
                argtypes.append(_ctype(m.group(1).strip(), structs))
        funcs[name] = (_ctype(ret.strip(), structs), argtypes)
    return funcs, fields


def binding_differences(funcs, fields, table, classes):
    """What differs between the header and a binding (empty: none)."""
    diffs = []
    for name, (ret, args) in funcs.items():
        if name not in table:
            diffs.append(f"{name}: not in the binding")
            continue
        bret, bargs = table[name]
        if bret is not ret:
            diffs.append(f"{name}: returns {bret} in the binding, {ret} in the header")
        if len(bargs) != len(args) or any(a is not b for a, b in zip(args, bargs)):
            diffs.append(f"{name}: arguments {bargs} in the binding, {args} in the header")
    diffs += [f"{n}: in the binding only" for n in table if n not in funcs]
    for cname, cls in classes.items():
        want = fields[cname]
        got = [(n, t) for n, t in cls._fields_]
        if [n for n, _ in got] != [n for n, _ in want] or any(a is not b for (_, a), (_, b) in zip(got, want)):
            diffs.append(f"{cname}: fields {got} in the binding, {want} in the header")
    return diffs


class Binding(unittest.TestCase):
    def test_every_function_and_struct_matches_the_header(self):
        with open(HEADER) as f:
            funcs, fields = parse_header(f.read())
        self.assertGreaterEqual(len(funcs), 17)
        classes = {"samebits_tensor3": _lib.Tensor3, "samebits_attention_problem": _lib.AttentionProblem,
                   "samebits_sparse_mla_problem": _lib.SparseMlaProblem, "samebits_mma_params": _lib.MmaParams}
        self.assertEqual(binding_differences(funcs, fields, _lib.FUNCTIONS, classes), [])
        # Negative controls: one argument dropped, one return type changed, two fields swapped.
        t = dict(_lib.FUNCTIONS)
        r, a = t["samebits_attention_forward"]
        t["samebits_attention_forward"] = (r, a[:-1])
        t["samebits_attention_backward_workspace_bytes"] = (C.c_int32, t["samebits_attention_backward_workspace_bytes"][1])
        self.assertEqual(len(binding_differences(funcs, fields, t, classes)), 2)

        class Swapped(C.Structure):
            _fields_ = [_lib.Tensor3._fields_[0], _lib.Tensor3._fields_[2], _lib.Tensor3._fields_[1]]
        self.assertEqual(len(binding_differences(funcs, fields, _lib.FUNCTIONS, {"samebits_tensor3": Swapped})), 1)

    def test_abi_version_and_cuda_flag(self):
        lib = _lib.load(LIB)
        self.assertEqual(lib.lib.samebits_c_abi_version(), _lib.C_ABI_VERSION)
        self.assertIn(lib.cuda, (True, False))
        self.assertEqual(samebits.has_cuda_kernels(), lib.cuda)
        with open(HEADER) as f:
            header_version = re.search(r"#define SAMEBITS_C_ABI_VERSION (\d+)", f.read()).group(1)
        self.assertEqual(int(header_version), _lib.C_ABI_VERSION)


class Codes(unittest.TestCase):
    """The codes' one source: the C++ enums. The library names them (samebits_code_name); the
    package's tables (samebits._lib, samebits.errors) must say the same, and so must c_api.h's
    enums (static_asserts in kernels/src/capi/ tie those to the C++ ones)."""

    def test_package_codes_are_the_librarys(self):
        lib = _lib.load(LIB)
        for kind, table in _lib.code_tables().items():
            for name, code in table.items():
                self.assertEqual(lib.code_name(kind, code), name, (kind, code))
            self.assertIsNone(lib.code_name(kind, max(table.values()) + 1), kind)  # no code past the table
        # every code the library names is in the package's table (none missing)
        for kind, table in _lib.code_tables().items():
            names = [lib.code_name(kind, c) for c in range(16)]
            self.assertEqual(sorted(n for n in names if n), sorted(table), kind)

    def test_header_enums_are_the_packages(self):
        with open(HEADER) as f:
            text = f.read()
        enums = {m.group(1): int(m.group(2)) for m in re.finditer(r"\b(SAMEBITS_[A-Z0-9_]+) = (\d+)", text)}
        want = {"SAMEBITS_F32": _lib.F32, "SAMEBITS_BF16": _lib.BF16, "SAMEBITS_F16": _lib.F16,
                "SAMEBITS_LIBM_NVCC": _lib.LIBM_CODES["nvcc"], "SAMEBITS_LIBM_CR": _lib.LIBM_CODES["cr"],
                "SAMEBITS_LIBM_NVCC_FAST": _lib.LIBM_CODES["nvcc-fast"],
                "SAMEBITS_POLICY_FMA_CHAIN": _lib.POLICY_CODES["fma-chain"],
                "SAMEBITS_POLICY_SM90_TENSOR_CORE": _lib.POLICY_CODES["sm90-tensor-core"],
                "SAMEBITS_OK": errors.OK, "SAMEBITS_INVALID_ARGUMENT": errors.INVALID_ARGUMENT,
                "SAMEBITS_UNSUPPORTED": errors.UNSUPPORTED, "SAMEBITS_CUDA_ERROR": errors.CUDA_ERROR,
                "SAMEBITS_NOT_BUILT": errors.NOT_BUILT}
        self.assertEqual({k: enums[k] for k in want}, want)
        self.assertEqual({k: v for k, v in enums.items() if k.startswith("SAMEBITS_CODE_")},
                         {"SAMEBITS_CODE_" + k.upper(): v for k, v in _lib.CODE_KINDS.items()})

    def test_a_library_naming_its_codes_otherwise_is_refused(self):
        saved = dict(_lib.LIBM_CODES)
        try:
            _lib.LIBM_CODES["nvcc"], _lib.LIBM_CODES["cr"] = 1, 0  # the package's table drifted
            with self.assertRaises(errors.LibraryError) as cm:
                _lib.Library(LIB)
            self.assertIn("names its codes otherwise than this samebits package: libm 'nvcc': code 1 here, the "
                          "library's 'cr'", str(cm.exception))
        finally:
            _lib.LIBM_CODES.clear()
            _lib.LIBM_CODES.update(saved)
        _lib.Library(LIB)  # control

    def test_mma_enum_names_are_sm90_hpp(self):
        from samebits import _validate as V
        path = os.path.join(common.ROOT, "libm", "include", "samebits", "libm", "mma", "sm90.hpp")
        with open(path) as f:
            text = f.read()
        cpp = {}
        for name, body in re.findall(r"enum class (\w+) : std::uint8_t \{([^}]*)\}", text):
            values = [(m.group(1), int(m.group(2))) for m in re.finditer(r"(\w+) = (\d+)", body)]
            cpp[name] = tuple(n for n, _ in sorted(values, key=lambda x: x[1]))
        field_enum = {"rounding": "Rounding", "c_join": "CJoin", "zero_exponent": "ZeroExponent",
                      "product_exponent": "ProductExponent", "zero_sign": "ZeroSign", "overflow": "Overflow"}
        self.assertEqual({f: cpp[e] for f, e in field_enum.items()}, V.MMA_ENUMS)


def run_python(code, env_updates, cwd=None, drop=()):
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(env_updates)
    p = subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


LOAD = "import samebits; print('LOADED', samebits.load_library().path, samebits.load_library().how)"


class Loader(unittest.TestCase):
    pkg = os.path.join(common.ROOT, "python")

    def test_env_path_missing(self):
        rc, out = run_python(LOAD, {"PYTHONPATH": self.pkg, "SAMEBITS_KERNELS_LIB": "/nonexistent/libx.so"})
        self.assertNotEqual(rc, 0)
        self.assertIn("samebits.errors.LibraryError: SAMEBITS_KERNELS_LIB=/nonexistent/libx.so: no such file", out)
        rc, out = run_python(LOAD, {"PYTHONPATH": self.pkg, "SAMEBITS_KERNELS_LIB": LIB})  # control
        self.assertEqual(rc, 0, out)
        self.assertIn(f"LOADED {LIB} $SAMEBITS_KERNELS_LIB", out)

    def test_env_path_not_a_library(self):
        rc, out = run_python(LOAD, {"PYTHONPATH": self.pkg, "SAMEBITS_KERNELS_LIB": HEADER})
        self.assertNotEqual(rc, 0)
        self.assertIn(f"LibraryError: cannot load {HEADER} ($SAMEBITS_KERNELS_LIB)", out)

    def test_other_abi_version_and_missing_functions(self):
        fake = common.env("SAMEBITS_FAKE_ABI_LIB")
        rc, out = run_python(LOAD, {"PYTHONPATH": self.pkg, "SAMEBITS_KERNELS_LIB": fake})
        self.assertNotEqual(rc, 0)
        self.assertIn("speaks C ABI version 4; this samebits package speaks version 3", out)
        partial = common.env("SAMEBITS_FAKE_PARTIAL_LIB")
        rc, out = run_python(LOAD, {"PYTHONPATH": self.pkg, "SAMEBITS_KERNELS_LIB": partial})
        self.assertNotEqual(rc, 0)
        self.assertIn("is not a samebits kernels library: it lacks samebits_code_name, samebits_attention_fingerprint, "
                      "samebits_attention_problem_fingerprint, samebits_attention_forward", out)
        self.assertNotIn("samebits_sparse_mla_reference_forward", out)  # optional: not required

    def test_lookup_rule_outside_the_repository(self):
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(os.path.join(self.pkg, "samebits"), os.path.join(tmp, "samebits"),
                            ignore=shutil.ignore_patterns("__pycache__"))
            rc, out = run_python(LOAD, {"PYTHONPATH": tmp, "LD_LIBRARY_PATH": ""}, cwd=tmp,
                                 drop=("SAMEBITS_KERNELS_LIB",))
            self.assertNotEqual(rc, 0)
            for p in (os.path.join(tmp, "samebits", "lib", "libsamebits_kernels.so") + " (next to the package): no such file",
                      os.path.join(tmp, "samebits", "libsamebits_kernels.so") + " (next to the package): no such file",
                      "libsamebits_kernels.so (system loader): cannot load",
                      "set SAMEBITS_KERNELS_LIB to its path"):
                self.assertIn(p, out)
            self.assertNotIn("repository build folder", out)  # not a checkout
            # Control: the library next to the package is found there.
            os.makedirs(os.path.join(tmp, "samebits", "lib"))
            shutil.copy(LIB, os.path.join(tmp, "samebits", "lib", "libsamebits_kernels.so"))
            rc, out = run_python(LOAD, {"PYTHONPATH": tmp}, cwd=tmp, drop=("SAMEBITS_KERNELS_LIB",))
            self.assertEqual(rc, 0, out)
            self.assertIn(f"LOADED {os.path.join(tmp, 'samebits', 'lib', 'libsamebits_kernels.so')} next to the package",
                          out)

    def test_lookup_rule_in_the_repository(self):
        saved = os.environ.pop("SAMEBITS_KERNELS_LIB")
        try:
            c = _lib.candidates()
        finally:
            os.environ["SAMEBITS_KERNELS_LIB"] = saved
        rels = [os.path.relpath(p, common.ROOT) for how, p in c if how == "repository build folder"]
        self.assertEqual(rels, ["build-device/kernels/libsamebits_kernels.so", "build-cuda/kernels/libsamebits_kernels.so",
                                "build/kernels/libsamebits_kernels.so", "build-ci/kernels/libsamebits_kernels.so"])
        self.assertEqual([h for h, _ in c][:2], ["next to the package"] * 2)
        self.assertEqual(c[-1], ("system loader", "libsamebits_kernels.so"))
        self.assertEqual(_lib.candidates(), [("$SAMEBITS_KERNELS_LIB", LIB)])  # the variable alone


class Fingerprints(unittest.TestCase):
    def test_strings(self):
        want = {("attention", "nvcc"): "samebits-attention/1 policy=fma-chain/1 B=64 libm=nvcc",
                ("attention", "cr"): "samebits-attention/1 policy=fma-chain/1 B=64 libm=cr",
                ("sparse_mla", "nvcc"): "samebits-sparse-mla/1 policy=fma-chain/1 B=64 libm=nvcc",
                ("sparse_mla", "cr"): "samebits-sparse-mla/1 policy=fma-chain/1 B=64 libm=cr"}
        got = {k: samebits.fingerprint(*k) for k in want}
        self.assertEqual(got, want)
        self.assertEqual(len(set(got.values())), 4)  # control: each differs from the others
        with self.assertRaises(ValueError):
            samebits.fingerprint("attention", "glibc")
        with self.assertRaises(ValueError):
            samebits.fingerprint("mla", "nvcc")

    def test_c_refusals(self):
        lib = _lib.load()
        buf = C.create_string_buffer(8)
        with self.assertRaises(errors.InvalidArgumentError) as cm:
            lib.call("samebits_attention_fingerprint", 0, buf, len(buf))
        self.assertEqual(cm.exception.message, "samebits_attention_fingerprint: buffer needs 55 bytes")
        self.assertEqual((cm.exception.status, cm.exception.function), (1, "samebits_attention_fingerprint"))
        self.assertIsInstance(cm.exception, ValueError)
        self.assertTrue(str(cm.exception).endswith("[SAMEBITS_INVALID_ARGUMENT]"))
        with self.assertRaises(errors.UnsupportedError) as cm:
            lib.call("samebits_sparse_mla_fingerprint", 5, C.create_string_buffer(100), 100)
        self.assertEqual(cm.exception.message, "samebits sparse-mla: libm code 5 unknown (0 nvcc, 1 cr, 2 nvcc-fast)")
        self.assertIsInstance(cm.exception, NotImplementedError)
        buf = C.create_string_buffer(55)  # control: exactly enough
        lib.call("samebits_attention_fingerprint", 0, buf, len(buf))
        self.assertEqual(buf.value, b"samebits-attention/1 policy=fma-chain/1 B=64 libm=nvcc")

    def test_problem_fingerprint_names_the_policy_and_model(self):
        lib = _lib.load()
        buf = C.create_string_buffer(256)
        p = _lib.AttentionProblem(libm=_lib.LIBM_CODES["cr"], policy=_lib.POLICY_CODES["sm90-tensor-core"])
        lib.call("samebits_attention_problem_fingerprint", C.byref(p), buf, len(buf))
        self.assertEqual(buf.value, b"samebits-attention/1 policy=sm90-tc/1(F=25,G=16,R=rz,C=first,Z=ignored,P=raw,"
                                    b"S=pos,O=inf,E=-133) Bk=128 libm=cr")
        m = _lib.MmaParams(frac_bits=24, group=16, zero_exponent=2)
        p.mma = C.addressof(m)
        lib.call("samebits_attention_problem_fingerprint", C.byref(p), buf, len(buf))
        self.assertIn(b"(F=24,G=16,R=rz,C=first,Z=m126,", buf.value)  # control: the parameters show
        p.policy = _lib.POLICY_CODES["fma-chain"]
        with self.assertRaises(errors.InvalidArgumentError) as cm:
            lib.call("samebits_attention_problem_fingerprint", C.byref(p), buf, len(buf))
        self.assertEqual(cm.exception.message, "samebits attention: mma is read only by policy sm90-tensor-core "
                                               "(pass null)")
        p.mma = None
        lib.call("samebits_attention_problem_fingerprint", C.byref(p), buf, len(buf))
        self.assertEqual(buf.value, b"samebits-attention/1 policy=fma-chain/1 B=64 libm=cr")


def workspace_model(tq, tk, hq, d):
    """c_api.h's layout, written again: [delta | accum_k | accum_v | dq_accum | dq_flags], 256-aligned parts."""
    if min(tq, tk, hq, d) < 0:
        return -1, -1, -1
    up = lambda n: (n + 255) // 256 * 256  # noqa: E731
    delta, accum, dqa, flags = up(4 * tq * hq), up(4 * tk * hq * d), up(4 * tq * hq * d), up(4 * (tq * hq + 1))
    total = delta + 2 * accum + dqa + flags
    if total >= 2**63:
        return -1, -1, -1
    return total, delta, delta + accum


class Workspace(unittest.TestCase):
    def test_attention_workspace_bytes_and_offsets(self):
        L = _lib.load().lib
        for args in [(10, 12, 8, 128), (0, 0, 1, 64), (1, 1, 1, 64), (1000, 3000, 32, 128), (7, 5, 3, 64),
                     (-1, 5, 3, 64), (2**40, 2**40, 65535, 128), (2**31, 2**31, 65535, 128)]:
            want = workspace_model(*args)
            got = (L.samebits_attention_backward_workspace_bytes(*args),
                   L.samebits_attention_backward_accum_offset(*args, 0),
                   L.samebits_attention_backward_accum_offset(*args, 1))
            self.assertEqual(got, want, args)
        self.assertNotEqual(workspace_model(10, 12, 8, 128), workspace_model(10, 12, 8, 64))  # control

    def test_stored_ds_workspace_bytes(self):
        # c_api.h: the parts above at a multiple of 256 bytes, then one 16 KiB D^S tile per
        # (sequence, 64-row query tile + 1, key block of 128, query head); -1 under fma-chain.
        L = _lib.load().lib
        for rows, hq, d in [(8, 4, 64), (4096, 32, 128), (130, 2, 128), (1, 1, 64)]:
            p = attention_problem(rows=rows, hq=hq, d=d)
            self.assertEqual(L.samebits_attention_backward_stored_ds_workspace_bytes(C.byref(p)), -1)  # fma-chain
            p.policy = 1
            base = workspace_model(rows, rows, hq, d)[0]
            tiles = ((rows + 63) // 64 + 1) * ((rows + 127) // 128) * hq
            want = (base + 255) // 256 * 256 + tiles * 16384
            self.assertEqual(L.samebits_attention_backward_stored_ds_workspace_bytes(C.byref(p)), want, (rows, hq, d))
        p.max_seqlen_q = -1  # control: a negative size is -1
        self.assertEqual(L.samebits_attention_backward_stored_ds_workspace_bytes(C.byref(p)), -1)

    def test_sparse_workspace_bytes(self):
        lib = _lib.load()
        from samebits import _validate as V
        plan = V.check_sparse_mla(V.desc((64, 16, 512), "bfloat16"), V.desc((200, 512), "bfloat16"),
                                  V.desc((64, 128), "int32"))
        p = _lib.sparse_problem(plan, indices=0x1000)
        n = lib.lib.samebits_sparse_mla_backward_workspace_bytes(C.byref(p))
        if lib.cuda:
            self.assertGreater(n, 0)
            self.assertEqual(n % 256, 0)
        else:
            self.assertEqual(n, -1)  # c_api.h: -1 when the library has no GPU kernels
        p.d = 96  # control: sizes out of range are -1 in either build
        self.assertEqual(lib.lib.samebits_sparse_mla_backward_workspace_bytes(C.byref(p)), -1)


# ---- float64 models ----------------------------------------------------------------

def attention64(q, k, v, dout, cu_q, cu_k, causal, scale):
    q, k, v, dout = (x.astype(np.float64) for x in (q, k, v, dout))
    hq, hkv = q.shape[1], k.shape[1]
    g = hq // hkv
    o, lse = np.zeros_like(q), np.full(q.shape[:2], -np.inf)
    dq, dk, dv = np.zeros_like(q), np.zeros_like(k), np.zeros_like(v)
    for (q0, q1), (k0, k1) in zip(zip(cu_q, cu_q[1:]), zip(cu_k, cu_k[1:])):
        lq, lk = q1 - q0, k1 - k0
        for h in range(hq):
            kh = h // g
            Q, K, V, DO = q[q0:q1, h], k[k0:k1, kh], v[k0:k1, kh], dout[q0:q1, h]
            s = scale * Q @ K.T
            if causal:
                mask = np.arange(lk)[None, :] > np.arange(lq)[:, None] + (lk - lq)
                s = np.where(mask, -np.inf, s)
            m = s.max(axis=1, keepdims=True)
            m = np.where(np.isfinite(m), m, 0)
            e = np.exp(s - m)
            l_ = e.sum(axis=1, keepdims=True)
            p = np.divide(e, l_, out=np.zeros_like(e), where=l_ > 0)
            O = p @ V
            o[q0:q1, h] = O
            lse[q0:q1, h] = np.where(l_[:, 0] > 0, m[:, 0] + np.log(np.where(l_[:, 0] > 0, l_[:, 0], 1)), -np.inf)
            dp = DO @ V.T
            ds = p * (dp - (DO * O).sum(axis=1, keepdims=True))
            dq[q0:q1, h] = scale * ds @ K
            dk[k0:k1, kh] += scale * ds.T @ Q
            dv[k0:k1, kh] += p.T @ DO
    return o, lse, dq, dk, dv


def sparse64(q, kv, idx, sink, dout, scale):
    q, kv, dout = (x.astype(np.float64) for x in (q, kv, dout))
    T, H, D = q.shape
    o, lse, lse_excl = np.zeros_like(q), np.zeros((T, H)), np.zeros((T, H))
    dq, dkv, dsink = np.zeros_like(q), np.zeros_like(kv), np.zeros(H)
    for t in range(T):
        rows = [r for r in idx[t] if r >= 0]
        Kt = kv[rows] if rows else np.zeros((0, D))
        for h in range(H):
            s = scale * Kt @ q[t, h]
            sk = -np.inf if sink is None else float(sink[h])
            m = max(s.max() if len(s) else -np.inf, sk)
            if not np.isfinite(m):
                lse[t, h] = lse_excl[t, h] = -np.inf
                continue
            e = np.exp(s - m)
            l_ex = e.sum()
            l_ = l_ex + (np.exp(sk - m) if sink is not None else 0.0)
            p = e / l_
            o[t, h] = p @ Kt
            lse[t, h] = m + np.log(l_)
            lse_excl[t, h] = m + np.log(l_ex) if l_ex > 0 else -np.inf
            delta = float(dout[t, h] @ o[t, h])
            dp = Kt @ dout[t, h]
            ds = p * (dp - delta)
            dq[t, h] = scale * ds @ Kt
            for j, r in enumerate(rows):
                dkv[r] += scale * ds[j] * q[t, h] + p[j] * dout[t, h]
            if sink is not None:
                dsink[h] -= np.exp(sk - lse[t, h]) * delta
    return o, lse, lse_excl, dq, dkv, dsink


def rel_err(x, ref):
    """max |x - ref| / max |ref| over finite entries; inf where the classes differ."""
    x, ref = np.asarray(x, np.float64), np.asarray(ref, np.float64)
    fin = np.isfinite(ref)
    if not np.array_equal(fin, np.isfinite(x)) or not np.array_equal(x[~fin], ref[~fin]):
        return np.inf
    scale = np.abs(ref[fin]).max() if fin.any() else 1.0
    return float(np.abs(x[fin] - ref[fin]).max() / scale) if fin.any() else 0.0


BOUND = 1e-5  # binary32 chains of length <= 64 on N(0, 1) data: measured errors are ~1e-7


def bits(x):
    return np.ascontiguousarray(x).view(np.uint32 if x.dtype == np.float32 else np.uint64)


class References(unittest.TestCase):
    def setUp(self):
        self.rng = np.random.default_rng(18)

    def randn(self, *shape):
        return self.rng.standard_normal(shape).astype(np.float32)

    def test_attention_forward_backward_vs_float64(self):
        cu_q, cu_k = [0, 5, 5, 17], [0, 9, 12, 30]
        q, k, v = self.randn(17, 4, 64), self.randn(30, 2, 64), self.randn(30, 2, 64)
        do = self.randn(17, 4, 64)
        for causal in (True, False):
            for libm in ("nvcc", "cr"):
                o, lse = R.attention_forward(q, k, v, causal=causal, cu_seqlens=cu_q, cu_seqlens_k=cu_k, libm=libm)
                dq, dk, dv = R.attention_backward(q, k, v, o, do, lse, causal=causal, cu_seqlens=cu_q,
                                                  cu_seqlens_k=cu_k, libm=libm)
                ref = attention64(q, k, v, do, cu_q, cu_k, causal, float(np.float32(1 / np.sqrt(64))))
                for name, got, want in zip(("o", "lse", "dq", "dk", "dv"), (o, lse, dq, dk, dv), ref):
                    self.assertLess(rel_err(got, want), BOUND, (name, causal, libm))
                # Negative control: one element off by 1e-4 of the scale is seen.
                bad = o.copy()
                bad[3, 1, 7] += 1e-4 * np.abs(o).max()
                self.assertGreater(rel_err(bad, ref[0]), BOUND)

    def test_attention_layouts_threads_and_libms(self):
        q, k, v = self.randn(2, 9, 4, 128), self.randn(2, 9, 4, 128), self.randn(2, 9, 4, 128)
        o4, l4 = R.attention_forward(q, k, v, causal=True)
        o3, l3 = R.attention_forward(q.reshape(18, 4, 128), k.reshape(18, 4, 128), v.reshape(18, 4, 128), causal=True,
                                     cu_seqlens=[0, 9, 18], threads=1)
        self.assertTrue(np.array_equal(bits(o4).reshape(-1), bits(o3).reshape(-1)))
        self.assertTrue(np.array_equal(bits(l4).reshape(-1), bits(l3).reshape(-1)))
        oc, _ = R.attention_forward(q, k, v, causal=True, libm="cr")
        self.assertFalse(np.array_equal(bits(o4), bits(oc)))  # control: the libms' bits differ here
        q2 = q.copy()
        q2.view(np.uint32)[1, 4, 2, 5] += 1 << 13  # one input changed by 2^-10 of itself
        o5, _ = R.attention_forward(q2, k, v, causal=True)
        diff = np.flatnonzero(bits(o5) != bits(o4))
        self.assertGreater(diff.size, 0)  # control: an input change shows in the bits ...
        self.assertTrue(all(np.unravel_index(i, o4.shape)[:3] == (1, 4, 2) for i in diff))  # ... only in its row

    def test_sparse_forward_backward_vs_float64(self):
        T, H, D, N = 6, 2, 128, 11
        q, kv, do = self.randn(T, H, D), self.randn(N, D), self.randn(T, H, D)
        idx = np.array([[0, 1, -1, 3, 3], [2, 10, -1, -1, 5], [-1] * 5, [8, 7, 6, 5, 4], [4, 0, 1, 2, 9],
                        [10, 10, 10, -1, 0]], np.int32)
        sink = np.array([0.5, -1.25], np.float32)
        scale = float(np.float32(1 / np.sqrt(128)))
        for s in (sink, None):
            for libm in ("nvcc", "cr"):
                o, lse, lse_excl = R.sparse_mla_forward(q, kv, idx, attn_sink=s, libm=libm)
                dq, dkv, dsink = R.sparse_mla_backward(q, kv, idx, o, do, lse, attn_sink=s, libm=libm)
                ref = sparse64(q, kv, idx, s, do, scale)
                got = (o, lse, lse_excl, dq, dkv) + ((dsink,) if s is not None else ())
                for name, g, w in zip(("o", "lse", "lse_excl", "dq", "dkv", "dsink"), got, ref):
                    self.assertLess(rel_err(g, w), BOUND, (name, libm, s is None))
                if s is None:
                    self.assertIsNone(dsink)
                # The fully masked row (token 2): o = +0, lse = sink or -inf, lse_excl = -inf.
                self.assertTrue(np.array_equal(bits(o[2]), np.zeros_like(bits(o[2]))))
                self.assertTrue(np.all(np.isneginf(lse_excl[2])))
                bad = dkv.copy()
                bad[10, 3] += 1e-4 * np.abs(dkv).max()
                self.assertGreater(rel_err(bad, ref[4]), BOUND)  # control

    def test_sparse_fewer_kv_rows_than_tokens(self):
        """num_kv < T (docs/kernels/sparse_mla.md §1: any num_kv; indices name kv rows): the reference
        computes it, equal to the float64 model; an index past num_kv - 1 is still refused."""
        T, H, D, N = 12, 2, 128, 5
        q, kv, do = self.randn(T, H, D), self.randn(N, D), self.randn(T, H, D)
        idx = (np.arange(T * 3, dtype=np.int32).reshape(T, 3) % (N + 1) - 1).astype(np.int32)  # -1 .. N-1
        o, lse, lse_excl = R.sparse_mla_forward(q, kv, idx)
        dq, dkv, _ = R.sparse_mla_backward(q, kv, idx, o, do, lse)
        ref = sparse64(q, kv, idx, None, do, float(np.float32(1 / np.sqrt(128))))
        for name, g, w in zip(("o", "lse", "dq", "dkv"), (o, lse, dq, dkv), (ref[0], ref[1], ref[3], ref[4])):
            self.assertLess(rel_err(g, w), BOUND, name)
        idx[4, 2] = N  # control
        with self.assertRaises(samebits.InvalidArgumentError):
            R.sparse_mla_forward(q, kv, idx)

    def test_sparse_index_refused_with_the_c_message(self):
        q, kv = self.randn(2, 2, 128), self.randn(4, 128)
        idx = np.array([[0, 1], [3, 4]], np.int32)
        with self.assertRaises(samebits.InvalidArgumentError) as cm:
            R.sparse_mla_forward(q, kv, idx)
        self.assertEqual(cm.exception.message, "samebits_sparse_mla_reference_forward: samebits sparse-mla: index 4 "
                                               "at token 1, slot 1 is outside -1 .. num_kv - 1 = 3")
        idx[1, 1] = -1  # control
        R.sparse_mla_forward(q, kv, idx)

    def test_python_checks_what_the_c_abi_cannot_see_the_library_the_rest(self):
        q = self.randn(10, 8, 64)
        with self.assertRaises(TypeError) as cm:  # a float64 array: Python's (the C ABI takes float32 pointers)
            R.attention_forward(q.astype(np.float64), q, q, causal=True)
        self.assertIn("q: dtype float64", str(cm.exception))
        self.assertNotIsInstance(cm.exception, samebits.SamebitsError)
        with self.assertRaises(samebits.InvalidArgumentError) as cm:  # GQA: the library's rule, its message
            R.attention_forward(q, self.randn(10, 3, 64), self.randn(10, 3, 64), causal=True)
        self.assertEqual(cm.exception.message, "samebits attention: hq = 8, hkv = 3: hq must be a multiple of hkv "
                                               "(GQA)")
        self.assertEqual(cm.exception.function, "samebits_attention_reference_forward")
        with self.assertRaises(samebits.InvalidArgumentError) as cm:  # scale 0: refused, never the default
            R.attention_forward(q, self.randn(10, 2, 64), self.randn(10, 2, 64), causal=True, scale=0.0)
        self.assertIn("samebits attention: scale = 0: an explicit scale must be finite and > 0", cm.exception.message)


# ---- the C validation reached directly --------------------------------------------

def attention_problem(**kw):
    n = 2
    cu = (C.c_int32 * n)(0, kw.get("rows", 8))
    p = _lib.AttentionProblem(num_seqs=1, max_seqlen_q=kw.get("rows", 8), max_seqlen_k=kw.get("rows", 8),
                              total_q=kw.get("rows", 8), total_k=kw.get("rows", 8), hq=kw.get("hq", 4),
                              hkv=kw.get("hkv", 2), d=kw.get("d", 64), causal=1, scale=kw.get("scale", _lib.DEFAULT_SCALE),
                              in_dtype=kw.get("in_dtype", 1), o_dtype=kw.get("in_dtype", 1), grad_dtype=1,
                              libm=kw.get("libm", 0), cu_seqlens_q=C.addressof(cu), cu_seqlens_k=C.addressof(cu),
                              cu_seqlens_q_host=C.addressof(cu), cu_seqlens_k_host=C.addressof(cu))
    p._keep = cu
    return p


class CValidation(unittest.TestCase):
    def setUp(self):
        self.lib = _lib.load()
        # host memory standing in for tensors (never written): one buffer per argument, as outputs
        # must not overlap inputs
        self.bufs = [np.zeros(1 << 14, np.float32) for _ in range(6)]

    def ref(self, p):
        a = [b.ctypes.data for b in self.bufs]
        self.lib.call("samebits_attention_reference_forward", C.byref(p), a[0], a[1], a[2], a[3], a[4], 1)

    def test_reference_refusals_carry_the_c_message(self):
        cases = [(dict(hq=3, hkv=2), errors.InvalidArgumentError,
                  "samebits attention: hq = 3, hkv = 2: hq must be a multiple of hkv (GQA)"),
                 (dict(d=96), errors.UnsupportedError, "samebits attention: d = 96: the head dim must be 64 or 128"),
                 (dict(libm=7), errors.UnsupportedError,
                  "samebits attention: libm code 7 unknown (0 nvcc, 1 cr, 2 nvcc-fast)"),
                 (dict(scale=0.0), errors.InvalidArgumentError,
                  "samebits attention: scale = 0: an explicit scale must be finite and > 0 (NaN: not given, the "
                  "default binary32 nearest 1/sqrt(D); 0 is refused, never read as the default)")]
        for kw, exc, msg in cases:
            with self.assertRaises(exc) as cm:
                self.ref(attention_problem(**kw))
            self.assertEqual(cm.exception.message, msg)
            self.assertEqual(cm.exception.function, "samebits_attention_reference_forward")
        self.ref(attention_problem())  # control: the valid problem passes

    def t3(self, rs, hs, i=0):
        return _lib.Tensor3(self.bufs[i].ctypes.data, rs, hs)

    def forward(self, p, q=None, lse=None, o=None):
        q = q or self.t3(p.hq * p.d, p.d, 0)
        k = self.t3(p.hkv * p.d, p.d, 1)
        self.lib.call("samebits_attention_forward", C.byref(p), q, k, k, o or self.t3(p.hq * p.d, p.d, 3),
                      self.bufs[4].ctypes.data if lse is None else lse, None)

    def test_gpu_entry_points(self):
        p = attention_problem()
        null_q = _lib.Tensor3(None, 256, 64)
        with self.assertRaises(errors.InvalidArgumentError) as cm:
            self.forward(p, q=null_q)
        self.assertEqual(cm.exception.message, "samebits attention: q is null")
        if not self.lib.cuda:
            with self.assertRaises(errors.NotBuiltError) as cm:
                self.forward(p)
            self.assertEqual(cm.exception.message, "samebits_attention_forward: this samebits library was built "
                                                   "without the CUDA kernels (configure with meson -Dcuda=enabled)")
            self.assertEqual(cm.exception.status, errors.NOT_BUILT)
            with self.assertRaises(errors.NotBuiltError):
                self.lib.call("samebits_sparse_mla_check_index_error", self.bufs[0].ctypes.data, None)
            # An output over an input: refused, naming both (the user's case: o over q).
            with self.assertRaises(errors.InvalidArgumentError) as cm:
                self.forward(p, o=self.t3(p.hq * p.d, p.d, 0))
            self.assertTrue(cm.exception.message.startswith("samebits attention: o overlaps q (bytes 0x"),
                            cm.exception.message)
            with self.assertRaises(errors.InvalidArgumentError) as cm:
                self.forward(p, lse=self.bufs[1].ctypes.data)
            self.assertIn("lse overlaps k", cm.exception.message)
        else:
            # Built with CUDA, run without a GPU: host memory is refused or the runtime fails; never OK.
            with self.assertRaises((errors.InvalidArgumentError, errors.CudaError)) as cm:
                self.forward(p)
            self.assertNotEqual(cm.exception.message, "samebits attention: q is null")

    @unittest.skipIf(_lib.load(LIB).cuda, "a library with the CUDA kernels asks the runtime about pointers")
    def test_strides_are_the_librarys_rule(self):
        """Python hands any strides on (the last dimension contiguous aside); the library accepts
        or refuses them, naming the tensor."""
        from samebits import _validate as V
        cases = [((256, 64), True), ((64, 512), True), ((300, 64), True), ((128, 64), False), ((256, 32), False),
                 ((0, 64), False), ((64, 64), False), ((512, 128), True)]
        for (rs, hs), accepted in cases:
            d = V.desc((8, 4, 64), "bfloat16", strides=(rs, hs, 1))
            plan = V.check_attention(d, V.desc((8, 2, 64), "bfloat16"), V.desc((8, 2, 64), "bfloat16"), causal=True)
            self.assertEqual(plan.strides3["q"], (rs, hs))
            try:
                self.forward(attention_problem(), q=self.t3(rs, hs))
                c = "ok"
            except errors.NotBuiltError:
                c = True  # the whole validation passed
            except errors.InvalidArgumentError as e:
                self.assertTrue(e.message.startswith("samebits attention: q: strides"), e.message)
                c = False
            self.assertEqual(c, accepted, (rs, hs))


if __name__ == "__main__":
    unittest.main(verbosity=1)
