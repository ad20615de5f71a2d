#!/usr/bin/env bash
# Builds the device binaries here (nvcc, no GPU) and packs them into one archive for a device
# call (profile_call.sh, tc_evidence.sh): this checkout's attention_tc_check,
# libsamebits_kernels.so and mma_probe at the archive's top, and for each NAME=BRANCH the
# branch's attention_tc_check under NAME/ (built in a worktree /tmp/samebits-bundle/NAME).
#   bash tests/device/kernels/bundle.sh [NAME=BRANCH ...]      -> .devcarry/evidence.tar.xz
# (.devcarry/ is git-ignored: a device call carries it, carry=[".devcarry"])
# Binaries are stripped and packed with xz -9e in one block (-T1): the builds share most of their
# kernels, and xz finds a repeat only within its 64 MiB window, i.e. in the file just before
# (each check is about 34 MB), so pass the variants in an order where neighbours differ least.
# The device tool refuses a tree over 64 MiB as it counts it (tracked files about 35 MiB): a
# 23.8 MB archive went, a 26.2 MB one was refused. main + three variants: about 23 MB. About 3
# minutes a build on two cores, 1 minute to compress.
set -euo pipefail
cd "$(dirname "$0")/../../.."
root=$PWD
export PATH=/usr/local/cuda/bin:$PATH
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
SAMEBITS_DEVICE_BUILD=build-device bash tests/device/kernels/build.sh > "$stage/build.log" 2>&1 ||
  { tail -20 "$stage/build.log"; exit 1; }
nvcc -std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a -lineinfo -Ilibm/include -Igpu/include -Itests/device \
  -Itests/device/mma tests/device/mma/mma_probe.cu -o build-device/mma_probe -Xcompiler -static-libstdc++
cp build-device/attention_tc_check build-device/libsamebits_kernels.so build-device/mma_probe "$stage/"
names=(attention_tc_check libsamebits_kernels.so mma_probe)
for spec in "$@"; do
  name=${spec%%=*} branch=${spec#*=}
  [[ $name =~ ^[A-Za-z0-9_-]+$ ]] || { echo "bundle.sh: NAME must be letters, digits, _ or - ($spec)" >&2; exit 2; }
  wt=/tmp/samebits-bundle/$name
  if [ -d "$wt" ]; then git -C "$wt" checkout -q --detach "$branch"; else git worktree add -q --detach "$wt" "$branch"; fi
  (cd "$wt" && SAMEBITS_DEVICE_BUILD=build-device bash tests/device/kernels/build.sh > "$stage/build-$name.log" 2>&1) ||
    { tail -20 "$stage/build-$name.log"; exit 1; }
  mkdir -p "$stage/$name"
  cp "$wt/build-device/attention_tc_check" "$stage/$name/"
  names+=("$name/attention_tc_check")
  echo "built $name ($branch at $(git -C "$wt" rev-parse --short HEAD))"
done
mkdir -p .devcarry
(cd "$stage" && strip "${names[@]}" && tar cf - "${names[@]}" | xz -9e -T1 > "$root/.devcarry/evidence.tar.xz.new")
mv .devcarry/evidence.tar.xz.new .devcarry/evidence.tar.xz
ls -la .devcarry/evidence.tar.xz
