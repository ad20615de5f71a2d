#!/usr/bin/env bash
# Checks the attention and sparse MLA kernels' compiled code (run by build.sh, from the
# repository root): no spills or stack frames (ptxas report), and in the PTX
# no .ftz, no div.approx / div.full, no floating-point atomics, and ex2 / lg2
# only inside the libm's sequences (samebits::nvcc's expf/logf use
# ex2.approx.ftz / lg2.approx.ftz by design: they are what CUDA 13 emits). The
# last is checked per entry function: the instantiations with the cr libm must
# have no ex2/lg2 at all, and .ftz may appear only on ex2/lg2 lines of the
# nvcc instantiations. The nvcc-fast instantiations (NvccFastExpLog,
# attention-tc.md §23: -use_fast_math's expf/logf) may also have mul.ftz.f32,
# the libm's multiply by log2(e) or ln(2) (ptxas keeps the constant in a
# register, so the line cannot be matched by its operand): the same kernel
# source is checked without it in its NvccExpLog entries. Negative controls:
# planted PTX with each violation must be refused.
set -euo pipefail
cd "$(dirname "$0")/../../.."
B=build-device
fail=0
checker=$(cat <<'PY'
import re, sys
text = open(sys.argv[1]).read()
bad = 0
entries = re.split(r'(?=^\.visible \.entry )', text, flags=re.M)
for e in entries[1:]:
    name = re.match(r'\.visible \.entry (\S+)\(', e).group(1)
    is_cr = 'CrExpLog' in name
    is_fast = 'NvccFastExpLog' in name
    for ln in e.splitlines():
        s = ln.strip()
        if re.search(r'\bdiv\.(approx|full)\b', s):
            print('FAIL', name, 'has', s); bad += 1
        if re.search(r'\b(ex2|lg2)\.', s):
            if is_cr:
                print('FAIL', name, '(cr libm) has', s); bad += 1
        elif '.ftz' in s and not (is_fast and re.match(r'mul\.ftz\.f32\b', s)):
            print('FAIL', name, 'has', s); bad += 1
    if re.search(r'\b(atom|red)(\.[a-z]+)*\.(add\.)?f(16|32|64)\b', e) or re.search(r'\b(atom|red)\.[a-z.]*add\.f', e):
        print('FAIL', name, 'has a floating-point atomic'); bad += 1
print(sys.argv[1], 'entries', len(entries) - 1, 'violations', bad)
sys.exit(1 if bad else 0)
PY
)
for unit in attention_launch_fwd attention_launch_bwd launch_fwd launch_bwd sparse_mla_launch_fwd sparse_mla_launch_bwd; do
  ptx=$(ls "$B/keep/$unit/"*.ptx 2>/dev/null | head -1 || true)
  [ -n "$ptx" ] || { echo "FAIL: no PTX kept for $unit (build.sh -keep)"; fail=1; continue; }
  python3 -c "$checker" "$ptx" || fail=1
done
# Negative controls: each planted line must make the checker fail.
planted_dir=$(mktemp -d)
i=0
while IFS='|' read -r entry line; do
  i=$((i + 1))
  printf '.visible .entry %s(\n)\n{\n\t%s\n}\n' "$entry" "$line" > "$planted_dir/p$i.ptx"
  if python3 -c "$checker" "$planted_dir/p$i.ptx" > /dev/null; then
    echo "FAIL: negative control not caught: $entry: $line"; fail=1
  fi
done <<'EOF_PLANTED'
_Z4kNvccExpLog|div.approx.f32 %f1, %f2, %f3;
_Z4kNvccExpLog|div.full.f32 %f1, %f2, %f3;
_Z4kNvccExpLog|fma.rn.ftz.f32 %f1, %f2, %f3, %f4;
_Z4kCrExpLog|ex2.approx.ftz.f32 %f1, %f2;
_Z4kCrExpLog|lg2.approx.f32 %f1, %f2;
_Z4kNvccExpLog|atom.global.add.f32 %f1, [%rd1], %f2;
_Z4kNvccExpLog|red.global.add.f32 [%rd1], %f2;
_Z4kNvccExpLog|mul.ftz.f32 %f1, %f2, %f3;
_Z4kNvccFastExpLog|add.ftz.f32 %f1, %f2, %f3;
_Z4kNvccFastExpLog|fma.rn.ftz.f32 %f1, %f2, %f3, %f4;
EOF_PLANTED
rm -rf "$planted_dir"
echo "negative controls: $i planted PTX lines"
# Spills and stack frames fail the build, except in the tensor-core kernels, whose spills are
# known and are listed, not failed (a performance matter, measured in docs/kernels/attention-tc.md
# §18-§20). Stores a thread at D = 128, nvcc / cr libm, at 1fac586: the forward 24-36 / 164 bytes
# (consumers at 224 registers), the dK/dV pass 12 / 236 (255 registers), the dq pass 32 / 192
# (consumers at 232); at D = 64 at most 8. The dq pass from stored D^S (§21): none since its K copy is unrolled (not yet run on a GPU).
spills=$(awk '/Compiling entry/ {name=$0} /bytes stack frame/ && !/^ *0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads/ {print name " :: " $0}' "$B/ptxas.txt")
if [ -n "$spills" ]; then
  if echo "$spills" | grep -vE "attention_tc_(bwd|bwd_dq|bwd_dq_stored|forward)_kernel"; then
    echo "FAIL: spills or stack frames above (ptxas.txt)"; fail=1
  fi
  echo "$spills" | grep -E "attention_tc_(bwd|bwd_dq|bwd_dq_stored|forward)_kernel" | sed 's/^/NOTE (known, tc kernels): /' | cut -c1-220 || true
fi
[ $fail -eq 0 ] && echo "ptx checks: ok"
exit $fail
