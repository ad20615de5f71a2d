#!/usr/bin/env bash
# What the lent H200 machine runs for samebits::nvcc (issue: nvcc personality).
#   bash tests/device/run_nvcc_h200.sh
# 1. builds (nvcc, sm_90) tests/device/nvcc_bitwise.cu twice — default flags,
#    and -ftz=true with -DSAMEBITS_TEST_FTZ=1 — and runs both over all 2^32
#    inputs: samebits::nvcc vs CUDA's own functions on the GPU, samebits'
#    host path vs its device path; JSON lines to $OUT/nvcc_bitwise.jsonl;
# 2. builds tests/device/capture_nvcc_golden.cu the same two ways and writes
#    $OUT/nvcc_golden_default.bin and $OUT/nvcc_golden_ftz.bin (the golden
#    vectors of the CI test of the host path).
# Everything runs even when an earlier step fails; the exit code is nonzero if
# any build or run failed ($OUT/exit_codes.txt says which). Extra arguments
# are passed to both nvcc_bitwise runs (e.g. --chunks 1 for a smoke test).
# Results go to $OUT (the device tool brings them back); docs/libm/nvcc.md
# quotes them.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
out=${OUT:-/tmp/samebits-out}
bin=$(mktemp -d /tmp/samebits-nvcc.XXXXXX)
mkdir -p "$out"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)

{
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
  "$nvcc" --version | tail -1
  echo "host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  if rev=$(git rev-parse HEAD 2>/dev/null); then
    echo "samebits: $rev$(git diff --quiet HEAD -- libm tests/device 2>/dev/null || echo ' (modified)')"
  else
    echo "samebits: not a git checkout"
  fi
} | tee "$out/machine.txt"

status=0
: > "$out/exit_codes.txt"
note() {  # note STEP RC
  echo "$1 $2" >> "$out/exit_codes.txt"
  [ "$2" -eq 0 ] || status=1
}

flags=(-O3 -std=c++20 -arch=sm_90 -I libm/include)
build() {  # build NAME SOURCE EXTRA_FLAGS...
  local name=$1 src=$2
  shift 2
  "$nvcc" "${flags[@]}" "$@" "$src" -o "$bin/$name" 2>&1 | tee "$out/build_$name.log"
  note "build_$name" "${PIPESTATUS[0]}"
}
mufu=(libm/src/nvcc_mufu_ex2.cpp libm/src/nvcc_mufu_lg2.cpp)  # the host path's MUFU models
build nvcc_bitwise tests/device/nvcc_bitwise.cu "${mufu[@]}"
build nvcc_bitwise_ftz tests/device/nvcc_bitwise.cu -ftz=true -DSAMEBITS_TEST_FTZ=1 "${mufu[@]}"
build capture_nvcc_golden tests/device/capture_nvcc_golden.cu
build capture_nvcc_golden_ftz tests/device/capture_nvcc_golden.cu -ftz=true

: > "$out/nvcc_bitwise.jsonl"
for name in nvcc_bitwise nvcc_bitwise_ftz; do
  if [ -x "$bin/$name" ]; then
    "$bin/$name" "$@" | tee -a "$out/nvcc_bitwise.jsonl"
    note "run_$name" "${PIPESTATUS[0]}"
  else
    note "run_$name" 127
  fi
done

for variant in default ftz; do
  name=capture_nvcc_golden$([ "$variant" = ftz ] && echo _ftz)
  if [ -x "$bin/$name" ]; then
    "$bin/$name" "$out/nvcc_golden_$variant.bin"
    note "run_$name" $?
  else
    note "run_$name" 127
  fi
done
(cd "$out" && sha256sum nvcc_golden_*.bin 2>/dev/null) | tee "$out/nvcc_golden.sha256"

echo "--- exit codes"
cat "$out/exit_codes.txt"
rm -rf "$bin"
exit $status
