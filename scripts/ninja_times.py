#!/usr/bin/env python3
"""Where a build's time went, from ninja's log of its last build (BUILD/.ninja_log):

    python3 scripts/ninja_times.py BUILD [--top N]

Prints the wall time from the first edge's start to the last edge's end, the sum of the edges'
times (on a busy or parallel machine, each edge's wall time: CPU contention shows in it), the sum
by kind (the kernels' CUDA objects, the HIP assembly, the device programs, the host C++), and the
N longest edges with when they started. Times are those of the last run of each edge: run it after
a clean build (a fresh build directory) to see a whole build.
"""
import argparse
import os


def kind(out):
    if out.startswith('kernels/') and '.cu.o' in out:
        return 'kernels CUDA objects'
    if out.endswith('.s') or out.endswith('.ptx') or out.endswith('.cubin'):
        return 'device code (HIP assembly, PTX, cubins)'
    if out.startswith(('tests/device/', 'bench/gpu/')):
        return 'device programs (nvcc)'
    return 'host (C++, links, generated files)'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('build')
    ap.add_argument('--top', type=int, default=25)
    a = ap.parse_args()
    rows = {}
    for line in open(os.path.join(a.build, '.ninja_log')):
        if line.startswith('#'):
            continue
        start, end, _mtime, out, _hash = line.rstrip('\n').split('\t')
        rows[out] = (int(start) / 1000, int(end) / 1000)  # the last run of each output
    if not rows:
        print('no edges logged')
        return 1
    t0 = min(s for s, _ in rows.values())
    t1 = max(e for _, e in rows.values())
    print(f'{len(rows)} edges, wall {t1 - t0:.0f} s, sum of edge times {sum(e - s for s, e in rows.values()):.0f} s')
    by = {}
    for out, (s, e) in rows.items():
        by[kind(out)] = by.get(kind(out), 0) + e - s
    for k, v in sorted(by.items(), key=lambda x: -x[1]):
        print(f'  {v:7.0f} s  {k}')
    print(f'longest {a.top} (seconds, start):')
    for out, (s, e) in sorted(rows.items(), key=lambda x: x[1][0] - x[1][1])[:a.top]:
        print(f'  {e - s:7.1f} {s - t0:6.0f}  {out}')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
