#!/usr/bin/env bash
# One device call that compares kernel variants built here and carried as
# check-only bundles (.devcarry/NAME-check.tar.xz, attention_tc_check each):
#   bash tests/device/kernels/ab_variants.sh BASE NEW [NEW2 ...]
# 1. bench: every variant's `--sections bench` run twice, the variants
#    alternated (the same card, the same inputs), the S = 4096 lines printed;
# 2. the check of each non-base variant (layout, refusals, the grid with the
#    backward, invariances: every check's bits): quick, or whole with AB_CHECK=full
#    (AB_CHECK=none: no check, for speed probes that do not compute the contract's bits);
# 3. with AB_TORCH_ARGS (and libsamebits_kernels.so in the last variant's
#    bundle): torch_compare.py beside SDPA with those arguments;
# 4. sanitizers on the last variant: racecheck (D = 64 S = 100), memcheck
#    (D = 128 S = 100), synccheck (D = 128 S = 100), nvcc libm, causal (AB_SAN=0: none).
# Results under $OUT/r, packed into $OUT/results.tgz after every step (the tool
# returns few files). AB_ROUNDS: bench alternations (default 2); AB_BENCH_ARGS:
# the bench's points (default S = 2048, 4096, 8192, nvcc libm; every variant's
# check must know --bench-seqlens, i.e. be built at or after its commit).
# Keep a call under the tool's 10 minutes: a variant that hangs costs its
# timeouts (120 s a bench), and output piped through tail is lost on a kill.
set -u
[ $# -ge 2 ] || { echo "usage: ab_variants.sh BASE NEW [NEW2 ...]" >&2; exit 2; }
R=${OUT:-/tmp/out}/r
mkdir -p "$R"
pack() { tar czf "${OUT:-/tmp/out}/results.tgz" -C "$(dirname "$R")" r; }  # after every step: a
# call cut off by its time limit still returns what ran
# A variant already unpacked under v/NAME (e.g. from one bundle holding several
# variants: xz -9e's 64 MiB dictionary stores their shared kernels once) is used as is.
# A variant NAME:VAR=VALUE is build NAME run with VAR=VALUE in its environment (the bench only):
# e.g. D:SAMEBITS_TC_TMA=0, main's kernels with every tile copied by cp.async (attention-tc.md §27).
for spec in "$@"; do
  v=${spec%%:*}
  [ -x "v/$v/attention_tc_check" ] && continue
  mkdir -p "v/$v" && tar xJf ".devcarry/$v-check.tar.xz" -C "v/$v" || { echo "no bundle $v" >&2; exit 2; }
done
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee "$R/gpu.txt"
for k in $(seq 1 "${AB_ROUNDS:-2}"); do
  for spec in "$@"; do
    b=${spec%%:*} env=()
    [ "$b" != "$spec" ] && env=("${spec#*:}")
    v=${spec//[:=]/_}
    mkdir -p "$R/bench_${v}_$k"
    # shellcheck disable=SC2086
    timeout 120 env "${env[@]}" "v/$b/attention_tc_check" --sections bench --bench-reps 20 ${AB_BENCH_ARGS:---bench-seqlens 2048,4096,8192 --bench-libms nvcc} \
      --out "$R/bench_${v}_$k" > "$R/bench_${v}_$k.txt" 2>&1
    # The card's state right after the bench: SM clock, temperature, power, throttle reasons.
    nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,temperature.gpu,power.draw,clocks_throttle_reasons.active \
      --format=csv > "$R/bench_${v}_${k}_gpu.txt" 2>&1
    grep '"S":4096,' "$R/bench_${v}_$k.txt" | while read -r line; do  # one line a libm
      echo "bench $v $k: $(echo "$line" | grep -o '"libm":"[a-z-]*"') $(echo "$line" | grep -o '"tc_fwd_ms":[0-9.]*,.*"tc_bwd_ms":[0-9.]*') $(echo "$line" | grep -o '"tc_bwd_stored_ds_ms":[-0-9.]*')"
    done
    pack
  done
done
shift
for spec in "$@"; do [ "${spec%%:*}" = "$spec" ] || { echo "ab_variants.sh: no check for $spec (an environment variant)"; }; done
set -- $(for spec in "$@"; do [ "${spec%%:*}" = "$spec" ] && echo "$spec"; done)
[ "${AB_CHECK:-quick}" = none ] && set --  # speed probes whose bits are not the contract's: no check
for v in "$@"; do
  mkdir -p "$R/check_$v"
  quick=--quick
  [ "${AB_CHECK:-quick}" = full ] && quick=
  ( time timeout 240 "v/$v/attention_tc_check" $quick --sections layout,errors,grid,invariance --out "$R/check_$v" ) > "$R/check_$v.txt" 2>&1
  echo "check ($v, ${AB_CHECK:-quick}): rc=$? $(grep -o '"summary".*' "$R/check_$v.txt") $(grep real "$R/check_$v.txt")"
  pack
done
last=${!#}
if [ -n "${AB_TORCH_ARGS:-}" ] && [ -e "v/$last/libsamebits_kernels.so" ]; then
  mkdir -p "$R/torch"
  # shellcheck disable=SC2086
  timeout 240 python3 tests/device/kernels/torch_compare.py "v/$last/libsamebits_kernels.so" "$R/torch" $AB_TORCH_ARGS > "$R/torch_$last.txt" 2>&1
  echo "torch_compare ($last): rc=$?"
  grep -E "^\| *4096|roof" "$R/torch_$last.txt" | head -5
  pack
fi
san() {  # san TOOL FILTER NAME
  timeout 150 compute-sanitizer --tool "$1" --error-exitcode 3 "v/$last/attention_tc_check" --quick --sections grid --filter "$2" > "$R/$3_$last.txt" 2>&1
  echo "$3 $last: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/$3_$last.txt" | tail -1)"
  pack
}
[ "${AB_SAN:-1}" = 0 ] && exit 0  # AB_SAN=0: no sanitizers (a first timing of several variants)
san racecheck "libm=nvcc causal=1 D=64 S=100 " racecheck
san memcheck "libm=nvcc causal=1 D=128 S=100 " memcheck
san synccheck "libm=nvcc causal=1 D=128 S=100 " synccheck
