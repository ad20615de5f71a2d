#!/usr/bin/env python3
"""Summarizes mufu_probe's dumps against float64 references, on the device.

For each table T[i] (ex2 of +-i 2^-23, lg2 of 1 + i 2^-23) the residual is
the signed distance in binary32 ulps (encoding difference) between the
hardware result and the float64 reference rounded to binary32. Prints a
histogram per table and writes mufu_residuals.npz (int8 residuals,
compressed: the data a host model is fitted to).
  python3 tests/device/mufu_summarize.py DIR
"""
import json
import sys

import numpy as np

d = sys.argv[1]
i = np.arange(1 << 23, dtype=np.float64)
refs = {
    'ex2_pos': np.exp2(i * 2.0**-23),
    'ex2_neg': np.exp2(-i * 2.0**-23),
    'lg2_m': np.log2(1.0 + i * 2.0**-23),
}
out = {}
for name, ref in refs.items():
    hw = np.fromfile(f'{d}/{name}.u32', dtype=np.uint32)
    want = ref.astype(np.float32).view(np.uint32)
    # Encodings of same-sign floats are monotone: the difference counts ulps.
    hw_i = hw.astype(np.int64)
    want_i = want.astype(np.int64)
    sign = np.where(ref < 0, -1, 1)
    res = (hw_i - want_i) * sign
    res8 = np.clip(res, -127, 127).astype(np.int8)
    out[name] = res8
    values, counts = np.unique(res, return_counts=True)
    print(json.dumps({'table': name, 'residual_ulps': {int(v): int(c) for v, c in zip(values, counts)}}))
np.savez_compressed(f'{d}/mufu_residuals.npz', **out)
