#!/usr/bin/env bash
# The 2026-12-06 seventh session's last call (about 80 s): D's bench and torch_compare at S = 4096,
# the card's clock and throttle state recorded around each, to see whether torch_compare's slower
# run (d-final/) was the clock.
tar xJf .devcarry/ab9.tar.xz
q() { nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,temperature.gpu,power.draw,clocks_throttle_reasons.active --format=csv,noheader; }
echo "before: $(q)"
v/D/attention_tc_check --sections bench --bench-reps 20 --bench-seqlens 4096 --bench-libms nvcc --out "$OUT/b1" > "$OUT/bench1.txt" 2>&1
echo "bench1: $(grep -o '"tc_fwd_ms":[0-9.]*\|"tc_bwd_ms":[0-9.]*\|"tc_fwd_bwd_ms":[0-9.]*' "$OUT/bench1.txt" | tr '\n' ' ') after: $(q)"
timeout 90 python3 tests/device/kernels/torch_compare.py v/D/libsamebits_kernels.so "$OUT/t" --policy sm90-tensor-core \
  --seqlens 4096 --reps 10 --no-verify --accuracy-seqlens 0 > "$OUT/torch.txt" 2>&1
grep -E "^ +4096" "$OUT/torch.txt"; echo "torch after: $(q)"
v/D/attention_tc_check --sections bench --bench-reps 20 --bench-seqlens 4096 --bench-libms nvcc --out "$OUT/b2" > "$OUT/bench2.txt" 2>&1
echo "bench2: $(grep -o '"tc_fwd_ms":[0-9.]*\|"tc_bwd_ms":[0-9.]*\|"tc_fwd_bwd_ms":[0-9.]*' "$OUT/bench2.txt" | tr '\n' ' ') after: $(q)"
