#!/usr/bin/env bash
# What clang's AMDGPU backend emits for the binary32 exp/log family, per
# compiler, target and floating-point mode, as the instruction lines of each
# kernel (directives, comments and memory traffic dropped):
#   bash libm/tools/dump_hipcc_sequences.sh [OUTDIR]   (default docs/libm/results/hipcc)
# Modes: default (HIP's defaults: IEEE f32 denormals, no fast-math),
#        afn (-fapprox-func: what -ffast-math and __expf-style calls give),
#        daz (-fgpu-flush-denormals-to-zero: f32 denormals flushed, preserve sign).
# Compilers: clang++-22 and clang++-19 where installed (Debian packages; clang 19
# predates gfx950, which it rejects).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-docs/libm/results/hipcc}
mkdir -p "$out"
src=tests/libm/hipcc/clang_builtins.hip
for cl in clang++-22 clang++-19; do
  command -v "$cl" > /dev/null || { echo "skip $cl: not installed" >&2; continue; }
  ver=$("$cl" --version | head -1)
  for arch in gfx942 gfx950; do
    if ! "$cl" -x hip --offload-arch="$arch" --cuda-device-only -nogpulib -nogpuinc -S -o /dev/null /dev/null 2> /dev/null; then
      echo "skip $cl $arch: target not supported by this version" >&2
      continue
    fi
    for mode in default afn daz; do
      case $mode in default) f=();; afn) f=(-fapprox-func);; daz) f=(-fgpu-flush-denormals-to-zero);; esac
      file="$out/${cl#clang++-}_${arch}_${mode}.s"
      "$cl" -x hip --offload-arch="$arch" --cuda-device-only -nogpulib -nogpuinc -O3 "${f[@]}" -S "$src" -o - |
        awk -v ver="$ver" 'BEGIN { print "; " ver }
             /^k_[a-z0-9]+:/ { name = $1; print ""; print name; next }
             /s_endpgm/ { name = ""; next }
             name != "" && $0 ~ /^\t[a-z]/ && $0 !~ /s_waitcnt|s_load|global_store|global_load|s_nop/ { sub(/[ \t]*;.*/, ""); print }' > "$file"
      echo "$file"
    done
  done
done
