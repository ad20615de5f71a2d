#!/usr/bin/env python3
"""Are two builds' kernels the same code? PTX compared after dropping what is line information
only: .loc / .file lines, // comments and the debug sections (-lineinfo's .debug_* sections, which
list the inlined functions' names).

    compare_ptx.py OLD.ptx NEW.ptx [OLD2.ptx NEW2.ptx ...]     file against file
    compare_ptx.py --entries OLD_DIR NEW_DIR [--rename OLD=NEW ...]
    compare_ptx.py --entries OLD_BUILD/kernels NEW_BUILD/kernels     two Meson builds (-Dcuda=enabled):
        the PTX the kernels libraries' compiles kept (kernels/keep-cuda, kernels/keep-tc)

--entries compares kernel by kernel across two sets of PTX files (every *.ptx under each folder),
so that a change which moves kernels between translation units (the instantiations split) is
still checked: every .entry of OLD must appear in NEW with the same body, and NEW may add none;
each module-level declaration (.global / .const / .shared arrays) must keep its text. --rename maps
an entry's mangled name in OLD to its name in NEW (a template parameter removed); the body is
compared with the name substituted. Exit 0 if equal, 1 if not (the first differing lines printed).
Negative controls run on every call: a changed instruction must be seen, a changed .loc must not.
"""
import difflib
import glob
import os
import re
import sys
import tempfile


def code_lines(text):
    out, skip = [], False
    for line in text.splitlines():
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
        # nvcc names internal-linkage objects after the translation unit's path and a hash of it
        # (_ZN55_INTERNAL_99af693b_24_sparse_mla_launch_bwd_cu_b60ac65d...): the same code built
        # from another file, or the same file at another path, must compare equal.
        s = re.sub(r'_ZN\d+_INTERNAL_[0-9a-f]{8}_\d+_\w+?_cu_[0-9a-f]{8}', '_ZN_INTERNAL_', s)
        s = re.sub(r'_GLOBAL__N__[0-9a-f]{8}_\d+_\w+?_cu_[0-9a-f]{8}', '_GLOBAL__N__', s)
        # Labels and local depots are numbered by the function's place in its module.
        s = re.sub(r'\$L__BB\d+_', '$L__BB_', s)
        s = re.sub(r'__local_depot\d+', '__local_depot', s)
        if s:
            out.append(s)
    return out


def code(path):
    return code_lines(open(path).read())


def entries(lines):
    """{name: body lines} for each .entry / .func, and the module-level lines outside them."""
    funcs, module, cur, depth = {}, [], None, 0
    for s in lines:
        m = re.match(r'(?:\.visible |\.weak |\.extern )*\.(entry|func)\s+(?:\([^)]*\)\s*)?([\w$]+)', s)
        if cur is None and m:
            cur, depth = m.group(2), 0
            funcs.setdefault(cur, [])
            if s.startswith('.extern'):  # a declaration only
                funcs.pop(cur) if not funcs[cur] else None
                cur = None
                continue
        if cur is not None:
            funcs[cur].append(s)
            depth += s.count('{') - s.count('}')
            if depth == 0 and '}' in s:
                cur = None
        elif not re.match(r'\.(version|target|address_size)\b', s):
            module.append(s)
    return funcs, module


def compare_entries(old_dir, new_dir, renames):
    def load(d):
        funcs, module = {}, set()
        files = sorted(glob.glob(os.path.join(d, '**', '*.ptx'), recursive=True))
        for f in files:
            fs, mod = entries(code(f))
            for k, v in fs.items():
                if k in funcs and funcs[k] != v:
                    print(f'DIFFERENT: {k} has two bodies within {d}')
                funcs[k] = v
            module.update(l for l in mod if not re.match(r'\.(extern|weak)\b', l))
        return funcs, module, len(files)
    old, old_mod, n_old = load(old_dir)
    new, new_mod, n_new = load(new_dir)
    status, same = 0, 0
    for name, body in sorted(old.items()):
        target = renames.get(name, name)
        if target not in new:
            print(f'MISSING in new: {name}' + (f' (as {target})' if target != name else ''))
            status = 1
            continue
        want = [l.replace(name, target) for l in body] if target != name else body
        if new[target] != want:
            status = 1
            print(f'DIFFERENT: {name}')
            sys.stdout.writelines(l + '\n' for l in list(difflib.unified_diff(want, new[target], lineterm=''))[:30])
        else:
            same += 1
    extra = set(new) - {renames.get(n, n) for n in old}
    for name in sorted(extra):
        print(f'NEW only: {name}')
        status = 1
    if renames:
        pat = re.compile('|'.join(map(re.escape, sorted(renames, key=len, reverse=True))))
        old_mod = {pat.sub(lambda m: renames[m.group(0)], l) for l in old_mod}
    if old_mod != new_mod:
        status = 1
        print('DIFFERENT module-level declarations:')
        for l in sorted(old_mod - new_mod)[:10]:
            print('  - ' + l)
        for l in sorted(new_mod - old_mod)[:10]:
            print('  + ' + l)
    print(f'{same} of {len(old)} kernels and functions the same code ({n_old} old files, {n_new} new files)')
    return status


def controls(sample):
    """A changed instruction must be seen, a changed .loc line must not."""
    status = 0
    text = open(sample).read()
    m = re.search(r'^\s*(fma|add|mul|mov)\.\S+\s+\S+', text, re.M)
    if m and code_lines(text[:m.end()] + '_planted' + text[m.end():]) == code_lines(text):
        print('FAIL: negative control: a changed instruction was not seen')
        status = 1
    loc = re.search(r'^\s*\.loc\s+\d+\s+(\d+)', text, re.M)
    if loc and code_lines(text[:loc.start(1)] + '9' + text[loc.start(1):]) != code_lines(text):
        print('FAIL: control: a changed .loc line was seen')
        status = 1
    if m:
        f_old, _ = entries(code_lines(text))
        f_new, _ = entries(code_lines(text[:m.end()] + '_planted' + text[m.end():]))
        if f_old == f_new:
            print('FAIL: negative control: a changed instruction was not seen entry by entry')
            status = 1
    return status


def main(argv):
    if argv and argv[0] == '--entries':
        if len(argv) < 3:
            sys.exit(__doc__)
        renames = {}
        rest = argv[3:]
        while rest:
            if rest[0] != '--rename' or len(rest) < 2 or '=' not in rest[1]:
                sys.exit(__doc__)
            a, b = rest[1].split('=', 1)
            renames[a] = b
            rest = rest[2:]
        status = compare_entries(argv[1], argv[2], renames)
        sample = sorted(glob.glob(os.path.join(argv[1], '**', '*.ptx'), recursive=True))
        return status | (controls(sample[0]) if sample else 0)
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
    return status | controls(argv[0])


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
