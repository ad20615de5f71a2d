#!/usr/bin/env bash
# One device session's worth of H200 work, in parts, each writing under $OUT:
#   bash tests/device/run_h200.sh PART...
#     cr-bench   bench/gpu/cr_throughput.cu and bench/gpu/cr_variants.cu
#     cr         tests/device/run_cr_h200.sh gpu (bitwise GPU vs host, both builds, + throughput)
#     nvcc       tests/device/run_nvcc_h200.sh (nvcc personality vs CUDA, host vs GPU, golden vectors)
#     hipcc      tests/device/hipcc_bitwise.cu (samebits::hipcc NVIDIA path vs host path, all inputs)
#     mufu       tests/device/mufu_probe.cu + mufu_summarize.py (MUFU ex2/lg2 measurements)
#     lg2-rule   tests/device/lg2_rule_probe.cu (a candidate rule for MUFU lg2, all inputs)
#     mufu-model tests/device/mufu_model_check.cu (the host model vs the instructions, all inputs)
#     triton     tests/device/triton/triton_bitwise.py (samebits.triton vs C++, all inputs;
#                softmax 10^8; fusion context; bench; AMD compile through Triton)
#     accuracy   CUDA's own functions on all 2^32 inputs (tests/device/dump_cuda_outputs.cu),
#                scored on this machine's CPU by a static samebits carried in build-static/;
#                Triton's tl.exp / tl.log compared with them (tests/device/triton_lowering.py)
# The device tool brings back at most 8 files: text results are packed into
# $OUT/results.tar.gz; large binaries stay as files of their own.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
out=${OUT:-/tmp/samebits-out}
mkdir -p "$out"
work=$(mktemp -d /tmp/samebits-run.XXXXXX)
mkdir -p "$work/text"
status=0
# Whatever ran is packed even when the run is cut short (timeout sends TERM).
finish() {
  tar -czf "$out/results.tar.gz" -C "$work/text" .
  rm -rf "$work"
  ls -la "$out"
}
trap finish EXIT
trap 'echo "terminated during a part" >&2; exit 124' TERM
flags=(-O3 -std=c++20 -arch=sm_90 -I libm/include)
for part in "$@"; do
  echo "=== $part $(date -u +%T)"
  case "$part" in
    cr-bench)
      nvcc "${flags[@]}" --extended-lambda bench/gpu/cr_throughput.cu -o "$work/cr_throughput" &&
        nvcc "${flags[@]}" --extended-lambda bench/gpu/cr_variants.cu -o "$work/cr_variants" || { status=1; continue; }
      "$work/cr_throughput" | tee "$work/text/cr_throughput.txt" || status=1
      "$work/cr_variants" | tee "$work/text/cr_variants.jsonl" || status=1
      ;;
    cr)
      OUT="$work/text/cr" bash tests/device/run_cr_h200.sh gpu || status=1
      ;;
    nvcc)
      OUT="$work/nvcc" bash tests/device/run_nvcc_h200.sh || status=1
      mv "$work"/nvcc/*.bin "$out/" 2>/dev/null
      mv "$work/nvcc" "$work/text/nvcc"
      ;;
    mufu)
      mkdir -p "$work/mufu"
      nvcc -O3 -std=c++20 -arch=sm_90 tests/device/mufu_probe.cu -o "$work/mufu_probe" || { status=1; continue; }
      "$work/mufu_probe" "$work/mufu" | tee "$work/text/mufu_rules.jsonl" || status=1
      python3 tests/device/mufu_summarize.py "$work/mufu" | tee "$work/text/mufu_tables.jsonl" || status=1
      mv "$work"/mufu/*.npz.xz "$out/"
      ;;
    hipcc)
      # samebits::hipcc's NVIDIA path == its host path, all 2^32 inputs, 23 functions,
      # built with default flags and with -use_fast_math (HIPCC_BUILDS to choose;
      # HIPCC_ONLY=SUBSTRING runs the functions whose name contains it).
      for b in ${HIPCC_BUILDS:-default use_fast_math}; do
        extra=(); [ "$b" = use_fast_math ] && extra=(-use_fast_math)
        nvcc "${flags[@]}" "${extra[@]}" tests/device/hipcc_bitwise.cu -o "$work/hipcc_bitwise_$b" || { status=1; continue; }
        "$work/hipcc_bitwise_$b" "$b" ${HIPCC_ONLY:-} | tee -a "$work/text/hipcc_bitwise.jsonl" || status=1
      done
      ;;
    lg2-rule)
      nvcc -O3 -std=c++20 -arch=sm_90 tests/device/lg2_rule_probe.cu -o "$work/lg2_rule_probe" || { status=1; continue; }
      "$work/lg2_rule_probe" | tee "$work/text/lg2_rule.jsonl" || status=1
      ;;
    mufu-model)
      nvcc "${flags[@]}" tests/device/mufu_model_check.cu libm/src/nvcc_mufu_ex2.cpp libm/src/nvcc_mufu_lg2.cpp \
        -o "$work/mufu_model_check" || { status=1; continue; }
      "$work/mufu_model_check" | tee "$work/text/mufu_model_check.jsonl" || status=1
      ;;
    accuracy)
      # Entries: FUNC (default flags) or ftz/FUNC (built with -ftz=true). Triton's tl.exp
      # is compared with the __expf dump, tl.log with the logf and ftz/logf dumps.
      nvcc -O3 -std=c++20 -arch=sm_90 tests/device/dump_cuda_outputs.cu -o "$work/dump" &&
        nvcc -O3 -std=c++20 -arch=sm_90 -ftz=true tests/device/dump_cuda_outputs.cu -o "$work/dump_ftz" ||
        { status=1; continue; }
      shm=/dev/shm; [ -w "$shm" ] || shm=/tmp
      for e in ${ACCURACY_FUNCS:-expf exp2f exp10f logf log2f log10f __expf __exp10f __logf __log2f ftz/expf ftz/exp2f ftz/exp10f ftz/logf ftz/log2f ftz/log10f}; do
        f=${e#ftz/}; bin=dump; [ "$f" != "$e" ] && bin=dump_ftz
        tag=${e//\//_}
        "$work/$bin" "$f" "$shm/gpu_out.f32" || { status=1; continue; }
        build-static/cli/samebits score "${f#__}" --outputs "$shm/gpu_out.f32" --exhaustive --json -q \
          > "$work/text/gpu_accuracy_$tag.json" || status=1
        python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'not CR', j['not_correctly_rounded'], 'wrong class', j['wrong_class'], 'max ulp', j['max_ulp'], 'seconds', round(j['seconds'],1))" \
          "$work/text/gpu_accuracy_$tag.json" "$e"
        op=
        [ "$e" = __expf ] && op=exp
        [ "$e" = logf ] || [ "$e" = ftz/logf ] && op=log
        if [ -n "$op" ] && [ -z "${NO_TRITON:-}" ]; then
          python3 tests/device/triton_lowering.py "$op" "$shm/gpu_out.f32" "$work/text/triton" "CUDA $e" \
            | tee -a "$work/text/triton_lowering.jsonl" || status=1
        fi
      done
      rm -f "$shm/gpu_out.f32"
      ;;
    triton)
      # samebits.triton vs the C++ functions (tests/device/triton/triton_bitwise.py; sections
      # with TRITON_SECTIONS). The package is installed the way a user would (pip, no
      # network, no build isolation); where pip cannot, PYTHONPATH=python is used, and said.
      mkdir -p "$work/tri" "$work/text/triton"
      nvcc "${flags[@]}" -shared -Xcompiler -fPIC tests/device/triton/cxx_ref.cu -o "$work/tri/libsb_ref.so" &&
        nvcc "${flags[@]}" -ftz=true -shared -Xcompiler -fPIC tests/device/triton/cxx_ref.cu -o "$work/tri/libsb_ref_ftz.so" ||
        { status=1; continue; }
      pyp=python
      if python3 -m pip install -q --no-build-isolation --no-deps --no-index --target "$work/pyinst" ./python \
          > "$work/text/triton/pip_install.txt" 2>&1; then
        pyp="$work/pyinst"; echo "pip install ./python: ok" | tee -a "$work/text/triton/pip_install.txt"
      else
        echo "pip install ./python failed (above); using PYTHONPATH=python" | tee -a "$work/text/triton/pip_install.txt"
      fi
      PYTHONPATH="$pyp" python3 tests/device/triton/triton_bitwise.py "$work/tri" "$work/text/triton" ${TRITON_SECTIONS:-} ||
        status=1
      cuobjdump -sass "$work/tri/libsb_ref.so" > "$work/text/triton/cxx_ref.sass" 2>&1
      ;;
    *) echo "unknown part: $part" >&2; status=2 ;;
  esac
done
exit $status
