#!/usr/bin/env bash
# Where the tensor-core attention's time goes, kernel by kernel: ncu's gpu__time_duration of every
# kernel of the bench's forward and backward at S = 4096 (Qwen3-8B shapes, causal, bf16), at the
# card's own clock (--clock-control none), for each libm given; from a carried check bundle's
# attention_tc_check (v/NAME, as ab_variants.sh extracts it). Results under $OUT/split:
#   bash tests/device/kernels/profile_tc_split.sh NAME [LIBM ...]     (default libm: nvcc-fast)
#   split_LIBM.txt    ncu's table (one row per launch, the bench's warm-up launches included)
#   split_LIBM.json   per kernel name: launches, median and minimum duration in microseconds
set -u
[ $# -ge 1 ] || { echo "usage: profile_tc_split.sh NAME [LIBM ...] (v/NAME/attention_tc_check)" >&2; exit 2; }
name=$1; shift
libms=("$@"); [ ${#libms[@]} -gt 0 ] || libms=(nvcc-fast)
bin=v/$name/attention_tc_check
[ -e "$bin" ] || { echo "no $bin" >&2; exit 2; }
dir=${OUT:-/tmp/out}/split
mkdir -p "$dir"
for libm in "${libms[@]}"; do
  timeout 150 ncu --clock-control none --metrics gpu__time_duration.sum --csv \
    -k regex:"attention_(tc_|bwd_)" --launch-count 80 \
    "$bin" --sections bench --bench-seqlens 4096 --bench-libms "$libm" --bench-reps 1 --out /tmp/split_bench \
    > "$dir/split_$libm.txt" 2> "$dir/split_$libm.err"
  echo "split $libm: rc=$?"
  python3 - "$dir/split_$libm.txt" "$dir/split_$libm.json" <<'PY'
import csv, io, json, re, statistics, sys
text = open(sys.argv[1]).read().splitlines()
start = next((i for i, l in enumerate(text) if l.startswith('"ID"')), None)
if start is None:
    sys.exit("no ncu table")
times = {}
for r in csv.DictReader(io.StringIO("\n".join(text[start:]))):
    if r.get("Metric Name") != "gpu__time_duration.sum":
        continue
    k = re.sub(r"\(.*", "", r["Kernel Name"])
    v = float(r["Metric Value"].replace(",", ""))
    v *= {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}[r.get("Metric Unit", "ns")]  # to microseconds
    times.setdefault(k, []).append(v)
out = {k: {"launches": len(v), "median_us": statistics.median(v), "min_us": min(v)} for k, v in times.items()}
json.dump(out, open(sys.argv[2], "w"), indent=1)
for k, v in sorted(out.items(), key=lambda kv: -kv[1]["median_us"]):
    print(f"  {v['median_us']:9.1f} us median  {v['min_us']:9.1f} min  x{v['launches']:<3} {k[:110]}")
PY
done
