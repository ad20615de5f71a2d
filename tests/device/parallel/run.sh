#!/usr/bin/env bash
# samebits.parallel on the machine it finds (issue 20; docs/kernels/parallel.md):
#   bash tests/device/parallel/run.sh
# needs the C ABI library of a Meson build, $SAMEBITS_BUILD (default build-device; configured
# with -Dcuda=enabled -Ddevice_only=true and built here when missing), or SAMEBITS_KERNELS_LIB.
#   1 GPU:   CP {2, 4} x TP {1, 2}, the ranks sharing the GPU over gloo (transfers staged
#            through host memory), S = 4096 causal and not; then S = 16384 causal for the same
#            grid while the time budget (about 7 minutes in all) allows
#   >= 2 GPUs: CP {2, 4, 8} x TP {1, 2} wherever CP x TP <= the GPU count, over NCCL, one GPU a
#            rank, S = 4096 (causal and not) and 16384 (causal)
# Each torchrun under a timeout. Results: $OUT/parallel/{results.jsonl,table.txt,log.txt}.
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/samebits-parallel-out}/parallel
mkdir -p "$out"
B=${SAMEBITS_BUILD:-build-device}
lib=${SAMEBITS_KERNELS_LIB:-$B/kernels/libsamebits_kernels.so}
if [ -z "${SAMEBITS_KERNELS_LIB:-}" ]; then
  { [ -f "$B/build.ninja" ] || meson setup "$B" -Dcuda=enabled -Ddevice_only=true; } > "$out/build.txt" 2>&1 &&
    ninja -C "$B" kernels/libsamebits_kernels.so >> "$out/build.txt" 2>&1 || { tail -30 "$out/build.txt"; exit 2; }
fi
[ -f "$lib" ] || { echo "no $lib" | tee -a "$out/log.txt"; exit 2; }
export SAMEBITS_KERNELS_LIB=$(realpath "$lib") PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1  # KINDS.md: no NVLink multicast
export GLOO_SOCKET_IFNAME=${GLOO_SOCKET_IFNAME:-lo} PYTHONUNBUFFERED=1
ngpu=$(python3 -c "import torch; print(torch.cuda.device_count())")
budget=${SAMEBITS_PARALLEL_BUDGET_S:-420}
echo "$(date -u +%FT%TZ) $ngpu GPU(s); library $SAMEBITS_KERNELS_LIB; budget ${budget}s" | tee -a "$out/log.txt"
status=0 skipped=0
one() {  # one LIMIT_S CP TP SEQ BACKEND [cp_tp_check.py options]
  local lim=$1 cp=$2 tp=$3 seq=$4 be=$5 n=$(($2 * $3))
  shift 5
  echo "== cp $cp tp $tp S $seq $be ($n processes, limit $lim s) $*" | tee -a "$out/log.txt"
  timeout --kill-after=10 "$lim" torchrun --standalone --nproc_per_node="$n" tests/device/parallel/cp_tp_check.py \
    --cp "$cp" --tp "$tp" --seq "$seq" --backend "$be" --out "$out" "$@" >> "$out/log.txt" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || { status=1; echo "   rc=$rc" | tee -a "$out/log.txt"; }
}
if [ "$ngpu" -le 1 ]; then
  for cp in 2 4; do for tp in 1 2; do one 120 $cp $tp 4096 gloo --causal both; done; done
  for cp in 2 4; do for tp in 1 2; do
    if [ $((SECONDS + 150)) -lt "$budget" ]; then one 150 $cp $tp 16384 gloo --reps 3 --warmup 1
    else skipped=$((skipped + 1)); echo "== cp $cp tp $tp S 16384: skipped (time budget)" | tee -a "$out/log.txt"; fi
  done; done
else
  for s in 4096 16384; do for cp in 2 4 8; do for tp in 1 2; do
    [ $((cp * tp)) -le "$ngpu" ] || continue
    c=yes; [ "$s" -eq 4096 ] && c=both
    if [ $((SECONDS + 120)) -lt "$budget" ]; then one 120 $cp $tp $s nccl --causal $c
    else skipped=$((skipped + 1)); echo "== cp $cp tp $tp S $s: skipped (time budget)" | tee -a "$out/log.txt"; fi
  done; done; done
fi
echo "---- table"; cat "$out/table.txt" 2>/dev/null
echo "status $status (0: every configuration that ran passed); $skipped skipped for time" | tee -a "$out/log.txt"
exit $status
