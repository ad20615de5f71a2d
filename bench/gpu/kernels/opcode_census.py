#!/usr/bin/env python3
"""Executed-instruction census of one kernel from an ncu source-page CSV (profile_tc_*.sh's
src_*.csv[.gz]: ncu --section SourceCounters --page source --csv --print-source sass).

    python3 bench/gpu/kernels/opcode_census.py CSV[.gz] [CSV ...] [--per OPCODE] [--top N] [--json OUT]

For each file: warp instructions executed in all, then by opcode (predicate guards dropped,
modifiers kept: FFMA.SAT apart from FFMA), each also per execution of --per (default MUFU.EX2:
per exponential, i.e. about per score element of the attention kernels). With two files, a last
table gives the difference (second minus first) per opcode. Executed counts, not static ones
(sass_census.py counts a listing).
"""
import argparse
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stall_summary import rows_of  # noqa: E402  (the same ncu source-page CSV)


def census(path):
    head, data = rows_of(path)
    ix = {h: i for i, h in enumerate(head)}
    if "Instructions Executed" not in ix:
        sys.exit(f"{path}: no 'Instructions Executed' column (collect with --section SourceCounters)")
    counts = collections.Counter()
    for r in data:
        words = [w for w in r[ix["Source"]].split() if not w.startswith("@")]
        counts[words[0] if words else "?"] += int(r[ix["Instructions Executed"]] or 0)
    return counts


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--per", default="MUFU.EX2")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--json")
    args = ap.parse_args()
    result = {}
    for path in args.csv:
        c = census(path)
        total, per = sum(c.values()), c.get(args.per, 0)
        result[path] = {"total": total, "per_opcode": dict(c.most_common())}
        print(f"{path}: {total:,} warp instructions executed, {per:,} {args.per}"
              + (f" ({total / per:.2f} per {args.per})" if per else ""))
        for op, n in c.most_common(args.top):
            print(f"  {op:34s} {n:13,d} {100 * n / total:5.1f} %" + (f" {n / per:7.2f}" if per else ""))
    if len(args.csv) == 2:
        a, b = (collections.Counter(result[p]["per_opcode"]) for p in args.csv)
        diff = {op: b[op] - a[op] for op in set(a) | set(b)}
        print(f"difference ({args.csv[1]} minus {args.csv[0]}): {sum(diff.values()):,}")
        for op, n in sorted(diff.items(), key=lambda kv: -abs(kv[1]))[: args.top]:
            print(f"  {op:34s} {n:+13,d}")
        result["difference"] = diff
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
