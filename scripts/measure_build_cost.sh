#!/usr/bin/env bash
# What including samebits/libm costs a CUDA kernel's build (docs/libm/build-cost.md).
#   scripts/measure_build_cost.sh INCLUDE_DIR [REPEATS]
# For a one-function kernel calling samebits::cr::expf through <samebits/libm.hpp>
# and through <samebits/libm/cr.hpp>, and for -arch=sm_90 and two gencodes
# (sm_90 + sm_80): nvcc -c, REPEATS times (default 3), the median of the wall time,
# of the CPU time (user + sys) and of the peak memory (/usr/bin/time -v, "Maximum
# resident set size", the largest process of the compilation). Then the preprocessed
# size of <samebits/libm.hpp>: host (g++ -E) and nvcc's device pass (the .cpp1.ii
# of -keep, CUDA's own headers included; an empty kernel's size shown beside it).
set -euo pipefail
inc=$(realpath "$1"); reps=${2:-3}
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
cxx=${CXX:-g++}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
for h in libm.hpp libm/cr.hpp; do
  printf '#include <samebits/%s>\n__global__ void k(float* p) { p[threadIdx.x] = samebits::cr::expf(p[threadIdx.x]); }\n' \
    "$h" > "$work/k_${h//\//_}.cu"
done
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '%-14s %-26s %9s %9s %9s\n' header target wall_s cpu_s peak_MB
for target in "-arch=sm_90" "-gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=sm_80"; do
  for h in libm.hpp libm/cr.hpp; do
    : > "$work/runs"
    for _ in $(seq "$reps"); do
      # shellcheck disable=SC2086
      /usr/bin/time -v "$nvcc" $target -std=c++20 -O3 -I "$inc" -c "$work/k_${h//\//_}.cu" -o "$work/k.o" 2> "$work/t"
      awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,p,":"); s=0; for(i=1;i<=n;i++) s=s*60+p[i]; w=s}
                  /User time/ {u=$2} /System time/ {y=$2} /Maximum resident/ {m=$2}
                  END {printf "%.2f %.2f %.0f\n", w, u+y, m/1024}' "$work/t" >> "$work/runs"
    done
    tname=$([ "$target" = "-arch=sm_90" ] && echo "-arch=sm_90" || echo "sm_90+sm_80 gencodes")
    printf '%-14s %-26s %9s %9s %9s\n' "$h" "$tname" "$(cut -d' ' -f1 "$work/runs" | median)" \
      "$(cut -d' ' -f2 "$work/runs" | median)" "$(cut -d' ' -f3 "$work/runs" | median)"
  done
done
host=$(printf '#include <samebits/libm.hpp>\n' | "$cxx" -std=c++20 -E -I "$inc" -x c++ - | wc -c)
printf '__global__ void k(float* p) { p[threadIdx.x] = 0; }\n' > "$work/empty.cu"
dev() { (cd "$work" && rm -f ./*.ii && "$nvcc" -arch=sm_90 -std=c++20 -I "$inc" -keep -c "$1" -o k.o && wc -c < ./*.cpp1.ii); }
echo "preprocessed <samebits/libm.hpp>: host ($cxx -E) $host bytes; nvcc device pass $(dev k_libm.hpp.cu) bytes (empty kernel: $(dev empty.cu) bytes)"
