"""Time per phase of the sparse MLA forward and backward, from Nsight Compute's per-kernel durations
(one forward and one backward at the issue's shape, profile_sparse.py):

    ncu --metrics gpu__time_duration.sum --print-units base --csv -k regex:sparse_mla \\
        python3 tests/device/kernels/profile_sparse.py build-device/libsamebits_kernels.so > times.csv
    python3 tests/device/kernels/sparse_phases.py times.csv [--roof 51.3] [--json OUT.json]

Prints one line per kernel family (launches summed: the backward runs its chunk kernels once per
chunk), its share of the forward or the backward, and for the fma phases their TFLOP/s and fraction
of the measured fp32 roof (docs/kernels/attention-results.md: 51.3 TFLOP/s on the H100), with the
FLOP counts of sparse_mla.md §8 (every slot counted as a member, as the issue counts them):
forward 4 D T H topk; token kernel (s, dp, dq) 6 D T H topk; contrib (gK, gV) 4 D T H topk."""
import argparse
import csv
import json
import re
import sys

# Kernel family -> (phase group, FLOPs per D*T*H*topk)
FAMILIES = [
    ('sparse_mla_forward_streamed_kernel', 'forward', 4),
    ('sparse_mla_forward_kernel', 'forward', 4),
    ('sparse_mla_bwd_delta_kernel', 'backward', 0),
    ('sparse_mla_bwd_dsink_kernel', 'backward', 0),
    ('sparse_mla_bwd_token_streamed_kernel', 'backward', 6),
    ('sparse_mla_bwd_token_kernel', 'backward', 6),
    ('sparse_mla_bwd_contrib_kernel', 'backward', 4),
    ('sparse_mla_bwd_pairs_kernel', 'backward', 0),
    ('sparse_mla_bwd_offsets_kernel', 'backward', 0),
    ('sparse_mla_bwd_dkv_accum_kernel', 'backward', 0),
    ('sparse_mla_bwd_dkv_finish_kernel', 'backward', 0),
]


def family(name):
    for fam, group, flops in FAMILIES:
        if re.search(r'\b' + fam + r'\b', name) or fam + '<' in name or fam + '(' in name:
            return fam, group, flops
    if 'RadixSort' in name or 'cub' in name.lower():
        return 'cub radix sort', 'backward', 0
    return None


def durations(path):
    """(kernel name, seconds) for every gpu__time_duration.sum row of an ncu --csv file."""
    rows = []
    with open(path, newline='') as f:
        lines = [ln for ln in f if ln.startswith('"')]  # ncu prints its own log lines before the table
    for r in csv.DictReader(lines):
        if r.get('Metric Name') != 'gpu__time_duration.sum':
            continue
        unit = r.get('Metric Unit', 'nsecond')
        scale = {'nsecond': 1e-9, 'ns': 1e-9, 'usecond': 1e-6, 'us': 1e-6, 'msecond': 1e-3, 'ms': 1e-3,
                 'second': 1.0, 's': 1.0}.get(unit)
        if scale is None:
            raise SystemExit(f'sparse_phases: unknown time unit {unit!r}')
        rows.append((r['Kernel Name'], float(r['Metric Value'].replace(',', '')) * scale))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('csv')
    ap.add_argument('--roof', type=float, default=51.3, help='measured fp32 fma roof, TFLOP/s')
    ap.add_argument('--T', type=int, default=4096)
    ap.add_argument('--H', type=int, default=128)
    ap.add_argument('--topk', type=int, default=512)
    ap.add_argument('--D', type=int, default=512)
    ap.add_argument('--json')
    a = ap.parse_args()
    rows = durations(a.csv)
    if not rows:
        print('sparse_phases: no gpu__time_duration.sum rows in', a.csv, file=sys.stderr)
        return 1
    unit = a.D * a.T * a.H * a.topk
    fams, unknown = {}, []
    for name, s in rows:
        f = family(name)
        if f is None:
            unknown.append(name)
            continue
        e = fams.setdefault(f[0], {'group': f[1], 'flops_per_unit': f[2], 'seconds': 0.0, 'launches': 0})
        e['seconds'] += s
        e['launches'] += 1
    total = {g: sum(e['seconds'] for e in fams.values() if e['group'] == g) for g in ('forward', 'backward')}
    out = []
    print(f'{"phase":40s} {"launches":>8s} {"ms":>9s} {"share":>6s} {"TFLOP/s":>8s} {"of roof":>7s}')
    for fam, e in sorted(fams.items(), key=lambda kv: (kv[1]['group'] != 'forward', -kv[1]['seconds'])):
        ms = e['seconds'] * 1e3
        share = e['seconds'] / total[e['group']] if total[e['group']] else 0.0
        tf = e['flops_per_unit'] * unit / e['seconds'] / 1e12 if e['flops_per_unit'] else None
        row = {'phase': fam, 'group': e['group'], 'launches': e['launches'], 'ms': round(ms, 4),
               'share': round(share, 4)}
        if tf is not None:
            row.update(tflops=round(tf, 3), fraction_of_roof=round(tf / a.roof, 4))
        out.append(row)
        print(f'{fam:40s} {e["launches"]:8d} {ms:9.3f} {share:6.1%} ' +
              (f'{tf:8.2f} {tf / a.roof:7.1%}' if tf is not None else f'{"":8s} {"":7s}'))
    for g in ('forward', 'backward'):
        print(f'{g + " total":40s} {"":8s} {total[g] * 1e3:9.3f}')
    if unknown:
        print('not a sparse MLA phase (ignored):', ', '.join(sorted(set(unknown))[:5]))
    if a.json:
        with open(a.json, 'w') as f:
            json.dump({'roof_tflops': a.roof, 'shape': {'T': a.T, 'H': a.H, 'topk': a.topk, 'D': a.D},
                       'phases': out, 'forward_ms': total['forward'] * 1e3,
                       'backward_ms': total['backward'] * 1e3}, f, indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
