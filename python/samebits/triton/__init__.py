"""samebits.triton — samebits' libm inside Triton kernels, bit for bit.

    import samebits.triton as sbt

    @triton.jit
    def kernel(...):
        y = sbt.expf(x)            # = samebits::nvcc::expf = CUDA's expf (NVIDIA)
        y = sbt.cr.expf(x)         # correctly rounded: the same bits on every CPU and GPU
        y = sbt.nvcc.ftz.logf(x)   # CUDA's logf under -ftz=true
        y = sbt.nvcc.fast.expf(x)  # CUDA's __expf (what tl.exp gives)
        y = sbt.hipcc.expf(x)      # hipcc's expf on gfx942/gfx950 (AMD; compile-checked only)

Modules, mirroring the C++ namespaces (docs/libm/triton.md):
  nvcc        expf exp2f exp10f logf log2f log10f — samebits::nvcc (CUDA 13, sm_90)
  nvcc.ftz    the same under -ftz=true;  nvcc.fast: expf exp10f logf log2f (__expf ...)
  cr          expf ... log10f, correctly rounded (samebits::cr)
  hipcc       samebits::hipcc for gfx942/gfx950; hipcc.afn, hipcc.daz, hipcc.triton
  expf ... log10f at the top level are nvcc's.

Each function is tl.inline_asm_elementwise over text generated from the
project's own build (libm/tools/gen_triton_asm.py: nvcc's PTX for NVIDIA,
clang-22's code for AMD), so the Triton and C++ paths cannot drift; CI checks
the text is current. float32 in, float32 out; other dtypes are refused at
compile time. NVIDIA text runs on sm_90 and later; AMD text was compiled,
not run (no AMD GPU was available): NOT verified on AMD hardware.
"""
from ._asm import cr, hipcc, nvcc
from ._asm.nvcc import exp2f, exp10f, expf, log2f, log10f, logf

__all__ = ["cr", "hipcc", "nvcc", "expf", "exp2f", "exp10f", "logf", "log2f", "log10f"]
