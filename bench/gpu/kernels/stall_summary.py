"""Sums the warp-stall samples of an ncu source-page CSV (ncu ... --page source --csv
--print-source sass, optionally gzipped): the share of each stall reason, and the instructions
with the most samples (each with its largest reason).

    python3 bench/gpu/kernels/stall_summary.py FILE.csv[.gz] [--top N] [--json OUT]
"""
import argparse
import collections
import csv
import gzip
import io
import json
import sys


def rows_of(path):
    raw = gzip.open(path, "rt") if path.endswith(".gz") else open(path)
    lines = raw.read().splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"Address"')), None)
    if start is None:
        sys.exit(f"{path}: no ncu source table (a line starting with \"Address\")")
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    head = rows[0]
    return head, [r for r in rows[1:] if len(r) == len(head) and r[0].startswith("0x")]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--json")
    args = ap.parse_args()
    head, data = rows_of(args.csv)
    ix = {h: i for i, h in enumerate(head)}
    reasons = [h for h in head if h.startswith("stall_") and "Not Issued" not in h]
    if not reasons:
        sys.exit(f"{args.csv}: no stall_* columns (collect with --section WarpStateStats --section SourceCounters)")
    count = lambda r, h: int(r[ix[h]] or 0)
    totals = collections.Counter({h: sum(count(r, h) for r in data) for h in reasons})
    total = sum(totals.values())
    print(f"{len(data)} instructions, {total} stall samples")
    for h, v in totals.most_common():
        if v:
            print(f"  {h:28s} {v:9d} {100 * v / total:5.1f} %")
    samples = "Warp Stall Sampling (All Samples)"
    top = sorted(data, key=lambda r: -count(r, samples))[: args.top]
    print(f"\nthe {args.top} instructions with the most samples:")
    for r in top:
        reason = max(reasons, key=lambda h: count(r, h))
        print(f"  {count(r, samples):7d} {reason:24s} {r[ix['Source']].strip()[:72]}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"samples": total, "by_reason": {h: v for h, v in totals.items() if v},
                       "top": [{"samples": count(r, samples), "sass": r[ix["Source"]].strip()} for r in top]}, f,
                      indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
