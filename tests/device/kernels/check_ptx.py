#!/usr/bin/env python3
"""The kernels' compiled code keeps the contract's arithmetic (no GPU needed: CI runs it where nvcc
exists, suites 'kernels' and 'device').

    check_ptx.py --unit LIB.a KEEP_DIR [--unit LIB.a KEEP_DIR ...] [--fast-math PTX ...]
                 --control-ptx CONTROL.ptx --control-cubin CONTROL.cubin

--unit: a kernels library (kernels/meson.build) and the folder its nvcc compiles left their PTX and
cubin in (-keep -keep-dir): the code the library holds, read, not compiled again. Every member of
the library must have its PTX there (and no PTX may be left over from a source that is gone).
--fast-math: PTX of the fma-chain kernels compiled with -use_fast_math (which implies -ftz=true,
-prec-div=false, -prec-sqrt=false, -fmad=true): a user's flags must not change the arithmetic.

In every kernel entry of the PTX:
  - no div.approx / div.full (a division is the correctly rounded div.rn);
  - no floating-point atomics (atom / red on f16, bf16, f32, f64 and their vector forms);
  - ex2 / lg2 only in the nvcc libm's entries (samebits::nvcc's expf / logf use ex2.approx.ftz /
    lg2.approx.ftz by design: they are what CUDA 13 emits); none in the cr libm's entries;
  - no .ftz outside those ex2 / lg2 lines, except: in the nvcc-fast entries (NvccFastExpLog,
    -use_fast_math's expf / logf) mul.ftz.f32, the libm's multiply by log2(e) or ln(2) (ptxas keeps
    the constant in a register, so the line cannot be matched by its operand; the same kernel
    source is checked without it in its NvccExpLog entries); and in a -use_fast_math build, in cr
    entries, cvt.ftz: samebits::cr computes in binary64 and converts with cvt, which nvcc then
    writes cvt.ftz; cr routes subnormal inputs and results around those conversions (cr's
    -use_fast_math build equals its default build on all 2^32 inputs on the H200: cr_bitwise).
In every function of the cubins (ptxas's output, the .nv.info attributes): no stack frame (spills
need one), except in the sm90 tensor-core kernels and the CUDA routines they call (the division's
slow path), whose frames are known and listed, not failed (a performance matter:
docs/kernels/attention-tc.md).

Negative controls, every run: planted PTX lines of each kind must be refused, a planted allowed
line must pass, and a real kernel compiled with -use_fast_math (CONTROL: a division, a float
atomic, a cr-named entry calling expf, a local array passed to a non-inlined function) must show
each violation, its cubin a stack frame. Exit 0 when all hold, 1 otherwise.
"""
import argparse
import os
import re
import struct
import subprocess
import sys

KNOWN_FRAMES = re.compile(r'attention_tc_(bwd|bwd_dq|bwd_dq_stored|forward)_kernel')
# CUDA's own routines that a kernel calls (the correctly rounded division's slow path): in a module
# of tensor-core kernels, their callee-saved registers take a frame too (ptxas -v lists them under
# the kernel that calls them; they are known there, and nowhere else).
CUDA_ROUTINE = re.compile(r'^\$__internal_\d+_\$__cuda_')
FLOAT_TYPE = re.compile(r'^(b?f16(x2)?|f32|f64|bf16x2)$')


def entries(text):
    """[(name, lines)] for each .entry of a PTX module."""
    parts = re.split(r'(?=^\.(?:visible|weak) \.entry )', text, flags=re.M)
    out = []
    for e in parts[1:]:
        m = re.match(r'\.(?:visible|weak) \.entry (\S+?)\(', e)
        out.append((m.group(1) if m else '?', e.splitlines()))
    return out


def is_float_atomic(s):
    """atom / red / cp.reduce (a bulk reduction is atomic too) on a floating-point type."""
    op = re.sub(r'^@!?%\w+\s+', '', s).split()[0] if s.split() else ''
    tokens = re.split(r'\.|::', op)
    if not (tokens[0] in ('atom', 'red') or op.startswith('cp.reduce')):
        return False
    return any(FLOAT_TYPE.match(t) for t in tokens[1:])


def violations(text, fast_math=False):
    """(number of entries, [violation text])."""
    bad = []
    ents = entries(text)
    for name, lines in ents:
        is_cr = 'CrExpLog' in name
        is_fast = 'NvccFastExpLog' in name
        for ln in lines:
            s = re.sub(r'//.*', '', ln).strip()
            if not s:
                continue
            if re.search(r'\bdiv\.(approx|full)\b', s):
                bad.append(f'{name}: {s}')
            if re.search(r'\b(ex2|lg2)\.', s):
                if is_cr:
                    bad.append(f'{name} (cr libm): {s}')
            elif '.ftz' in s and not (is_fast and re.match(r'mul\.ftz\.f32\b', s)) \
                    and not (fast_math and is_cr and re.match(r'cvt\.(rn\.)?ftz\.f(32|64)\.f(32|64)\b', s)):
                bad.append(f'{name}: {s}')
            if is_float_atomic(s):
                bad.append(f'{name}: floating-point atomic: {s}')
    return len(ents), bad


def elf_sections(data):
    if data[:4] != b'\x7fELF' or data[4] != 2:
        raise ValueError('not a 64-bit ELF file')
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    secs = []
    for i in range(shnum):
        name, typ, _flags, _addr, off, size, link, info, _align, _entsize = \
            struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize)
        secs.append({'name': name, 'type': typ, 'off': off, 'size': size, 'link': link, 'info': info})
    names = secs[shstrndx]
    for s in secs:
        raw = data[names['off'] + s['name']:]
        s['name'] = raw[:raw.index(b'\0')].decode()
    return secs


def frames(path):
    """{function: stack frame bytes} from a cubin's .nv.info (EIATTR_FRAME_SIZE, 0x11): what ptxas
    -v reports as 'bytes stack frame' (spill stores live in it)."""
    data = open(path, 'rb').read()
    secs = elf_sections(data)
    symtab = next(s for s in secs if s['name'] == '.symtab')
    strtab = secs[symtab['link']]
    syms = []
    for i in range(symtab['size'] // 24):
        nm, = struct.unpack_from('<I', data, symtab['off'] + 24 * i)
        raw = data[strtab['off'] + nm:]
        syms.append(raw[:raw.index(b'\0')].decode())
    out = {}
    for s in secs:
        if not s['name'].startswith('.nv.info'):
            continue
        o, end = s['off'], s['off'] + s['size']
        while o < end:
            fmt, attr = data[o], data[o + 1]
            if fmt == 4:  # EIFMT_SVAL: u16 size, payload
                size, = struct.unpack_from('<H', data, o + 2)
                if attr == 0x11 and size >= 8:
                    idx, val = struct.unpack_from('<II', data, o + 4)
                    out[syms[idx]] = val
                o += 4 + size
            elif fmt == 3:  # EIFMT_HVAL: u16 value
                o += 4
            elif fmt == 2:  # EIFMT_BVAL
                o += 4
            elif fmt == 1:  # EIFMT_NVAL
                o += 4
            else:
                raise ValueError(f'{path}: {s["name"]}: unknown .nv.info format {fmt}')
    return out


def archive_members(lib):
    r = subprocess.run(['ar', 't', lib], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f'ar t {lib}: {r.stderr.strip()}')
    return [os.path.basename(m) for m in r.stdout.split()]


def units(lib, keep):
    """[(member, ptx path, [cubin paths])] pairing the library's objects with the kept files, and
    the problems found (a member without PTX, a PTX left from a source no longer built)."""
    problems, out = [], []
    ptx = {f[:-4]: os.path.join(keep, f) for f in os.listdir(keep) if f.endswith('.ptx')}
    used = set()
    for m in archive_members(lib):
        if not m.endswith('.cu.o'):
            continue
        stem = m[:-5]  # src_cuda_attention_launch_fwd (Meson: the source's path, '/' -> '_')
        match = [b for b in ptx if stem == b or stem.endswith('_' + b)]
        match = [b for b in match if len(b) == max(len(x) for x in match)] if match else []
        if len(match) != 1:
            problems.append(f'{m}: no PTX kept in {keep} (built with -keep -keep-dir?)')
            continue
        b = match[0]
        used.add(b)
        cubins = [os.path.join(keep, f) for f in os.listdir(keep) if f.startswith(b + '.') and f.endswith('.cubin')]
        out.append((m, ptx[b], cubins))
    for b in sorted(set(ptx) - used):
        problems.append(f'{ptx[b]}: PTX of no member of {os.path.basename(lib)} (a removed source? delete {keep})')
    return out, problems


PLANTED = [  # (entry, line, fast_math build, must be refused)
    ('_Z4kNvccExpLog', 'div.approx.f32 %f1, %f2, %f3;', False, True),
    ('_Z4kNvccExpLog', 'div.full.f32 %f1, %f2, %f3;', False, True),
    ('_Z4kNvccExpLog', 'fma.rn.ftz.f32 %f1, %f2, %f3, %f4;', False, True),
    ('_Z4kNvccExpLog', 'add.ftz.f32 %f1, %f2, %f3;', False, True),
    ('_Z4kNvccExpLog', 'mul.ftz.f32 %f1, %f2, %f3;', False, True),
    ('_Z4kNvccExpLog', 'cvt.rn.ftz.f32.f64 %f1, %fd1;', True, True),
    ('_Z4kCrExpLog', 'cvt.rn.ftz.f32.f64 %f1, %fd1;', False, True),
    ('_Z4kCrExpLog', 'ex2.approx.ftz.f32 %f1, %f2;', False, True),
    ('_Z4kCrExpLog', 'lg2.approx.f32 %f1, %f2;', False, True),
    ('_Z4kNvccExpLog', 'atom.global.add.f32 %f1, [%rd1], %f2;', False, True),
    ('_Z4kNvccExpLog', 'red.global.add.f32 [%rd1], %f2;', False, True),
    ('_Z4kNvccExpLog', 'red.global.add.noftz.bf16x2 [%rd1], %r2;', False, True),
    ('_Z4kNvccExpLog', '@%p1 atom.shared.add.f64 %fd1, [%r1], %fd2;', False, True),
    ('_Z4kNvccExpLog', 'cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.f32 [%rd1, {%r1, %r2}], [%r3];', False, True),
    ('_Z4kNvccFastExpLog', 'add.ftz.f32 %f1, %f2, %f3;', False, True),
    ('_Z4kNvccFastExpLog', 'fma.rn.ftz.f32 %f1, %f2, %f3, %f4;', False, True),
    # allowed: the checks must not refuse what the contract permits
    ('_Z4kNvccExpLog', 'ex2.approx.ftz.f32 %f1, %f2;', False, False),
    ('_Z4kNvccFastExpLog', 'mul.ftz.f32 %f1, %f2, %f3;', False, False),
    ('_Z4kCrExpLog', 'cvt.rn.ftz.f32.f64 %f1, %fd1;', True, False),
    ('_Z4kNvccExpLog', 'atom.global.add.u32 %r1, [%rd1], 1;', False, False),
    ('_Z4kNvccExpLog', 'red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r1], 1, [%r2];',
     False, False),
    ('_Z4kNvccExpLog', 'div.rn.f32 %f1, %f2, %f3;', False, False),
]


def controls(control_ptx, control_cubin):
    fail = 0
    for entry, line, fast, refuse in PLANTED:
        _, bad = violations(f'.visible .entry {entry}(\n)\n{{\n\t{line}\n}}\n', fast_math=fast)
        if bool(bad) != refuse:
            print(f'FAIL: control: {entry}: {line} ({"-use_fast_math" if fast else "default"}) '
                  f'{"not refused" if refuse else "refused: " + bad[0]}')
            fail = 1
    # A real compile: tests/device/kernels/ptx_controls.cu built with -use_fast_math.
    n, bad = violations(open(control_ptx).read(), fast_math=False)
    kinds = {'div.approx': any('div.approx' in b or 'div.full' in b for b in bad),
             '.ftz arithmetic': any(re.search(r'\b(add|mul|fma|sub)\.\S*ftz', b) for b in bad),
             'float atomic': any('floating-point atomic' in b for b in bad),
             'ex2 in a cr entry': any('(cr libm)' in b for b in bad)}
    fr = frames(control_cubin)
    kinds['stack frame'] = any(v > 0 for v in fr.values())
    for k, seen in kinds.items():
        if not seen:
            print(f'FAIL: compiled control: {k} not found in {os.path.basename(control_ptx)} / .cubin')
            fail = 1
    print(f'negative controls: {len(PLANTED)} planted PTX lines, compiled control ({n} entries): '
          f'{", ".join(kinds)} {"all found" if not fail else "NOT all found"}')
    return fail


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--unit', nargs=2, action='append', default=[], metavar=('LIB', 'KEEP_DIR'))
    ap.add_argument('--fast-math', nargs='*', default=[], metavar='PTX')
    ap.add_argument('--control-ptx', required=True)
    ap.add_argument('--control-cubin', required=True)
    a = ap.parse_args()
    fail = controls(a.control_ptx, a.control_cubin)
    total = 0
    for lib, keep in a.unit:
        found, problems = units(lib, keep)
        for p in problems:
            print('FAIL:', p)
            fail = 1
        lib_entries = 0
        for member, ptx, cubins in found:
            n, bad = violations(open(ptx).read())
            total += n
            lib_entries += n
            fr = {}
            for c in cubins:
                fr.update(frames(c))
            framed = {f: v for f, v in fr.items() if v > 0}
            tc_module = any(KNOWN_FRAMES.search(f) for f in fr)
            unknown = {f: v for f, v in framed.items()
                       if not (KNOWN_FRAMES.search(f) or (tc_module and CUDA_ROUTINE.match(f)))}
            print(f'{os.path.basename(lib)}: {os.path.basename(ptx):40} entries {n:4}  violations {len(bad)}  '
                  f'functions {len(fr)}, with a stack frame {len(framed)} ({len(framed) - len(unknown)} known)')
            for b in bad[:10]:
                print('   FAIL', b[:220])
            for f, v in sorted(unknown.items())[:10]:
                print(f'   FAIL {f[:160]}: {v} bytes stack frame')
            for f, v in sorted(framed.items()):
                if f not in unknown:
                    print(f'   NOTE (known, tc kernels{" call" if CUDA_ROUTINE.match(f) else ""}) {f[:140]}: {v} bytes stack frame')
            if n and not cubins:
                print(f'   FAIL no cubin kept beside {ptx}')
            fail |= bool(bad) or bool(unknown) or (n > 0 and not cubins)
        if not lib_entries:
            print(f'FAIL: {os.path.basename(lib)}: no kernel entries at all')
            fail = 1
    for ptx in a.fast_math:
        n, bad = violations(open(ptx).read(), fast_math=True)
        total += n
        print(f'-use_fast_math: {os.path.basename(ptx):40} entries {n:4}  violations {len(bad)}')
        for b in bad[:10]:
            print('   FAIL', b[:220])
        fail |= bool(bad) or n == 0
    if not a.unit and not a.fast_math:
        print('FAIL: nothing to check')
        fail = 1
    print(f'kernel PTX: {total} entries, {"ok" if not fail else "FAILED"}')
    return fail


if __name__ == '__main__':
    sys.exit(main())
