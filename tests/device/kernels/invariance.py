#!/usr/bin/env python3
"""Invariances of samebits attention on the GPU, all bitwise (docs/kernels/attention.md §8).

    python3 tests/device/kernels/invariance.py LIB OUTDIR [--libm nvcc|cr|both] [--repeats 100]

Separate launches on separate input copies, compared by encoding:
  decode      each row of a causal S=1000 prefill == a one-query call against its keys
  chunked     chunked prefill in chunks of 1, 64 and 300 rows == the prefill
  packed      a sequence alone == the same sequence packed with others of other lengths (fwd + bwd)
  heads       all heads in one launch == every head-group split dividing Hkv (strided views)
  cp          queries split into 2, 3, 4 context-parallel parts, forward and backward, the dK/dV
              accumulators handed on in query order == one launch (dq, dk, dv, o, lse)
  repeat      N runs with fresh allocations give one digest; a one-ulp change of one input a new one
  masked      NaN/inf in key rows outside some rows' lists leave those rows finite and unchanged
Each comparison also runs a negative control: one flipped bit in the tested output is reported as
exactly one mismatch. One JSON object per check goes to OUTDIR/invariance.jsonl.
"""
import argparse
import hashlib
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
from samebits._device import Samebits  # noqa: E402  (the C ABI through samebits._lib)

DEV = torch.device("cuda")
HQ, HKV, D = 32, 8, 128


def as_int(x):
    return x.contiguous().view(torch.int16 if x.element_size() == 2 else torch.int32)


def mismatches(a, b):
    return int((as_int(a) != as_int(b)).sum())


def control(a):
    """A copy of a with one bit flipped: compared with a it must give exactly 1 mismatch."""
    c = a.clone().contiguous()
    iv = as_int(c).view(-1)
    iv[iv.numel() // 3] ^= 1
    return mismatches(a, c) == 1


def digest(*ts):
    h = hashlib.sha256()
    for t in ts:
        h.update(as_int(t).cpu().numpy().tobytes())
    return h.hexdigest()[:16]


def rand(shape, g):
    return torch.randn(*shape, device=DEV, dtype=torch.bfloat16, generator=g)


class Runner:
    def __init__(self, sb, libm):
        self.sb, self.libm = sb, libm

    def fwd(self, q, k, v, causal=True, cu_q=None, cu_k=None, hq=None, hkv=None):
        hq, hkv = hq or q.shape[1], hkv or k.shape[1]
        p = self.sb.problem(q.shape[0], hq, hkv, D, self.libm, DEV, causal, cu_q or [0, q.shape[0]],
                            cu_k or [0, k.shape[0]])
        o = torch.empty(q.shape[0], hq, D, device=DEV, dtype=torch.bfloat16)
        lse = torch.empty(q.shape[0], hq, device=DEV, dtype=torch.float32)
        self.sb.forward(p, q, k, v, o, lse)
        return o, lse, p

    def bwd(self, p, q, k, v, o, lse, do, accum_in=None):
        dq, dk, dv = (torch.empty(x.shape[0], x.shape[1], D, device=DEV, dtype=torch.bfloat16) for x in (q, k, v))
        ws = self.sb.workspace(p)
        self.sb.backward(p, q, k, v, o, do, lse, dq, dk, dv, ws, accum_in)
        return dq, dk, dv, ws


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("lib")
    ap.add_argument("outdir")
    ap.add_argument("--libm", default="both")
    ap.add_argument("--repeats", type=int, default=100)
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    out = open(os.path.join(args.outdir, "invariance.jsonl"), "a")
    sb = Samebits(args.lib)
    failures = 0

    def report(libm, check, mism, ctrl, **extra):
        nonlocal failures
        ok = mism == 0 and ctrl
        failures += not ok
        row = {"libm": libm, "check": check, "mismatches": mism, "control_caught": ctrl, "ok": ok, **extra}
        print(json.dumps(row), file=out, flush=True)
        print(f"{'ok  ' if ok else 'FAIL'} {libm:4} {check:40} mismatches {mism} control {ctrl}")

    for libm in (["nvcc", "cr"] if args.libm == "both" else [args.libm]):
        R = Runner(sb, libm)
        g = torch.Generator(device="cuda").manual_seed(7)
        S = 1000
        q, k, v, do = rand((S, HQ, D), g), rand((S, HKV, D), g), rand((S, HKV, D), g), rand((S, HQ, D), g)
        o, lse, p = R.fwd(q, k, v)
        dq, dk, dv, _ = R.bwd(p, q, k, v, o, lse, do)

        # decode: row i alone against keys 0..i (separate copies of its inputs).
        mm = 0
        for i in range(S):
            oi, li, _ = R.fwd(q[i:i + 1].clone(), k[:i + 1].clone(), v[:i + 1].clone())
            mm += mismatches(oi, o[i:i + 1]) + mismatches(li, lse[i:i + 1])
        report(libm, "decode == prefill (S=1000, 1000 calls)", mm, control(o))

        # chunked prefill (forward and dq; the dk/dv of a chunked prefill's backward is the cp check).
        for chunk in (1, 64, 300):
            mm = 0
            for s0 in range(0, S, chunk):
                s1 = min(S, s0 + chunk)
                oc, lc, pc = R.fwd(q[s0:s1].clone(), k[:s1].clone(), v[:s1].clone())
                mm += mismatches(oc, o[s0:s1]) + mismatches(lc, lse[s0:s1])
            report(libm, f"chunked prefill, chunks of {chunk}", mm, control(lse))

        # packed: sequence of 1000 alone == packed between others (varlen), forward and backward.
        lens_q, lens_k = [300, S, 1, 77], [300, S, 513, 77]
        cu_q, cu_k = [0], [0]
        for a, b in zip(lens_q, lens_k):
            cu_q.append(cu_q[-1] + a)
            cu_k.append(cu_k[-1] + b)
        Q, Kk, V, DO = (rand((cu_q[-1], HQ, D), g), rand((cu_k[-1], HKV, D), g), rand((cu_k[-1], HKV, D), g),
                        rand((cu_q[-1], HQ, D), g))
        Q[cu_q[1]:cu_q[2]] = q
        Kk[cu_k[1]:cu_k[2]] = k
        V[cu_k[1]:cu_k[2]] = v
        DO[cu_q[1]:cu_q[2]] = do
        Op, Lp, Pp = R.fwd(Q, Kk, V, cu_q=cu_q, cu_k=cu_k)
        dQ, dK, dV, _ = R.bwd(Pp, Q, Kk, V, Op, Lp, DO)
        mm = (mismatches(Op[cu_q[1]:cu_q[2]], o) + mismatches(Lp[cu_q[1]:cu_q[2]], lse) +
              mismatches(dQ[cu_q[1]:cu_q[2]], dq) + mismatches(dK[cu_k[1]:cu_k[2]], dk) +
              mismatches(dV[cu_k[1]:cu_k[2]], dv))
        report(libm, "alone == packed with 3 others (fwd+bwd)", mm, control(dk))

        # heads: launches over head-group slices (strided views of the same tensors).
        G = HQ // HKV
        for parts in (2, 4, 8):
            per = HKV // parts
            mm = 0
            for a in range(0, HKV, per):
                qs, ks, vs, dos = q[:, a * G:(a + per) * G], k[:, a:a + per], v[:, a:a + per], do[:, a * G:(a + per) * G]
                os_, ls, ps = R.fwd(qs, ks, vs)
                dqs, dks, dvs, _ = R.bwd(ps, qs, ks, vs, os_, ls, dos)
                mm += (mismatches(os_, o[:, a * G:(a + per) * G]) + mismatches(ls, lse[:, a * G:(a + per) * G]) +
                       mismatches(dqs, dq[:, a * G:(a + per) * G]) + mismatches(dks, dk[:, a:a + per]) +
                       mismatches(dvs, dv[:, a:a + per]))
            report(libm, f"head groups: {parts} launches of {per} kv heads", mm, control(dv))

        # cp: queries in parts; each part's keys are 0..end (causal, bottom-right); the backward's
        # dK/dV accumulators are handed on in query order, extended with +0 for the new keys.
        for parts in (2, 3, 4):
            bounds = [round(S * i / parts) for i in range(parts + 1)]
            accum = None
            mm = 0
            dk_last = dv_last = None
            for s0, s1 in zip(bounds, bounds[1:]):
                qp, kp, vp, dop = q[s0:s1].clone(), k[:s1].clone(), v[:s1].clone(), do[s0:s1].clone()
                op_, lp, pp = R.fwd(qp, kp, vp)
                mm += mismatches(op_, o[s0:s1]) + mismatches(lp, lse[s0:s1])
                ain = None
                if accum is not None:
                    ain = [torch.zeros(s1, HQ, D, device=DEV, dtype=torch.float32) for _ in range(2)]
                    for a_, prev in zip(ain, accum):
                        a_[:prev.shape[0]] = prev
                dqp, dkp, dvp, ws = R.bwd(pp, qp, kp, vp, op_, lp, dop, ain)
                mm += mismatches(dqp, dq[s0:s1])
                accum = [a_.clone() for a_ in sb.accumulators(pp, ws)]
                dk_last, dv_last = dkp, dvp
            mm += mismatches(dk_last, dk) + mismatches(dv_last, dv)
            report(libm, f"context parallel: {parts} parts, accumulators handed on", mm, control(dq))

        # repeat: fresh allocations each run.
        digests = set()
        for _ in range(args.repeats):
            q2, k2, v2, do2 = q.clone(), k.clone(), v.clone(), do.clone()
            o2, l2, p2 = R.fwd(q2, k2, v2)
            dq2, dk2, dv2, _ = R.bwd(p2, q2, k2, v2, o2, l2, do2)
            digests.add(digest(o2, l2, dq2, dk2, dv2))
        base = digest(o, lse, dq, dk, dv)
        q3 = q.clone()
        q3.view(torch.int16)[500, 3, 7] += 1  # one ulp of one input
        o3, l3, p3 = R.fwd(q3, k, v)
        dq3, dk3, dv3, _ = R.bwd(p3, q3, k, v, o3, l3, do)
        changed = digest(o3, l3, dq3, dk3, dv3) != base
        report(libm, f"{args.repeats} repeats, one digest", len(digests - {base}) + (len(digests) != 1), changed,
               digests=sorted(digests), one_ulp_change_changes_digest=changed)

        # masked: NaN / inf in key rows 600.. leave rows 0..599 (which never see them) unchanged.
        kd, vd = k.clone(), v.clone()
        kd[600::2] = float("nan")
        kd[601::2] = float("inf")
        vd[600::3] = float("-inf")
        vd[601::3] = float("nan")
        om, lm, pm = R.fwd(q, kd, vd)
        dqm, _, _, _ = R.bwd(pm, q, kd, vd, om, lm, do)
        finite = bool(torch.isfinite(om[:600].float()).all() and torch.isfinite(dqm[:600].float()).all())
        mm = mismatches(om[:600], o[:600]) + mismatches(lm[:600], lse[:600]) + mismatches(dqm[:600], dq[:600])
        report(libm, "NaN/inf in keys outside the lists", mm + (not finite), control(om), unmasked_finite=finite)

    print(f"{'all invariance checks passed' if failures == 0 else f'{failures} invariance checks FAILED'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
