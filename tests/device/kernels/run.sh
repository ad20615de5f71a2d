#!/usr/bin/env bash
# What the lead runs on the H200 (one command, results under $OUT):
#   bash tests/device/kernels/run.sh
# with build-device/ carried (built here by tests/device/kernels/build.sh: the
# check links MPFR/GMP statically, the GPU machine has none). Steps, each
# logged to $OUT/<step>.txt, a summary table last:
#   quick grid, full grid (attention_check.jsonl), benchmark (Qwen3-8B shapes),
#   compute-sanitizer memcheck and racecheck on a small and a larger point.
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/samebits-attn-out}
mkdir -p "$out"
bin=build-device/attention_check
if [ ! -x "$bin" ]; then
  echo "no $bin: building (needs nvcc and MPFR/GMP)"
  bash tests/device/kernels/build.sh > "$out/build.txt" 2>&1 || { tail -30 "$out/build.txt"; exit 1; }
fi
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader; nproc; } > "$out/machine.txt" 2>&1
cp build-device/ptxas.txt "$out/" 2>/dev/null
status=0
step() {  # step NAME TIMEOUT_S CMD...
  local name=$1 limit=$2; shift 2
  local t0=$SECONDS
  timeout "$limit" "$@" > "$out/$name.txt" 2>&1
  local rc=$?
  echo "$name rc=$rc $((SECONDS - t0))s" | tee -a "$out/steps.txt"
  [ $rc -eq 0 ] || status=1
}
small="libm=nvcc causal=1 D=64 S=17 hq=8 hkv=8 dtype=bfloat16"
larger="libm=cr causal=1 D=128 varlen8 hq=12 hkv=4 dtype=bfloat16"
step quick 120 "$bin" --quick --out "$out"
step full 330 "$bin" --out "$out"
step bench 90 "$bin" --bench-only --out "$out"
if command -v compute-sanitizer > /dev/null; then
  for tool in memcheck racecheck; do
    step "${tool}_small" 60 compute-sanitizer --tool "$tool" --error-exitcode 3 "$bin" --quick --filter "$small"
    step "${tool}_larger" 90 compute-sanitizer --tool "$tool" --error-exitcode 3 "$bin" --quick --filter "$larger"
  done
else
  echo "compute-sanitizer not found" | tee -a "$out/steps.txt"
  status=1
fi
echo "== summary"
cat "$out/steps.txt"
grep -h '^# ' "$out/quick.txt" "$out/full.txt" 2>/dev/null | grep points
grep -h '"pass":false' "$out/full.txt" "$out/quick.txt" 2>/dev/null | head -5 | cut -c1-400
grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" "$out"/memcheck_*.txt "$out"/racecheck_*.txt 2>/dev/null
cat "$out/bench.txt" 2>/dev/null | tail -10
exit $status
