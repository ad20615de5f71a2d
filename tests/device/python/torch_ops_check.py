#!/usr/bin/env python3
"""samebits.torch on the GPU (issue 18, "Must show" 1 and 3): one JSON object per check in
OUTDIR/torch_ops_check.jsonl, a line per check on stdout, exit status 1 when a check fails.

    SAMEBITS_KERNELS_LIB=build-device/kernels/libsamebits_kernels.so \\
        python3 tests/device/python/torch_ops_check.py OUTDIR [--full] [--libm nvcc|cr|both]

Needs torch (>= 2.4) with a CUDA GPU and the C ABI library built with the CUDA kernels
(a Meson build with -Dcuda=enabled). Checks:

  bitwise   samebits.torch.attention and .sparse_mla, forward (o, lse[, lse_excl]) and backward
            through torch.autograd.grad (dq, dk, dv / dq, dkv, d_sink), against
            (a) the C ABI called directly through samebits._device (samebits._lib's binding, which
                tests/python/test_lib.py checks against c_api.h: the C++ host API path), and
            (b) the CPU reference (samebits.reference, the C ABI's reference entry points) on the
                inputs widened exactly, its outputs rounded to the kernels' output dtype;
            every count must be 0, and each comparison has a negative control (one flipped bit in a
            copy is reported as exactly 1 mismatch).
  opcheck   torch.library.opcheck on samebits::attention_fwd/_bwd and sparse_mla_fwd/_bwd.
  float64   the gradients against torch autograd through a float64 implementation of the same
            math (gradcheck-style; these ops have no float64 form): normwise error
            max|x - ref| / max|ref| at most TOL_BF16 = 1e-2 for bfloat16 outputs (their rounding
            alone is up to 2^-8 = 3.9e-3 of an element) and TOL_F32 = 1e-5 for float32 ones; control:
            one gradient element moved by 10 x the tolerance x max|ref| fails the bound.
  compile   torch.compile of a small module calling samebits.torch.attention: o and the gradients
            bitwise equal to eager (and fullgraph=True, recorded, not required).
  stream    the ops on a side stream give the same bits as on the default stream.
  errors    a CPU tensor, a misshapen input and an out-of-range top-k index (device flag and host
            check) are refused by name.

Default shapes are small (seconds); --full adds the issue's: attention at Qwen3-8B shapes (Hq=32,
Hkv=8, D=128, bf16, causal) for S in {128, 1000, 4096}, sparse MLA at T=4096, H=128, topk=512,
D=512 (the CPU reference only up to --reference-max-rows rows, the host API always).
"""
import argparse
import json
import math
import os
import sys
import time
import traceback

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "python"))
import samebits  # noqa: E402
import samebits.torch as sbt  # noqa: E402
from samebits import reference as R  # noqa: E402
from samebits._device import BF16, Samebits, SparseMla  # noqa: E402  (the C ABI called directly)

DEV = torch.device("cuda")
TOL_BF16, TOL_F32 = 1e-2, 1e-5
CODES = {torch.bfloat16: BF16, torch.float16: 2, torch.float32: 0}


# ---- bits -------------------------------------------------------------------------------

def as_int(x):
    x = x.detach().contiguous()
    return x.view({2: torch.int16, 4: torch.int32, 8: torch.int64}[x.element_size()])


def mismatches(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return -1  # reported as a failure: a shape or dtype difference is not a count
    return int((as_int(a).cpu() != as_int(b).cpu()).sum())


def control(a):
    """A copy of a with one bit flipped: compared with a it must give exactly 1 mismatch."""
    c = a.detach().clone().contiguous()
    iv = as_int(c).view(-1)
    iv[iv.numel() // 3] ^= 1
    return mismatches(a, c) == 1


# ---- float64 models ------------------------------------------------------------------------

def pairs(cu):
    return list(zip(cu, cu[1:]))


def attention_f64(q, k, v, cu_q, cu_k, causal, scale):
    """q [Tq, Hq, D], k, v [Tk, Hkv, D] float64 (autograd through torch)."""
    g = q.shape[1] // k.shape[1]
    outs = []
    for (q0, q1), (k0, k1) in zip(pairs(cu_q), pairs(cu_k)):
        Q = q[q0:q1].transpose(0, 1)
        K = k[k0:k1].repeat_interleave(g, dim=1).transpose(0, 1)
        V = v[k0:k1].repeat_interleave(g, dim=1).transpose(0, 1)
        s = scale * Q @ K.transpose(-1, -2)
        lq, lk = q1 - q0, k1 - k0
        if causal:
            mask = torch.arange(lk, device=q.device)[None, :] > torch.arange(lq, device=q.device)[:, None] + (lk - lq)
            s = s.masked_fill(mask, float("-inf"))
        outs.append((torch.softmax(s, -1) @ V).transpose(0, 1))
    return torch.cat(outs)


def sparse_f64(q, kv, idx, sink, scale):
    """q [T, H, D], kv [N, D] float64, idx [T, k] (-1 holes), sink [H] float64 or None."""
    kvg = kv[idx.clamp(min=0).long()]  # [T, k, D]
    s = torch.einsum("thd,tkd->thk", q, kvg) * scale
    s = s.masked_fill((idx < 0)[:, None, :], float("-inf"))
    if sink is not None:
        m = torch.maximum(s.amax(-1, keepdim=True), sink[None, :, None])
        e = torch.exp(s - m)
        l_ = e.sum(-1, keepdim=True) + torch.exp(sink[None, :, None] - m)
    else:
        m = s.amax(-1, keepdim=True)
        e = torch.exp(s - m)
        l_ = e.sum(-1, keepdim=True)
    return torch.einsum("thk,tkd->thd", e / l_, kvg)


def normwise(x, ref):
    x, ref = x.double().flatten(), ref.double().flatten()
    return float((x - ref).abs().max() / ref.abs().max())


# ---- the run -------------------------------------------------------------------------------

class Run:
    def __init__(self, outdir):
        self.out = open(os.path.join(outdir, "torch_ops_check.jsonl"), "w")
        self.failures = 0

    def report(self, section, check, ok, required=True, **extra):
        self.failures += bool(required and not ok)
        row = {"section": section, "check": check, "ok": bool(ok), "required": required, **extra}
        print(json.dumps(row), file=self.out, flush=True)
        tag = "ok  " if ok else ("FAIL" if required else "note")
        detail = {k: v for k, v in extra.items() if k in ("mismatches", "error", "normwise", "tolerance")}
        print(f"{tag} {section:8} {check:70} {json.dumps(detail)[:200]}", flush=True)

    def bitwise(self, section, check, got, want, **extra):
        """got, want: dicts name -> tensor. One row: mismatches per name, and the control."""
        mm = {n: mismatches(got[n], want[n]) for n in want}
        ctrl = control(next(iter(got.values())))
        self.report(section, check, all(v == 0 for v in mm.values()) and ctrl, mismatches=mm, control_caught=ctrl,
                    **extra)


def randn(shape, dtype, g):
    return torch.randn(*shape, generator=g, device=DEV, dtype=torch.float32).to(dtype)


def attention_case(run, sb, name, cu_q, cu_k, hq, hkv, d, causal, libm, dtype, g, batch=None, reference=True,
                   f64=True, policy="fma-chain", stored_ds=False):
    tq, tk = cu_q[-1], cu_k[-1]
    q, k, v, do = randn((tq, hq, d), dtype, g), randn((tk, hkv, d), dtype, g), randn((tk, hkv, d), dtype, g), \
        randn((tq, hq, d), dtype, g)
    info = dict(case=name, libm=libm, dtype=str(dtype), cu_q=cu_q if len(cu_q) < 10 else len(cu_q) - 1,
                cu_k=cu_k if len(cu_k) < 10 else len(cu_k) - 1, hq=hq, hkv=hkv, d=d, causal=causal, policy=policy,
                stored_ds=stored_ds)
    sds = {"stored_ds": True} if stored_ds else {}  # the op's backward from stored D^S (attention-tc.md §21)
    # samebits.torch, forward and autograd backward.
    qr, kr, vr = (x.clone().requires_grad_() for x in (q, k, v))
    t0 = time.time()
    if batch is not None:
        b, sq, sk = batch
        o4, lse4 = sbt.attention(qr.view(b, sq, hq, d), kr.view(b, sk, hkv, d), vr.view(b, sk, hkv, d), causal=causal,
                                 libm=libm, return_lse=True, policy=policy, **sds)
        o, lse = o4.reshape(tq, hq, d), lse4.reshape(tq, hq)
    else:
        o, lse = sbt.attention(qr, kr, vr, causal=causal, cu_seqlens=cu_q, cu_seqlens_k=cu_k, libm=libm,
                               return_lse=True, policy=policy, **sds)
    dq, dk, dv = torch.autograd.grad(o, (qr, kr, vr), do)
    torch.cuda.synchronize()
    ours = {"o": o.detach(), "lse": lse.detach(), "dq": dq, "dk": dk, "dv": dv}
    info["op_seconds"] = time.time() - t0
    # The C ABI called directly (samebits._device: the raw calls, not samebits.torch's layer).
    p = sb.problem(tq, hq, hkv, d, libm, DEV, causal, list(cu_q), list(cu_k), dtype=CODES[dtype])
    p.policy = 1 if policy == "sm90-tensor-core" else 0
    o2, lse2 = torch.empty_like(q), torch.empty(tq, hq, device=DEV)
    sb.forward(p, q, k, v, o2, lse2)
    dq2, dk2, dv2 = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
    sb.backward(p, q, k, v, o2, do, lse2, dq2, dk2, dv2, sb.workspace(p))
    torch.cuda.synchronize()
    run.bitwise("bitwise", f"attention {name} == C ABI direct (host API path)", ours,
                {"o": o2, "lse": lse2, "dq": dq2, "dk": dk2, "dv": dv2}, **info)
    if reference:
        t0 = time.time()
        qf, kf, vf, dof = (x.float().cpu().numpy() for x in (q, k, v, do))
        pol = {} if policy == "fma-chain" else {"policy": policy, "input_dtype": str(dtype).replace("torch.", "")}
        ro, rl = R.attention_forward(qf, kf, vf, causal=causal, cu_seqlens=list(cu_q), cu_seqlens_k=list(cu_k),
                                     libm=libm, **pol)
        o_stored = torch.from_numpy(ro).to(dtype).float().numpy()  # o as the kernels store it
        rdq, rdk, rdv = R.attention_backward(qf, kf, vf, o_stored, dof, rl, causal=causal, cu_seqlens=list(cu_q),
                                             cu_seqlens_k=list(cu_k), libm=libm, **pol)
        want = {"o": torch.from_numpy(ro).to(dtype), "lse": torch.from_numpy(rl), "dq": torch.from_numpy(rdq).to(dtype),
                "dk": torch.from_numpy(rdk).to(dtype), "dv": torch.from_numpy(rdv).to(dtype)}
        run.bitwise("bitwise", f"attention {name} == CPU reference", {n: t.cpu() for n, t in ours.items()}, want,
                    reference_seconds=time.time() - t0, **info)
    if f64:
        scale = float(torch.tensor(1.0 / math.sqrt(d), dtype=torch.float32))
        q64, k64, v64 = (x.double().requires_grad_() for x in (q, k, v))
        o64 = attention_f64(q64, k64, v64, cu_q, cu_k, causal, scale)
        g64 = torch.autograd.grad(o64, (q64, k64, v64), do.double())
        tol = TOL_F32 if dtype == torch.float32 else TOL_BF16
        errs = {n: normwise(x, r) for n, x, r in zip(("o", "dq", "dk", "dv"), (o, dq, dk, dv), (o64,) + g64)}
        bad = dq.double().clone()
        bad.view(-1)[bad.numel() // 2] += 10 * tol * float(g64[0].abs().max())
        ctrl = normwise(bad, g64[0]) > tol
        run.report("float64", f"attention {name}: gradients vs torch autograd in float64",
                   all(e <= tol for e in errs.values()) and ctrl, normwise=errs, tolerance=tol, control_caught=ctrl,
                   **info)
    return q, k, v, do


def sparse_inputs(T, H, D, topk, pool, window, g, holes=True):
    nkv = T + pool
    q, kv, do = randn((T, H, D), torch.bfloat16, g), randn((nkv, D), torch.bfloat16, g), randn((T, H, D), torch.bfloat16, g)
    sink = torch.randn(H, generator=g, device=DEV)
    t = torch.arange(T, device=DEV)[:, None]
    win = t - torch.arange(window, device=DEV)[None, :]
    pool_idx = torch.randint(T, nkv, (T, topk - window), device=DEV, generator=g)
    idx = torch.cat([win, pool_idx], 1)
    idx = torch.where(idx < 0, torch.full_like(idx, -1), idx)
    if holes:
        idx[::7, -5:] = -1                  # holes at the end of a list
        if T > 3:
            idx[3, :] = -1                   # a fully masked row (the sink alone)
        idx[1::11, 2] = idx[1::11, 1]        # duplicates: one kv row named in two slots
    return q, kv, do, sink, idx.to(torch.int32).contiguous()


def sparse_case(run, sb, sp, name, T, H, D, topk, pool, window, libm, g, with_sink=True, reference=True, f64=True):
    q, kv, do, sink, idx = sparse_inputs(T, H, D, topk, pool, window, g)
    sink = sink if with_sink else None
    info = dict(case=name, libm=libm, tokens=T, heads=H, d=D, topk=topk, num_kv=kv.shape[0], sink=with_sink)
    qr, kvr = q.clone().requires_grad_(), kv.clone().requires_grad_()
    sr = sink.clone().requires_grad_() if sink is not None else None
    t0 = time.time()
    o, lse, lse_excl = sbt.sparse_mla(qr, kvr, idx, attn_sink=sr, libm=libm, return_lse=True)
    grads = torch.autograd.grad(o, (qr, kvr) + ((sr,) if sr is not None else ()), do)
    torch.cuda.synchronize()
    ours = {"o": o.detach(), "lse": lse, "lse_excl": lse_excl, "dq": grads[0], "dkv": grads[1]}
    if sr is not None:
        ours["d_sink"] = grads[2]
    info["op_seconds"] = time.time() - t0
    p = sp.problem(q, kv, idx, libm, sink)
    o2, lse2, lx2 = torch.empty_like(q), torch.empty(T, H, device=DEV), torch.empty(T, H, device=DEV)
    sp.forward(p, q, kv, o2, lse2, lx2)
    dq2, dkv2, ds2 = torch.empty_like(q), torch.empty_like(kv), torch.empty(H, device=DEV)
    sp.backward(p, q, kv, o2, do, lse2, dq2, dkv2, ds2 if sink is not None else None, sp.workspace(p))
    torch.cuda.synchronize()
    want = {"o": o2, "lse": lse2, "lse_excl": lx2, "dq": dq2, "dkv": dkv2}
    if sink is not None:
        want["d_sink"] = ds2
    run.bitwise("bitwise", f"sparse_mla {name} == C ABI direct (host API path)", ours, want, **info)
    if reference:
        t0 = time.time()
        qf, kvf, dof = (x.float().cpu().numpy() for x in (q, kv, do))
        idxh = idx.cpu().numpy()
        sinkh = sink.cpu().numpy() if sink is not None else None
        ro, rl, rlx = R.sparse_mla_forward(qf, kvf, idxh, attn_sink=sinkh, libm=libm)
        o_stored = torch.from_numpy(ro).to(torch.bfloat16).float().numpy()
        rdq, rdkv, rds = R.sparse_mla_backward(qf, kvf, idxh, o_stored, dof, rl, attn_sink=sinkh, libm=libm)
        want = {"o": torch.from_numpy(ro).to(torch.bfloat16), "lse": torch.from_numpy(rl),
                "lse_excl": torch.from_numpy(rlx), "dq": torch.from_numpy(rdq).to(torch.bfloat16),
                "dkv": torch.from_numpy(rdkv).to(torch.bfloat16)}
        if sink is not None:
            want["d_sink"] = torch.from_numpy(rds)
        run.bitwise("bitwise", f"sparse_mla {name} == CPU reference", {n: t.cpu() for n, t in ours.items()}, want,
                    reference_seconds=time.time() - t0, **info)
    if f64 and sink is not None:
        scale = float(torch.tensor(1.0 / math.sqrt(D), dtype=torch.float32))
        q64, kv64, s64 = q.double().requires_grad_(), kv.double().requires_grad_(), sink.double().requires_grad_()
        o64 = sparse_f64(q64, kv64, idx, s64, scale)
        g64 = torch.autograd.grad(o64, (q64, kv64, s64), do.double())
        errs = {n: normwise(x, r) for n, x, r in zip(("o", "dq", "dkv", "d_sink"), (o, grads[0], grads[1], grads[2]),
                                                    (o64,) + g64)}
        bad = grads[1].double().clone()
        bad.view(-1)[bad.numel() // 2] += 10 * TOL_BF16 * float(g64[1].abs().max())
        ctrl = normwise(bad, g64[1]) > TOL_BF16
        run.report("float64", f"sparse_mla {name}: gradients vs torch autograd in float64",
                   all(e <= TOL_BF16 for e in errs.values()) and ctrl, normwise=errs, tolerance=TOL_BF16,
                   control_caught=ctrl, **info)


def opchecks(run, g):
    from torch.library import opcheck
    S, hq, hkv, d = 70, 4, 2, 64
    q, k, v, do = (randn(s, torch.bfloat16, g) for s in ((S, hq, d), (S, hkv, d), (S, hkv, d), (S, hq, d)))
    o, lse = torch.ops.samebits.attention_fwd(q, k, v, [0, S], [0, S], True, None, "nvcc", "fma-chain", None)
    qs, kvs, dos, sink, idx = sparse_inputs(70, 16, 512, 128, 64, 32, g)
    os_, ls, _ = torch.ops.samebits.sparse_mla_fwd(qs, kvs, idx, sink, None, "nvcc", False)
    cases = [
        ("samebits::attention_fwd", torch.ops.samebits.attention_fwd.default,
         (q.clone().requires_grad_(), k.clone().requires_grad_(), v.clone().requires_grad_(), [0, 30, S], [0, 30, S],
          True, None, "nvcc", "fma-chain", None)),
        ("samebits::attention_bwd", torch.ops.samebits.attention_bwd.default,
         (do, q, k, v, o, lse, [0, S], [0, S], True, None, "nvcc", "fma-chain", None)),
        ("samebits::sparse_mla_fwd", torch.ops.samebits.sparse_mla_fwd.default,
         (qs.clone().requires_grad_(), kvs.clone().requires_grad_(), idx, sink.clone().requires_grad_(), None, "cr",
          False)),
        ("samebits::sparse_mla_fwd (no sink, host index check)", torch.ops.samebits.sparse_mla_fwd.default,
         (qs.clone().requires_grad_(), kvs.clone().requires_grad_(), idx, None, None, "nvcc", True)),
        ("samebits::sparse_mla_bwd", torch.ops.samebits.sparse_mla_bwd.default,
         (dos, qs, kvs, idx, sink, os_, ls, None, "nvcc", False)),
    ]
    for name, op, args in cases:
        try:
            res = opcheck(op, args)
            run.report("opcheck", name, all(v == "SUCCESS" for v in res.values()), results=res)
        except Exception as e:  # noqa: BLE001 (recorded, counted as a failure)
            run.report("opcheck", name, False, error=f"{type(e).__name__}: {e}"[:2000])


class Block(torch.nn.Module):
    """A small module around samebits.torch.attention; the scalings by 2 are exact."""

    def __init__(self, causal, libm):
        super().__init__()
        self.causal, self.libm = causal, libm

    def forward(self, q, k, v):
        return sbt.attention(q * 2, k, v, causal=self.causal, libm=self.libm) * 2


def compile_check(run, g, libm):
    B, S, hq, hkv, d = 2, 257, 8, 2, 128
    q, k, v, do = (randn(s, torch.bfloat16, g) for s in ((B, S, hq, d), (B, S, hkv, d), (B, S, hkv, d), (B, S, hq, d)))

    def go(fn):
        qr, kr, vr = (x.clone().requires_grad_() for x in (q, k, v))
        o = fn(qr, kr, vr)
        grads = torch.autograd.grad(o, (qr, kr, vr), do)
        torch.cuda.synchronize()
        return {"o": o.detach(), "dq": grads[0], "dk": grads[1], "dv": grads[2]}
    m = Block(True, libm)
    eager = go(m)
    for fullgraph in (False, True):
        torch._dynamo.reset()
        try:
            compiled = go(torch.compile(m, fullgraph=fullgraph))
            run.bitwise("compile", f"torch.compile(fullgraph={fullgraph}) == eager, o and gradients, libm={libm}",
                        compiled, eager, required=not fullgraph, libm=libm)
        except Exception as e:  # noqa: BLE001
            run.report("compile", f"torch.compile(fullgraph={fullgraph}) runs, libm={libm}", False,
                       required=not fullgraph, error=f"{type(e).__name__}: {e}"[:2000], libm=libm)
    torch._dynamo.reset()


def stream_check(run, g):
    S, hq, hkv, d = 300, 8, 8, 64
    q, k, v = (randn((S, h, d), torch.bfloat16, g) for h in (hq, hkv, hkv))
    o1 = sbt.attention(q, k, v, causal=True)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        o2 = sbt.attention(q, k, v, causal=True)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    run.bitwise("stream", "attention on a side stream == on the default stream", {"o": o2}, {"o": o1})


def error_checks(run, g):
    def refused(check, fn, exc, words):
        try:
            fn()
        except exc as e:
            ok = all(w in str(e) for w in words)
            run.report("errors", check, ok, error=f"{type(e).__name__}: {e}"[:500])
            return
        except Exception as e:  # noqa: BLE001
            run.report("errors", check, False, error=f"wrong exception {type(e).__name__}: {e}"[:500])
            return
        run.report("errors", check, False, error="not refused")
    q, k, v = (randn((10, h, 64), torch.bfloat16, g) for h in (4, 2, 2))
    refused("a CPU tensor is refused naming it", lambda: sbt.attention(q, k.cpu(), v, causal=True), ValueError,
            ["k:", "cpu"])
    refused("hq not a multiple of hkv", lambda: sbt.attention(q, randn((10, 3, 64), torch.bfloat16, g),
                                                              randn((10, 3, 64), torch.bfloat16, g), causal=True),
            ValueError, ["hkv = 3"])
    refused("a non-contiguous last dimension", lambda: sbt.attention(q.transpose(1, 2).contiguous().transpose(1, 2),
                                                                     k, v, causal=True), ValueError, ["q:", "last"])
    refused("policy sm90-tensor-core with model parameters other than the hardware's: refused (no fallback)",
            lambda: sbt.attention(q, k, v, causal=True, policy="sm90-tensor-core", mma={"frac_bits": 24}),
            samebits.UnsupportedError, ["describe other arithmetic"])
    ok_o = sbt.attention(q, k, v, causal=True)  # control: the valid call runs
    run.report("errors", "control: the valid call runs", ok_o.shape == q.shape)
    qs, kvs, _, sink, idx = sparse_inputs(64, 16, 512, 128, 64, 32, g)
    bad = idx.clone()
    bad[5, 7] = kvs.shape[0]  # one past the end
    refused("out-of-range index: device flag", lambda: sbt.sparse_mla(qs, kvs, bad, attn_sink=sink),
            samebits.InvalidArgumentError, ["indices"])
    refused("out-of-range index: host check", lambda: sbt.sparse_mla(qs, kvs, bad, attn_sink=sink, index_check="host"),
            samebits.InvalidArgumentError, ["at token 5, slot 7"])
    refused("int64 indices", lambda: sbt.sparse_mla(qs, kvs, idx.long()), TypeError, ["topk:", "int32"])
    ok_o = sbt.sparse_mla(qs, kvs, idx, attn_sink=sink)  # control
    run.report("errors", "control: the valid sparse call runs", ok_o.shape == qs.shape)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--libm", default="both", choices=("nvcc", "cr", "both"))
    ap.add_argument("--full", action="store_true", help="add the issue's shapes")
    ap.add_argument("--reference-max-rows", type=int, default=4096,
                    help="compare with the CPU reference only up to this many query rows")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    run = Run(a.outdir)
    lib = samebits.load_library()
    run.report("setup", "environment: a library with the CUDA kernels", lib.cuda, device=torch.cuda.get_device_name(),
               torch=torch.__version__, cuda=torch.version.cuda, library=lib.path, library_found=lib.how,
               fingerprints={f"{op}/{m}": samebits.fingerprint(op, m) for op in samebits.OPS for m in ("nvcc", "cr")})
    if not lib.cuda:
        print(f"{lib.path} has no CUDA kernels: set SAMEBITS_KERNELS_LIB to a -Dcuda=enabled build")
        return 1
    sb = Samebits(lib.path)
    sp = SparseMla(sb)
    g = torch.Generator(device=DEV).manual_seed(18)
    libms = ("nvcc", "cr") if a.libm == "both" else (a.libm,)
    for libm in libms:
        attention_case(run, sb, "S=128 Hq=8 Hkv=2 D=128 causal", [0, 128], [0, 128], 8, 2, 128, True, libm,
                       torch.bfloat16, g)
        attention_case(run, sb, "varlen 3 seqs, kv longer, D=64 causal", [0, 100, 101, 357], [0, 130, 200, 500], 4, 2,
                       64, True, libm, torch.bfloat16, g)
        attention_case(run, sb, "varlen D=128 non-causal fp16", [0, 9, 49], [0, 64, 104], 4, 4, 128, False, libm,
                       torch.float16, g)
        attention_case(run, sb, "[B=2, S=77, H=4, D=64] causal", [0, 77, 154], [0, 77, 154], 4, 4, 64, True, libm,
                       torch.bfloat16, g, batch=(2, 77, 77))
        attention_case(run, sb, "decode: 1 query, 200 keys", [0, 1], [0, 200], 8, 2, 128, True, libm, torch.bfloat16, g)
        attention_case(run, sb, "float32 S=65 D=64 causal", [0, 65], [0, 65], 2, 1, 64, True, libm, torch.float32, g)
        # The sm90-tensor-core policy (the wgmma kernels, attention-tc.md): the op == the C ABI == its CPU reference.
        attention_case(run, sb, "S=128 Hq=8 Hkv=2 D=128 causal, sm90-tensor-core", [0, 128], [0, 128], 8, 2, 128,
                       True, libm, torch.bfloat16, g, policy="sm90-tensor-core")
        attention_case(run, sb, "varlen D=64 non-causal fp16, sm90-tensor-core", [0, 9, 150], [0, 64, 300], 4, 2, 64,
                       False, libm, torch.float16, g, policy="sm90-tensor-core")
        # ... with the backward's dq pass from stored D^S: the same bits as the C ABI's recomputing pass.
        attention_case(run, sb, "varlen causal, sm90-tensor-core, stored_ds", [0, 100, 101, 357], [0, 130, 200, 500], 4,
                       2, 128, True, libm, torch.bfloat16, g, policy="sm90-tensor-core", stored_ds=True)
        sparse_case(run, sb, sp, "T=130 H=16 D=512 topk=128 sink", 130, 16, 512, 128, 200, 64, libm, g)
        sparse_case(run, sb, sp, "T=64 H=64 D=512 topk=256 no sink", 64, 64, 512, 256, 300, 64, libm, g,
                    with_sink=False)
        if a.full:
            for S in (128, 1000, 4096):
                attention_case(run, sb, f"Qwen3-8B S={S} (Hq=32 Hkv=8 D=128 causal)", [0, S], [0, S], 32, 8, 128,
                               True, libm, torch.bfloat16, g, reference=S <= a.reference_max_rows, f64=S <= 1000)
            sparse_case(run, sb, sp, "T=4096 H=128 D=512 topk=512 sink (the issue's)", 4096, 128, 512, 512, 4096, 128,
                        libm, g, reference=4096 <= a.reference_max_rows, f64=False)
        compile_check(run, g, libm)
    try:
        opchecks(run, g)
    except Exception:  # noqa: BLE001
        run.report("opcheck", "setup", False, error=traceback.format_exc()[-2000:])
    stream_check(run, g)
    error_checks(run, g)
    print(f"{'all checks passed' if run.failures == 0 else f'{run.failures} checks FAILED'}")
    return 1 if run.failures else 0


if __name__ == "__main__":
    sys.exit(main())
