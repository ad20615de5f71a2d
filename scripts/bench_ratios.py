#!/usr/bin/env python3
"""Ratio table from a Google Benchmark JSON file (--benchmark_out) whose
benchmarks are named MODE/PEER_FUNC and MODE/OURS_FUNC[_SUFFIX], with
--benchmark_report_aggregates_only (medians used) or plain runs:

  python3 scripts/bench_ratios.py FILE.json --peer glibc --ours cr --suffix _fma

Prints, per function and mode, items/s of both and how many times faster
ours is (> 1: faster). items/s is Google Benchmark's rate over CPU time.
"""
import argparse
import json
import re
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('file')
    ap.add_argument('--peer', default='glibc')
    ap.add_argument('--ours', default='cr')
    ap.add_argument('--suffix', default='_fma')
    ap.add_argument('--json', action='store_true', help='print JSON instead of the table')
    a = ap.parse_args()
    rate = {}
    for b in json.load(open(a.file))['benchmarks']:
        if b.get('run_type') == 'aggregate' and b.get('aggregate_name') != 'median':
            continue
        name = re.sub(r'_median$', '', b['name'])
        rate[name] = b.get('items_per_second')
    rows = []
    for name, r in sorted(rate.items()):
        m = re.fullmatch(rf'(\w+)/{a.ours}_(\w+?){a.suffix}', name)
        if not m:
            continue
        mode, fn = m.groups()
        peer = rate.get(f'{mode}/{a.peer}_{fn}')
        if peer and r:
            rows.append({'function': fn, 'mode': mode, 'ours': r, 'peer': peer, 'speedup': r / peer})
    if not rows:
        sys.exit('no matching benchmark pairs')
    if a.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'function':10} {'mode':11} {a.ours + ' M/s':>10} {a.peer + ' M/s':>11} {'ours/peer':>10}")
    for r in sorted(rows, key=lambda r: (r['function'], r['mode'])):
        print(f"{r['function']:10} {r['mode']:11} {r['ours'] / 1e6:10.1f} {r['peer'] / 1e6:11.1f} {r['speedup']:9.2f}x")


main()
