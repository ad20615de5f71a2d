#!/usr/bin/env bash
# One device call on main's build (the eighth session of 2026-12-06): on an H200, the issue's whole
# evidence (tc_evidence.sh); on any other card, the clock around the bench and torch_compare
# (both timers), ncu of the backward's two passes and of the forward, and the SASS of
# the D = 128 nvcc bf16 tensor-core kernels. Needs .devcarry/evidence.tar.xz (attention_tc_check,
# libsamebits_kernels.so, mma_probe of tests/device/kernels/build.sh, stripped, xz -9e), built here
# by bundle.sh; .devcarry/ is git-ignored, so the call names it: run(..., carry=[".devcarry"]).
#   [PROFILE_VARIANTS="NAME ..."] [PROFILE_NCU=1] [PROFILE_FWD=1] bash tests/device/kernels/profile_call.sh
# (PROFILE_EVIDENCE_STEPS: tc_evidence.sh's steps on an H200, default "kernels torch golden";
# PROFILE_NCU: profile_tc_bwd.sh D; PROFILE_FWD: profile_tc_fwd.sh D; PROFILE_EVIDENCE=0: the
# variants and clock on an H200 too, instead of tc_evidence.sh; PROFILE_CHECK=1: D's whole check
# first (=quick: its --quick grid), no bench, no sanitizers; PROFILE_LIBMS="nvcc,nvcc-fast": the libms of the bench and of
# torch_compare, default nvcc; PROFILE_TIMERS="queued": torch_compare's timers, default both;
# PROFILE_ACCURACY=4096: its accuracy against float64 at that S; PROFILE_GOLDEN=1: the
# tensor-core golden cases, capture_golden.py --policy sm90-tensor-core, into $OUT/golden, to
# unpack into tests/data/kernels/attention/; PROFILE_VARIANTS' bench takes PROFILE_LIBMS; AB_CHECK=none
# skips their checks: speed probes)
# results under $OUT, the log in $OUT/log.txt.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
bash tests/device/kernels/unpack_bundle.sh || exit 2
if [ "${PROFILE_EVIDENCE:-1}" = 1 ] && nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  # All five steps take longer than one call: kernels, torch and golden first (the bits, the
  # times beside SDPA, CI's golden data); PROFILE_EVIDENCE_STEPS="model sanitizers" in a second.
  # shellcheck disable=SC2086
  timeout 560 bash tests/device/kernels/tc_evidence.sh ${PROFILE_EVIDENCE_STEPS:-kernels torch golden} > "$out/log.txt" 2>&1
  cat "$out/log.txt"
  exit
fi
libms=${PROFILE_LIBMS:-nvcc}
# results.tgz after every step: a call cut short still brings back what it measured (only a few
# loose files come back).
pack() { (cd "$out" && tar czf results.tgz.new $(ls -d clock check golden sass_census.txt 2>/dev/null) && mv results.tgz.new results.tgz); }
{
  if [ -n "${PROFILE_CHECK:-}" ]; then
    mkdir -p "$out/check"
    quick=(); [ "$PROFILE_CHECK" = quick ] && quick=(--quick)
    timeout 200 v/D/attention_tc_check "${quick[@]}" --sections layout,grid,invariance,errors --out "$out/check" > "$out/check/check.txt" 2>&1
    echo "check D: rc=$? $(grep -o '"summary".*' "$out/check/check.txt" | tail -1)"
    grep '"pass":false' "$out/check/check.txt" | head -5
    pack
  fi
  if [ -n "${PROFILE_GOLDEN:-}" ]; then  # the tensor-core golden cases CI replays (capture_golden.py)
    timeout 120 python3 tests/device/kernels/capture_golden.py v/D/libsamebits_kernels.so "$out/golden" \
      --policy sm90-tensor-core 2>&1 | tail -2
    pack
  fi
  # Variants carried as .devcarry/NAME-check.tar.xz (PROFILE_VARIANTS="NAME ..."): bench alternated
  # with D, each one's quick check, no sanitizers or torch (ab_variants.sh).
  # (or NAME/attention_tc_check inside .devcarry/evidence.tar.xz: one xz archive stores the
  # kernels the builds share once).
  if [ -n "${PROFILE_VARIANTS:-}" ]; then
    for n in $PROFILE_VARIANTS; do [ -d "build-device/$n" ] && rm -rf "v/$n" && mv "build-device/$n" v/; done
    # shellcheck disable=SC2086
    AB_SAN=0 AB_BENCH_ARGS="--bench-seqlens 4096 --bench-libms $libms" timeout 300 bash tests/device/kernels/ab_variants.sh D $PROFILE_VARIANTS
    cp "$out/results.tgz" "$out/ab.tgz"
  fi
  q() { nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,temperature.gpu,power.draw,clocks_throttle_reasons.active --format=csv,noheader; }
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  echo "before: $(q)"
  mkdir -p "$out/clock"
  bench() {
    v/D/attention_tc_check --sections bench --bench-reps 20 --bench-seqlens 4096 --bench-libms "$libms" --out "$out/clock/$1" \
      > "$out/clock/$1.txt" 2>&1
    echo "$1 (after: $(q)):"
    grep -o '"libm":"[a-z-]*"\|"tc_fwd_ms":[0-9.]*\|"tc_bwd_ms":[0-9.]*\|"tc_fwd_bwd_ms":[0-9.]*\|"tc_bwd_stored_ds_ms":[0-9.]*' "$out/clock/$1.txt" |
      paste -d' ' - - - - -
  }
  bench bench1
  pack
  for timer in ${PROFILE_TIMERS:-idle queued}; do  # the host's launch counted, then not (torch_compare.py --timer)
    timeout 100 python3 tests/device/kernels/torch_compare.py v/D/libsamebits_kernels.so "$out/clock/torch_$timer" \
      --policy sm90-tensor-core --seqlens 4096 --reps 10 --no-verify --accuracy-seqlens "${PROFILE_ACCURACY:-0}" --timer $timer --libms "$libms" \
      > "$out/clock/torch_$timer.txt" 2>&1
    echo "torch --timer $timer:"; grep -E "^ +4096" "$out/clock/torch_$timer.txt"; echo "after: $(q)"
    pack
  done
  bench bench2
  cuobjdump -sass v/D/attention_tc_check | gzip -9 > "$out/D.sass.gz"
  python3 tests/device/kernels/sass_census.py "$out/D.sass.gz" > "$out/sass_census.txt" 2>&1
  python3 tests/device/kernels/sass_census.py "$out/D.sass.gz" ILi128ENS2_14NvccFastExpLogELNS0_5DTypeE1 >> "$out/sass_census.txt" 2>&1
  cat "$out/sass_census.txt"
  pack
  [ -n "${PROFILE_NCU:-}" ] && timeout 250 bash tests/device/kernels/profile_tc_bwd.sh D
  [ -n "${PROFILE_FWD:-}" ] && timeout 150 bash tests/device/kernels/profile_tc_fwd.sh D
} > "$out/log.txt" 2>&1
cat "$out/log.txt"
