#!/usr/bin/env python3
"""Context- and tensor-parallel attention (samebits.parallel) against one launch on one GPU, bitwise.

    torchrun --standalone --nproc_per_node=N tests/device/parallel/cp_tp_check.py --cp C --tp T \\
        --seq 4096 [--seq 16384 ...] --out DIR [--backend auto|nccl|gloo] [--libm nvcc|cr] \\
        [--causal yes|no|both] [--reps 5] [--warmup 2]

N = C x T processes (global rank = tp_rank * C + cp_rank). Qwen3-8B attention shapes: Hq 32, Hkv 8,
D 128, bfloat16, one sequence of S tokens, the same inputs on every rank (CPU generator, seeded by S).
--backend auto: nccl when every rank can have its own GPU (N <= device count), else gloo with the
ranks sharing the GPUs (all on cuda:0 with one GPU; gloo stages every transfer through host memory).

Per configuration:
  reference  every rank runs the unsplit forward + backward (samebits.torch's ops, one launch each)
             over all heads; their digests must agree across ranks. Rank 0 times it alone (the
             "one GPU" column) while the others wait.
  parallel   each rank takes its rows [s_r, s_{r+1}) and TP heads, runs cp_attention_forward and
             cp_attention_backward, and compares o, lse, dq, dk, dv with its part of the reference
             by encoding (int views). Mismatches are summed over every rank; the elements compared
             must cover every element of the five outputs exactly once; the bytes the layer counted
             must equal samebits.parallel.cp_volumes; a copy of each output with one bit flipped
             must give exactly 1 mismatch (negative control, each rank, each output).
  timing     forward (K/V all-gather included) and forward + backward, CUDA events on every rank
             after --warmup runs, median of --reps, all ranks started together (barrier); the table
             gives the slowest rank's median. With gloo on one GPU the ranks share the GPU and the
             transfers go through host memory: those times say nothing about multi-GPU speed.
Control traffic (barriers, gathering the reports) goes over a gloo group; the nccl group carries
only the layer's data (bytes: all-gather, send/recv).
Appends one JSON object per configuration to DIR/results.jsonl and a table row to DIR/table.txt;
exit status 0 only when every configuration passed.
"""
import argparse
import datetime
import hashlib
import json
import os
import sys

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")  # the lending machines' rule (KINDS.md): no NVLink multicast
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import samebits.parallel as sbp  # noqa: E402
from samebits import _device as sbkernels  # noqa: E402  (the device scripts' CUDA-event timer)
import samebits.torch as sbt  # noqa: E402
from samebits import _lib  # noqa: E402

HQ, HKV, D = 32, 8, 128
NAMES = ("o", "lse", "dq", "dk", "dv")


def as_int(x):
    return x.contiguous().view(torch.int16 if x.element_size() == 2 else torch.int32)


def mismatches(a, b):
    return int((as_int(a) != as_int(b)).sum())


def flipped(a):
    """A copy of a with one bit of one element flipped."""
    c = a.clone().contiguous()
    iv = as_int(c).view(-1)
    iv[iv.numel() // 3] ^= 1
    return c


def digest(ts):
    h = hashlib.sha256()
    for t in ts:
        h.update(as_int(t).cpu().numpy().tobytes())
    return h.hexdigest()[:16]


def median_ms(fn, reps, warmup, barrier=None):
    """Median of reps CUDA-event timings of fn() on this rank (each rep started after barrier())."""
    return sbkernels.time_ms(fn, reps, warmup, before=barrier)


def run_config(a, S, causal, env):
    dev, cp_group, ctrl = env["device"], env["cp_group"], env["ctrl"]
    cp_rank, tp_rank, rank = env["cp_rank"], env["tp_rank"], env["rank"]
    g = torch.Generator().manual_seed(S)
    q, k, v, do = (torch.randn(shape, generator=g).to(torch.bfloat16).to(dev)
                   for shape in ((S, HQ, D), (S, HKV, D), (S, HKV, D), (S, HQ, D)))
    cu = [0, S]

    def ref_fwd():
        return sbt._attention_fwd(q, k, v, cu, cu, causal, None, a.libm, "fma-chain", None)

    def ref_fwd_bwd():
        o_, l_ = ref_fwd()
        return (o_, l_) + tuple(sbt._attention_bwd(do, q, k, v, o_, l_, cu, cu, causal, None, a.libm,
                                                                "fma-chain", None))

    ref = dict(zip(NAMES, ref_fwd_bwd()))
    torch.cuda.synchronize()
    ref_digest = digest([ref[n] for n in NAMES])
    one_gpu = None
    dist.barrier(group=ctrl)
    if rank == 0:  # the one-GPU baseline, timed alone
        one_gpu = {"fwd_ms": median_ms(ref_fwd, a.reps, a.warmup),
                   "fwd_bwd_ms": median_ms(ref_fwd_bwd, a.reps, a.warmup)}
    dist.barrier(group=ctrl)

    plan = sbp.cp_plan(S, a.cp, cp_rank, causal)
    h = sbp.tp_heads(HQ, HKV, a.tp, tp_rank)
    rows = slice(plan.q0, plan.q1)
    ql, dol = q[rows, h.q0:h.q1].contiguous(), do[rows, h.q0:h.q1].contiguous()
    kl, vl = k[rows, h.kv0:h.kv1].contiguous(), v[rows, h.kv0:h.kv1].contiguous()
    kw = dict(seq_len=S, cp_rank=cp_rank, cp_size=a.cp, causal=causal, group=cp_group, libm=a.libm)

    def fwd(stats=None):
        return sbp.cp_attention_forward(ql, kl, vl, stats=stats, **kw)

    def fwd_bwd(stats=None):
        o_, l_, kk, vk = fwd(stats)
        return (o_, l_) + tuple(sbp.cp_attention_backward(dol, ql, o_, l_, kk, vk, stats=stats, **kw))

    stats = {}
    got = dict(zip(NAMES, fwd_bwd(stats)))
    torch.cuda.synchronize()
    want = {"o": ref["o"][rows, h.q0:h.q1], "lse": ref["lse"][rows, h.q0:h.q1], "dq": ref["dq"][rows, h.q0:h.q1],
            "dk": ref["dk"][rows, h.kv0:h.kv1], "dv": ref["dv"][rows, h.kv0:h.kv1]}
    mm = {n: mismatches(want[n], got[n]) for n in NAMES}
    elements = {n: want[n].numel() for n in NAMES}
    controls = {n: mismatches(want[n], flipped(got[n])) for n in NAMES}
    volumes = sbp.cp_volumes(plan, h.q1 - h.q0, h.kv1 - h.kv0, D, 2)
    counted = {key: stats.get(key, 0) for key in volumes}
    del got, want

    def barrier():
        dist.barrier(group=ctrl)

    timing = {"fwd_ms": median_ms(fwd, a.reps, a.warmup, barrier),
              "fwd_bwd_ms": median_ms(fwd_bwd, a.reps, a.warmup, barrier)}
    mine = {"rank": rank, "cp_rank": cp_rank, "tp_rank": tp_rank, "device": str(dev), "rows": [plan.q0, plan.q1],
            "heads": list(h), "mismatches": mm, "elements": elements, "controls": controls, "bytes": counted,
            "bytes_planned": volumes, "host_staged_bytes": stats.get("host_staged", 0), "reference_digest": ref_digest,
            **timing}
    reports = [None] * env["world"]
    dist.all_gather_object(reports, (mine, one_gpu), group=ctrl)
    ranks = [r for r, _ in reports]
    one_gpu = reports[0][1]
    full = {"o": S * HQ * D, "lse": S * HQ, "dq": S * HQ * D, "dk": S * HKV * D, "dv": S * HKV * D}
    total_mm = {n: sum(r["mismatches"][n] for r in ranks) for n in NAMES}
    covered = {n: sum(r["elements"][n] for r in ranks) for n in NAMES}
    checks = {
        "mismatches_zero": sum(total_mm.values()) == 0,
        "every_element_once": covered == full,
        "controls_exactly_one": all(r["controls"][n] == 1 for r in ranks for n in NAMES),
        "bytes_as_planned": all(r["bytes"] == r["bytes_planned"] for r in ranks),
        "reference_digest_same_on_every_rank": len({r["reference_digest"] for r in ranks}) == 1,
    }
    row = {"cp": a.cp, "tp": a.tp, "seq": S, "causal": causal, "libm": a.libm, "backend": env["backend"],
           "world": env["world"], "devices": sorted({r["device"] for r in ranks}), "gpu": env["gpu"],
           "torch": torch.__version__, "library": _lib.load().path, "mismatches": total_mm,
           "elements_compared": covered, "checks": checks, "ok": all(checks.values()),
           "one_gpu": one_gpu, "cp_fwd_ms_max": max(r["fwd_ms"] for r in ranks),
           "cp_fwd_bwd_ms_max": max(r["fwd_bwd_ms"] for r in ranks), "reps": a.reps, "warmup": a.warmup,
           "ranks": ranks}
    return row


def table_line(r):
    b_recv = max(sum(v for k_, v in x["bytes"].items() if k_.endswith("_recv")) for x in r["ranks"])
    b_send = max(sum(v for k_, v in x["bytes"].items() if k_.endswith("_send")) for x in r["ranks"])
    og = r["one_gpu"]
    return (f"{'ok  ' if r['ok'] else 'FAIL'} cp {r['cp']} tp {r['tp']} S {r['seq']:5} causal {int(r['causal'])} "
            f"{r['backend']:4} ranks {r['world']} on {len(r['devices'])} GPU | mismatches "
            + " ".join(f"{n} {r['mismatches'][n]}" for n in NAMES)
            + f" | one GPU {og['fwd_ms']:.2f} / {og['fwd_bwd_ms']:.2f} ms | CP {r['cp_fwd_ms_max']:.2f} / "
            f"{r['cp_fwd_bwd_ms_max']:.2f} ms (fwd / fwd+bwd, slowest rank) | per rank max recv "
            f"{b_recv / 2**20:.1f} MiB, sent {b_send / 2**20:.1f} MiB"
            + ("" if r["ok"] else " | failed: " + ", ".join(k_ for k_, v in r["checks"].items() if not v)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cp", type=int, required=True)
    ap.add_argument("--tp", type=int, default=1)
    ap.add_argument("--seq", type=int, action="append", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--backend", choices=("auto", "nccl", "gloo"), default="auto")
    ap.add_argument("--libm", choices=("nvcc", "cr"), default="nvcc")
    ap.add_argument("--causal", choices=("yes", "no", "both"), default="yes")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2)
    a = ap.parse_args()
    world, rank = int(os.environ["WORLD_SIZE"]), int(os.environ["RANK"])
    local = int(os.environ.get("LOCAL_RANK", rank))
    if world != a.cp * a.tp:
        sys.exit(f"--cp {a.cp} x --tp {a.tp} != {world} processes (torchrun --nproc_per_node)")
    ngpu = torch.cuda.device_count()
    if ngpu == 0:
        sys.exit("no CUDA device")
    backend = a.backend if a.backend != "auto" else ("nccl" if world <= ngpu else "gloo")
    if backend == "nccl" and world > ngpu:
        sys.exit(f"--backend nccl: {world} ranks on {ngpu} GPUs; NCCL needs one GPU per rank (use gloo)")
    dev = torch.device("cuda", local % ngpu)
    torch.cuda.set_device(dev)
    timeout = datetime.timedelta(seconds=300)
    if backend == "nccl":
        dist.init_process_group("nccl", timeout=timeout, device_id=dev)
        ctrl = dist.new_group(backend="gloo", timeout=timeout)
    else:
        dist.init_process_group("gloo", timeout=timeout)
        ctrl = None
    cp_group, cp_rank, tp_rank = sbp.make_groups(a.cp, a.tp)
    env = {"device": dev, "cp_group": cp_group, "ctrl": ctrl, "cp_rank": cp_rank, "tp_rank": tp_rank, "rank": rank,
           "world": world, "backend": backend, "gpu": torch.cuda.get_device_name(dev)}
    causals = {"yes": [True], "no": [False], "both": [True, False]}[a.causal]
    failed = 0
    for S in a.seq:
        for causal in causals:
            row = run_config(a, S, causal, env)
            failed += not row["ok"]
            if rank == 0:
                os.makedirs(a.out, exist_ok=True)
                with open(os.path.join(a.out, "results.jsonl"), "a") as f:
                    print(json.dumps(row), file=f)
                line = table_line(row)
                with open(os.path.join(a.out, "table.txt"), "a") as f:
                    print(line, file=f)
                print(line, flush=True)
    dist.barrier(group=ctrl)
    dist.destroy_process_group()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
