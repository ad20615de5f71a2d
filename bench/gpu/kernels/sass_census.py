#!/usr/bin/env python3
"""Static opcode census of kernels in a `cuobjdump -sass` listing (gzip or plain).

    python3 bench/gpu/kernels/sass_census.py LISTING[.gz] [NAME_FILTER]

For each function whose mangled name contains NAME_FILTER (default: the D = 128, nvcc-libm, bf16
instantiations), prints its instruction count and the counts of the opcodes that tell the
tensor-core kernels' overheads apart: HGMMA (tensor core), R2UR (a vector register copied to a
uniform one, e.g. a wgmma descriptor held in vector registers), LDL / STL (spills), LDGSTS
(cp.async), LDS, moves, uniform 64-bit adds (descriptor steps), branches, MUFU.EX2 and FFMA.
Static counts, not executed ones: use ncu's source view (profile_tc_*.sh) for those.
"""
import collections
import gzip
import re
import sys


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) >= 2 else 2
    path = sys.argv[1]
    flt = sys.argv[2] if len(sys.argv) > 2 else "ILi128ENS2_10NvccExpLogELNS0_5DTypeE1"
    opener = gzip.open if path.endswith(".gz") else open
    funcs, cur = {}, None
    with opener(path, "rt") as f:
        for line in f:
            m = re.match(r"\s+Function : (\S+)", line)
            if m:
                cur = m.group(1)
                funcs[cur] = []
                continue
            m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
            if m and cur:
                funcs[cur].append(m.group(2).strip())
    keys = ["HGMMA", "R2UR", "LDL", "STL", "LDGSTS", "LDS", "MOV", "IMAD.MOV.U32", "UIADD3.64", "BRA",
            "MUFU.EX2", "FFMA"]
    for name, ins in funcs.items():
        if flt not in name:
            continue
        ops = collections.Counter(re.sub(r"^@!?U?P[T0-9]+\s+", "", t).split()[0] for t in ins)
        print(name[:100], "total", len(ins))
        print("   " + " ".join("%s=%d" % (k, sum(v for o, v in ops.items() if o.startswith(k))) for k in keys))
    return 0


if __name__ == "__main__":
    sys.exit(main())
