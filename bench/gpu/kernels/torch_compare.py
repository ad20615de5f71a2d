#!/usr/bin/env python3
"""samebits attention beside torch SDPA on the H200, in one process, on identical tensors.

    python3 bench/gpu/kernels/torch_compare.py LIB OUTDIR [--seqlens 512,1024,2048,4096] [--quick]
        [--policy fma-chain|sm90-tensor-core] [--verify-seqlens LIST] [--libms nvcc,nvcc-fast,cr]

LIB is libsamebits_kernels.so built with -Dcuda=enabled. For each sequence length (Qwen3-8B
shapes: B=1, Hq=32, Hkv=8, D=128, bf16, causal) it
  - times our forward and forward+backward (libm nvcc and cr; under sm90-tensor-core also
    nvcc-fast, attention-tc.md §23; --libms a subset) and torch SDPA's flash, cuDNN and
    math backends (CUDA events, warm-up, median of --reps; --timer queued, the default, keeps a
    sleep kernel queued ahead of each timed call so that the time is the device's alone, --timer
    idle also counts the host's launch), with peak extra memory;
  - checks that the outputs it timed are bitwise equal to the CPU reference's (the C ABI's
    samebits_attention_reference_*), rounded to bf16 as the kernels round them;
  - measures accuracy against float64 attention computed by torch on the GPU (an oracle
    independent of our code), for ours and for SDPA flash;
  - measures the fp32 FMA roof in the same run (torch fp32 matmul 8192^3, TF32 off), and under
    --policy sm90-tensor-core the bf16 tensor roof (torch bf16 matmul 8192^3, fp32 accumulate),
    against which the tensor-core kernels' fraction is given;
  - under --policy sm90-tensor-core, also times forward+backward with the backward's dq pass
    reading the stored D^S (attention-tc.md §21; column "f+b sDS") where its workspace fits in
    half the free memory, and counts its dq, dk, dv bits that differ from the recomputing pass's.
One JSON object per line goes to OUTDIR/torch_compare.jsonl (torch_compare_tc.jsonl under
--policy sm90-tensor-core: the wgmma kernels, docs/kernels/attention-tc.md); a table is printed last.
"""
import argparse
import ctypes as C
import json
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
from samebits._device import Problem, Samebits, peak_extra_mib, time_ms  # noqa: E402  (through samebits._lib)

# --timer: "queued" (default) times the device alone, a sleep kernel queued ahead of each call;
# "idle" also counts the host's launch of the call (samebits._device.time_ms says how).
TIMER = {"queued": True}


def timed(fn, reps, **kw):
    return time_ms(fn, reps, queued=TIMER["queued"], **kw)

from torch.nn.attention import SDPBackend, sdpa_kernel


def bits_mismatch(a, b):
    """Elements whose encodings differ (a, b same dtype)."""
    if a.dtype == torch.bfloat16:
        return int((a.view(torch.int16) != b.view(torch.int16)).sum())
    return int((a.view(torch.int32) != b.view(torch.int32)).sum())


def fp32_roof_tflops():
    torch.backends.cuda.matmul.allow_tf32 = False
    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.float32)
    b = torch.randn(n, n, device="cuda", dtype=torch.float32)
    ms = timed(lambda: a @ b, 5, warmup=2)
    return 2 * n**3 / (ms * 1e-3) / 1e12


def bf16_roof_tflops():
    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    ms = timed(lambda: a @ b, 10, warmup=3)
    return 2 * n**3 / (ms * 1e-3) / 1e12


def gpu_state():
    """The card's SM clock (MHz), temperature and active throttle reasons as nvidia-smi reports them
    now: timings of one run are compared with another's only when these agree (a run of
    2026-12-06 timed every kernel about 10 % slower than the bench before it, with no record of
    why). None where nvidia-smi is missing."""
    import subprocess
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,clocks.max.sm,temperature.gpu,power.draw,"
                            "clocks_throttle_reasons.active", "--format=csv,noheader,nounits"],
                           capture_output=True, text=True, timeout=10)
        f = [x.strip() for x in r.stdout.strip().splitlines()[0].split(",")]
        return {"sm_clock_mhz": f[0], "max_sm_clock_mhz": f[1], "temperature_c": f[2], "power_w": f[3],
                "throttle_reasons": f[4]}
    except Exception as e:  # noqa: BLE001 — the record is optional, the timings are not
        return {"unavailable": str(e)}


def rel_err(x, ref):
    x = x.double()
    return float((x - ref).abs().max() / ref.abs().max()), float((x - ref).abs().max())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("lib")
    ap.add_argument("outdir")
    ap.add_argument("--seqlens", default="512,1024,2048,4096")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--timer", choices=("queued", "idle"), default="queued",
                    help="queued: device time of each call (a sleep kernel queued ahead hides the host's "
                         "launch); idle: the call from an idle stream, host launch included")
    ap.add_argument("--no-verify", action="store_true", help="skip the CPU reference check (faster)")
    ap.add_argument("--accuracy-seqlens", default="1024,4096")
    ap.add_argument("--policy", choices=("fma-chain", "sm90-tensor-core"), default="fma-chain")
    ap.add_argument("--libms", default=None,
                    help="comma list of nvcc, cr, nvcc-fast (default: nvcc,cr; under sm90-tensor-core "
                         "nvcc,nvcc-fast,cr; nvcc-fast is that policy's only)")
    ap.add_argument("--verify-seqlens", default=None,
                    help="sequence lengths checked against the CPU reference (default: all under fma-chain, "
                         "512,1024 under sm90-tensor-core, whose reference runs the tensor-core model)")
    args = ap.parse_args()
    TIMER["queued"] = args.timer == "queued"
    tc = args.policy == "sm90-tensor-core"
    libms = (args.libms or ("nvcc,nvcc-fast,cr" if tc else "nvcc,cr")).split(",")
    for l_ in libms:
        if l_ not in ("nvcc", "cr", "nvcc-fast") or (l_ == "nvcc-fast" and not tc):
            ap.error(f"--libms: {l_!r} is not offered under --policy {args.policy}")
    verify = set((args.verify_seqlens or ("512,1024" if tc else args.seqlens)).split(","))
    os.makedirs(args.outdir, exist_ok=True)
    out = open(os.path.join(args.outdir, "torch_compare_tc.jsonl" if tc else "torch_compare.jsonl"), "a")
    sb = Samebits(args.lib)
    dev = torch.device("cuda")
    hq, hkv, d = 32, 8, 128
    roof = fp32_roof_tflops()
    row = {"kind": "roof", "fp32_matmul_tflops": roof, "device": torch.cuda.get_device_name(),
           "torch": torch.__version__, "gpu_state": gpu_state(), "timer": args.timer}
    if tc:
        # The tensor-core kernels' roof: their FLOPs are bf16 products with fp32 accumulation.
        roof = bf16_roof_tflops()
        row["bf16_matmul_tflops"] = roof
    print(json.dumps(row), file=out, flush=True)
    print(f"fp32 roof (torch matmul 8192^3, TF32 off): {row['fp32_matmul_tflops']:.1f} TFLOP/s")
    if tc:
        print(f"bf16 roof (torch bf16 matmul 8192^3): {roof:.1f} TFLOP/s — %roof below is against it")
    table = []
    for S in [int(s) for s in args.seqlens.split(",")]:
        g = torch.Generator(device="cuda").manual_seed(1000 + S)
        q = torch.randn(S, hq, d, device=dev, dtype=torch.bfloat16, generator=g)
        k = torch.randn(S, hkv, d, device=dev, dtype=torch.bfloat16, generator=g)
        v = torch.randn(S, hkv, d, device=dev, dtype=torch.bfloat16, generator=g)
        do = torch.randn(S, hq, d, device=dev, dtype=torch.bfloat16, generator=g)
        flops_f = 4 * S * S * d * hq / 2
        flops_b = 2.5 * flops_f
        res = {"kind": "bench", "policy": args.policy, "S": S, "hq": hq, "hkv": hkv, "d": d, "dtype": "bf16",
               "causal": True, "timer": args.timer,
               "flops_forward": flops_f, "flops_backward": flops_b,
               ("bf16_roof_tflops" if tc else "fp32_roof_tflops"): roof}
        outs = {}
        for libm in libms:
            p = sb.problem(S, hq, hkv, d, libm, dev)
            p.policy = 1 if tc else 0
            o = torch.empty_like(q)
            lse = torch.empty(S, hq, device=dev, dtype=torch.float32)
            dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
            ws = sb.workspace(p)
            fwd = lambda: sb.forward(p, q, k, v, o, lse)
            bwd = lambda: sb.backward(p, q, k, v, o, do, lse, dq, dk, dv, ws)
            t_f = timed(fwd, args.reps)
            t_fb = timed(lambda: (fwd(), bwd()), args.reps)
            mem_f = peak_extra_mib(lambda: (sb.forward(p, q, k, v, torch.empty_like(q),
                                                        torch.empty(S, hq, device=dev)),))
            mem_fb = peak_extra_mib(lambda: (sb.forward(p, q, k, v, o, lse),
                                             sb.backward(p, q, k, v, o, do, lse, torch.empty_like(q),
                                                         torch.empty_like(k), torch.empty_like(v), sb.workspace(p))))
            res[f"ours_{libm}"] = {"fwd_ms": t_f, "fwd_bwd_ms": t_fb, "fwd_tflops": flops_f / t_f / 1e9,
                                   "fwd_bwd_tflops": (flops_f + flops_b) / t_fb / 1e9,
                                   "fwd_roof_fraction": flops_f / t_f / 1e9 / roof,
                                   "fwd_bwd_roof_fraction": (flops_f + flops_b) / t_fb / 1e9 / roof,
                                   "peak_extra_mib_fwd": mem_f, "peak_extra_mib_fwd_bwd": mem_fb}
            outs[libm] = (o.clone(), lse.clone(), dq.clone(), dk.clone(), dv.clone())
            # The backward with its dq pass from stored D^S (attention-tc.md §21), where its workspace
            # fits in half of what is free: the time, and its dq, dk, dv against the recomputing ones.
            if tc and libm in ("nvcc", "nvcc-fast"):
                f = sb.lib.samebits_attention_backward_stored_ds_workspace_bytes
                f.restype = C.c_int64
                f.argtypes = [C.POINTER(Problem)]
                need = f(C.byref(p))
                if 0 < need < torch.cuda.mem_get_info()[0] // 2:
                    ws2 = sb.workspace(p, stored_ds=True)
                    dq2, dk2, dv2 = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
                    bwd2 = lambda: sb.backward(p, q, k, v, o, do, lse, dq2, dk2, dv2, ws2)
                    t_fb2 = timed(lambda: (fwd(), bwd2()), args.reps)
                    torch.cuda.synchronize()
                    same = {n_: bits_mismatch(a_.contiguous(), b_.contiguous()) for n_, a_, b_ in
                            zip(("dq", "dk", "dv"), (dq2, dk2, dv2), outs[libm][2:])}
                    # Planted control: the recomputing dq with the last bit of element 0 flipped
                    # must count exactly one mismatch against itself unflipped.
                    ref_dq = outs[libm][2].contiguous()
                    planted = ref_dq.clone()
                    planted.view(torch.int16 if planted.dtype == torch.bfloat16 else torch.int32).view(-1)[0] ^= 1
                    control = bits_mismatch(planted, ref_dq) == 1
                    res[f"ours_{libm}"].update({"fwd_bwd_ms_stored_ds": t_fb2, "stored_ds_workspace_bytes": need,
                                                "stored_ds_mismatches_vs_recomputing": same,
                                                "stored_ds_planted_control_caught": control})
                    del ws2, dq2, dk2, dv2
                else:
                    res[f"ours_{libm}"]["stored_ds"] = f"not run: {need} bytes of workspace"
            if not args.no_verify and str(S) in verify:
                t0 = time.time()
                r = sb.reference(p, q, k, v, do)
                names = ("o", "lse", "dq", "dk", "dv")
                mism = {}
                for n_, gpu, ref in zip(names, outs[libm], r):
                    ref_dev = ref.to(gpu.dtype).to(dev) if gpu.dtype == torch.bfloat16 else ref.to(dev)
                    mism[n_] = bits_mismatch(gpu.contiguous(), ref_dev.contiguous())
                res[f"ours_{libm}"]["mismatches_vs_cpu_reference"] = mism
                res[f"ours_{libm}"]["reference_seconds"] = time.time() - t0
        # torch SDPA, [B, H, S, D] views of the same tensors.
        qt, kt, vt, dot = (x.unsqueeze(0).transpose(1, 2) for x in (q, k, v, do))
        for name, backend in (("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION),
                              ("math", SDPBackend.MATH)):
            try:
                with sdpa_kernel(backend):
                    qg, kg, vg = (x.detach().clone().requires_grad_(True) for x in (qt, kt, vt))
                    f = lambda: F.scaled_dot_product_attention(qg, kg, vg, is_causal=True, enable_gqa=True)
                    t_f = timed(f, args.reps)

                    def fb():
                        y = F.scaled_dot_product_attention(qg, kg, vg, is_causal=True, enable_gqa=True)
                        torch.autograd.grad(y, (qg, kg, vg), dot)
                    t_fb = timed(fb, args.reps)
                    mem_fb = peak_extra_mib(fb)
                res[f"sdpa_{name}"] = {"fwd_ms": t_f, "fwd_bwd_ms": t_fb, "peak_extra_mib_fwd_bwd": mem_fb,
                                       "fwd_tflops": flops_f / t_f / 1e9,
                                       "fwd_bwd_tflops": (flops_f + flops_b) / t_fb / 1e9}
            except Exception as e:  # a backend that cannot run this shape is reported, not hidden
                res[f"sdpa_{name}"] = {"error": str(e)[:200]}
        # Accuracy against float64 attention on the GPU (torch, math path).
        if str(S) in args.accuracy_seqlens.split(","):
            q64, k64, v64 = (x.double().unsqueeze(0).transpose(1, 2).requires_grad_(True) for x in (q, k, v))
            with sdpa_kernel(SDPBackend.MATH):
                y64 = F.scaled_dot_product_attention(q64, k64, v64, is_causal=True, enable_gqa=True)
            g64 = torch.autograd.grad(y64, (q64, k64, v64), dot.double())
            ref = [y64[0].transpose(0, 1), g64[0][0].transpose(0, 1), g64[1][0].transpose(0, 1),
                   g64[2][0].transpose(0, 1)]
            acc = {}
            for libm in libms:
                o, _, dq, dk, dv = outs[libm]
                acc[f"ours_{libm}"] = {n_: rel_err(x, r_) for n_, x, r_ in zip(("o", "dq", "dk", "dv"),
                                                                              (o, dq, dk, dv), ref)}
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                qg, kg, vg = (x.detach().clone().requires_grad_(True) for x in (qt, kt, vt))
                y = F.scaled_dot_product_attention(qg, kg, vg, is_causal=True, enable_gqa=True)
                gs = torch.autograd.grad(y, (qg, kg, vg), dot)
            acc["sdpa_flash"] = {n_: rel_err(x[0].transpose(0, 1), r_) for n_, x, r_ in
                                 zip(("o", "dq", "dk", "dv"), (y, gs[0], gs[1], gs[2]), ref)}
            res["accuracy_vs_float64"] = acc
            res["accuracy_note"] = "[max|x-ref|/max|ref|, max|x-ref|]; inputs bf16, outputs bf16"
            del q64, k64, v64, y64, g64, ref
        res["gpu_state_after"] = gpu_state()
        print(json.dumps(res), file=out, flush=True)
        table.append(res)
        torch.cuda.empty_cache()
    print(f"\n{'S':>5} {'ours nvcc fwd':>14} {'%roof':>6} {'fwd+bwd':>9} {'%roof':>6} {'f+b sDS':>8} {'cr fwd':>8} {'fwd+bwd':>9} "
          f"{'flash':>7} {'f+b':>7} {'cudnn':>7} {'f+b':>7} {'math':>7} {'f+b':>7} {'mem MiB':>8} {'bitwise':>8}"
          f" {'fast fwd':>8} {'%roof':>6} {'fwd+bwd':>8} {'f+b sDS':>8}")
    for r in table:
        def g(k, f):
            return r.get(k, {}).get(f, float("nan"))
        mms = [r[f"ours_{l_}"].get("mismatches_vs_cpu_reference") for l_ in libms]
        bitwise = "n/a" if None in mms else ("yes" if sum(sum(m.values()) for m in mms) == 0 else "NO")
        print(f"{r['S']:>5} {g('ours_nvcc','fwd_ms'):>14.3f} {100*g('ours_nvcc','fwd_roof_fraction'):>6.1f} "
              f"{g('ours_nvcc','fwd_bwd_ms'):>9.3f} "
              f"{100*g('ours_nvcc','fwd_bwd_roof_fraction'):>6.1f} {g('ours_nvcc','fwd_bwd_ms_stored_ds'):>8.3f} "
              f"{g('ours_cr','fwd_ms'):>8.3f} "
              f"{g('ours_cr','fwd_bwd_ms'):>9.3f} {g('sdpa_flash','fwd_ms'):>7.3f} {g('sdpa_flash','fwd_bwd_ms'):>7.3f} "
              f"{g('sdpa_cudnn','fwd_ms'):>7.3f} {g('sdpa_cudnn','fwd_bwd_ms'):>7.3f} {g('sdpa_math','fwd_ms'):>7.3f} "
              f"{g('sdpa_math','fwd_bwd_ms'):>7.3f} {g('ours_nvcc','peak_extra_mib_fwd_bwd'):>8.1f} {bitwise:>8}"
              f" {g('ours_nvcc-fast','fwd_ms'):>8.3f} {100*g('ours_nvcc-fast','fwd_roof_fraction'):>6.1f}"
              f" {g('ours_nvcc-fast','fwd_bwd_ms'):>8.3f} {g('ours_nvcc-fast','fwd_bwd_ms_stored_ds'):>8.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
