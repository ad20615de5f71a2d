#!/usr/bin/env bash
# Device calls that time kernel variants one carried build at a time. The tool's 64 MiB tree
# limit leaves room for one check build (about 11.4 MB by xz: the fatbins inside are compressed,
# so two builds share almost nothing), but a warm machine keeps ignored folders between calls: each
# call unpacks its .devcarry/ab-NAME.tar.xz (NAME/attention_tc_check, made here from build-NAME/)
# into build-ab/, which stays, and links v -> build-ab for ab_variants.sh. Keep every variant's
# archive in .devcarry/ and carry only the call's: carry=[".devcarry/ab-NAME.tar.xz"].
#   here:   tar cf - NAME | xz -9e -T1 > .devcarry/ab-NAME.tar.xz  (NAME/attention_tc_check, stripped)
#   device: bash tests/device/kernels/ab_warm_call.sh NAME [BASE]
# With BASE (unpacked by an earlier call on the same warm machine): ab_variants.sh BASE NAME —
# the bench at S = 4096 (nvcc and nvcc-fast) alternated AB_ROUNDS (3) times, NAME's quick check,
# sanitizers on NAME. Without: NAME's bench once. Call again within the tool's idle release (30 s)
# or build-ab/ is gone. Results $OUT/results.tgz.
set -u
[ $# -ge 1 ] || { echo "usage: ab_warm_call.sh NAME [BASE]" >&2; exit 2; }
cd "$(dirname "$0")/../../.."
mkdir -p build-ab && rm -rf "build-ab/$1" && tar xJf ".devcarry/ab-$1.tar.xz" -C build-ab || exit 2
[ -x "build-ab/$1/attention_tc_check" ] || { echo "no $1/attention_tc_check in .devcarry/ab-$1.tar.xz" >&2; exit 2; }
rm -rf v && ln -s build-ab v
echo "on this machine: $(ls build-ab | tr '\n' ' ')"
if [ $# -ge 2 ]; then
  [ -x "build-ab/$2/attention_tc_check" ] || { echo "no build-ab/$2: the machine was not warm (call for $2 first)" >&2; exit 3; }
  AB_ROUNDS=${AB_ROUNDS:-3} AB_BENCH_ARGS=${AB_BENCH_ARGS:-"--bench-seqlens 4096 --bench-libms nvcc,nvcc-fast"} \
    bash tests/device/kernels/ab_variants.sh "$2" "$1"
else
  AB_ROUNDS=1 AB_CHECK=none AB_SAN=0 AB_BENCH_ARGS=${AB_BENCH_ARGS:-"--bench-seqlens 4096 --bench-libms nvcc,nvcc-fast"} \
    bash tests/device/kernels/ab_variants.sh "$1" "$1"
fi
