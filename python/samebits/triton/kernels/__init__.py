"""samebits.triton.kernels — Triton cores of samebits' attention contracts, bit for bit equal to the
CUDA kernels and the CPU reference (docs/kernels/attention.md, docs/kernels/sparse_mla.md,
policy fma-chain/1):

    from samebits.triton.kernels import attention_forward, attention_backward, sparse_mla_forward

Needs torch and Triton (the user's); imported on demand, so `import samebits.triton` does not
import them. Status: written; not yet run on a GPU (tests/device/triton/triton_attention.py is
the check)."""
from .attention import attention_backward, attention_forward, default_scale
from .sparse_mla import sparse_mla_forward

__all__ = ["attention_forward", "attention_backward", "sparse_mla_forward", "default_scale"]
