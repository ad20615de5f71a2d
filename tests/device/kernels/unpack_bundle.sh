#!/usr/bin/env bash
# On the device: unpacks the carried bundle (.devcarry/evidence.tar.xz, made here by bundle.sh)
# into build-device/ (tc_evidence.sh's paths; variants stay under build-device/NAME/) and copies
# main's check and C ABI library to v/D/ (the name ab_variants.sh and the profile scripts use).
#   bash tests/device/kernels/unpack_bundle.sh
set -eu
cd "$(dirname "$0")/../../.."
mkdir -p build-device v/D
tar xJf .devcarry/evidence.tar.xz -C build-device
cp build-device/attention_tc_check build-device/libsamebits_kernels.so v/D/
