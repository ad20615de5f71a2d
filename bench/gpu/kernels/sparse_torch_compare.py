"""The sparse MLA kernels beside a torch gather implementation (the issue's peer), on identical
inputs in one process: forward and forward+backward ms (CUDA events, median), TFLOP/s, peak
extra memory; accuracy of o, dq, dkv, d_sink against the same op in float64 (torch, on the GPU:
an oracle independent of our code), max |err| / max |ref| and cosine; and the bits of what was
timed compared with a first run (the kernels are bitwise checked against the CPU reference by
sparse_mla_check).

    python3 sparse_torch_compare.py LIB OUTDIR [--tokens 4096] [--heads 128] [--topk 512] [--reps 5]
"""
import argparse
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
from samebits._device import Samebits, SparseMla, peak_extra_mib, time_ms  # noqa: E402  (through samebits._lib)


def make_inputs(T, H, D, topk, pool, window, dev, seed):
    g = torch.Generator(device=dev).manual_seed(seed)
    nkv = T + pool
    q = torch.randn(T, H, D, device=dev, dtype=torch.bfloat16, generator=g)
    kv = torch.randn(nkv, D, device=dev, dtype=torch.bfloat16, generator=g)
    do = torch.randn(T, H, D, device=dev, dtype=torch.bfloat16, generator=g)
    sink = torch.randn(H, device=dev, dtype=torch.float32, generator=g)
    t = torch.arange(T, device=dev)[:, None]
    win = t - torch.arange(window, device=dev)[None, :]  # the window, most recent first
    pool_idx = torch.randint(T, nkv, (T, topk - window), device=dev, generator=g) if pool > 0 else \
        torch.randint(0, nkv, (T, topk - window), device=dev, generator=g)
    idx = torch.cat([win, pool_idx], 1)
    idx = torch.where(idx < 0, torch.full_like(idx, -1), idx).to(torch.int32).contiguous()
    return q, kv, do, sink, idx


def peer_forward(q, kv, idx, sink, scale, dtype):
    """The torch gather implementation: gathered kv [T, topk, D], scores, softmax with the sink
    folded into the denominator, o. In `dtype` (float32 for the peer, float64 for the oracle)."""
    kvg = kv[idx.clamp(min=0).long()].to(dtype)  # [T, topk, D]
    s = torch.einsum("thd,tkd->thk", q.to(dtype), kvg) * scale
    s = s.masked_fill((idx < 0)[:, None, :], float("-inf"))
    m = torch.maximum(s.amax(-1, keepdim=True), sink.to(dtype)[None, :, None])
    e = torch.exp(s - m)
    l = e.sum(-1, keepdim=True) + torch.exp(sink.to(dtype)[None, :, None] - m)
    p = e / l
    o = torch.einsum("thk,tkd->thd", p, kvg)
    lse = (m + torch.log(l)).squeeze(-1)
    return o, lse




def err(x, ref):
    x, ref = x.double().flatten(), ref.double().flatten()
    fin = torch.isfinite(ref)
    x, ref = x[fin], ref[fin]
    cos = float(torch.dot(x, ref) / (x.norm() * ref.norm())) if x.norm() > 0 and ref.norm() > 0 else 1.0
    return {"max_rel_normwise": float((x - ref).abs().max() / ref.abs().max()), "max_abs": float((x - ref).abs().max()),
            "cosine": cos}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("lib")
    ap.add_argument("outdir")
    ap.add_argument("--tokens", type=int, default=4096)
    ap.add_argument("--heads", type=int, default=128)
    ap.add_argument("--topk", type=int, default=512)
    ap.add_argument("--window", type=int, default=128)
    ap.add_argument("--pool", type=int, default=4096)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--accuracy-tokens", type=int, default=256, help="tokens of the float64 accuracy run")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    dev = torch.device("cuda")
    sb = Samebits(a.lib)
    sp = SparseMla(sb)
    D = 512
    scale = 1.0 / math.sqrt(D)
    out = open(os.path.join(a.outdir, "sparse_torch_compare.jsonl"), "w")
    row = {"device": torch.cuda.get_device_name(), "torch": torch.__version__}

    # Accuracy: a smaller T (the float64 peer needs T x topk x D doubles), the same lists.
    q, kv, do, sink, idx = make_inputs(a.accuracy_tokens, a.heads, D, a.topk, a.pool, a.window, dev, 1)
    q64 = q.double().requires_grad_()
    kv64 = kv.double().requires_grad_()
    sink64 = sink.double().requires_grad_()
    o64, _ = peer_forward(q64, kv64, idx, sink64, scale, torch.float64)
    o64.backward(do.double())
    ref = {"o": o64.detach(), "dq": q64.grad, "dkv": kv64.grad, "d_sink": sink64.grad}
    acc = {}
    for libm in ("nvcc", "cr"):
        p = sp.problem(q, kv, idx, libm, sink)
        o = torch.empty_like(q)
        lse = torch.empty(q.shape[0], q.shape[1], device=dev)
        dq, dkv, ds = torch.empty_like(q), torch.empty_like(kv), torch.empty(a.heads, device=dev)
        sp.forward(p, q, kv, o, lse)
        sp.backward(p, q, kv, o, do, lse, dq, dkv, ds, sp.workspace(p))
        acc[f"ours_{libm}"] = {"o": err(o, ref["o"]), "dq": err(dq, ref["dq"]), "dkv": err(dkv, ref["dkv"]),
                               "d_sink": err(ds, ref["d_sink"])}
    qp, kvp, sinkp = q.float().requires_grad_(), kv.float().requires_grad_(), sink.clone().requires_grad_()
    op, _ = peer_forward(qp, kvp, idx, sinkp, scale, torch.float32)
    op.backward(do.float())
    acc["torch_gather_fp32"] = {"o": err(op.to(torch.bfloat16), ref["o"]), "dq": err(qp.grad.to(torch.bfloat16), ref["dq"]),
                                "dkv": err(kvp.grad.to(torch.bfloat16), ref["dkv"]), "d_sink": err(sinkp.grad, ref["d_sink"])}
    row["accuracy_vs_float64"] = acc
    row["accuracy_shape"] = {"tokens": a.accuracy_tokens, "heads": a.heads, "topk": a.topk, "d": D}
    del q64, kv64, o64, ref
    torch.cuda.empty_cache()

    # Speed at the shape.
    q, kv, do, sink, idx = make_inputs(a.tokens, a.heads, D, a.topk, a.pool, a.window, dev, 2)
    T = a.tokens
    flops_f, flops_b = 4.0 * D * T * a.heads * a.topk, 10.0 * D * T * a.heads * a.topk
    speed = {"flops_forward": flops_f, "flops_backward": flops_b}
    for libm in ("nvcc", "cr"):
        p = sp.problem(q, kv, idx, libm, sink)
        o = torch.empty_like(q)
        lse = torch.empty(T, a.heads, device=dev)
        dq, dkv, ds = torch.empty_like(q), torch.empty_like(kv), torch.empty(a.heads, device=dev)
        ws = sp.workspace(p)
        fwd = lambda: sp.forward(p, q, kv, o, lse)  # noqa: E731
        fb = lambda: (fwd(), sp.backward(p, q, kv, o, do, lse, dq, dkv, ds, ws))  # noqa: E731
        fb()
        first = [x.clone() for x in (o, lse, dq, dkv, ds)]
        t_f, t_fb = time_ms(fwd, a.reps, warmup=2), time_ms(fb, a.reps, warmup=2)
        same = all(torch.equal(x.view(torch.uint8) if x.dtype != torch.float32 else x.view(torch.int32),
                               y.view(torch.uint8) if y.dtype != torch.float32 else y.view(torch.int32))
                   for x, y in zip(first, (o, lse, dq, dkv, ds)))
        del ws
        mem = peak_extra_mib(lambda: (sp.forward(p, q, kv, torch.empty_like(q), torch.empty(T, a.heads, device=dev)),
                                      sp.backward(p, q, kv, o, do, lse, torch.empty_like(q), torch.empty_like(kv),
                                                  torch.empty(a.heads, device=dev), sp.workspace(p))))
        speed[f"ours_{libm}"] = {"fwd_ms": t_f, "fwd_bwd_ms": t_fb, "fwd_tflops": flops_f / t_f / 1e9,
                                 "fwd_bwd_tflops": (flops_f + flops_b) / t_fb / 1e9, "peak_extra_mib": mem,
                                 "timed_outputs_bitwise_equal_first_run": same}
    qp, kvp, sinkp = q.requires_grad_(), kv.requires_grad_(), sink.requires_grad_()

    def peer_fb():
        o_, _ = peer_forward(qp, kvp, idx, sinkp, scale, torch.float32)
        o_.backward(do.float())
        qp.grad = kvp.grad = sinkp.grad = None
    try:
        t_pf = time_ms(lambda: peer_forward(q, kv, idx, sink, scale, torch.float32), a.reps, warmup=2)
        t_pfb = time_ms(peer_fb, a.reps, warmup=2)
        mem_p = peak_extra_mib(peer_fb)
        speed["torch_gather_fp32"] = {"fwd_ms": t_pf, "fwd_bwd_ms": t_pfb, "peak_extra_mib": mem_p}
    except torch.cuda.OutOfMemoryError as e:
        speed["torch_gather_fp32"] = {"error": f"out of memory: {e}"[:200]}
    row["speed"] = speed
    row["speed_shape"] = {"tokens": T, "heads": a.heads, "topk": a.topk, "window": a.window, "pool": a.pool, "d": D}
    print(json.dumps(row, indent=1))
    print(json.dumps(row), file=out)


if __name__ == "__main__":
    main()
