"""One forward and one backward at a Qwen3-8B shape through the C ABI, for a
profiler to look at (ncu -k regex:attention ... python3 profile_one.py LIB S).
Not a benchmark: tests/device/kernels/run.sh bench (attention_check --bench-only) times the kernels."""
import sys

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0] + "/../../../python")
from samebits._device import Samebits  # noqa: E402  (the C ABI through samebits._lib)


def main():
    lib, S = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 4096
    libm = sys.argv[3] if len(sys.argv) > 3 else "nvcc"
    sb = Samebits(lib)
    dev = torch.device("cuda")
    hq, hkv, d = 32, 8, 128
    torch.manual_seed(0)
    q = torch.randn(S, hq, d, device=dev, dtype=torch.bfloat16)
    k = torch.randn(S, hkv, d, device=dev, dtype=torch.bfloat16)
    v = torch.randn(S, hkv, d, device=dev, dtype=torch.bfloat16)
    do = torch.randn(S, hq, d, device=dev, dtype=torch.bfloat16)
    o, lse = torch.empty_like(q), torch.empty(S, hq, device=dev, dtype=torch.float32)
    dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
    p = sb.problem(S, hq, hkv, d, libm, dev)
    ws = sb.workspace(p)
    sb.forward(p, q, k, v, o, lse)
    sb.backward(p, q, k, v, o, do, lse, dq, dk, dv, ws)
    torch.cuda.synchronize()
    print("ok", S, libm)


if __name__ == "__main__":
    main()
