"""Time per phase of the sparse MLA forward and backward, from Nsight Compute's per-kernel durations
(one forward and one backward at the issue's shape, profile_sparse.py):

    ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum \\
        --print-units base --csv -k regex:"sparse_mla|Radix" \\
        python3 bench/gpu/kernels/profile_sparse.py build-device/kernels/libsamebits_kernels.so > times.csv
    python3 bench/gpu/kernels/sparse_phases.py times.csv [--roof 51.3] [--hbm 3.35] [--json OUT.json]

Prints one line per kernel family (launches summed: the backward runs its chunk kernels once per
chunk), its share of the forward or the backward, and for the fma phases their TFLOP/s and fraction
of the measured fp32 roof (docs/kernels/attention-results.md: 51.3 TFLOP/s on the H100), with the
FLOP counts of sparse_mla.md §8 (every slot counted as a member, as the issue counts them):
forward 4 D T H topk; token kernel (s, dp, dq) 6 D T H topk; contrib (gK, gV) 4 D T H topk.
With the byte metrics: HBM bytes (dram read + write) and L2 bytes per phase, and the roofline
bound: the larger of the time at the fma roof and the time at the HBM bandwidth (--hbm, TB/s:
3.35 for the H100 SXM, 4.8 for the H200), and how far the phase is from it."""
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


UNITS = {'nsecond': 1e-9, 'ns': 1e-9, 'usecond': 1e-6, 'us': 1e-6, 'msecond': 1e-3, 'ms': 1e-3, 'second': 1.0,
         's': 1.0, 'byte': 1.0, 'Kbyte': 1e3, 'Mbyte': 1e6, 'Gbyte': 1e9, 'KB': 1e3, 'MB': 1e6, 'GB': 1e9}
METRICS = {'gpu__time_duration.sum': 'seconds', 'dram__bytes_read.sum': 'dram', 'dram__bytes_write.sum': 'dram',
           'lts__t_bytes.sum': 'l2'}


def durations(path):
    """[(kernel name, {'seconds', 'dram', 'l2'})] per profiled kernel launch of an ncu --csv file."""
    launches = {}
    with open(path, newline='') as f:
        lines = [ln for ln in f if ln.startswith('"')]  # ncu prints its own log lines before the table
    for r in csv.DictReader(lines):
        key = METRICS.get(r.get('Metric Name'))
        if key is None:
            continue
        unit = r.get('Metric Unit', '')
        scale = UNITS.get(unit)
        if scale is None:
            raise SystemExit(f'sparse_phases: unknown unit {unit!r} of {r.get("Metric Name")}')
        e = launches.setdefault(r['ID'], (r['Kernel Name'], {}))[1]
        e[key] = e.get(key, 0.0) + float(r['Metric Value'].replace(',', '')) * scale
    return [v for v in launches.values() if 'seconds' in v[1]]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('csv')
    ap.add_argument('--roof', type=float, default=51.3, help='measured fp32 fma roof, TFLOP/s')
    ap.add_argument('--hbm', type=float, default=3.35, help='HBM bandwidth, TB/s')
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
    for name, m in rows:
        f = family(name)
        if f is None:
            unknown.append(name)
            continue
        e = fams.setdefault(f[0], {'group': f[1], 'flops_per_unit': f[2], 'seconds': 0.0, 'launches': 0})
        for k, v in m.items():
            e[k] = e.get(k, 0.0) + v
        e['launches'] += 1
    total = {g: sum(e['seconds'] for e in fams.values() if e['group'] == g) for g in ('forward', 'backward')}
    out = []
    print(f'{"phase":40s} {"launches":>8s} {"ms":>9s} {"share":>6s} {"TFLOP/s":>8s} {"of roof":>7s} '
          f'{"HBM GB":>7s} {"L2 GB":>7s}  bound (ms at the roof; measured / bound)')
    for fam, e in sorted(fams.items(), key=lambda kv: (kv[1]['group'] != 'forward', -kv[1]['seconds'])):
        ms = e['seconds'] * 1e3
        share = e['seconds'] / total[e['group']] if total[e['group']] else 0.0
        flops = e['flops_per_unit'] * unit
        tf = flops / e['seconds'] / 1e12 if flops else None
        row = {'phase': fam, 'group': e['group'], 'launches': e['launches'], 'ms': round(ms, 4),
               'share': round(share, 4)}
        if tf is not None:
            row.update(tflops=round(tf, 3), fraction_of_roof=round(tf / a.roof, 4))
        bound = ''
        if 'dram' in e:
            row.update(hbm_bytes=e['dram'], l2_bytes=e.get('l2'))
            t_fma = flops / (a.roof * 1e12)
            t_hbm = e['dram'] / (a.hbm * 1e12)
            what, t = ('fma', t_fma) if t_fma >= t_hbm else ('HBM', t_hbm)
            row.update(bound=what, bound_ms=round(t * 1e3, 4), over_bound=round(e['seconds'] / t, 2) if t else None)
            bound = f'{what} {t * 1e3:.3f}; {e["seconds"] / t:.2f}x' if t else 'none'
        out.append(row)
        gb = lambda k: f'{e[k] / 1e9:7.2f}' if e.get(k) is not None else f'{"":7s}'
        print(f'{fam:40s} {e["launches"]:8d} {ms:9.3f} {share:6.1%} ' +
              (f'{tf:8.2f} {tf / a.roof:7.1%}' if tf is not None else f'{"":8s} {"":7s}') +
              f' {gb("dram")} {gb("l2")}  {bound}')
    for g in ('forward', 'backward'):
        print(f'{g + " total":40s} {"":8s} {total[g] * 1e3:9.3f}')
    if unknown:
        print('not a sparse MLA phase (ignored):', ', '.join(sorted(set(unknown))[:5]))
    if a.json:
        with open(a.json, 'w') as f:
            json.dump({'roof_tflops': a.roof, 'hbm_tbs': a.hbm, 'shape': {'T': a.T, 'H': a.H, 'topk': a.topk, 'D': a.D},
                       'phases': out, 'forward_ms': total['forward'] * 1e3,
                       'backward_ms': total['backward'] * 1e3}, f, indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
