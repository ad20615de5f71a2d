#!/usr/bin/env bash
# What the lead runs on the H200 (one command, results under $OUT):
#   bash tests/device/kernels/run.sh [STEP...]   (default: all steps, in order:
#        quick bench full varlen large memcheck racecheck)
# from a Meson build, $SAMEBITS_BUILD (default build-device; configured here with
# -Dcuda=enabled -Ddevice_only=true and built when missing: nvcc, meson, ninja, no MPFR; the
# check needs no library beyond the CUDA driver). Steps, each
# logged to $OUT/<step>.txt, a summary table last:
#   quick grid, benchmark (Qwen3-8B shapes), full grid without the S >= 2048
#   points, the invariance section (--varlen), the S = 2048/4096 points (the
#   CPU reference takes most of this), compute-sanitizer memcheck and
#   racecheck on a small and a larger point. Budget: under 9 minutes.
#   compute-sanitizer refuses the device under gVisor ("Device not supported",
#   KINDS.md); it works on the Firecracker machines.
#   Optional group `py`: tests/device/kernels/{invariance,capture_golden}.py and
#   bench/gpu/kernels/torch_compare.py through $SAMEBITS_BUILD/kernels/libsamebits_kernels.so.
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/samebits-attn-out}
mkdir -p "$out" "$out/varlen" "$out/large"
B=${SAMEBITS_BUILD:-build-device}
bin=$B/tests/device/kernels/attention_check
{ [ -f "$B/build.ninja" ] || meson setup "$B" -Dcuda=enabled -Ddevice_only=true; } > "$out/build.txt" 2>&1 &&
  ninja -C "$B" tests/device/kernels/attention_check kernels/libsamebits_kernels.so >> "$out/build.txt" 2>&1 ||
  { tail -30 "$out/build.txt"; exit 1; }
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader; nproc; } > "$out/machine.txt" 2>&1
status=0
steps=" ${*:-quick bench full varlen large memcheck racecheck} "
step() {  # step NAME TIMEOUT_S CMD...: runs when NAME's group was asked for
  local name=$1 limit=$2; shift 2
  [[ "$steps" == *" ${name%%_*} "* ]] || return 0
  local t0=$SECONDS
  timeout "$limit" "$@" > "$out/$name.txt" 2>&1
  local rc=$?
  echo "$name rc=$rc $((SECONDS - t0))s" | tee -a "$out/steps.txt"
  [ $rc -eq 0 ] || status=1
}
small="libm=nvcc causal=1 D=64 S=17 hq=8 hkv=8 dtype=bfloat16"
larger_mem="libm=cr causal=1 D=128 varlen8 hq=12 hkv=4 dtype=bfloat16"
larger_race="libm=nvcc causal=0 D=128 S=128 hq=8 hkv=8 dtype=bfloat16"
step quick 60 "$bin" --quick --out "$out"
step bench 60 "$bin" --bench-only --out "$out"
step full 150 "$bin" --skip-large --out "$out"
step varlen 60 "$bin" --no-refusals --filter none --varlen --out "$out/varlen"
step large 200 "$bin" --large-only --out "$out/large"
if command -v compute-sanitizer > /dev/null; then
  san=(--error-exitcode 3)
  mkdir -p "$out/sanitizer"
  so=(--out "$out/sanitizer")  # its JSON lines apart from the quick grid's
  step memcheck_small 45 compute-sanitizer --tool memcheck "${san[@]}" "$bin" --quick "${so[@]}" --filter "$small"
  step memcheck_larger 60 compute-sanitizer --tool memcheck "${san[@]}" "$bin" --quick "${so[@]}" --filter "$larger_mem"
  step racecheck_small 45 compute-sanitizer --tool racecheck "${san[@]}" "$bin" --quick "${so[@]}" --no-refusals \
    --filter "$small"
  step racecheck_larger 75 compute-sanitizer --tool racecheck "${san[@]}" "$bin" --quick "${so[@]}" --no-refusals \
    --filter "$larger_race"
else
  echo "compute-sanitizer not found" | tee -a "$out/steps.txt"
  status=1
fi
# Not in the default list: the ctypes scripts, through the C ABI library (bash run.sh py).
lib=$B/kernels/libsamebits_kernels.so
mkdir -p "$out/py"
step py_invariance 240 python3 tests/device/kernels/invariance.py "$lib" "$out/py" --libm both
step py_torch 420 python3 bench/gpu/kernels/torch_compare.py "$lib" "$out/py" --reps 10
step py_golden 120 python3 tests/device/kernels/capture_golden.py "$lib" "$out/py"
echo "== summary"
cat "$out/steps.txt"
grep -h '^# ' "$out/quick.txt" "$out/full.txt" "$out/large.txt" 2>/dev/null | grep points
grep -h '"pass":false' "$out"/*.txt 2>/dev/null | head -8 | cut -c1-400
grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" "$out"/memcheck_*.txt "$out"/racecheck_*.txt 2>/dev/null
cat "$out/bench.txt" 2>/dev/null | tail -10
exit $status
