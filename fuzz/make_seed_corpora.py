#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz harnesses into fuzz/corpus/:

  python3 fuzz/make_seed_corpora.py [SAMEBITS]     (default ./build/cli/samebits)

libm/: for each function, the oracle's special inputs (signed zeros,
  infinities, NaN payloads, subnormal and normal extremes, the thresholds it
  finds by bisection), as `samebits score F --json` lists them, one file per
  function, plus one file per input for the thresholds (so that a replay
  reaches each of them on its own).
tensor_io/: the .npy and .safetensors fixtures of tests/data/compare (valid
  and malformed), and a few truncations of valid ones.
sweep/: a handful of ranges (start, span, stride|function, threads, filter).
"""
import json
import os
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
exe = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, 'build', 'cli', 'samebits')
out = os.path.join(HERE, 'corpus')

libm = os.path.join(out, 'libm')
os.makedirs(libm, exist_ok=True)
for f in ['expf', 'exp2f', 'exp10f', 'logf', 'log2f', 'log10f']:
    j = json.loads(subprocess.run([exe, 'score', f, '--impl', 'cr', '--range', '1:1', '--json', '-q'],
                                  check=True, capture_output=True, text=True).stdout)
    xs = [int(s['input']['bits'], 16) for s in j['special_values']]
    with open(os.path.join(libm, f'specials_{f}'), 'wb') as fh:
        fh.write(b''.join(struct.pack('<I', x) for x in xs[:64]))
    for s in j['special_values']:
        label = ''.join(c if c.isalnum() else '_' for c in s['label']).strip('_')
        with open(os.path.join(libm, f'{f}_{label}'), 'wb') as fh:
            fh.write(struct.pack('<I', int(s['input']['bits'], 16)))

tio = os.path.join(out, 'tensor_io')
os.makedirs(tio, exist_ok=True)
data = os.path.join(ROOT, 'tests', 'data', 'compare')
for name in sorted(os.listdir(data)):
    if name.endswith(('.npy', '.safetensors')):
        shutil.copy(os.path.join(data, name), os.path.join(tio, name))
for name in ('f32.npy', 'f32.safetensors'):
    src = os.path.join(data, name)
    if os.path.exists(src):
        b = open(src, 'rb').read()
        for cut in (8, len(b) // 2, len(b) - 1):
            open(os.path.join(tio, f'{name}.cut{cut}'), 'wb').write(b[:cut])

sw = os.path.join(out, 'sweep')
os.makedirs(sw, exist_ok=True)
for i, (first, span, extra, threads, flt) in enumerate([
        (0x3f800000, 1000, 0x00, 1, 0), (0x00000000, 4095, 0x13, 6, 1), (0x7f7ff000, 4095, 0x2f, 3, 0),
        (0xff800000, 100, 0x51, 7, 0), (0x80000000, 2000, 0x40, 2, 1)]):
    open(os.path.join(sw, f'seed{i}'), 'wb').write(struct.pack('<IIBBB', first, span, extra, threads, flt))
print('seed corpora written to', out)
