#!/usr/bin/env bash
# Are two libm trees the same device code? Compiles the libm test and device kernels
# against OLD_INCLUDE and NEW_INCLUDE and compares the outputs byte for byte (HIP's
# per-compilation __hip_cuid_ symbol excepted): nvcc sm_90 PTX (default, -ftz=true,
# -use_fast_math) of tests/libm/nvcc/{dataflow_kernels,cuda_functions}.cu and
# tests/device/{hipcc,cr}_bitwise.cu; clang++-22 gfx942/gfx950 asm of
# libm/tools/hipcc_certify/kernels.hip (ieee/afn/daz x clang 22/19) and
# tests/libm/cr/hip_kernels.hip. Exit 1 if any differs (docs/libm/build-cost.md).
#   scripts/compare_device_code.sh /work/main/libm/include libm/include
set -euo pipefail
old=$(realpath "$1"); new=$(realpath "$2")
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
snap() {  # snap INCLUDE OUTDIR
  local inc=$1 o=$2 f b fl m v a
  mkdir -p "$o"
  for f in tests/libm/nvcc/dataflow_kernels.cu tests/libm/nvcc/cuda_functions.cu tests/device/hipcc_bitwise.cu \
           tests/device/cr_bitwise.cu; do
    b=$(basename "$f" .cu)
    for fl in "" -ftz=true -use_fast_math; do
      # shellcheck disable=SC2086
      "$nvcc" -arch=sm_90 -O3 -std=c++20 -I "$inc" -I tests/device -ptx "$f" -o "$o/$b$fl.ptx" $fl
    done
  done
  for m in ieee afn daz; do for v in v22 v19; do for a in gfx942 gfx950; do
    clang++-22 -std=c++20 -x hip --offload-arch=$a --cuda-device-only -nogpulib -nogpuinc -O3 -S -I "$inc" \
      -DMODE=$m -DVERSION=$v libm/tools/hipcc_certify/kernels.hip -o "$o/hipcc-$m-$v-$a.s"
  done; done; done
  for a in gfx942 gfx950; do
    clang++-22 -std=c++20 -x hip --offload-arch=$a --cuda-device-only -nogpulib -nogpuinc -O3 -S -I "$inc" \
      tests/libm/cr/hip_kernels.hip -o "$o/cr-$a.s"
  done
}
snap "$old" "$work/old"; snap "$new" "$work/new"
n=0; d=0
for f in "$work"/old/*; do
  b=$(basename "$f"); n=$((n + 1))
  if ! cmp -s <(sed 's/__hip_cuid_[0-9a-f]*/__hip_cuid_X/g' "$f") <(sed 's/__hip_cuid_[0-9a-f]*/__hip_cuid_X/g' "$work/new/$b"); then
    echo "differs: $b"; d=$((d + 1))
  fi
done
echo "$n outputs compared, $d differ"
[ "$d" -eq 0 ]
