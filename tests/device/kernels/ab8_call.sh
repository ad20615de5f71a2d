#!/usr/bin/env bash
# The 2026-12-06 seventh session's first call: SASS of variants A, B, C and their timing against
# main; on an H200 instead, tc_evidence.sh's model and kernels steps on main's build (4fddded).
tar xJf .devcarry/ab8.tar.xz
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  mkdir -p build-device && cp v/main/attention_tc_check v/mma/mma_probe build-device/
  timeout 570 bash tests/device/kernels/tc_evidence.sh model kernels
  exit
fi
mkdir -p "$OUT/r/sass"
for n in A B C; do for f in v/$n/*.o; do cuobjdump -sass "$f" | gzip > "$OUT/r/sass/${n}_$(basename "$f" .o).sass.gz"; done; done
AB_CHECK=quick AB_BENCH_ARGS="--bench-seqlens 4096 --bench-libms nvcc" timeout 555 bash tests/device/kernels/ab_variants.sh main A B C > "$OUT/log.txt" 2>&1
cat "$OUT/log.txt"
