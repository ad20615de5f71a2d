#!/usr/bin/env bash
# Plain-MPFR exhaustive sweeps of samebits::cr on the GPU machine's CPU (the GPU
# part, cr on the H200 vs the host, is the device suite: bash tests/device/run_h200.sh device).
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
part=${1:-}
shift || true
case "$part" in
  mpfr)
    for f in "$@"; do
      build-static/cli/samebits score "$f" --impl cr --exhaustive --no-filter --threads "$(nproc)" --json -q \
        > "$out/plain_mpfr_$f.json"
      python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'inputs', j['inputs'], 'not CR', j['not_correctly_rounded'], 'wrong class', j['wrong_class'], 'seconds', round(j['seconds'],1), 'threads', j['threads'])" \
        "$out/plain_mpfr_$f.json" "$f"
    done
    ;;
  *) echo "usage: $0 mpfr FUNC..." >&2; exit 2 ;;
esac
