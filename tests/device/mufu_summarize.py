#!/usr/bin/env python3
"""Compresses mufu_probe's dumps on the device into what comes back.

For each table the residual is the signed distance in binary32 encodings
between the hardware result and the float64 reference rounded to binary32
(same-sign encodings are monotone, so the difference counts ulps; for
negative references the sign is flipped so + means larger in value). Prints
a histogram per table (JSON lines) and writes NAME.npz.xz per table: int8
residuals (-128: see the sparse list escape_index / escape_residual, for the
large residuals of lg2 near 0). With the reference formula below the host
rebuilds every hardware output exactly:
    hw = float32(ref) encoding + sign * residual.
  python3 tests/device/mufu_summarize.py DIR
"""
import io
import json
import lzma
import sys

import numpy as np

d = sys.argv[1]
i23 = np.arange(1 << 23, dtype=np.float64)
i24 = np.arange(1 << 24, dtype=np.float64)
m = 1.0 + i23 * 2.0**-23
refs = {
    'ex2_pos': np.exp2(i23 * 2.0**-23),
    'ex2_neg': np.exp2(-i24 * 2.0**-24),
    'lg2_e0': np.log2(m),
    'lg2_em1': np.log2(m / 2),
    'lg2_e1': np.log2(m * 2),
}
for name, ref in refs.items():
    hw = np.fromfile(f'{d}/{name}.u32', dtype=np.uint32)
    want = ref.astype(np.float32).view(np.uint32)
    sign = np.where(ref < 0, -1, 1)
    res = (hw.astype(np.int64) - want.astype(np.int64)) * sign
    # int8 residuals; -128 marks an entry whose residual is in the sparse list.
    esc = (res < -127) | (res > 127)
    small = np.where(esc, -128, res).astype(np.int8)
    buf = io.BytesIO()
    np.savez(buf, residual=small, escape_index=np.nonzero(esc)[0].astype(np.uint32),
             escape_residual=res[esc].astype(np.int64))
    with open(f'{d}/{name}.npz.xz', 'wb') as f:
        f.write(lzma.compress(buf.getvalue(), preset=9))
    values, counts = np.unique(res, return_counts=True)
    hist = {int(v): int(c) for v, c in zip(values, counts)} if len(values) <= 64 else {
        'distinct': int(len(values)), 'min': int(values[0]), 'max': int(values[-1]),
        'within_1': int(counts[np.abs(values) <= 1].sum())}
    print(json.dumps({'table': name, 'entries': int(len(hw)), 'residual_ulps': hist,
                      'escapes': int(esc.sum())}), flush=True)
