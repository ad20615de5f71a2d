#!/usr/bin/env bash
# Checks the attention kernels' compiled code (run from the repository root
# after build.sh): no spills or stack frames (ptxas report), and in the PTX
# no .ftz, no div.approx / div.full, and ex2 / lg2 only inside the libm's
# sequences (samebits::nvcc's expf/logf use ex2.approx.ftz / lg2.approx.ftz
# by design: they are what CUDA 13 emits). The last is checked by counting:
# each PTX function's ex2/lg2 come from inlined nvcc::expf/logf, so the kernel
# instantiations with the cr libm must contain none at all, and .ftz may only
# appear on ex2/lg2 lines of the nvcc instantiations.
set -euo pipefail
cd "$(dirname "$0")/../../.."
B=build-device
fail=0
for unit in attention_launch_fwd attention_launch_bwd; do
  ptx=$(ls "$B/keep/$unit/"*.ptx 2>/dev/null | head -1 || true)
  [ -n "$ptx" ] || { echo "FAIL: no PTX kept for $unit (build.sh -keep)"; fail=1; continue; }
  # Split per entry function: "cr" instantiations must have no ex2/lg2 at all.
  python3 - "$ptx" <<'PY' || fail=1
import re, sys
text = open(sys.argv[1]).read()
bad = 0
entries = re.split(r'(?=^\.visible \.entry )', text, flags=re.M)
for e in entries[1:]:
    name = re.match(r'\.visible \.entry (\S+)\(', e).group(1)
    is_cr = 'CrExpLog' in name
    for ln in e.splitlines():
        s = ln.strip()
        if re.search(r'\bdiv\.(approx|full)\b', s):
            print('FAIL', name, 'has', s); bad += 1
        if re.search(r'\b(ex2|lg2)\.', s):
            if is_cr:
                print('FAIL', name, '(cr libm) has', s); bad += 1
        elif '.ftz' in s:
            print('FAIL', name, 'has', s); bad += 1
    if re.search(r'\b(atom|red)\.[a-z.]*f(16|32|64)', e):
        print('FAIL', name, 'has a floating-point atomic'); bad += 1
print(sys.argv[1], 'entries', len(entries) - 1, 'violations', bad)
sys.exit(1 if bad else 0)
PY
done
if grep -E "bytes stack frame|spill" "$B/ptxas.txt" | grep -vE "^ *0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads" ; then
  echo "FAIL: spills or stack frames above (ptxas.txt)"; fail=1
fi
[ $fail -eq 0 ] && echo "ptx checks: ok"
exit $fail
