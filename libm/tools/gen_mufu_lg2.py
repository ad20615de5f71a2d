#!/usr/bin/env python3
"""Generates libm/src/nvcc_mufu_lg2_tables.hpp from the
H200 measurements in docs/libm/results/h200/mufu/ (lg2_e0.npz.xz,
lg2_em1.npz.xz, written on the device by tests/device/mufu_summarize.py).

The model (libm/src/nvcc_mufu_lg2.cpp; rule validated on all 2^32 inputs by
tests/device/lg2_rule_probe.cu, docs/libm/results/h200/mufu/lg2_rule.jsonl)
needs two measured tables of 2^23 entries, the instruction's own outputs:
  T0[m]  = lg2.approx(1.m)        input encoding 0x3f800000 | m
  Tm1[m] = lg2.approx(0.5 * 1.m)  input encoding 0x3f000000 | m
Each entry is stored as r[m] = hw encoding - encoding of the correctly rounded
binary32 log2 of the input, as samebits::cr::log2f computes it (the decoder
adds r to cr::log2f's encoding, modulo 2^32). The reference is taken from
cr::log2f itself: this script compiles a small C++ helper (CXX, default c++)
that dumps cr::log2f on both binades.

Encoding, per table: blocks of BLOCK entries, frame of reference. Block b has
a 48-bit header (8 base64 characters, least significant 6 bits first):
  bits  0..16  S_b   = sum of the widths of blocks 0..b-1
  bits 17..21  w_b   = bits per entry, ceil(log2(max - min + 1))
  bits 22..47  min_b + 2^25 (the block minimum, biased)
and entry j of the block is min_b + the w_b-bit field at bit BLOCK S_b + j w_b
of the data stream (base64, bit k of the stream is bit k % 6 of character
k / 6). The script decodes its own output and compares every entry with the
hardware data before printing anything.
The tables are compiled once, into the samebits_mufu_model library (libm/meson.build),
never into an includer of the public headers.
  python3 libm/tools/gen_mufu_lg2.py > libm/src/nvcc_mufu_lg2_tables.hpp
tests/libm/nvcc/check_mufu_tables.py checks that the committed file is this output.
"""
import io
import lzma
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, '..', '..')
DATA = os.path.join(ROOT, 'docs', 'libm', 'results', 'h200', 'mufu')
B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
BLOCK = 256
N = 1 << 23
S_BITS, W_BITS, BASE_BITS = 17, 5, 26
BASE_BIAS = 1 << (BASE_BITS - 1)

HELPER = r'''
#include <cstdint>
#include <cstdio>
#include <vector>
#include "samebits/libm/cr/log2f.hpp"
int main() {
  std::vector<std::uint32_t> out;
  out.reserve(2u << 23);
  for (std::uint32_t hi : {0x3f800000u, 0x3f000000u})
    for (std::uint32_t m = 0; m < (1u << 23); ++m)
      out.push_back(samebits::fp::to_bits(samebits::cr::log2f(samebits::fp::from_bits(hi | m))));
  return std::fwrite(out.data(), 4, out.size(), stdout) == out.size() ? 0 : 1;
}
'''


def load(name, ref):
    """The hardware's encodings, rebuilt as mufu_summarize.py defines them."""
    with open(os.path.join(DATA, name + '.npz.xz'), 'rb') as f:
        z = np.load(io.BytesIO(lzma.decompress(f.read())))
    res = z['residual'].astype(np.int64)
    res[z['escape_index']] = z['escape_residual']
    want = ref.astype(np.float32).view(np.uint32).astype(np.int64)
    sign = np.where(ref < 0, -1, 1)
    return (want + sign * res).astype(np.uint32)


def cr_log2_dump():
    """cr::log2f's encodings on [1, 2) then [1/2, 1), from the C++ helper."""
    cxx = os.environ.get('CXX', 'c++')
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, 'dump.cpp'), os.path.join(d, 'dump')
        with open(src, 'w') as f:
            f.write(HELPER)
        subprocess.run([cxx, '-O2', '-std=c++20', '-I', os.path.join(ROOT, 'libm', 'include'),
                        src, '-o', exe], check=True)
        out = subprocess.run([exe], check=True, stdout=subprocess.PIPE).stdout
    v = np.frombuffer(out, dtype=np.uint32)
    if len(v) != 2 * N:
        sys.exit('helper output has the wrong length')
    return v[:N].copy(), v[N:].copy()


def b64_values(s):
    lut = np.zeros(128, dtype=np.int64)
    for k, c in enumerate(B64):
        lut[ord(c)] = k
    return lut[np.frombuffer(s.encode('ascii'), dtype=np.uint8)]


def bits_to_b64(bits):
    """bits: array of 0/1, bit k -> bit k % 6 of character k / 6."""
    pad = (-len(bits)) % 6
    b = np.concatenate([bits, np.zeros(pad, dtype=np.int64)]).reshape(-1, 6)
    six = (b << np.arange(6)).sum(axis=1)
    return ''.join(B64[v] for v in six)


def encode(r):
    rb = r.reshape(-1, BLOCK)
    lo, hi = rb.min(axis=1), rb.max(axis=1)
    span = hi - lo
    w = np.zeros(len(lo), dtype=np.int64)
    while True:  # exact integer ceil(log2(span + 1))
        small = (span >> w) > 0
        if not small.any():
            break
        w += small
    s = np.concatenate([[0], np.cumsum(w)[:-1]])
    if s.max() >= 1 << S_BITS or w.max() >= 1 << W_BITS or \
            lo.min() < -BASE_BIAS or lo.max() >= BASE_BIAS:
        sys.exit('header field out of range')
    hdr = s | (w << S_BITS) | ((lo + BASE_BIAS) << (S_BITS + W_BITS))
    hbits = ((hdr[:, None] >> np.arange(48)) & 1).reshape(-1)
    # Data stream: entry j of block b at bit BLOCK s_b + j w_b.
    field = (rb - lo[:, None]).reshape(-1)
    we = np.repeat(w, BLOCK)
    pos = np.repeat(BLOCK * s, BLOCK) + np.tile(np.arange(BLOCK), len(w)) * we
    total = int(BLOCK * (s[-1] + w[-1]))
    bits = np.zeros(total, dtype=np.int64)
    for k in range(int(w.max())):
        sel = we > k
        bits[pos[sel] + k] = (field[sel] >> k) & 1
    return bits_to_b64(hbits), bits_to_b64(bits), w


def decode(hs, ds):
    """Random-access decoding of every entry, as the C++ does it."""
    h = b64_values(hs)
    d = np.concatenate([b64_values(ds), np.zeros(8, dtype=np.int64)])
    j = np.arange(N, dtype=np.int64)
    b = j // BLOCK
    hdr = np.zeros(N, dtype=np.int64)
    for k in range(8):
        hdr |= h[8 * b + k] << (6 * k)
    s = hdr & ((1 << S_BITS) - 1)
    w = (hdr >> S_BITS) & ((1 << W_BITS) - 1)
    base = (hdr >> (S_BITS + W_BITS)) - BASE_BIAS
    p = BLOCK * s + (j % BLOCK) * w
    acc = np.zeros(N, dtype=np.int64)
    for k in range(6):
        acc |= d[p // 6 + k] << (6 * k)
    field = (acc >> (p % 6)) & ((1 << w) - 1)
    return base + field


def emit(name, s, comment):
    print(f'// {comment}')
    print(f'inline const char* {name}() {{')
    print('  static constexpr char s[] =')
    for k in range(0, len(s), 120):
        print(f'      "{s[k:k + 120]}"')
    print('      ;')
    print('  return s;')
    print('}\n')


def main():
    m = 1.0 + np.arange(N, dtype=np.float64) * 2.0**-23
    cr0, crm1 = cr_log2_dump()
    out = []
    for name, ref, cr in (('lg2_e0', np.log2(m), cr0), ('lg2_em1', np.log2(m / 2), crm1)):
        npref = ref.astype(np.float32).view(np.uint32)
        print(f'{name}: numpy float32(log2) differs from cr::log2f on '
              f'{int((npref != cr).sum())} entries', file=sys.stderr)
        hw = load(name, ref)
        r = hw.astype(np.int64) - cr.astype(np.int64)
        hs, ds, w = encode(r)
        back = (cr.astype(np.int64) + decode(hs, ds)) & 0xffffffff
        bad = int((back != hw.astype(np.int64)).sum())
        print(f'{name}: residuals [{r.min()}, {r.max()}], widths {np.bincount(w).tolist()}, '
              f'{len(hs) + len(ds)} characters; decoded back: {bad} mismatches', file=sys.stderr)
        if bad:
            sys.exit('decoding check failed')
        out.append((name, hs, ds))
    print('// libm/src/nvcc_mufu_lg2_tables.hpp — GENERATED by libm/tools/gen_mufu_lg2.py from')
    print('// the H200 measurements in docs/libm/results/h200/mufu/; do not edit.')
    print('// Measured data, not a fitted model: T0[m] = lg2.approx.f32(1.m) and')
    print('// Tm1[m] = lg2.approx.f32(0.5 * 1.m) on the H200 (sm_90), m in [0, 2^23), each')
    print('// stored as its distance in encodings from the correctly rounded value')
    print('// (samebits::cr::log2f). Layout (see the generator): blocks of '
          f'{BLOCK} entries,')
    print('// frame of reference; per block a 48-bit header (sum of the previous widths,')
    print('// width, biased minimum) and then the fields, all in base64.')
    print('// Private to the samebits_mufu_model library (libm/src/nvcc_mufu_lg2.cpp).')
    print('#pragma once\n\n#include <cstdint>\n')
    print('namespace samebits::nvcc::model::detail {\n')
    print(f'inline constexpr std::uint32_t kLg2Block = {BLOCK};')
    print(f'inline constexpr std::uint32_t kLg2SBits = {S_BITS};')
    print(f'inline constexpr std::uint32_t kLg2WBits = {W_BITS};')
    print(f'inline constexpr std::int64_t kLg2BaseBias = {BASE_BIAS};\n')
    for name, hs, ds in out:
        what = 'T0 (1.m)' if name == 'lg2_e0' else 'Tm1 (0.5 * 1.m)'
        emit(f'{name}_headers', hs, f'{what}: block headers, 8 characters each.')
        emit(f'{name}_stream', ds, f'{what}: the fields.')
    print('}  // namespace samebits::nvcc::model::detail')


main()
