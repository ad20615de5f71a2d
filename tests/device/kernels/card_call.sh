#!/usr/bin/env bash
# One device call whose work depends on the card it lands on (the tool lends H100 or H200):
#   H200: the issue's whole evidence (tc_evidence.sh, every step), results $OUT/results.tgz
#   other: CARD_CALL_OTHER (default: the tensor-core forward's profile, libms nvcc and nvcc-fast,
#          profile_tc_fwd.sh), results $OUT/results.tgz
#   bash tests/device/kernels/card_call.sh        # device: run(..., carry=[".devcarry"])
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
bash tests/device/kernels/unpack_bundle.sh || exit 2
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "card: $card"
if [[ "$card" == *H200* ]]; then
  OUT=$out timeout 570 bash tests/device/kernels/tc_evidence.sh
  echo "tc_evidence: rc=$?"
else
  default='for l in nvcc nvcc-fast; do PROFILE_LIBM=$l timeout 140 bash tests/device/kernels/profile_tc_fwd.sh D; done'
  OUT=$out bash -c "${CARD_CALL_OTHER:-$default}"
fi
