#!/usr/bin/env bash
# What the lent H200 machine runs for samebits::cr (issue: cr same bits on GPU).
#   bash tests/device/run_cr_h200.sh gpu
#       builds (nvcc, sm_90) and runs tests/device/cr_bitwise.cu with default flags
#       and with -use_fast_math, and bench/gpu/cr_throughput.cu
#   bash tests/device/run_cr_h200.sh mpfr FUNC...
#       plain-MPFR exhaustive sweeps (no filter) of samebits::cr on all CPU cores,
#       with a statically linked samebits built here and carried in build-static/:
#         meson setup build-static -Dprefer_static=true -Dcpp_link_args=-static \
#           -Dtests=disabled -Dbench=disabled -Dfuzz=disabled && ninja -C build-static cli/samebits
# Results go to $OUT (the device tool brings them back); docs/accuracy.md and
# docs/libm/cr.md quote them.
set -uo pipefail
out=${OUT:-/tmp/samebits-out}
mkdir -p "$out"
part=${1:-gpu}
shift || true
case "$part" in
  gpu)
    { nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nvcc --version | tail -1; } \
      | tee "$out/machine.txt"
    flags=(-O3 -std=c++20 -arch=sm_90 -I libm/include)
    nvcc "${flags[@]}" tests/device/cr_bitwise.cu -o /tmp/cr_bitwise || exit 1
    nvcc "${flags[@]}" -use_fast_math tests/device/cr_bitwise.cu -o /tmp/cr_bitwise_fast || exit 1
    nvcc "${flags[@]}" --extended-lambda bench/gpu/cr_throughput.cu -o /tmp/cr_throughput || exit 1
    cuobjdump -sass /tmp/cr_bitwise | grep -cE "MUFU" > "$out/mufu_count.txt"
    /tmp/cr_throughput | tee "$out/cr_throughput.txt"
    status=0
    /tmp/cr_bitwise default | tee "$out/cr_bitwise.jsonl" || status=1
    /tmp/cr_bitwise_fast use_fast_math | tee -a "$out/cr_bitwise.jsonl" || status=1
    exit $status
    ;;
  mpfr)
    for f in "$@"; do
      build-static/cli/samebits score "$f" --impl cr --exhaustive --no-filter --threads "$(nproc)" --json -q \
        > "$out/plain_mpfr_$f.json"
      python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'inputs', j['inputs'], 'not CR', j['not_correctly_rounded'], 'wrong class', j['wrong_class'], 'seconds', round(j['seconds'],1), 'threads', j['threads'])" \
        "$out/plain_mpfr_$f.json" "$f"
    done
    ;;
  *) echo "usage: $0 gpu | mpfr FUNC..." >&2; exit 2 ;;
esac
