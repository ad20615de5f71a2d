#!/usr/bin/env bash
# Where the tensor-core attention's time goes, kernel by kernel: ncu's gpu__time_duration of every
# kernel of the bench's forward and backward at S = 4096 (Qwen3-8B shapes, causal, bf16), at the
# card's own clock (--clock-control none), for each libm given; from a Meson build's
# attention_tc_check (BUILD/tests/device/kernels/; -Dcuda=enabled). Results under $OUT/split:
#   bash bench/gpu/kernels/profile_tc_split.sh BUILD [LIBM ...]     (default libm: nvcc-fast)
#   split_LIBM.txt    ncu's table (one row per launch, the bench's warm-up launches included)
#   split_LIBM.json   per kernel name: launches, median and minimum duration in microseconds (the
#                     dK/dV pass by path: split_table.py)
set -u
[ $# -ge 1 ] || { echo "usage: profile_tc_split.sh BUILD [LIBM ...] (BUILD/tests/device/kernels/attention_tc_check)" >&2; exit 2; }
bin=$1/tests/device/kernels/attention_tc_check; shift
libms=("$@"); [ ${#libms[@]} -gt 0 ] || libms=(nvcc-fast)
[ -e "$bin" ] || { echo "no $bin" >&2; exit 2; }
dir=${OUT:-/tmp/out}/split
mkdir -p "$dir"
for libm in "${libms[@]}"; do
  timeout 150 ncu --clock-control none --metrics gpu__time_duration.sum --csv \
    -k regex:"attention_(tc_|bwd_)" --launch-count 80 \
    "$bin" --sections bench --bench-seqlens 4096 --bench-libms "$libm" --bench-reps 1 --out /tmp/split_bench \
    > "$dir/split_$libm.txt" 2> "$dir/split_$libm.err"
  echo "split $libm: rc=$?"
  python3 "$(dirname "$0")/split_table.py" "$dir/split_$libm.txt" "$dir/split_$libm.json"
done
