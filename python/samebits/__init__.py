"""samebits: GPU numerics reproducible bit for bit.

The Python side is samebits.triton (the libm for Triton kernels). The C++
library, the oracle and the kernels live in the repository (README.md).
"""
__version__ = "0.1.0"
