#!/usr/bin/env bash
# Builds the CUDA attention kernels into build-device/ (run from anywhere, on
# a machine with nvcc 13; until the Meson -Dcuda=enabled build has these
# targets):
#   bash tests/device/kernels/build.sh
#   build-device/attention_check          the device check (links the CPU
#       reference, libstdc++ static: runs on the GPU machine as is)
#   build-device/libsamebits_kernels.so   the C ABI (kernels/src/capi) with
#       the GPU kernels, for tests/device/kernels/*.py (ctypes)
# Every object is compiled once, position-independent, for both. Also writes
# the ptxas report
# (build-device/ptxas.txt: registers, spills) and checks the kernels' PTX
# (tests/device/kernels/check_ptx.sh). Objects are rebuilt only when a source
# or header is newer.
set -euo pipefail
cd "$(dirname "$0")/../../.."
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CXX=${CXX:-g++}
B=${SAMEBITS_DEVICE_BUILD:-build-device}  # experiments: another folder and
extra=(${SAMEBITS_NVCC_EXTRA:-})            # extra nvcc flags (e.g. -DNAME=VALUE)
mkdir -p "$B/obj"
inc=(-Ilibm/include -Igpu/include -Ikernels/include -Ikernels/src)
nvflags=(-O3 -std=c++20 -gencode arch=compute_90,code=sm_90 -lineinfo -Xcompiler -fPIC "${inc[@]}" "${extra[@]}")
deps_kernels=$(find kernels/src/cuda kernels/src/portable kernels/src/sm90 -type f $(find gpu/include -name "*.hpp") kernels/src/validate/*.hpp kernels/include/samebits/kernels/*.h* kernels/include/samebits/kernels/attention/*.hpp kernels/include/samebits/kernels/sparse_mla/*.hpp tests/device/kernels/*.cuh)
deps_libm=$(find libm/include -name '*.hpp')

stale() {  # stale OUTPUT INPUT...: true when OUTPUT is missing or older than an input
  local out=$1; shift
  [ -e "$out" ] || return 0
  local f
  for f in "$@"; do [ "$f" -nt "$out" ] && return 0; done
  return 1
}

pids=()
host_obj() {  # the CPU reference and the MUFU models, with the host compiler
  local src=$1 out=$B/obj/$(basename "${1%.*}").o
  if stale "$out" "$src" $deps_libm kernels/include/samebits/kernels/attention/*.hpp kernels/include/samebits/kernels/*.h* kernels/src/reference/*.hpp kernels/src/validate/*.hpp; then
    "$CXX" -O2 -std=c++20 -mavx2 -mfma -fPIC -DSAMEBITS_WITH_CUDA "${inc[@]}" -c "$src" -o "$out" &
    pids+=($!)
  fi
}
dev_obj() {  # CUDA sources (a second argument sm_90a: wgmma code); the ptxas report kept beside the object
  local src=$1 out=$B/obj/$(basename "${1%.*}").o
  local flags=("${nvflags[@]}")
  [ "${2:-}" = sm_90a ] && flags=("${nvflags[@]/arch=compute_90,code=sm_90/arch=compute_90a,code=sm_90a}")
  if stale "$out" "$src" $deps_kernels $deps_libm; then
    # -keep: the PTX of this very compile lands in $B/keep/ (check_ptx.sh reads it).
    local keep=$B/keep/$(basename "${1%.*}")
    mkdir -p "$keep"
    { "$NVCC" "${flags[@]}" -keep -keep-dir "$keep" -Xptxas -v -c "$src" -o "$out" 2> "$out.ptxas" ||
        { cat "$out.ptxas" >&2; exit 1; }; } &
    pids+=($!)
  fi
}
host_obj libm/src/nvcc_mufu_ex2.cpp
host_obj libm/src/nvcc_mufu_lg2.cpp
host_obj kernels/src/reference/attention_reference.cpp
host_obj kernels/src/reference/attention_reference_tc.cpp
host_obj kernels/src/reference/sparse_mla_reference.cpp
host_obj kernels/src/capi/c_api.cpp
host_obj kernels/src/validate/attention_validate.cpp
host_obj kernels/src/validate/sparse_mla_validate.cpp
dev_obj kernels/src/cuda/attention_launch_fwd.cu
dev_obj kernels/src/cuda/attention_launch_bwd.cu
dev_obj kernels/src/cuda/attention_api.cu
dev_obj kernels/src/cuda/sparse_mla_launch_fwd.cu
dev_obj kernels/src/cuda/sparse_mla_launch_bwd.cu
dev_obj kernels/src/cuda/sparse_mla_api.cu
dev_obj kernels/src/sm90/attention_tc/launch_fwd.cu sm_90a
dev_obj kernels/src/sm90/attention_tc/launch_bwd.cu sm_90a
dev_obj tests/device/kernels/attention_check.cu
dev_obj tests/device/kernels/attention_tc_check.cu sm_90a
dev_obj tests/device/kernels/sparse_mla_check.cu
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
[ $status -eq 0 ] || { echo "build failed" >&2; exit 1; }

kobjs=("$B"/obj/attention_launch_fwd.o "$B"/obj/attention_launch_bwd.o "$B"/obj/attention_api.o "$B"/obj/launch_fwd.o "$B"/obj/launch_bwd.o
       "$B"/obj/sparse_mla_launch_fwd.o "$B"/obj/sparse_mla_launch_bwd.o "$B"/obj/sparse_mla_api.o "$B"/obj/attention_validate.o "$B"/obj/sparse_mla_validate.o
       "$B"/obj/attention_reference.o "$B"/obj/attention_reference_tc.o "$B"/obj/sparse_mla_reference.o "$B"/obj/nvcc_mufu_ex2.o "$B"/obj/nvcc_mufu_lg2.o)
static=(-Xcompiler -static-libstdc++ -Xcompiler -static-libgcc -lpthread)
"$NVCC" -gencode arch=compute_90,code=sm_90 "$B"/obj/attention_check.o "${kobjs[@]}" -o "$B/attention_check" "${static[@]}"
"$NVCC" -gencode arch=compute_90a,code=sm_90a "$B"/obj/attention_tc_check.o "${kobjs[@]}" -o "$B/attention_tc_check" "${static[@]}"
"$NVCC" -gencode arch=compute_90,code=sm_90 "$B"/obj/sparse_mla_check.o "${kobjs[@]}" -o "$B/sparse_mla_check" "${static[@]}"
"$NVCC" -shared -gencode arch=compute_90,code=sm_90 "$B"/obj/c_api.o "${kobjs[@]}" -o "$B/libsamebits_kernels.so" \
  "${static[@]}"
cat "$B"/obj/attention_launch_*.o.ptxas "$B"/obj/launch_*.o.ptxas "$B"/obj/sparse_mla_launch_*.o.ptxas | grep -E "Compiling entry|registers|spill" > "$B/ptxas.txt" || true
bash tests/device/kernels/check_ptx.sh
echo "built $B/attention_check $B/libsamebits_kernels.so"
