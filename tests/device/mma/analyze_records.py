#!/usr/bin/env python3
"""Replays the MMA probe's recorded mismatches (the "record":"mismatch" lines of its jsonl: inputs
and the hardware's bits) through readings of the bf16 dot-add, counting the records each reading
reproduces (docs/kernels/mma.md §6.3, the table of the alignment floor):

    python3 tests/device/mma/analyze_records.py \\
        docs/kernels/results/h100/2026-12-06/first/mma_short.jsonl.gz \\
        docs/kernels/results/h100/2026-12-06/last/mma.jsonl.gz

Each record is a measured (a, b, c, hardware result) of a dot product some candidate missed, so any
correct reading must reproduce every one. The arithmetic is mma.md §2 (F = 25, one group of 16, C
fused, raw product exponents, truncation toward zero, RZ to fp32; scale-d = 0 as C = +0), written
again here in Python integers with the choices under test as arguments. Records with inf or NaN
operands are skipped (the readings do not differ there)."""
import gzip
import json
import sys


def dec(h, frac, width):
    """(sign, integer significand, exponent) of a bf16 (frac 7, width 16) or binary32 (23, 32)
    encoding: |x| = significand * 2^(exponent - frac); zero and subnormals at exponent -126."""
    field = (h >> frac) & 0xff
    sign = -1 if h >> (width - 1) else 1
    fraction = h & ((1 << frac) - 1)
    return (sign, fraction, -126) if field == 0 else (sign, fraction | (1 << frac), field - 127)


def rz32(S, unit, keep_sign):
    """S * 2^unit rounded toward zero to binary32 bits."""
    if S == 0:
        return 0
    m = abs(S)
    q = max(unit + m.bit_length() - 1 - 23, -149)
    mm = m << (unit - q) if q <= unit else m >> (q - unit)
    bits = min(((q + 149) << 23) + mm, 0x7f800000)
    return (0x80000000 if S < 0 and (bits or keep_sign) else 0) | bits


def dot_add(a, b, c, floor=None, zero_c_at_m126=False, keep_sign=False):
    if any(((x >> 7) & 0xff) == 0xff for x in a + b) or ((c >> 23) & 0xff) == 0xff:
        return None
    terms = []  # (sign, integer significand, exponent of its unit, alignment exponent)
    for x, y in zip(a, b):
        (sa, ma, ea), (sb, mb, eb) = dec(x, 7, 16), dec(y, 7, 16)
        if ma * mb:
            terms.append((sa * sb, ma * mb, ea + eb - 14, ea + eb))
    sc, mc, ec = dec(c, 23, 32)
    if mc:
        terms.append((sc, mc, ec - 23, ec))
    aligns = [t[3] for t in terms] + ([-126] if zero_c_at_m126 else []) + ([floor] if floor is not None else [])
    if not aligns:
        return 0
    unit = max(aligns) - 25
    S = sum(s * (m << (e - unit) if e >= unit else m >> (unit - e)) for s, m, e, _ in terms)
    return rz32(S, unit, keep_sign)


READINGS = [  # (name, keyword arguments)
    ("zero terms ignored, no floor", {}),
    ("floor -134", {"floor": -134}),
    ("floor -133", {"floor": -133}),
    ("floor -132", {"floor": -132}),
    ("floor -131", {"floor": -131}),
    ("floor -130", {"floor": -130}),
    ("a zero C at -126 (fixed_m126)", {"zero_c_at_m126": True}),
    ("floor -133, a tiny negative sum keeps its sign", {"floor": -133, "keep_sign": True}),
]


def main(paths):
    records, seen = [], set()
    for path in paths:
        for line in gzip.open(path, "rt"):
            if '"record":"mismatch"' not in line:
                continue
            r = json.loads(line)
            d0 = r["instr"] == "wgmma_scale_d0"
            key = (tuple(r["a"]), tuple(r["b"]), r["c"], d0)
            if r["type"] != "bf16" or key in seen:
                continue
            seen.add(key)
            records.append(([int(x, 16) for x in r["a"]], [int(x, 16) for x in r["b"]],
                            0 if d0 else int(r["c"], 16), int(r["hw"], 16), r["class"]))
    usable = [r for r in records if dot_add(r[0], r[1], r[2]) is not None]
    print(f"{len(records)} distinct bf16 records, {len(usable)} without inf/NaN operands")
    for name, kw in READINGS:
        missed = [cls for a, b, c, hw, cls in usable if dot_add(a, b, c, **kw) != hw]
        by_class = ", ".join(f"{k} {missed.count(k)}" for k in sorted(set(missed)))
        print(f"  {name:50s} {len(usable) - len(missed):5d} / {len(usable)}" + (f"  (missed: {by_class})" if missed else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
