#!/usr/bin/env bash
# Exhaustive host sweeps recorded as JSON under docs/libm/results/host/:
#   bash scripts/score_exhaustive.sh IMPL FUNC...      (e.g. nvcc expf logf)
# writes docs/libm/results/host/<impl>_exhaustive_<func>.json (':' in IMPL
# becomes '_') and prints one summary line per function. SAMEBITS names the
# binary (default ./build/cli/samebits); SCORE_ARGS adds options (e.g. --no-variants).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${SAMEBITS:-./build/cli/samebits}
impl=$1; shift
dir=docs/libm/results/host
mkdir -p "$dir"
for f in "$@"; do
  out="$dir/${impl//:/_}_exhaustive_$f.json"
  "$bin" score "$f" --impl "$impl" --exhaustive --json -q ${SCORE_ARGS:-} > "$out"
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], sys.argv[3], 'not CR', j['not_correctly_rounded'], 'wrong class', j['wrong_class'], 'max ulp', j['max_ulp'], 'seconds', round(j['seconds'],1))" "$out" "$impl" "$f"
done
