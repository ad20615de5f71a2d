#!/usr/bin/env bash
# The 2026-12-06 seventh session's second call: variant D (A's copies and rescale skip, warp_uniform
# in the forward and the dq passes) against A, alternated; D's whole check, sanitizers and
# torch_compare beside SDPA. On an H200 instead: tc_evidence.sh kernels torch on D.
tar xJf .devcarry/ab9.tar.xz
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  mkdir -p build-device && cp v/D/attention_tc_check v/D/libsamebits_kernels.so build-device/
  timeout 440 bash tests/device/kernels/tc_evidence.sh kernels torch
  exit
fi
AB_CHECK=full AB_BENCH_ARGS="--bench-seqlens 4096 --bench-libms nvcc" \
AB_TORCH_ARGS="--policy sm90-tensor-core --seqlens 1024,2048,4096,8192 --reps 10 --verify-seqlens 1024 --accuracy-seqlens 4096" \
  timeout 420 bash tests/device/kernels/ab_variants.sh A D > "$OUT/log.txt" 2>&1
cat "$OUT/log.txt"
