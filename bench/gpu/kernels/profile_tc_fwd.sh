#!/usr/bin/env bash
# ncu on the tensor-core forward at S = 4096 (Qwen3-8B shapes, causal, bf16, nvcc libm), driven by
# the bench of a Meson build's attention_tc_check (BUILD/tests/device/kernels/; -Dcuda=enabled),
# results under $OUT/r/profile_fwd_NAME (NAME: BUILD's folder name; packed into $OUT/results.tgz):
#   bash bench/gpu/kernels/profile_tc_fwd.sh BUILD [NAME]
#   details.txt      SpeedOfLight, WarpStateStats, SchedulerStats, Occupancy, InstructionStats, the
#                    tensor pipe's activity (ncu runs the SM at its base clock)
#   src_fwd.csv.gz   per SASS instruction: executed count and stall samples by reason
#   stalls_fwd.txt   bench/gpu/kernels/stall_summary.py of it
#   PROFILE_LIBM=nvcc-fast   that libm instead of nvcc (the directory gets its name: profile_fwd_NAME_LIBM)
set -u
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: profile_tc_fwd.sh BUILD [NAME] (BUILD/tests/device/kernels/attention_tc_check)" >&2; exit 2; }
bin=$1/tests/device/kernels/attention_tc_check
[ -e "$bin" ] || { echo "no $bin" >&2; exit 2; }
set -- "${2:-$(basename "$1")}"
R=${OUT:-/tmp/out}/r
libm=${PROFILE_LIBM:-nvcc}
P=$R/profile_fwd_$1
[ "$libm" = nvcc ] || P=${P}_$libm
mkdir -p "$P"
pack() { tar czf "${OUT:-/tmp/out}/results.tgz" -C "$(dirname "$R")" r; }
drive=("$bin" --sections bench --bench-seqlens 4096 --bench-libms "$libm" --bench-reps 1 --out /tmp/profile_fwd_bench)
timeout 120 ncu --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy \
  --section InstructionStats --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active \
  -k regex:"attention_tc_forward_kernel" --launch-count 1 "${drive[@]}" > "$P/details.txt" 2>&1
echo "details: rc=$?"
grep -E "attention_tc_forward|Duration|Issue Slots Busy|Eligible Warps|hmma" "$P/details.txt" | head -10
pack
timeout 150 ncu --section WarpStateStats --section SourceCounters -k regex:"attention_tc_forward_kernel" --launch-count 1 \
  --page source --csv --print-source sass "${drive[@]}" > "$P/src_fwd.csv" 2> "$P/src_fwd.err"
echo "source fwd: rc=$?"
python3 "$(dirname "$0")/stall_summary.py" "$P/src_fwd.csv" --top 30 > "$P/stalls_fwd.txt" 2>&1
head -50 "$P/stalls_fwd.txt"
gzip -9f "$P/src_fwd.csv"
pack
