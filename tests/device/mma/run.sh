#!/usr/bin/env bash
# tests/device/mma/run.sh — build and run the MMA probe on a GPU machine (sm_90: H100 or H200),
# results under $OUT. One call, under 10 minutes:
#   bash tests/device/mma/run.sh              quick sanity run, then the full run
#                                             (>= 10^9 wgmma m64n64k16 dot products per input type)
#   bash tests/device/mma/run.sh ARGS...      quick run, then the probe with ARGS (mma_probe --help)
# Writes: mma_machine.txt (GPU, driver, nvcc, commit), mma_build.txt (nvcc --resource-usage:
# registers, spills), mma_quick.txt / .jsonl, mma_probe.txt / .jsonl (JSON lines per type, N and
# class, the first mismatches with their inputs, then the summary table). Needs only nvcc (no
# Meson, no MPFR). Exit status: the full run's (0 harness checks passed, 1 failed, 2 CUDA error,
# 124 time limit: the classes finished so far are in the .jsonl).
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 2
out=${OUT:-/tmp/samebits-out}
mkdir -p "$out"
export PATH="$PATH:/usr/local/cuda/bin"
work=$(mktemp -d /tmp/samebits-mma.XXXXXX)
trap 'rm -rf "$work"' EXIT
{
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
  nvcc --version | tail -1
  echo "host: $(nproc) cores"
  echo "samebits: $(git rev-parse HEAD 2>/dev/null || echo 'not a git checkout')"
  git status --porcelain 2>/dev/null | head -20
} > "$out/mma_machine.txt" 2>&1
cat "$out/mma_machine.txt"
# -gencode, not -arch=sm_90a: nvcc 13.0 with -arch=sm_90a also assembles compute_90 PTX, where
# wgmma does not exist.
if ! nvcc -std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a -lineinfo --resource-usage \
     -Ilibm/include -Igpu/include -Itests/device -Itests/device/mma tests/device/mma/mma_probe.cu -o "$work/mma_probe" \
     > "$out/mma_build.txt" 2>&1; then
  tail -40 "$out/mma_build.txt"
  exit 2
fi
grep -E "registers|spill" "$out/mma_build.txt"
echo "=== quick $(date -u +%T)"
timeout 120 "$work/mma_probe" --quick --jsonl "$out/mma_quick.jsonl" > "$out/mma_quick.txt" 2>&1
echo "quick: exit $?"
tail -40 "$out/mma_quick.txt"
echo "=== full $(date -u +%T)"
timeout 420 "$work/mma_probe" --jsonl "$out/mma_probe.jsonl" "$@" > "$out/mma_probe.txt" 2>&1
status=$?
echo "full: exit $status $(date -u +%T)"
tail -60 "$out/mma_probe.txt"
exit $status
