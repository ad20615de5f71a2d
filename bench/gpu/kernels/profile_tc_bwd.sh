#!/usr/bin/env bash
# ncu on the tensor-core backward's two passes at S = 4096 (Qwen3-8B shapes, causal, bf16, nvcc
# libm), driven by the bench of a Meson build's attention_tc_check (BUILD/tests/device/kernels/;
# -Dcuda=enabled), results under $OUT/r/profile_NAME (NAME: BUILD's folder name; packed into
# $OUT/results.tgz):
#   bash bench/gpu/kernels/profile_tc_bwd.sh BUILD
#   details.txt        SpeedOfLight, WarpStateStats, SchedulerStats, Occupancy, InstructionStats and the
#                      tensor pipe's activity of both passes (ncu runs the SM at its base clock)
#   src_dkdv.csv.gz    the dK/dV pass per SASS instruction: executed count and stall samples by reason
#   src_dq.csv.gz      the same for the dq pass
#   stalls_*.txt       bench/gpu/kernels/stall_summary.py of each
#   profile_tc_bwd.sh BUILD stored  the backward with the dq pass from stored D^S (attention-tc.md
#                      §21): the dK/dV pass that stores it (the bench's 6th dK/dV launch: 5 of the
#                      recomputing backward come first, 2 warm-up + 3 timed) and the stored dq pass
#   PROFILE_LIBM=nvcc-fast   that libm instead of nvcc (the directory gets its name: profile_NAME_LIBM)
#   PROFILE_SRC="dkdv"       the source tables of these passes only (default "dkdv dq")
set -u
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: profile_tc_bwd.sh BUILD [stored] (BUILD/tests/device/kernels/attention_tc_check)" >&2; exit 2; }
dkdv_skip=0 dq_re="attention_tc_bwd_dq_kernel" sfx=""
if [ "${2:-}" = stored ]; then dkdv_skip=5 dq_re="attention_tc_bwd_dq_stored_kernel" sfx="_stored"; fi
bin=$1/tests/device/kernels/attention_tc_check
[ -e "$bin" ] || { echo "no $bin" >&2; exit 2; }
set -- "$(basename "$1")"
R=${OUT:-/tmp/out}/r
libm=${PROFILE_LIBM:-nvcc}
[ "$libm" = nvcc ] || sfx="${sfx}_$libm"
P=$R/profile_$1$sfx
mkdir -p "$P"
pack() { tar czf "${OUT:-/tmp/out}/results.tgz" -C "$(dirname "$R")" r; }
drive=("$bin" --sections bench --bench-seqlens 4096 --bench-libms "$libm" --bench-reps 1 --out /tmp/profile_bench)
for k in "attention_tc_bwd_kernel:$dkdv_skip" "$dq_re:0"; do
  timeout 150 ncu --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy \
    --section InstructionStats --section MemoryWorkloadAnalysis \
    --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum \
    -k regex:"${k%%:*}\$" --launch-skip "${k#*:}" --launch-count 1 "${drive[@]}" >> "$P/details.txt" 2>&1
  echo "details ${k%%:*}: rc=$?"
done
grep -E "attention_tc_bwd|Duration|Issue Slots Busy|Eligible Warps|hmma|dram__bytes|Memory Throughput" "$P/details.txt" | head -30
pack
for k in "dkdv:attention_tc_bwd_kernel:$dkdv_skip" "dq:$dq_re:0"; do
  n=${k%%:*} rest=${k#*:}
  case " ${PROFILE_SRC:-dkdv dq} " in *" $n "*) ;; *) continue ;; esac
  re=${rest%%:*} skip=${rest#*:}
  timeout 200 ncu --section WarpStateStats --section SourceCounters -k regex:"$re\$" --launch-skip "$skip" --launch-count 1 \
    --page source --csv --print-source sass "${drive[@]}" > "$P/src_$n.csv" 2> "$P/src_$n.err"
  echo "source $n: rc=$?"
  python3 "$(dirname "$0")/stall_summary.py" "$P/src_$n.csv" --top 25 > "$P/stalls_$n.txt" 2>&1
  head -40 "$P/stalls_$n.txt"
  gzip -9f "$P/src_$n.csv"
  pack
done
