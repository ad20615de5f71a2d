#!/usr/bin/env bash
# Everything issue 19 (the sm90-tensor-core policy) asks the device to show, on the card this runs
# on, results under $OUT/tc-evidence and packed into $OUT/results.tgz after every step (a call cut
# off by the tool's limit still returns what ran):
#   bash tests/device/kernels/tc_evidence.sh [STEP...]     default: model kernels sanitizers torch golden
#   model       mma_probe at its defaults: >= 10^9 wgmma dot products per input type (bf16, f16) over
#               15 input classes, each tile also through mma.sync m16n8k16 and with A from registers;
#               the candidates F24 / F26 (one kept bit fewer / more) are the planted changes
#   kernels     attention_tc_check whole: layout, refusals, the grid with the backward (o, lse, dq,
#               dk, dv against the CPU reference, libms nvcc, cr and nvcc-fast, a flipped-bit
#               control on each), invariances, bench S 512..16384 (the three libms)
#   sanitizers  memcheck, racecheck, synccheck on the tensor-core kernels (libms nvcc and nvcc-fast, causal)
#   torch       torch_compare.py beside SDPA flash / cuDNN in one process: accuracy against float64
#               at S = 4096, times S 512..16384, the bf16 roof measured in the same run, nvcc,
#               nvcc-fast and cr (--no-verify: the kernels step compares the bits)
#   golden      capture_golden.py --policy sm90-tensor-core: the cases CI replays against the CPU
#               reference (unpack tc-evidence/golden/attention_golden.tar into tests/data/kernels/attention/)
# From a Meson build, $SAMEBITS_BUILD (default build-device; configured here with -Dcuda=enabled
# -Ddevice_only=true and its attention_tc_check, C ABI library and mma_probe built when missing:
# the build's own time is not counted in the steps). About 8 minutes on an H100 once built; split
# the steps over two calls when a machine is slower.
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/samebits-out}
e=$out/tc-evidence
mkdir -p "$e"
B=${SAMEBITS_BUILD:-build-device}
{ [ -f "$B/build.ninja" ] || meson setup "$B" -Dcuda=enabled -Ddevice_only=true; } > "$e/build.txt" 2>&1 &&
  ninja -C "$B" tests/device/kernels/attention_tc_check kernels/libsamebits_kernels.so tests/device/mma_probe \
    >> "$e/build.txt" 2>&1 || { tail -30 "$e/build.txt"; exit 1; }
check=$B/tests/device/kernels/attention_tc_check lib=$B/kernels/libsamebits_kernels.so
pack() { (cd "$out" && tar czf results.tgz --exclude=results.tgz tc-evidence); }
status=0
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(model kernels sanitizers torch golden)
{
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
  echo "host: $(nproc) cores"
  echo "samebits: $(git rev-parse HEAD 2>/dev/null || echo 'not a git checkout')"
  echo "steps: ${steps[*]}"
} > "$e/machine.txt" 2>&1
cat "$e/machine.txt"
for step in "${steps[@]}"; do
  t0=$(date +%s)
  case "$step" in
    model)
      timeout 240 "$B/tests/device/mma_probe" --jsonl "$e/mma_probe.jsonl" > "$e/mma_probe.txt" 2>&1 || status=1
      gzip -9f "$e/mma_probe.jsonl"
      grep -E "^== |harness" "$e/mma_probe.txt"
      ;;
    kernels)
      timeout 300 "$check" --out "$e/check" > "$e/check.txt" 2>&1 || status=1
      grep -o '"summary".*' "$e/check.txt"
      grep -v '"pass":true' "$e/check.txt" | grep -v '"summary"' | tail -10
      ;;
    sanitizers)
      for libm in nvcc nvcc-fast; do
        for t in memcheck:"D=128 S=100 " racecheck:"D=64 S=100 " synccheck:"D=128 S=100 "; do
          tool=${t%%:*} f=${t#*:} log=$e/$tool.txt
          [ $libm = nvcc ] || { log=$e/${tool}_$libm.txt; f=${f/D=64/D=128}; }  # --quick has nvcc-fast at D = 128 only
          timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 3 "$check" --quick \
            --sections grid --filter "libm=$libm causal=1 $f" --out "$e/sanitizer" > "$log" 2>&1 || status=1
          echo "$tool $libm: $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
        done
      done
      ;;
    torch)
      mkdir -p "$e/torch"
      timeout 300 python3 bench/gpu/kernels/torch_compare.py "$lib" "$e/torch" \
        --policy sm90-tensor-core --seqlens 512,1024,2048,4096,8192,16384 --accuracy-seqlens 4096 --reps 10 --no-verify \
        > "$e/torch.txt" 2>&1 || status=1
      tail -14 "$e/torch.txt"
      ;;
    golden)
      timeout 120 python3 tests/device/kernels/capture_golden.py "$lib" "$e/golden" \
        --policy sm90-tensor-core 2>&1 | tail -2 || status=1
      ;;
    *) echo "unknown step $step (model, kernels, sanitizers, torch, golden)" >&2; exit 2 ;;
  esac
  echo "step $step: $(($(date +%s) - t0)) s, status so far $status"
  pack
done
exit $status
