"""Shared by check_flags.py and check_modes.py: reading and comparing the
digest lines of hardening_digest (one line per function: name, digest,
digest with one result one ulp away)."""
import subprocess


def run_digest(exe, args, timeout=600):
    p = subprocess.run([exe] + args, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def parse(text):
    """-> (header dict, {function: (digest, planted)})"""
    head, funcs = {}, {}
    for line in text.splitlines():
        w = line.split()
        if len(w) == 3:
            funcs[w[0]] = (w[1], w[2])
        elif len(w) == 2:
            head[w[0]] = w[1]
    return head, funcs


def compare(ref, got):
    """Functions whose digest differs from the reference, and the negative
    control: every planted digest must differ from the reference digest.
    Raises on a missing function or a control not caught."""
    if set(ref) != set(got):
        raise SystemExit(f'function lists differ: {sorted(set(ref) ^ set(got))}')
    for f, (_, planted) in got.items():
        if planted == ref[f][0]:
            raise SystemExit(f'negative control not caught: a one-ulp change of {f} has the reference digest')
    return sorted(f for f in ref if got[f][0] != ref[f][0])


def short(names, total):
    if not names:
        return 'none'
    if len(names) == total:
        return f'all {total}'
    return f'{len(names)}/{total}: ' + ' '.join(names)
