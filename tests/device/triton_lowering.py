#!/usr/bin/env python3
"""What Triton's tl.exp and tl.log compute for float32 on this GPU.

  python3 tests/device/triton_lowering.py exp REFERENCE.f32 OUTDIR [NAME]
  python3 tests/device/triton_lowering.py log REFERENCE.f32 OUTDIR [NAME]

1. Compiles a one-line Triton kernel (y = tl.exp(x) or y = tl.log(x)), writes
   its PTX to OUTDIR/triton_{exp,log}.ptx and prints the arithmetic lines, so
   the lowering is read off Triton's own output (issue: nvcc personality).
2. Runs it over all 2^32 float32 inputs and compares the encodings (NaN bits
   included) with REFERENCE.f32, the raw little-endian outputs of the CUDA
   function samebits::nvcc::triton claims it equals, written by
   tests/device/dump_cuda_outputs.cu (tl.exp: __expf; tl.log: logf; both
   with default flags); NAME says what the reference is in the report. A
   planted one-ulp change at an input where the two agree must add exactly
   one mismatch (negative control).
Prints one JSON line per result.
"""
import json
import os
import sys

import numpy as np
import torch
import triton
import triton.language as tl


@triton.jit
def _exp_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.exp(x), mask=mask)


@triton.jit
def _log_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.log(x), mask=mask)


CHUNK = 1 << 28
BLOCK = 1024


def inputs(base):
    """float32 tensor whose encodings are base .. base + CHUNK - 1."""
    bits = torch.arange(base, base + CHUNK, dtype=torch.int64, device="cuda")
    bits = torch.where(bits >= 1 << 31, bits - (1 << 32), bits)
    return bits.to(torch.int32).view(torch.float32)


def ptx_of(handle):
    asm = getattr(handle, "asm", None)
    if asm and "ptx" in asm:
        return asm["ptx"]
    return None


def main():
    if len(sys.argv) not in (4, 5) or sys.argv[1] not in ("exp", "log"):
        print(__doc__, file=sys.stderr)
        return 2
    op, ref_path, outdir = sys.argv[1], sys.argv[2], sys.argv[3]
    kernel = _exp_kernel if op == "exp" else _log_kernel
    claim = sys.argv[4] if len(sys.argv) == 5 else ("__expf" if op == "exp" else "logf")
    if os.path.getsize(ref_path) != 4 << 32:
        print(f"{ref_path}: expected {4 << 32} bytes (all 2^32 float32 outputs)", file=sys.stderr)
        return 2
    os.makedirs(outdir, exist_ok=True)
    y = torch.empty(CHUNK, dtype=torch.float32, device="cuda")
    ptx_written = False
    total = 0
    first = []
    status = 0
    for c in range((1 << 32) // CHUNK):
        x = inputs(c * CHUNK)
        handle = kernel[(CHUNK // BLOCK,)](x, y, CHUNK, BLOCK=BLOCK)
        if not ptx_written:
            ptx = ptx_of(handle)
            if ptx is None:
                print(json.dumps({"op": op, "ptx": "not available from this Triton version"}))
            else:
                with open(os.path.join(outdir, f"triton_{op}.ptx"), "w") as f:
                    f.write(ptx)
                body = [l.strip() for l in ptx.splitlines()
                        if any(k in l for k in ("ex2.", "lg2.", "mul.", "fma.", "add.f32", "sub.f32",
                                                "setp.", "selp.", "call", "mov.b32"))]
                print(json.dumps({"op": op, "triton": triton.__version__, "torch": torch.__version__,
                                  "ptx_arith": body}))
            ptx_written = True
        ref = np.fromfile(ref_path, dtype=np.int32, count=CHUNK, offset=c * CHUNK * 4)
        ref = torch.from_numpy(ref).cuda()
        got = y.view(torch.int32)
        if c == 0:
            same = (got == ref).nonzero().flatten()
            planted = got.clone()
            at = int(same[same.numel() // 2]) if same.numel() else 0
            planted[at] ^= 1
            honest = int((got != ref).sum())
            delta = int((planted != ref).sum()) - honest
            caught = same.numel() > 0 and delta == 1
            print(json.dumps({"negative_control": "one planted one-ulp change", "op": op,
                              "planted_input": f"0x{at:08x}", "reported_delta": delta,
                              "caught": caught}))
            if not caught:
                status = 1
        diff = (got != ref).nonzero().flatten()
        total += diff.numel()
        for i in diff[: max(0, 5 - len(first))].tolist():
            first.append(f"0x{c * CHUNK + i:08x}")
    print(json.dumps({"pair": f"triton tl.{op} vs {claim}", "inputs": 1 << 32, "mismatches": total,
                      "first": first}))
    return 1 if total or status else 0


if __name__ == "__main__":
    sys.exit(main())
