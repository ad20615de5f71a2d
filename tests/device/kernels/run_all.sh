#!/usr/bin/env bash
# Everything issue 16 asks of the device in two calls of under 10 minutes,
# results packed into $OUT/results.tgz (the device tool returns 8 files):
#   bash tests/device/kernels/run_all.sh c++     run.sh's steps, sanitizers at S=1000, the SASS check
#   bash tests/device/kernels/run_all.sh py      invariance.py, capture_golden.py, torch_compare.py
#   bash tests/device/kernels/run_all.sh sparse  sparse_mla_check (grid, dense equality, repeats,
#                                                 errors, bench) and its memcheck/racecheck
#   bash tests/device/kernels/run_all.sh torch   samebits.torch's ops (tests/device/python/torch_ops_check.py --full)
#   bash tests/device/kernels/run_all.sh triton  the Triton cores (samebits.triton.kernels) vs the CUDA
#                                                kernels and SDPA (tests/device/triton/triton_attention.py)
#   bash tests/device/kernels/run_all.sh tc      the sm90-tensor-core forward (attention_tc_check: layout,
#                                                grid, invariance, errors, bench) and its memcheck
#   bash tests/device/kernels/run_all.sh tc-torch the tensor-core kernels beside SDPA flash / cuDNN
#                                                (torch_compare.py --policy sm90-tensor-core), S 512..16384
#   bash tests/device/kernels/run_all.sh first   the sparse quick grid and bench (new vs old) and the
#                                                tensor-core forward's quick check and bench, in one call
#   bash tests/device/kernels/run_all.sh sparse-perf
#                                                the sparse bench (and, where present, the same bench
#                                                of each build-device-NAME variant: another Meson
#                                                build of another tree, e.g. old: the 32/16-head
#                                                kernels), the time per phase (ncu durations,
#                                                sparse_phases.py) and the main kernels' ncu sections
# from a Meson build, $SAMEBITS_BUILD (default build-device; configured here with -Dcuda=enabled
# -Ddevice_only=true and built when missing).
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/samebits-attn-out}
mkdir -p "$out"
B=${SAMEBITS_BUILD:-build-device}
{ [ -f "$B/build.ninja" ] || meson setup "$B" -Dcuda=enabled -Ddevice_only=true; } > "$out/build.txt" 2>&1 &&
  ninja -C "$B" >> "$out/build.txt" 2>&1 || { tail -30 "$out/build.txt"; exit 1; }
K=$B/tests/device/kernels
bin=$K/attention_check lib=$B/kernels/libsamebits_kernels.so
status=0
case "${1:-c++}" in
  c++)
    OUT=$out/attention bash tests/device/kernels/run.sh quick bench full varlen large memcheck racecheck \
      > "$out/run.txt" 2>&1 || status=1
    a=$out/attention
    f1="libm=nvcc causal=1 D=128 S=1000 hq=32 hkv=8 dtype=bfloat16"
    f2="libm=cr causal=0 D=64 S=1000 hq=12 hkv=4 dtype=bfloat16"
    timeout 200 compute-sanitizer --tool memcheck --error-exitcode 3 "$bin" --no-refusals --skip-large \
      --filter "$f1" --out "$a/sanitizer" > "$a/memcheck_s1000.txt" 2>&1 || status=1
    timeout 200 compute-sanitizer --tool racecheck --error-exitcode 3 "$bin" --no-refusals --skip-large \
      --filter "$f2" --out "$a/sanitizer" > "$a/racecheck_s1000.txt" 2>&1 || status=1
    python3 tests/device/kernels/check_sass.py --cuobjdump cuobjdump --division-cubin "$K/sass_division.cubin" "$bin" \
      > "$a/sass_check.txt" 2>&1 || status=1
    echo "memcheck_s1000 $(grep -h 'ERROR SUMMARY' "$a/memcheck_s1000.txt")" >> "$a/steps.txt"
    echo "racecheck_s1000 $(grep -h 'RACECHECK SUMMARY' "$a/racecheck_s1000.txt")" >> "$a/steps.txt"
    echo "sass_check rc=$(tail -1 "$a/sass_check.txt")" >> "$a/steps.txt"
    cat "$a/steps.txt"
    tail -3 "$a/sass_check.txt"
    ;;
  py)
    p=$out/py
    mkdir -p "$p"
    timeout 240 python3 tests/device/kernels/invariance.py "$lib" "$p" --libm both > "$p/invariance.txt" 2>&1 || status=1
    timeout 120 python3 tests/device/kernels/capture_golden.py "$lib" "$p" > "$p/golden.txt" 2>&1 || status=1
    timeout 300 python3 bench/gpu/kernels/torch_compare.py "$lib" "$p" --reps 10 > "$p/torch.txt" 2>&1 || status=1
    tail -3 "$p/invariance.txt" "$p/golden.txt"
    tail -12 "$p/torch.txt"
    ;;
  sparse)
    sp=$out/sparse
    mkdir -p "$sp/sanitizer"
    timeout 420 "$K/sparse_mla_check" --bench --out "$sp" > "$sp/check.txt" 2>&1 || status=1
    timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 "$K/sparse_mla_check" --quick \
      --sections grid --filter "T=100" --out "$sp/sanitizer" > "$sp/memcheck.txt" 2>&1 || status=1
    timeout 120 compute-sanitizer --tool racecheck --error-exitcode 3 "$K/sparse_mla_check" --quick \
      --sections grid --filter "libm=cr H=64 topk=512 T=100 D=512 sink=1 pool=512" --out "$sp/sanitizer" \
      > "$sp/racecheck.txt" 2>&1 || status=1
    timeout 240 python3 bench/gpu/kernels/sparse_torch_compare.py "$lib" "$sp" --reps 5 > "$sp/torch.txt" 2>&1 ||
      status=1
    grep -v PASS "$sp/check.txt" | tail -20
    tail -5 "$sp/torch.txt"
    grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" "$sp/memcheck.txt" "$sp/racecheck.txt"
    ;;
  sparse-perf)
    sp=$out/sparse-perf
    mkdir -p "$sp/new"
    timeout 150 "$K/sparse_mla_check" --sections none --bench --out "$sp/new" > "$sp/bench_new.txt" 2>&1 ||
      status=1
    for d in build-device-*/; do
      n=${d#build-device-}; n=${n%/}
      [ -x "$d/tests/device/kernels/sparse_mla_check" ] || continue
      mkdir -p "$sp/$n"
      timeout 150 "$d/tests/device/kernels/sparse_mla_check" --sections none --bench --out "$sp/$n" > "$sp/bench_$n.txt" 2>&1 || status=1
    done
    timeout 200 ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum \
      --print-units base --csv -k regex:"sparse_mla|Radix" \
      python3 bench/gpu/kernels/profile_sparse.py "$lib" > "$sp/times.csv" 2>&1 || status=1
    hbm=3.35; nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && hbm=4.8
    python3 bench/gpu/kernels/sparse_phases.py "$sp/times.csv" --hbm "$hbm" --json "$sp/phases.json" \
      > "$sp/phases.txt" 2>&1 || status=1
    timeout 200 ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
      --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section InstructionStats \
      -k regex:"streamed|contrib|dkv_accum" --launch-count 4 \
      python3 bench/gpu/kernels/profile_sparse.py "$lib" > "$sp/ncu.txt" 2>&1 || status=1
    grep -H bench "$sp"/bench_*.txt
    cat "$sp/phases.txt"
    ;;
  torch)
    to=$out/torch
    mkdir -p "$to"
    SAMEBITS_KERNELS_LIB=$lib PYTHONPATH=python timeout 540 python3 tests/device/python/torch_ops_check.py "$to" --full \
      > "$to/torch_ops_check.txt" 2>&1 || status=1
    tail -30 "$to/torch_ops_check.txt"
    ;;
  triton)
    tr=$out/triton
    mkdir -p "$tr"
    PYTHONPATH=python timeout 540 python3 tests/device/triton/triton_attention.py "$lib" "$tr" \
      > "$tr/triton_attention.txt" 2>&1 || status=1
    tail -30 "$tr/triton_attention.txt"
    ;;
  tc)
    tcd=$out/tc
    mkdir -p "$tcd/sanitizer"
    timeout 400 "$K/attention_tc_check" --out "$tcd" > "$tcd/check.txt" 2>&1 || status=1
    timeout 150 compute-sanitizer --tool memcheck --error-exitcode 3 "$K/attention_tc_check" --quick \
      --sections grid --filter "D=128 S=100" --out "$tcd/sanitizer" > "$tcd/memcheck.txt" 2>&1 || status=1
    grep -v '"pass":true' "$tcd/check.txt" | tail -30
    grep -h "ERROR SUMMARY" "$tcd/memcheck.txt"
    ;;
  tc-torch)
    tt=$out/tc-torch
    mkdir -p "$tt"
    timeout 540 python3 bench/gpu/kernels/torch_compare.py "$lib" "$tt" --policy sm90-tensor-core \
      --seqlens 512,1024,2048,4096,8192,16384 --accuracy-seqlens 1024,4096 --reps 10 > "$tt/torch.txt" 2>&1 || status=1
    tail -12 "$tt/torch.txt"
    ;;
  first)
    # The first call of a session that has the sparse kernels and the tensor-core forward unmeasured:
    # the sparse quick grid, the sparse bench new vs old, the tensor-core forward's quick check and bench.
    f=$out/first
    mkdir -p "$f/quick" "$f/new" "$f/old" "$f/tc"
    nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > "$f/gpu.txt" 2>&1
    timeout 110 "$K/sparse_mla_check" --quick --out "$f/quick" > "$f/sparse_quick.txt" 2>&1 || status=1
    timeout 170 "$K/attention_tc_check" --quick --sections layout,errors,grid,bench --bench-reps 10 --out "$f/tc" \
      > "$f/tc_check.txt" 2>&1 || status=1
    timeout 90 "$K/sparse_mla_check" --sections none --bench --out "$f/new" > "$f/bench_new.txt" 2>&1 || status=1
    # The tensor-core model's parameters, a short probe run (tests/device/mma/run.sh does the full one).
    [ -x "$B/tests/device/mma_probe" ] &&
      { timeout 80 "$B/tests/device/mma_probe" --dots 4e6 --dots8 4e5 --jsonl "$f/mma.jsonl" > "$f/mma.txt" 2>&1 || status=1; }
    [ -x build-device-old/tests/device/kernels/sparse_mla_check ] &&
      { timeout 60 build-device-old/tests/device/kernels/sparse_mla_check --sections none --bench --out "$f/old" > "$f/bench_old.txt" 2>&1 || status=1; }
    cat "$f/gpu.txt"
    grep -v PASS "$f/sparse_quick.txt" | tail -8
    grep -h bench "$f"/bench_*.txt | tail -12
    grep -v '"pass":true' "$f/tc_check.txt" | tail -30
    tail -25 "$f/mma.txt" 2>/dev/null
    ;;
  *) echo "usage: run_all.sh c++|py|sparse|sparse-perf|torch|triton|tc|first"; exit 2 ;;
esac
(cd "$out" && tar czf results.tgz --exclude=results.tgz .)
exit $status
