#!/usr/bin/env bash
# A planted one-ulp change in one kernel must make the kernel check fail (a GPU machine; device
# suite, or alone):
#   bash tests/device/kernels/planted_ulp_control.sh BUILD_DIR
# BUILD_DIR: a Meson build (-Dcuda=enabled) of this tree with attention_check built. The source
# tree and BUILD_DIR are copied to a temporary folder (the tree itself is never touched); in the
# copy, the attention forward's lse (kernels/src/portable/attention/fwd_kernel.cuh,
# lse = add_rn(m, log(l))) is moved up by one ulp; the translation units that include the file
# are rebuilt (Meson 1.0 records no header dependencies for nvcc, so they are touched), then the
# copy's attention_check runs its quick grid on the S = 17 points, and must fail: exit status 1,
# every point with lse mismatches and none in o, dq, dk, dv (the backward runs from the
# reference's lse). Exit 0 when it does (the control holds), 1 when it does not, 2 on a set-up
# problem (the planted line no longer found: update PLANT below).
set -uo pipefail
build=$(realpath "${1:?usage: planted_ulp_control.sh BUILD_DIR}")
src=$(realpath "$(dirname "$0")/../../..")
file=kernels/src/portable/attention/fwd_kernel.cuh
plant_from='lse = add_rn(m[r], L::log(l[r]));'
plant_to='lse = fp::from_bits(fp::to_bits(add_rn(m[r], L::log(l[r]))) + 1u);  // planted: one ulp'
filter=${PLANTED_FILTER:-S=17 }
work=$(mktemp -d /tmp/samebits-planted.XXXXXX)
trap 'rm -rf "$work"' EXIT

rel=$(python3 -c 'import os, sys; print(os.path.relpath(sys.argv[1], sys.argv[2]))' "$build" "$src")
case "$rel" in
  ..*) # a build folder outside the tree: configure a fresh one in the copy (slower)
    fresh=1; rel=build-planted ;;
  *) fresh=0 ;;
esac
echo "planted control: copying $src (and $build) to $work"
# The tree without other build folders and .git; times kept, so that ninja rebuilds only what the
# planted change touches.
tar -C "$src" --exclude=./.git --exclude='./build*' --exclude=./.devcarry -cf - . | { mkdir -p "$work/src" && tar -C "$work/src" -xf -; } ||
  { echo "planted control: copy failed"; exit 2; }
[ $fresh -eq 1 ] || cp -a "$build" "$work/src/$rel" || { echo "planted control: copy of $build failed"; exit 2; }
cd "$work/src" || exit 2

python3 - "$file" "$plant_from" "$plant_to" <<'PY' || exit 2
import sys
path, old, new = sys.argv[1:]
text = open(path).read()
n = text.count(old)
if n != 1:
    print(f'planted control: "{old}" found {n} times in {path} (expected once): update PLANT in planted_ulp_control.sh')
    sys.exit(2)
open(path, 'w').write(text.replace(old, new))
print(f'planted in {path}: {new}')
PY

# Touch every source that includes the planted file, directly or through other headers.
python3 - "$file" "$rel" <<'PY' || exit 2
import os, re, sys
planted, build = sys.argv[1], sys.argv[2]
roots = ['kernels', 'tests/device/kernels', build]
inc_dirs = ['kernels/src', 'kernels/include', 'libm/include', 'gpu/include']
files = []
for r in roots:
    for d, _, fs in os.walk(r):
        if d.startswith(os.path.join(build, 'meson-')) or '/keep-' in d:
            continue
        files += [os.path.join(d, f) for f in fs if f.endswith(('.cu', '.cuh', '.hpp', '.h', '.cpp'))]
includes = {}
for f in files:
    try:
        text = open(f, errors='replace').read()
    except OSError:
        continue
    deps = []
    for name in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
        for base in [os.path.dirname(f)] + inc_dirs:
            p = os.path.normpath(os.path.join(base, name))
            if os.path.exists(p):
                deps.append(p)
                break
    includes[os.path.normpath(f)] = deps
hit = {os.path.normpath(planted)}
changed = True
while changed:
    changed = False
    for f, deps in includes.items():
        if f not in hit and any(d in hit for d in deps):
            hit.add(f)
            changed = True
units = sorted(f for f in hit if f.endswith(('.cu', '.cpp')))
for u in units:
    os.utime(u)
print('rebuilt from the planted file:', ', '.join(units) or 'nothing (no unit includes it?)')
sys.exit(0 if units else 2)
PY

if [ $fresh -eq 1 ]; then
  opts=$(python3 -c 'import json, sys; o = {x["name"]: x["value"] for x in json.load(open(sys.argv[1]))}
print(" ".join(f"-D{k}={str(o[k]).lower() if isinstance(o[k], bool) else o[k]}" for k in ("nvcc_arch",)))' \
    "$build/meson-info/intro-buildoptions.json")
  meson setup "$rel" -Dcuda=enabled -Ddevice_only=true $opts > "$work/setup.txt" 2>&1 ||
    { tail -20 "$work/setup.txt"; exit 2; }
fi
t0=$SECONDS
ninja -C "$rel" tests/device/kernels/attention_check > "$work/ninja.txt" 2>&1 || { tail -30 "$work/ninja.txt"; exit 2; }
echo "planted build: $((SECONDS - t0)) s, $(grep -c 'Compiling' "$work/ninja.txt") compiles"
mkdir -p "$work/out"
"$rel/tests/device/kernels/attention_check" --quick --no-refusals --filter "$filter" --out "$work/out" > "$work/check.txt" 2>&1
rc=$?
echo "attention_check with the planted change: exit status $rc (want 1)"
python3 - "$work/check.txt" "$rc" <<'PY'
import json, sys
rc = int(sys.argv[2])
points = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"point"')]
ok = rc == 1 and len(points) > 0
for p in points:
    m = p['mismatch']
    caught = m['lse'] > 0 and all(m[t] == 0 for t in ('o', 'dq', 'dk', 'dv'))
    ok &= caught and not p['pass']
    print(f'  {p["point"]}: mismatches {m} {"(the planted lse)" if caught else "UNEXPECTED"}')
print(f'planted one-ulp change: {len(points)} points, '
      f'{"caught: the check fails as it must" if ok else "NOT caught as expected"}')
sys.exit(0 if ok else 1)
PY
