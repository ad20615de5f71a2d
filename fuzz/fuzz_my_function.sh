#!/usr/bin/env bash
# Fuzz your own float(float) function against the MPFR oracle (fuzz/fuzz_user.cpp):
#   bash fuzz/fuzz_my_function.sh SOURCE.cpp FUNCTION MATH [SECONDS] [MAX_ULP]
#     SOURCE.cpp  defines `float FUNCTION(float)` (plain C++, any includes)
#     MATH        the function it approximates: expf exp2f exp10f logf log2f log10f
#     SECONDS     how long to fuzz (default 60); MAX_ULP the error allowed (default 0.5)
# Example: bash fuzz/fuzz_my_function.sh my_exp.cpp my_expf expf 300 1.0
# Starts from the oracle's special inputs (fuzz/corpus/libm); prints the
# first finding (input, your result, the correctly rounded one) and stops, or
# libFuzzer's final statistics. Needs clang++-22 (libFuzzer), MPFR and GMP.
set -euo pipefail
[ $# -ge 3 ] || { sed -n 2,11p "$0"; exit 2; }
src=$1 fn=$2 math=$3 secs=${4:-60} ulp=${5:-0.5}
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -I "$root/libm/include" -I "$root/oracle/include")
clang++-22 "${flags[@]}" -DSAMEBITS_USER_FUNCTION="$fn" -DSAMEBITS_USER_MATH="$math" \
  "$root/fuzz/fuzz_user.cpp" "$src" "$root"/oracle/src/{functions,reference,filter,ulp,specials}.cpp \
  -lmpfr -lgmp -lpthread -o "$out/fuzz_user"
mkdir -p "$out/corpus"
SAMEBITS_MAX_ULP=$ulp "$out/fuzz_user" -artifact_prefix="$out/" -max_total_time="$secs" -print_final_stats=1 "$out/corpus" "$root/fuzz/corpus/libm"
