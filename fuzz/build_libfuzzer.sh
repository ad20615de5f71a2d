#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-22 and sanitizers into OUTDIR
# (default build-fuzz/): fuzz_libm, fuzz_tensor_io, fuzz_sweep, fuzz_attention_args, fuzz_sparse_mla_args
# (and the controls fuzz_libm_planted, fuzz_libm_planted_nvcc, fuzz_attention_args_planted,
# fuzz_attention_args_planted_mma, fuzz_sparse_mla_args_planted), each linked
# with the oracle's, the registry's and the CLI's JSON adapter's sources compiled the same way.
#   bash fuzz/build_libfuzzer.sh [OUTDIR]
# Run one (docs/reliability.md has the runs recorded so far):
#   build-fuzz/fuzz_libm -max_total_time=1800 -print_final_stats=1 fuzz/corpus/libm
# New corpus entries go to the first directory; commit the ones worth keeping.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build-fuzz}
mkdir -p "$out/obj"
cxx=${CXX_FUZZ:-clang++-22}
flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
       -fno-sanitize-recover=undefined -I libm/include -I oracle/include -I registry/include -I cli/include
       -I tests/libm/nvcc -I kernels/include -I kernels/src -I kernels/src/validate
       -DSAMEBITS_GOLDEN_DIR="\"$(realpath "$out")\"")
# fuzz_libm checks the nvcc host path against the golden vectors from the H200.
for v in default ftz; do
  python3 tests/data/nvcc/unxz.py "tests/data/nvcc/nvcc_golden_$v.bin.xz" "$out/nvcc_golden_$v.bin"
done
objs=()
for src in oracle/src/*.cpp libm/src/*.cpp registry/src/*.cpp cli/json.cpp; do  # libm/src: the MUFU models (nvcc host path)
  o="$out/obj/$(basename "${src%.cpp}").o"
  "$cxx" "${flags[@]}" -c "$src" -o "$o" &
  objs+=("$o")
done
wait
for h in libm tensor_io sweep; do
  "$cxx" "${flags[@]}" -fsanitize=fuzzer,address,undefined "fuzz/fuzz_$h.cpp" "${objs[@]}" \
    -lmpfr -lgmp -lpthread -o "$out/fuzz_$h"
  echo "$out/fuzz_$h"
done
# The negative control as a fuzzer: cr::expf one ulp off at one input; a run
# from an empty corpus must find it (docs/reliability.md).
"$cxx" "${flags[@]}" -DSAMEBITS_FUZZ_PLANTED_BUG -fsanitize=fuzzer,address,undefined fuzz/fuzz_libm.cpp \
  "${objs[@]}" -lmpfr -lgmp -lpthread -o "$out/fuzz_libm_planted"
echo "$out/fuzz_libm_planted"
# The golden-vector check's control: nvcc::expf(1) and its -ftz form one ulp off.
"$cxx" "${flags[@]}" -DSAMEBITS_FUZZ_PLANTED_NVCC_BUG -fsanitize=fuzzer,address,undefined fuzz/fuzz_libm.cpp \
  "${objs[@]}" -lmpfr -lgmp -lpthread -o "$out/fuzz_libm_planted_nvcc"
echo "$out/fuzz_libm_planted_nvcc"
# The attention argument validation and the C ABI (without CUDA), with the
# CPU references the C ABI carries (-mavx2 -mfma, as kernels/meson.build builds them).
# fuzz_attention_args runs the references on small problems: they are built with
# the sanitizers but without coverage instrumentation (the tensor-core model's
# compares made each execution ~10x slower, and the reference's branches are
# not what the harness explores).
kflags=("${flags[@]/-fsanitize=fuzzer-no-link,address,undefined/-fsanitize=address,undefined}")
kobjs=()
for ref in attention_reference attention_reference_tc sparse_mla_reference; do
  "$cxx" "${kflags[@]}" -mavx2 -mfma -c "kernels/src/reference/$ref.cpp" -o "$out/obj/$ref.o" &
  kobjs+=("$out/obj/$ref.o")
done
wait
kobjs+=("$out"/obj/nvcc_mufu_*.o)
for v in "" _planted _planted_mma; do
  def=()
  [ "$v" = _planted ] && def=(-DSAMEBITS_PLANT_VALIDATION_BUG)
  [ "$v" = _planted_mma ] && def=(-DSAMEBITS_PLANT_MMA_VALIDATION_BUG)
  "$cxx" "${flags[@]}" "${def[@]}" -fsanitize=fuzzer,address,undefined fuzz/fuzz_attention_args.cpp \
    kernels/src/validate/attention_validate.cpp kernels/src/validate/sparse_mla_validate.cpp \
    kernels/src/validate/rules.cpp kernels/src/capi/c_api.cpp kernels/src/capi/marshal.cpp "${kobjs[@]}" -lpthread \
    -o "$out/fuzz_attention_args$v"
  echo "$out/fuzz_attention_args$v"
done
# The sparse MLA argument validation (with the attention validator's tensor
# checks it reuses) and the C ABI (without CUDA).
for v in "" _planted; do
  def=(); [ -n "$v" ] && def=(-DSAMEBITS_PLANT_SPARSE_VALIDATION_BUG)
  "$cxx" "${flags[@]}" "${def[@]}" -fsanitize=fuzzer,address,undefined fuzz/fuzz_sparse_mla_args.cpp \
    kernels/src/validate/sparse_mla_validate.cpp kernels/src/validate/attention_validate.cpp \
    kernels/src/validate/rules.cpp kernels/src/capi/c_api.cpp kernels/src/capi/marshal.cpp "${kobjs[@]}" -lpthread \
    -o "$out/fuzz_sparse_mla_args$v"
  echo "$out/fuzz_sparse_mla_args$v"
done
