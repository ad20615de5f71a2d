#!/usr/bin/env python3
"""Capture golden outputs of the attention kernels on the GPU, for CI to replay against the CPU
reference (tests/kernels/test_attention_golden.cpp; CI has no GPU).

    python3 tests/device/kernels/capture_golden.py LIB OUTDIR [--policy fma-chain|sm90-tensor-core|all]

Writes OUTDIR/attention_golden.tar (the .safetensors files, one per case: the inputs q, k, v, do,
cu_seqlens, and what the GPU returned: o, lse, dq, dk, dv; the case in __metadata__, with its
policy and libm). Small shapes only (the files are committed under tests/data/kernels/attention/).
The sm90-tensor-core cases (names tc_*: the wgmma kernels, libm nvcc, cr and nvcc-fast, bf16 and
fp16, two key blocks of 128 and varlen packs) need the library built with those kernels (sm_90a).
"""
import argparse
import io
import json
import os
import struct
import sys
import tarfile

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
from samebits._device import Samebits  # noqa: E402  (the C ABI through samebits._lib)

DEV = torch.device("cuda")
D_CODES = {torch.bfloat16: ("BF16", 1), torch.float16: ("F16", 2), torch.float32: ("F32", 0),
           torch.int32: ("I32", None)}


def safetensors_bytes(tensors, metadata):
    """The safetensors format: 8-byte little-endian header length, JSON header, raw data."""
    header, blobs, off = {"__metadata__": metadata}, [], 0
    for name in sorted(tensors):
        t = tensors[name].detach().contiguous().cpu()
        raw = t.view(torch.uint8).numpy().tobytes() if t.dtype != torch.int32 else t.numpy().tobytes()
        header[name] = {"dtype": D_CODES[t.dtype][0], "shape": list(t.shape), "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + b"".join(blobs)


def cases(policy):
    # (seed, name, lens_q, lens_k, hq, hkv, d, causal, libm, dtype, policy); fma-chain's seeds
    # as they were (its committed files stay reproducible), the tensor-core cases' from 500.
    if policy in ("fma-chain", "all"):
        for i, c in enumerate(fma_chain_cases()):
            yield (100 + i,) + c + ("fma-chain",)
    if policy in ("sm90-tensor-core", "all"):
        tc = []
        for libm in ("nvcc", "cr", "nvcc-fast"):
            tc += [(f"tc_{libm}_d128_causal_s200", [200], [200], 2, 1, 128, True, libm, torch.bfloat16),
                   (f"tc_{libm}_d64_full_s17", [17], [17], 4, 2, 64, False, libm, torch.bfloat16),
                   (f"tc_{libm}_varlen_causal", [5, 70, 1, 33], [5, 130, 65, 33], 6, 2, 64, True, libm,
                    torch.bfloat16),
                   (f"tc_{libm}_varlen_full_fp16", [9, 40], [64, 40], 4, 4, 128, False, libm, torch.float16)]
        for i, c in enumerate(tc):
            yield (500 + i,) + c + ("sm90-tensor-core",)


def fma_chain_cases():
    for libm in ("nvcc", "cr"):
        for d in (64, 128):
            for causal in (False, True):
                for S in (1, 17, 128):
                    yield (f"{libm}_d{d}_{'causal' if causal else 'full'}_s{S}", [S], [S], 4, 2, d, causal, libm,
                           torch.bfloat16)
        yield (f"{libm}_varlen_causal", [5, 70, 1, 33], [5, 130, 65, 33], 6, 2, 64, True, libm, torch.bfloat16)
        yield (f"{libm}_varlen_full_fp16", [9, 40], [64, 40], 4, 4, 128, False, libm, torch.float16)
        yield (f"{libm}_f32_causal", [65], [65], 2, 1, 64, True, libm, torch.float32)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("lib")
    ap.add_argument("outdir")
    ap.add_argument("--policy", choices=("fma-chain", "sm90-tensor-core", "all"), default="fma-chain")
    args = ap.parse_args()
    lib, outdir = args.lib, args.outdir
    os.makedirs(outdir, exist_ok=True)
    sb = Samebits(lib)
    tar_path = os.path.join(outdir, "attention_golden.tar")
    n = 0
    with tarfile.open(tar_path, "w") as tar:
        for seed, name, lq, lk, hq, hkv, d, causal, libm, dtype, policy in cases(args.policy):
            g = torch.Generator(device="cuda").manual_seed(seed)
            cu_q, cu_k = [0], [0]
            for a, b in zip(lq, lk):
                cu_q.append(cu_q[-1] + a)
                cu_k.append(cu_k[-1] + b)
            code = D_CODES[dtype][1]
            q = torch.randn(cu_q[-1], hq, d, device=DEV, generator=g).to(dtype)
            k = torch.randn(cu_k[-1], hkv, d, device=DEV, generator=g).to(dtype)
            v = torch.randn(cu_k[-1], hkv, d, device=DEV, generator=g).to(dtype)
            do = torch.randn(cu_q[-1], hq, d, device=DEV, generator=g).to(dtype)
            p = sb.problem(max(lq), hq, hkv, d, libm, DEV, causal, cu_q, cu_k, dtype=code)
            p.policy = 1 if policy == "sm90-tensor-core" else 0
            o = torch.empty_like(q)
            lse = torch.empty(cu_q[-1], hq, device=DEV, dtype=torch.float32)
            sb.forward(p, q, k, v, o, lse)
            dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
            sb.backward(p, q, k, v, o, do, lse, dq, dk, dv, sb.workspace(p))
            torch.cuda.synchronize()
            meta = {"case": name, "policy": policy, "libm": libm, "causal": str(int(causal)), "hq": str(hq), "hkv": str(hkv),
                    "d": str(d), "device": torch.cuda.get_device_name(), "capture": "tests/device/kernels/capture_golden.py"}
            blob = safetensors_bytes({"q": q, "k": k, "v": v, "do": do, "o": o, "lse": lse, "dq": dq, "dk": dk,
                                      "dv": dv, "cu_seqlens_q": torch.tensor(cu_q, dtype=torch.int32),
                                      "cu_seqlens_k": torch.tensor(cu_k, dtype=torch.int32)}, meta)
            info = tarfile.TarInfo(f"{name}.safetensors")
            info.size = len(blob)
            tar.addfile(info, io.BytesIO(blob))
            n += 1
    print(f"captured {n} golden cases into {tar_path}")


if __name__ == "__main__":
    main()
