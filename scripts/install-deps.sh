#!/usr/bin/env bash
# Installs what samebits needs to build and test on Debian 12 (as root).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends \
  g++ meson ninja-build pkg-config \
  libmpfr-dev libgmp-dev libboost-dev \
  catch2 libbenchmark-dev nlohmann-json3-dev libcli11-dev libfmt-dev \
  clang-22 llvm-22 libclang-rt-22-dev clang-19 python3 python3-numpy \
  python3-pip python3-setuptools python3-wheel
