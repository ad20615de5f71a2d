#!/usr/bin/env bash
# One device session's worth of H200 work, in parts, each writing under $OUT:
#   bash tests/device/run_h200.sh PART...
#     cr-bench   bench/gpu/cr_throughput.cu and bench/gpu/cr_variants.cu
#     cr         tests/device/run_cr_h200.sh gpu (bitwise GPU vs host, both builds, + throughput)
#     nvcc       tests/device/run_nvcc_h200.sh (nvcc personality vs CUDA, host vs GPU, golden vectors)
#     mufu       tests/device/mufu_probe.cu + mufu_summarize.py (MUFU ex2/lg2 measurements)
#     mufu-model tests/device/mufu_model_check.cu (the host model vs the instructions, all inputs)
#     accuracy   CUDA's own functions on all 2^32 inputs (tests/device/dump_cuda_outputs.cu),
#                scored on this machine's CPU by a static samebits carried in build-static/
# The device tool brings back at most 8 files: text results are packed into
# $OUT/results.tar.gz; large binaries stay as files of their own.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
out=${OUT:-/tmp/samebits-out}
mkdir -p "$out"
work=$(mktemp -d /tmp/samebits-run.XXXXXX)
mkdir -p "$work/text"
status=0
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
    mufu-model)
      nvcc "${flags[@]}" tests/device/mufu_model_check.cu -o "$work/mufu_model_check" || { status=1; continue; }
      "$work/mufu_model_check" | tee "$work/text/mufu_model_check.jsonl" || status=1
      ;;
    accuracy)
      nvcc -O3 -std=c++20 -arch=sm_90 tests/device/dump_cuda_outputs.cu -o "$work/dump" || { status=1; continue; }
      for f in ${ACCURACY_FUNCS:-expf logf exp2f exp10f log2f log10f __expf __exp10f}; do
        "$work/dump" "$f" /tmp/gpu_out.f32 || { status=1; continue; }
        g=${f#__}
        build-static/cli/samebits score "$g" --outputs /tmp/gpu_out.f32 --exhaustive --json -q \
          > "$work/text/gpu_accuracy_$f.json" || status=1
        python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'not CR', j['not_correctly_rounded'], 'wrong class', j['wrong_class'], 'max ulp', j['max_ulp'], 'seconds', round(j['seconds'],1))" \
          "$work/text/gpu_accuracy_$f.json" "$f"
      done
      rm -f /tmp/gpu_out.f32
      ;;
    *) echo "unknown part: $part" >&2; status=2 ;;
  esac
done
tar -czf "$out/results.tar.gz" -C "$work/text" .
rm -rf "$work"
ls -la "$out"
exit $status
