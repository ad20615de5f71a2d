#!/usr/bin/env bash
# One device call on main's build: the per-kernel split (profile_tc_split.sh, nvcc-fast and nvcc),
# the issue's whole evidence on this card (tc_evidence.sh: model, kernels, sanitizers, torch,
# golden), then — with EVIDENCE_AB=NAME, a build carried in the same bundle — main against NAME in
# the bench, alternated (ab_variants.sh, no check: speed only).
#   bash tests/device/kernels/bundle.sh [NAME=BRANCH]          # here: .devcarry/evidence.tar.xz
#   [EVIDENCE_AB=NAME|D:VAR=VALUE] [EVIDENCE_AB_LIBMS=nvcc-fast] [EVIDENCE_STEPS="kernels torch"] \
#     bash tests/device/kernels/evidence_call.sh               # device: run(..., carry=[".devcarry"])
# Results: $OUT/all.tgz (tc-evidence/ with split/, ab/r/), repacked after each part.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
bash tests/device/kernels/unpack_bundle.sh || exit 2
pack() { (cd "$out" && tar czf all.tgz.new $(ls -d tc-evidence ab 2>/dev/null) && mv all.tgz.new all.tgz); }
OUT=$out/tc-evidence bash tests/device/kernels/profile_tc_split.sh D nvcc-fast nvcc
pack
# shellcheck disable=SC2086
OUT=$out timeout "${EVIDENCE_TIMEOUT:-420}" bash tests/device/kernels/tc_evidence.sh ${EVIDENCE_STEPS:-}
echo "tc_evidence: rc=$?"
pack
# EVIDENCE_AB=D:VAR=VALUE: main's build against itself run with VAR=VALUE (ab_variants.sh), e.g.
# D:SAMEBITS_TC_TMA=0 (every tile by cp.async, attention-tc.md §27).
ab_build=${EVIDENCE_AB:-}
ab_build=${ab_build%%:*}
if [ -n "$ab_build" ] && { [ "$ab_build" = D ] || [ -d "build-device/$ab_build" ]; }; then
  [ "$ab_build" = D ] || { rm -rf "v/$ab_build" && mv "build-device/$ab_build" v/; }
  OUT=$out/ab AB_CHECK=none AB_SAN=0 AB_BENCH_ARGS="--bench-seqlens 4096 --bench-libms ${EVIDENCE_AB_LIBMS:-nvcc-fast}" \
    timeout 150 bash tests/device/kernels/ab_variants.sh D "$EVIDENCE_AB"
  pack
fi
