#!/usr/bin/env python3
"""samebits.triton on the GPU: the same bits as the C++ functions, measured.

  python3 tests/device/triton/triton_bitwise.py LIBDIR OUTDIR [SECTION...]

LIBDIR holds libsb_ref.so and libsb_ref_ftz.so, built from
tests/device/triton/cxx_ref.cu with default flags and with -ftz=true
(tests/device/run_h200.sh triton does it). Sections (all by default):

  bitwise   every samebits.triton function vs the C++ function it claims,
            over all 2^32 float32 inputs, encodings compared (NaN bits and
            signed zeros count); plain tl.exp / tl.log / libdevice vs CUDA's
            own functions (the mismatch counts a user escapes); negative
            controls: one planted +1 ulp output must count exactly once, and
            nvcc.expf's text with its log2(e) constant moved by one ulp
            (0f3FB8AA3B -> 0f3FB8AA3C) must mismatch somewhere.
  context   F(x) + x in Triton and in CUDA C++, to see whether ptxas
            contracts the function's last multiply into the caller's add
            (SASS kept), with the shipped text and with the last multiply
            written mul.rn.f32.
  softmax   row softmax, 97,657 rows x 1024 (>= 10^8 elements), same
            reduction order in Triton and in CUDA C++ (cxx_ref.cu): Triton
            with samebits.triton.expf vs C++ with samebits::nvcc::expf, and
            Triton with tl.exp vs the same C++ (and vs C++ with __expf).
  bench     throughput of the exp/log options: a memory-bound pass and a
            compute-bound one (64 calls per element), median of
            triton.testing.do_bench, ratio to tl.exp / tl.log.
  amd       triton.compile for GPUTarget("hip", gfx942/gfx950, 64) of a
            kernel per samebits.triton.hipcc function, no GPU needed; the
            AMDGCN kept and searched for our instructions.

Prints one JSON line per result (also appended to OUTDIR/triton_bitwise.jsonl);
exit status 1 when a claim fails, 0 when all hold.
"""
import ctypes
import importlib.util
import json
import os
import sys
import tempfile
import time
import traceback

import torch
import triton
import triton.language as tl

import samebits.triton as sbt

SIX = ["expf", "exp2f", "exp10f", "logf", "log2f", "log10f"]
FAST = ["expf", "exp10f", "logf", "log2f"]
CHUNK = 1 << 29
BLOCK = 1024
ROWS, COLS = 97_657, 1024

OUTDIR = None
FAILED = False


def report(**kv):
    line = json.dumps(kv, sort_keys=False)
    print(line, flush=True)
    with open(os.path.join(OUTDIR, "triton_bitwise.jsonl"), "a") as f:
        f.write(line + "\n")


def claim(ok, **kv):
    global FAILED
    if not ok:
        FAILED = True
    report(ok=bool(ok), **kv)


# ---------------------------------------------------------------- kernels
# Kernels are generated as a module file, one per expression, so that each
# compiled kernel calls exactly one function (no constexpr function passing,
# which older Triton releases do not accept) and so that triton.compile can
# take them for an AMD target with a plain signature.

KERNEL_TEMPLATES = {
    "apply": '''
@triton.jit
def {name}(x_ptr, y_ptr, n):
    offs = tl.program_id(0).to(tl.int64) * 1024 + tl.arange(0, 1024)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, {expr}, mask=mask)
''',
    "context": '''
@triton.jit
def {name}(x_ptr, y_ptr, n):
    offs = tl.program_id(0).to(tl.int64) * 1024 + tl.arange(0, 1024)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, {expr} + x, mask=mask)
''',
    "heavy": '''
@triton.jit
def {name}(x_ptr, y_ptr, n):
    offs = tl.program_id(0).to(tl.int64) * 1024 + tl.arange(0, 1024)
    mask = offs < n
    x0 = tl.load(x_ptr + offs, mask=mask)
    acc = tl.zeros_like(x0)
    for i in tl.static_range(64):
        x = x0 + i * 0.0078125
        acc += {expr}
    tl.store(y_ptr + offs, acc, mask=mask)
''',
    # Row softmax in the order of cxx_ref.cu's softmax_kernel: max; e = EXP(x - m);
    # s = pairwise tree over adjacent elements (10 levels); y = e / s (div.rn).
    "softmax": '''
@triton.jit
def {name}(x_ptr, y_ptr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, 1024)
    v = tl.load(x_ptr + row * 1024 + offs)
    m = tl.max(v, axis=0)
    x = v - m
    e = {expr}
    t = _pair_level(e, 512)
    t = _pair_level(t, 256)
    t = _pair_level(t, 128)
    t = _pair_level(t, 64)
    t = _pair_level(t, 32)
    t = _pair_level(t, 16)
    t = _pair_level(t, 8)
    t = _pair_level(t, 4)
    t = _pair_level(t, 2)
    t = _pair_level(t, 1)
    s = tl.broadcast_to(t, [1024])
    tl.store(y_ptr + row * 1024 + offs, tl.math.div_rn(e, s))
''',
}

KERNEL_HEADER = '''
import triton
import triton.language as tl
{imports}
{definitions}


@triton.jit
def _pair_level(v, W: tl.constexpr):
    """One tree level: element i of the result is v[2i] + v[2i+1]."""
    a, b = tl.split(tl.reshape(v, [W, 2]))
    return a + b
'''


def import_line(alias, public_path):
    """`from MODULE import NAME as alias` for the jit function at sbt.PUBLIC_PATH."""
    obj = sbt
    for part in public_path.split("."):
        obj = getattr(obj, part)
    fn = getattr(obj, "fn", obj)
    return f"from {fn.__module__} import {fn.__name__} as {alias}"


class Kernels:
    """kinds x expressions -> compiled-on-first-use Triton kernels."""

    def __init__(self, tmpdir, tag):
        self.tmpdir = tmpdir
        self.tag = tag
        self.imports = []
        self.definitions = []  # module-level code after the imports, in order
        self.bodies = []
        self.count = 0
        self.module = None

    def add(self, kind, expr, imports=()):
        name = f"k{self.count}_{kind}"
        self.count += 1
        self.imports.extend(imports)
        self.bodies.append(KERNEL_TEMPLATES[kind].format(name=name, expr=expr))
        return name

    def build(self):
        modname = f"sb_kernels_{self.tag}"
        path = os.path.join(self.tmpdir, modname + ".py")
        text = KERNEL_HEADER.format(imports="\n".join(dict.fromkeys(self.imports)),
                                    definitions="\n".join(self.definitions)) + "".join(self.bodies)
        with open(path, "w") as f:
            f.write(text)
        spec = importlib.util.spec_from_file_location(modname, path)
        self.module = importlib.util.module_from_spec(spec)
        sys.modules[modname] = self.module
        spec.loader.exec_module(self.module)
        with open(os.path.join(OUTDIR, f"kernels_{self.tag}.py"), "w") as f:
            f.write(text)

    def __getitem__(self, name):
        return getattr(self.module, name)


def sb_expr(public_path):
    """(expression, imports) that call samebits.triton's function at PUBLIC_PATH on x."""
    alias = "sb_" + public_path.replace(".", "_")
    return f"{alias}(x)", [import_line(alias, public_path)]


LIBDEVICE_IMPORT = "from triton.language.extra import libdevice"
try:
    from triton.language.extra import libdevice as _libdevice  # noqa: F401
    HAVE_LIBDEVICE = True
except Exception:  # older/newer layouts: the libdevice rows are skipped, and said so
    HAVE_LIBDEVICE = False


# ---------------------------------------------------------------- the C++ side
class Ref:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.lib.sb_apply.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_longlong]
        self.lib.sb_apply.restype = ctypes.c_int
        self.lib.sb_softmax.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
        self.lib.sb_softmax.restype = ctypes.c_int
        self.path = path

    def apply(self, name, x, y):
        torch.cuda.synchronize()
        rc = self.lib.sb_apply(name.encode(), x.data_ptr(), y.data_ptr(), x.numel())
        if rc != 0:
            raise RuntimeError(f"{os.path.basename(self.path)}: sb_apply({name!r}) returned {rc}")

    def softmax(self, which, x, y):
        torch.cuda.synchronize()
        rc = self.lib.sb_softmax(which, x.data_ptr(), y.data_ptr(), x.shape[0])
        if rc != 0:
            raise RuntimeError(f"sb_softmax({which}) returned {rc}")


def launch(kernel, x, y):
    kernel[(triton.cdiv(x.numel(), BLOCK),)](x, y, x.numel())


def mismatches(a, b):
    """Number of differing encodings and up to 4 examples (index, a bits, b bits)."""
    d = a.view(torch.int32) != b.view(torch.int32)
    n = int(d.sum().item())
    ex = []
    if n:
        idx = torch.nonzero(d)[:4, 0]
        for i in idx.tolist():
            ex.append([i, int(a.view(torch.int32)[i].item()) & 0xFFFFFFFF, int(b.view(torch.int32)[i].item()) & 0xFFFFFFFF])
    return n, ex


def all_inputs_chunks():
    """Yields (base, x) with x's encodings base .. base + CHUNK - 1, covering 2^32."""
    ar = torch.arange(CHUNK, dtype=torch.int32, device="cuda")
    for c in range((1 << 32) // CHUNK):
        base = c * CHUNK
        signed = base - (1 << 32) if base >= 1 << 31 else base
        yield base, (ar + signed).view(torch.float32)


# ---------------------------------------------------------------- sections
def section_bitwise(ref, ref_ftz, tmpdir):
    ks = Kernels(tmpdir, "bitwise")
    # (label, kernel name, [(lib, C++ name, expected zero?)])
    pairs = []

    def sb(path, refs):
        expr, imp = sb_expr(path)
        pairs.append((f"samebits.triton.{path}", ks.add("apply", expr, imp), refs))

    for f in SIX:
        sb(f"nvcc.{f}", [(ref, f"nvcc.{f}", True), (ref, f"cuda.{f}", True)])
        sb(f"nvcc.ftz.{f}", [(ref, f"nvcc.ftz.{f}", True), (ref_ftz, f"cuda.{f}", True)])
        sb(f"cr.{f}", [(ref, f"cr.{f}", True)])
    for f in FAST:
        sb(f"nvcc.fast.{f}", [(ref, f"nvcc.fast.{f}", True), (ref, f"cuda.__{f}", True)])
    sb("expf", [(ref, "nvcc.expf", True)])  # the top-level alias
    pairs.append(("tl.exp", ks.add("apply", "tl.exp(x)"),
                  [(ref, "cuda.expf", False), (ref, "cuda.__expf", False), (ref_ftz, "cuda.expf", False)]))
    pairs.append(("tl.log", ks.add("apply", "tl.log(x)"),
                  [(ref, "cuda.logf", False), (ref_ftz, "cuda.logf", False), (ref, "cuda.__logf", False)]))
    if HAVE_LIBDEVICE:
        pairs.append(("libdevice.exp", ks.add("apply", "libdevice.exp(x)", [LIBDEVICE_IMPORT]), [(ref, "cuda.expf", False)]))
        pairs.append(("libdevice.log", ks.add("apply", "libdevice.log(x)", [LIBDEVICE_IMPORT]), [(ref, "cuda.logf", False)]))
    else:
        report(skipped="libdevice rows: triton.language.extra.libdevice not importable")
    # Negative control 2: the shipped text with one constant moved by one ulp.
    bad_src = sbt.nvcc._EXPF_PTX.value if hasattr(sbt.nvcc._EXPF_PTX, "value") else sbt.nvcc._EXPF_PTX
    bad = bad_src.replace("0f3FB8AA3B", "0f3FB8AA3C")
    assert bad != bad_src, "negative control: 0f3FB8AA3B not found in nvcc.expf's text"
    ks.definitions.append(f"_BAD_EXPF_PTX = tl.constexpr({bad!r})")
    ks.definitions.append('''
@triton.jit
def bad_expf(x):
    y = tl.inline_asm_elementwise(_BAD_EXPF_PTX, "=r,r", [x.to(tl.int32, bitcast=True)], dtype=tl.int32,
                                  is_pure=True, pack=1)
    return y.to(tl.float32, bitcast=True)''')
    pairs.append(("negative control: nvcc.expf with log2(e) + 1 ulp", ks.add("apply", "bad_expf(x)"),
                  [(ref, "nvcc.expf", "positive")]))
    ks.build()

    y_t = torch.empty(CHUNK, dtype=torch.float32, device="cuda")
    y_c = torch.empty_like(y_t)
    totals = {}
    planted_done = False
    t0 = time.time()
    for base, x in all_inputs_chunks():
        for label, kname, refs in pairs:
            launch(ks[kname], x, y_t)
            for lib, cname, expect in refs:
                lib.apply(cname, x, y_c)
                n, ex = mismatches(y_t, y_c)
                key = (label, os.path.basename(lib.path), cname)
                tot = totals.setdefault(key, {"n": 0, "examples": [], "expect": expect})
                tot["n"] += n
                for e in ex:
                    if len(tot["examples"]) < 4:
                        tot["examples"].append([e[0] + base, hex(e[0] + base), hex(e[1]), hex(e[2])])
                if not planted_done and label == "samebits.triton.nvcc.expf" and cname == "nvcc.expf":
                    # Negative control 1: one planted +1 ulp output at a finite nonzero input.
                    i = 0x3F800000 - base if base <= 0x3F800000 < base + CHUNK else None
                    if i is not None:
                        planted = y_t.clone()
                        pv = planted.view(torch.int32)
                        pv[i] = pv[i] + 1
                        n2, _ = mismatches(planted, y_c)
                        claim(n2 == n + 1, check="negative control: one planted +1 ulp output (x = 1.0f) counted once",
                              before=n, after=n2)
                        planted_done = True
                        del planted
        report(progress=f"chunk at {hex(base)} done", seconds=round(time.time() - t0, 1))
    for (label, lib, cname), tot in totals.items():
        n, expect = tot["n"], tot["expect"]
        who = f"{cname} ({'-ftz=true' if 'ftz' in lib else 'default flags'})"
        if expect is True:
            claim(n == 0, check=f"{label} vs C++ {who}, all 2^32 inputs", mismatches=n, examples=tot["examples"])
        elif expect == "positive":
            claim(n > 0, check=f"{label} vs C++ {who}: must mismatch", mismatches=n, examples=tot["examples"])
        else:
            report(measure=f"{label} vs C++ {who}, all 2^32 inputs", mismatches=n,
                   share=n / float(1 << 32), examples=tot["examples"])
    claim(planted_done, check="negative control 1 ran")


def section_context(ref, tmpdir):
    """F(x) + x: does the caller's add absorb F's last multiply (FFMA), and does it matter?

    expf/exp10f end with a multiply by 2^k (exact unless the result is
    subnormal); nvcc.fast.logf ends with lg2(x) * ln2, an inexact multiply."""
    ks = Kernels(tmpdir, "context")
    rows = []
    funcs = [("expf", "nvcc.expf", sbt.nvcc, "_EXPF_PTX", "cuda.expf"),
             ("exp10f", "nvcc.exp10f", sbt.nvcc, "_EXP10F_PTX", "cuda.exp10f"),
             ("fast.logf", "nvcc.fast.logf", sbt.nvcc.fast, "_LOGF_PTX", "cuda.__logf")]
    for f, path, mod, const_name, cuda_name in funcs:
        expr, imp = sb_expr(path)
        rows.append((f, path, cuda_name, "shipped text", ks.add("context", expr, imp)))
        src = getattr(mod, const_name)
        src = src.value if hasattr(src, "value") else src
        last = src.rfind("mul.f32 ")
        assert last >= 0, f"{path}: no mul.f32 in its text"
        rn = src[:last] + "mul.rn.f32 " + src[last + len("mul.f32 "):]
        alias = f"rn_{f.replace('.', '_')}"
        const = f"_RN_{alias.upper()}_PTX"
        ks.definitions.append(f"{const} = tl.constexpr({rn!r})")
        ks.definitions.append(f'''
@triton.jit
def {alias}(x):
    y = tl.inline_asm_elementwise({const}, "=r,r", [x.to(tl.int32, bitcast=True)], dtype=tl.int32,
                                  is_pure=True, pack=1)
    return y.to(tl.float32, bitcast=True)''')
        rows.append((f, path, cuda_name, "last multiply mul.rn.f32", ks.add("context", f"{alias}(x)")))
        rows.append((f, path, cuda_name, "last multiply mul.rn.f32, alone", ks.add("apply", f"{alias}(x)")))
    ks.build()
    y_t = torch.empty(CHUNK, dtype=torch.float32, device="cuda")
    y_c = torch.empty_like(y_t)
    totals = {}

    def add(key, n):
        totals[key] = totals.get(key, 0) + n

    for base, x in all_inputs_chunks():
        for f, path, cuda_name, variant, kname in rows:
            handle = ks[kname][(triton.cdiv(CHUNK, BLOCK),)](x, y_t, CHUNK)
            if base == 0:
                for kind in ("ptx", "sass"):
                    try:
                        text = handle.asm[kind]  # "sass" is made on request (cuobjdump)
                    except Exception as e:
                        text = f"unavailable: {e}"
                    with open(os.path.join(OUTDIR, f"context_{kname}.{kind}"), "w") as fh:
                        fh.write(text if isinstance(text, str) else text.decode())
            cnames = [path] if variant.endswith("alone") else [f"ctx.{path}", f"ctxrn.{path}", f"ctx.{cuda_name}"]
            for cname in cnames:
                ref.apply(cname, x, y_c)
                add((f"Triton {path} [{variant}]", cname), mismatches(y_t, y_c)[0])
        # CUDA C++ among itself: plain F(x) + x vs __fadd_rn(F(x), x)
        for f, path, cuda_name, _, _ in rows[::3]:
            ref.apply(f"ctxrn.{path}", x, y_c)
            for plain in (f"ctx.{path}", f"ctx.{cuda_name}"):
                ref.apply(plain, x, y_t)
                add((f"C++ {plain}", f"ctxrn.{path}"), mismatches(y_t, y_c)[0])
    for (who, cname), n in totals.items():
        report(measure=f"context F(x) + x: {who} vs C++ {cname}, all 2^32 inputs", mismatches=n)


def section_softmax(ref, tmpdir):
    ks = Kernels(tmpdir, "softmax")
    expr, imp = sb_expr("expf")
    k_sb = ks.add("softmax", expr, imp)
    k_tl = ks.add("softmax", "tl.exp(x)")
    expr_f, imp_f = sb_expr("nvcc.fast.expf")
    k_fast = ks.add("softmax", expr_f, imp_f)
    ks.build()
    g = torch.Generator(device="cuda")
    g.manual_seed(20261204)
    x = torch.randn(ROWS, COLS, generator=g, device="cuda", dtype=torch.float32) * 3.0
    n_el = ROWS * COLS
    y_c0 = torch.empty_like(x)
    y_c1 = torch.empty_like(x)
    ref.softmax(0, x, y_c0)
    ref.softmax(1, x, y_c1)
    outs = {}
    for label, kname in [("samebits.triton.expf", k_sb), ("tl.exp", k_tl), ("samebits.triton.nvcc.fast.expf", k_fast)]:
        y = torch.empty_like(x)
        ks[kname][(ROWS,)](x, y, num_warps=4)
        outs[label] = y
    n, ex = mismatches(outs["samebits.triton.expf"].view(-1), y_c0.view(-1))
    claim(n == 0, check=f"softmax {ROWS}x{COLS} ({n_el} elements): Triton + samebits.triton.expf vs CUDA C++ + samebits::nvcc::expf",
          mismatches=n, examples=ex)
    n, ex = mismatches(outs["tl.exp"].view(-1), y_c0.view(-1))
    report(measure=f"softmax {ROWS}x{COLS}: Triton + tl.exp vs CUDA C++ + samebits::nvcc::expf (= CUDA expf)",
           mismatches=n, share=n / n_el, examples=ex)
    n, ex = mismatches(outs["tl.exp"].view(-1), y_c1.view(-1))
    report(measure=f"softmax {ROWS}x{COLS}: Triton + tl.exp vs CUDA C++ + __expf", mismatches=n, share=n / n_el, examples=ex)
    n, ex = mismatches(outs["samebits.triton.nvcc.fast.expf"].view(-1), y_c1.view(-1))
    claim(n == 0, check=f"softmax {ROWS}x{COLS}: Triton + samebits.triton.nvcc.fast.expf vs CUDA C++ + __expf",
          mismatches=n, examples=ex)
    planted = outs["samebits.triton.expf"].clone().view(-1)
    planted.view(torch.int32)[12345] += 1
    n, _ = mismatches(planted, y_c0.view(-1))
    claim(n == 1, check="softmax negative control: one planted +1 ulp element counted once", mismatches=n)
    # The rows are probability vectors: a sanity check on the harness itself.
    s = y_c0.double().sum(dim=1)
    report(measure="softmax row sums (C++), max |sum - 1|", value=float((s - 1).abs().max().item()))
    ms = {}
    for label, kname in [("samebits.triton.expf", k_sb), ("tl.exp", k_tl)]:
        y = outs[label]
        ms[label] = triton.testing.do_bench(lambda: ks[kname][(ROWS,)](x, y, num_warps=4), warmup=25, rep=200,
                                            return_mode="median")
    report(bench="softmax 97657x1024 fp32, median ms (do_bench)", ms=ms,
           ratio_samebits_over_tl_exp=ms["samebits.triton.expf"] / ms["tl.exp"],
           gbytes_per_s={k: 2 * n_el * 4 / (v * 1e-3) / 1e9 for k, v in ms.items()})


def section_bench(tmpdir):
    ks = Kernels(tmpdir, "bench")
    opts = {
        "exp": [("tl.exp", "tl.exp(x)", [])]
        + ([("libdevice.exp", "libdevice.exp(x)", [LIBDEVICE_IMPORT])] if HAVE_LIBDEVICE else [])
        + [(f"samebits.triton.{p}", *sb_expr(p)) for p in ["nvcc.expf", "nvcc.fast.expf", "cr.expf"]],
        "log": [("tl.log", "tl.log(x)", [])]
        + ([("libdevice.log", "libdevice.log(x)", [LIBDEVICE_IMPORT])] if HAVE_LIBDEVICE else [])
        + [(f"samebits.triton.{p}", *sb_expr(p)) for p in ["nvcc.logf", "nvcc.fast.logf", "cr.logf"]],
    }
    names = {}
    for op, lst in opts.items():
        for label, expr, imp in lst:
            names[(op, label, "memory")] = ks.add("apply", expr, imp)
            names[(op, label, "compute")] = ks.add("heavy", expr, imp)
    ks.build()
    n = 1 << 26
    g = torch.Generator(device="cuda")
    g.manual_seed(7)
    xs = {"exp": torch.rand(n, generator=g, device="cuda") * 16 - 8,
          "log": torch.rand(n, generator=g, device="cuda") * 100 + 0.5}
    y = torch.empty(n, device="cuda")
    for op in opts:
        for mode in ("memory", "compute"):
            res = {}
            for label, _, _ in opts[op]:
                k = ks[names[(op, label, mode)]]
                res[label] = triton.testing.do_bench(lambda: launch(k, xs[op], y), warmup=25, rep=300, return_mode="median")
            base = res[opts[op][0][0]]
            calls = n * (64 if mode == "compute" else 1)
            report(bench=f"{op}, {mode}-bound, {n} elements" + (" x 64 calls" if mode == "compute" else ""),
                   median_ms=res, ratio_to_plain={k: v / base for k, v in res.items()},
                   gcalls_per_s={k: calls / (v * 1e-3) / 1e9 for k, v in res.items()},
                   gbytes_per_s={k: 8 * n / (v * 1e-3) / 1e9 for k, v in res.items()})


def section_amd(tmpdir):
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    ks = Kernels(tmpdir, "amd")
    mods = {"hipcc": SIX, "hipcc.afn": ["expf", "exp2f", "exp10f", "logf", "log2f", "log10f"],
            "hipcc.daz": SIX, "hipcc.triton": ["expf", "logf"]}
    todo = []
    for mod, fns in mods.items():
        m = sbt
        for part in mod.split("."):
            m = getattr(m, part)
        for f in fns:
            if not hasattr(m, f):
                continue
            expr, imp = sb_expr(f"{mod}.{f}")
            todo.append((f"{mod}.{f}", ks.add("apply", expr, imp)))
    todo.append(("tl.exp (Triton's own lowering)", ks.add("apply", "tl.exp(x)")))
    todo.append(("tl.log (Triton's own lowering)", ks.add("apply", "tl.log(x)")))
    ks.build()
    ok_all = True
    for arch in ("gfx942", "gfx950"):
        texts = []
        for label, kname in todo:
            try:
                src = ASTSource(fn=ks[kname], signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i64"},
                                constexprs={})
                ck = triton.compile(src, target=GPUTarget("hip", arch, 64))
                gcn = ck.asm.get("amdgcn", "")
                gcn = gcn if isinstance(gcn, str) else gcn.decode()
                texts.append(f"// ===== {label} ({kname})\n{gcn}")
                has_exp = "v_exp_f32" in gcn
                has_log = "v_log_f32" in gcn
                report(amd=arch, function=label, compiled=True, amdgcn_chars=len(gcn), has_v_exp_f32=has_exp,
                       has_v_log_f32=has_log, hsaco_bytes=len(ck.asm.get("hsaco", b"")))
            except Exception as e:
                ok_all = False
                report(amd=arch, function=label, compiled=False, error=f"{type(e).__name__}: {e}"[:2000])
        with open(os.path.join(OUTDIR, f"amd_{arch}.amdgcn"), "w") as fh:
            fh.write("\n".join(texts))
    report(amd="summary", all_compiled=ok_all)


def main():
    global OUTDIR
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    libdir, OUTDIR = sys.argv[1], sys.argv[2]
    sections = sys.argv[3:] or ["bitwise", "context", "softmax", "bench", "amd"]
    known = {"bitwise", "context", "softmax", "bench", "amd"}
    bad = [s for s in sections if s not in known]
    if bad:
        print(f"unknown section(s): {bad}; known: {sorted(known)}", file=sys.stderr)
        return 2
    os.makedirs(OUTDIR, exist_ok=True)
    report(versions={"triton": triton.__version__, "torch": torch.__version__,
                     "gpu": torch.cuda.get_device_name(0), "samebits.triton": sbt.__file__})
    ref = Ref(os.path.join(libdir, "libsb_ref.so"))
    ref_ftz = Ref(os.path.join(libdir, "libsb_ref_ftz.so"))
    tmpdir = tempfile.mkdtemp(prefix="sb_triton_")
    sys.path.insert(0, tmpdir)
    for s in sections:
        t0 = time.time()
        report(section=s, start=True)
        try:
            if s == "bitwise":
                section_bitwise(ref, ref_ftz, tmpdir)
            elif s == "context":
                section_context(ref, tmpdir)
            elif s == "softmax":
                section_softmax(ref, tmpdir)
            elif s == "bench":
                section_bench(tmpdir)
            elif s == "amd":
                section_amd(tmpdir)
        except Exception as e:
            global FAILED
            FAILED = True
            report(section=s, error=f"{type(e).__name__}: {e}", traceback=traceback.format_exc()[-4000:])
        report(section=s, seconds=round(time.time() - t0, 1))
    report(done=True, all_claims_hold=not FAILED)
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
