"""One sparse MLA forward and one backward at the issue's shape through the C ABI, for a profiler
(per-kernel durations and limits):

    ncu --section SpeedOfLight --section Occupancy --section WarpStateStats -k regex:sparse_mla \\
        python3 bench/gpu/kernels/profile_sparse.py build-device/kernels/libsamebits_kernels.so [T] [libm]

Not a benchmark: sparse_torch_compare.py and sparse_mla_check --bench time the kernels."""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
from samebits._device import Samebits, SparseMla  # noqa: E402  (the C ABI through samebits._lib)
from sparse_torch_compare import make_inputs  # noqa: E402


def main():
    lib = sys.argv[1]
    T = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
    libm = sys.argv[3] if len(sys.argv) > 3 else "nvcc"
    dev = torch.device("cuda")
    sp = SparseMla(Samebits(lib))
    q, kv, do, sink, idx = make_inputs(T, 128, 512, 512, 4096, 128, dev, 3)
    p = sp.problem(q, kv, idx, libm, sink)
    o, lse = torch.empty_like(q), torch.empty(T, 128, device=dev)
    dq, dkv, ds = torch.empty_like(q), torch.empty_like(kv), torch.empty(128, device=dev)
    sp.forward(p, q, kv, o, lse)
    sp.backward(p, q, kv, o, do, lse, dq, dkv, ds, sp.workspace(p))
    torch.cuda.synchronize()
    print("ok", T, libm)


if __name__ == "__main__":
    main()
