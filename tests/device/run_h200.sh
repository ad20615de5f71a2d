#!/usr/bin/env bash
# One device session's worth of H200 work, in parts, each writing under $OUT:
#   bash tests/device/run_h200.sh PART...        (no PART: device)
#     build      configure and build the device side (below), nothing run: a first call when the
#                build and the suite do not fit one call's time limit (the build stays for the next)
#     device     the device test suite, built here by Meson and run by it:
#                  meson setup build-device -Ddevice_only=true -Dcuda=enabled
#                  ninja -C build-device && meson test -C build-device --suite device
#                gpu_reduce, mufu_model_check, cr_bitwise, nvcc_bitwise, hipcc_bitwise (all 2^32
#                inputs each, through tests/device/harness/), mma_probe --quick, the kernel checks'
#                quick grids (attention, sm90 tensor-core, sparse MLA), the planted one-ulp control,
#                the PTX and SASS checks (tests/device/kernels/meson.build); DEVICE_TESTS="name ..."
#                runs some only
#     cr-bench   bench/gpu/cr_throughput and cr_variants (built by the same Meson build)
#     nvcc-golden  the golden vectors of the CI test of nvcc's host path (capture_nvcc_golden, default
#                and -ftz=true builds) as $OUT/nvcc_golden_{default,ftz}.bin
#     mufu       mufu_probe + mufu_summarize.py (MUFU ex2/lg2 measurements)
#     lg2-rule   lg2_rule_probe (a candidate rule for MUFU lg2, all inputs)
#     triton     tests/device/triton/triton_bitwise.py (samebits.triton vs C++, all inputs;
#                softmax 10^8; fusion context; bench; AMD compile through Triton)
#     accuracy   CUDA's own functions on all 2^32 inputs (dump_cuda_outputs), scored on this
#                machine's CPU by a static samebits carried in build-static/; Triton's tl.exp /
#                tl.log compared with them (tests/device/triton_lowering.py)
# The build directory build-device/ is made on the GPU machine (it has nvcc, meson, ninja but no
# MPFR; device_only needs none). The device tool brings back at most 8 files: text results are
# packed into $OUT/results.tar.gz; large binaries stay as files of their own.
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
bd=build-device
built=
export PATH="$PATH:/usr/local/cuda/bin"
command -v meson > /dev/null || meson() { python3 -m mesonbuild.mesonmain "$@"; }
build() {  # configure and build the device side once (meson, nvcc; no MPFR needed)
  [ -n "$built" ] && return 0
  { [ -f "$bd/build.ninja" ] || meson setup "$bd" -Ddevice_only=true -Dcuda=enabled; } \
    > "$work/text/meson_setup.txt" 2>&1 &&
    ninja -C "$bd" > "$work/text/ninja.txt" 2>&1 || { tail -50 "$work/text/meson_setup.txt" "$work/text/ninja.txt"; return 1; }
  built=1
}
{
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
  nvcc --version | tail -1
  echo "host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "meson $(meson --version), ninja $(ninja --version)"
  echo "samebits: $(git rev-parse HEAD 2>/dev/null || echo 'not a git checkout')"
} > "$work/text/machine.txt" 2>&1
cat "$work/text/machine.txt"
[ $# -gt 0 ] || set -- device
for part in "$@"; do
  echo "=== $part $(date -u +%T)"
  case "$part" in
    build)
      build || status=1
      ;;
    device)
      build || { status=1; continue; }
      # One test at a time (each uses every host core); testlog.json holds every program's JSON
      # lines (its stdout), written out per test below.
      meson test -C "$bd" --suite device --print-errorlogs ${DEVICE_TESTS:-} 2>&1 | tee "$work/text/device_suite.txt"
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
      cp "$bd/meson-logs/testlog.json" "$work/text/device_testlog.json" 2>/dev/null
      python3 - "$bd/meson-logs/testlog.json" "$work/text" <<'PY'
import json, re, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    with open(f"{sys.argv[2]}/{re.sub(r'[^A-Za-z0-9_.=-]+', '_', t['name'])[:100]}.jsonl", "w") as f:
        f.write(t.get("stdout") or "")
    print(t["name"], t["result"], round(t.get("duration", 0), 1), "s")
PY
      ;;
    cr-bench)
      build || { status=1; continue; }
      "$bd/bench/gpu/cr_throughput" | tee "$work/text/cr_throughput.txt" || status=1
      "$bd/bench/gpu/cr_variants" | tee "$work/text/cr_variants.jsonl" || status=1
      ;;
    nvcc-golden)
      build || { status=1; continue; }
      "$bd/tests/device/capture_nvcc_golden" "$out/nvcc_golden_default.bin" || status=1
      "$bd/tests/device/capture_nvcc_golden_ftz" "$out/nvcc_golden_ftz.bin" || status=1
      (cd "$out" && sha256sum nvcc_golden_*.bin) | tee "$work/text/nvcc_golden.sha256"
      ;;
    mufu)
      build || { status=1; continue; }
      mkdir -p "$work/mufu"
      "$bd/tests/device/mufu_probe" "$work/mufu" | tee "$work/text/mufu_rules.jsonl" || status=1
      python3 tests/device/mufu_summarize.py "$work/mufu" | tee "$work/text/mufu_tables.jsonl" || status=1
      mv "$work"/mufu/*.npz.xz "$out/"
      ;;
    lg2-rule)
      build || { status=1; continue; }
      "$bd/tests/device/lg2_rule_probe" | tee "$work/text/lg2_rule.jsonl" || status=1
      ;;
    accuracy)
      # Entries: FUNC (default flags) or ftz/FUNC (built with -ftz=true). Triton's tl.exp
      # is compared with the __expf dump, tl.log with the logf and ftz/logf dumps.
      build || { status=1; continue; }
      shm=/dev/shm; [ -w "$shm" ] || shm=/tmp
      for e in ${ACCURACY_FUNCS:-expf exp2f exp10f logf log2f log10f __expf __exp10f __logf __log2f ftz/expf ftz/exp2f ftz/exp10f ftz/logf ftz/log2f ftz/log10f}; do
        f=${e#ftz/}; bin=dump_cuda_outputs; [ "$f" != "$e" ] && bin=dump_cuda_outputs_ftz
        tag=${e//\//_}
        "$bd/tests/device/$bin" "$f" "$shm/gpu_out.f32" || { status=1; continue; }
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
      flags=(-O3 -std=c++20 -arch=sm_90 -I libm/include)
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
