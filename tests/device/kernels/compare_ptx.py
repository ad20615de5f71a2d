#!/usr/bin/env python3
"""Are two PTX files the same code? Compared after dropping what is line information only:
.loc / .file lines, // comments and the debug sections (-lineinfo's .debug_* sections, which list
the inlined functions' names). Exit 0 if equal, 1 if not (the first differing lines printed).

    compare_ptx.py OLD.ptx NEW.ptx [OLD2.ptx NEW2.ptx ...]

Used to check that a change of the kernels' sources (e.g. the vendor-neutral gpu/ layer) left
nvcc's PTX unchanged: save build-device/keep/*/*.ptx before, rebuild, compare.
"""
import difflib
import re
import sys


def code(path):
    out, skip = [], False
    for line in open(path):
        s = line.strip()
        if s.startswith('.section') and '.debug' in s:
            skip = True
            continue
        if skip:
            skip = s != '}'
            continue
        if re.match(r'\.(loc|file)\b', s):
            continue
        s = re.sub(r'//.*', '', s).strip()
        if s:
            out.append(s)
    return out


def main(argv):
    if not argv or len(argv) % 2:
        sys.exit(__doc__)
    status = 0
    for old, new in zip(argv[::2], argv[1::2]):
        a, b = code(old), code(new)
        if a == b:
            print(f'same code: {old} {new} ({len(a)} lines)')
        else:
            status = 1
            print(f'DIFFERENT: {old} {new}')
            sys.stdout.writelines(l + '\n' for l in list(difflib.unified_diff(a, b, lineterm=''))[:40])
    # Negative controls, through the same reading: a changed instruction must be seen, a changed
    # .loc line must not.
    import tempfile
    text = open(argv[0]).read()
    m = re.search(r'^\s*(fma|add|mul|mov)\.\S+\s+\S+', text, re.M)
    if m:
        with tempfile.NamedTemporaryFile('w', suffix='.ptx', delete=False) as t:
            t.write(text[:m.end()] + '_planted' + text[m.end():])
        if code(t.name) == code(argv[0]):
            print('FAIL: negative control: a changed instruction was not seen')
            status = 1
    loc = re.search(r'^\s*\.loc\s+\d+\s+(\d+)', text, re.M)
    if loc:
        with tempfile.NamedTemporaryFile('w', suffix='.ptx', delete=False) as t:
            t.write(text[:loc.start(1)] + '9' + text[loc.start(1):])
        if code(t.name) != code(argv[0]):
            print('FAIL: control: a changed .loc line was seen')
            status = 1
    return status


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
