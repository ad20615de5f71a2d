#!/usr/bin/env python3
"""Per-kernel durations from ncu's CSV (profile_tc_split.sh): launches, median and minimum in µs.

    python3 bench/gpu/kernels/split_table.py split_LIBM.txt split_LIBM.json

The bench runs the backward twice per repetition: once recomputing p in the dq pass, once with
stored D^S. Both run the same dK/dV kernel (attention_tc_bwd_kernel<..., 0>), the second storing
D^S, so its launches are told apart by the launch that follows: `[stores D^S]` when it is the
stored dq pass (attention_tc_bwd_dq_stored_kernel), `[recompute path]` otherwise.
"""
import csv
import io
import json
import re
import statistics
import sys


def main(src, dst):
    text = open(src).read().splitlines()
    start = next((i for i, line in enumerate(text) if line.startswith('"ID"')), None)
    if start is None:
        sys.exit(f"split_table.py: no ncu table in {src}")
    scale = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}
    launches = []
    for r in csv.DictReader(io.StringIO("\n".join(text[start:]))):
        if r.get("Metric Name") != "gpu__time_duration.sum":
            continue
        name = re.sub(r"\(.*", "", r["Kernel Name"])
        unit = r.get("Metric Unit", "ns")
        if unit not in scale:
            sys.exit(f"split_table.py: unknown unit {unit!r} in {src}")
        launches.append((name, float(r["Metric Value"].replace(",", "")) * scale[unit]))
    times = {}
    for i, (name, us) in enumerate(launches):
        if re.search(r"attention_tc_bwd_kernel<.*, 0>$", name):
            following = launches[i + 1][0] if i + 1 < len(launches) else ""
            name += " [stores D^S]" if "dq_stored" in following else " [recompute path]"
        times.setdefault(name, []).append(us)
    out = {k: {"launches": len(v), "median_us": statistics.median(v), "min_us": min(v)} for k, v in times.items()}
    with open(dst, "w") as f:
        json.dump(out, f, indent=1)
    for k, v in sorted(out.items(), key=lambda kv: -kv[1]["median_us"]):
        print(f"  {v['median_us']:9.1f} us median  {v['min_us']:9.1f} min  x{v['launches']:<3} {k[:110]}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
