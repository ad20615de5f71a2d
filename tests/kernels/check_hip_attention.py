#!/usr/bin/env python3
"""The HIP form of the attention kernels, read off the AMDGPU assembly clang emits (CI, no AMD GPU).

    check_hip_attention.py ARCH KERNELS.s CONTROLS.s CONTROLS_FTZ.s [ARCH KERNELS.s CONTROLS.s CONTROLS_FTZ.s]...

KERNELS.s is kernels/src/hip/attention_kernels.hip compiled for ARCH (clang -x hip -S); CONTROLS.s
and CONTROLS_FTZ.s are tests/kernels/hip_attention_controls.hip compiled with the same flags, and
with -fgpu-flush-denormals-to-zero. For every ARCH:

- the target directive names ARCH, and every kernel instantiated by attention_kernels.hip is there:
  forward (RM 4, 8), backward main, delta, head fold, dq finish, for D 64 and 128, bf16/f16/f32,
  the cr and hipcc policies (74 kernels);
- FP mode of every kernel (its kernel descriptor): f32 and f16/f64 denormals kept
  (.amdhsa_float_denorm_mode_32 3, .amdhsa_float_denorm_mode_16_64 3: 3 = neither inputs nor
  outputs flushed), round to nearest even (.amdhsa_float_round_mode_* 0), IEEE mode on
  (.amdhsa_ieee_mode 1: maxNum quiets sNaN and keeps the non-NaN operand); and no instruction that
  changes the mode at run time (s_setreg*, s_denorm_mode, s_round_mode);
- no floating-point atomic (global/buffer/flat *_atomic_*_f32/f64/f16/bf16, ds_add_f32 and every
  other LDS read-modify-write), and integer atomics only for the ticket: exactly one
  global_atomic_add (integer) in each backward main kernel and no atomic in any other kernel;
- the dq accumulators and flags are coherent at agent scope in the backward main kernel: its global
  loads/stores with sc1 and its acquire (buffer_inv sc1) / release (buffer_wbl2 sc1) are present.

Negative controls, through the same checks: control_global_float_atomic, control_lds_float_atomic,
control_int_atomic, control_setreg_mode must each be refused for their reason, and every kernel of
CONTROLS_FTZ.s for its flushing denormal mode; control_clean must pass.
"""
import re
import sys

FAMILIES = {  # template name -> {D: kernels} (over policies, dtypes, RM); '-': not templated on D
    'attention_forward_kernel': {'64': 2 * 10, '128': 2 * 10},  # (cr, hipcc) x (bf16, f16: o in/f32; f32) x RM 4, 8
    'attention_bwd_kernel': {'64': 2 * 3, '128': 2 * 3},
    'attention_bwd_delta_kernel': {'64': 5, '128': 5},
    'attention_bwd_fold_kernel': {'64': 3, '128': 3},
    'attention_bwd_dq_finish_kernel': {'64': 3, '128': 3},
    # sparse MLA: (cr, hipcc) x (bf16 -> bf16, bf16 -> f32, f32 -> f32)
    'sparse_mla_forward_kernel': {'128': 6, '512': 6},
    'sparse_mla_bwd_token_kernel': {'128': 6, '512': 6},
    # the streamed forms: (cr, hipcc) x (bf16 -> bf16, bf16 -> f32)
    'sparse_mla_forward_streamed_kernel': {'128': 4, '512': 4},
    'sparse_mla_bwd_token_streamed_kernel': {'128': 4, '512': 4},
    'sparse_mla_bwd_delta_kernel': {'128': 3, '512': 3},
    'sparse_mla_bwd_contrib_kernel': {'128': 2, '512': 2},
    'sparse_mla_bwd_dkv_accum_kernel': {'128': 1, '512': 1},
    'sparse_mla_bwd_dkv_finish_kernel': {'128': 2, '512': 2},
    'sparse_mla_bwd_dsink_kernel': {'-': 2},
    'sparse_mla_bwd_pairs_kernel': {'-': 1},
    'sparse_mla_bwd_offsets_kernel': {'-': 1},
}
# Kernels that read top-k indices: integer adds of the index error flag are their only atomics.
ERROR_FLAG_FAMILIES = ('sparse_mla_forward_kernel', 'sparse_mla_bwd_token_kernel', 'sparse_mla_bwd_contrib_kernel',
                       'sparse_mla_bwd_pairs_kernel', 'sparse_mla_forward_streamed_kernel',
                       'sparse_mla_bwd_token_streamed_kernel')
MODE = {
    '.amdhsa_float_denorm_mode_32': '3',
    '.amdhsa_float_denorm_mode_16_64': '3',
    '.amdhsa_float_round_mode_32': '0',
    '.amdhsa_float_round_mode_16_64': '0',
    '.amdhsa_ieee_mode': '1',
}
MODE_WRITE = re.compile(r'^s_(setreg\w*|denorm_mode|round_mode)\b')
ATOMIC = re.compile(r'^(global|buffer|flat|scratch)_atomic_(\w+)')
FLOAT_SUFFIX = re.compile(r'(^|_)(f16|bf16|f32|f64|pk_add_f16|pk_add_bf16|fadd|fmin|fmax)(_|$)|^(add|min|max)_f')
LDS_RMW = re.compile(r'^ds_(add|sub|rsub|inc|dec|min|max|and|or|xor|mskor|cmpst|cmpstore|cmpswap|wrxchg|condxchg|pk_add)\w*')
INT_TICKET = 'global_atomic_add'  # exactly this mnemonic: integer add (the float one ends in _f32)


def kernels(asm):
    """{name: (body instructions, descriptor {key: value})} for every kernel of an assembly file
    (one pass: a kernel's body runs from its label to the next .Lfunc_end, its descriptor from
    .amdhsa_kernel NAME to .end_amdhsa_kernel)."""
    names, bodies, descs = [], {}, {}
    body = desc = None
    for l in asm.splitlines():
        s = l.split(';')[0].strip()
        if desc is not None:
            if s.startswith('.end_amdhsa_kernel'):
                desc = None
            else:
                parts = s.split()
                if len(parts) >= 2:
                    desc[parts[0]] = parts[1]
            continue
        m = re.match(r'^\.amdhsa_kernel\s+(\S+)$', s)
        if m:
            names.append(m.group(1))
            desc = descs[m.group(1)] = {}
            continue
        if body is not None:
            if re.match(r'^\.Lfunc_end\d+:', s):
                body = None
            elif s and not s.startswith('.') and not s.endswith(':'):
                body.append(s)
            continue
        if s.endswith(':') and not s.startswith('.'):
            body = bodies[s[:-1]] = []
    return {n: (bodies.get(n), descs[n]) for n in names}


def violations(name, body, desc, arch):
    """[(rule, detail)] for one kernel."""
    bad = []
    if body is None:
        return [('missing', 'descriptor without a body')]
    for key, want in MODE.items():
        if desc.get(key) != want:
            bad.append(('fp-mode', f'{key} {desc.get(key)} (want {want})'))
    atomics = []
    for ins in body:
        op = ins.split()[0]
        if MODE_WRITE.match(op):
            bad.append(('mode-write', ins))
        m = ATOMIC.match(op)
        if m:
            if FLOAT_SUFFIX.search(m.group(2)):
                bad.append(('float-atomic', ins))
            else:
                atomics.append(ins)
        if LDS_RMW.match(op):
            bad.append(('float-atomic' if re.search(r'_(f16|bf16|f32|f64)\b', op) else 'lds-atomic', ins))
    is_bwd_main = 'attention_bwd_kernel' in name
    if is_bwd_main:
        ok = len(atomics) == 1 and atomics[0].split()[0] == INT_TICKET
        if not ok:
            bad.append(('int-atomic', f'want exactly one {INT_TICKET} (the ticket), found {atomics}'))
        text = '\n'.join(body)
        for what, pat in [('coherent load', r'^global_load_dword\b.*\bsc1\b'),
                          ('coherent store', r'^global_store_dword\b.*\bsc1\b'),
                          ('acquire', r'^buffer_inv sc1\b'), ('release', r'^buffer_wbl2 sc1\b')]:
            if not re.search(pat, text, re.M):
                bad.append(('coherence', f'no {what} ({pat})'))
    elif any(f in name for f in ERROR_FLAG_FAMILIES):
        for ins in atomics:
            if ins.split()[0] != INT_TICKET:
                bad.append(('int-atomic', f'only integer adds of the error flag allowed: {ins}'))
    else:
        for ins in atomics:
            bad.append(('int-atomic', f'atomic outside the ticket: {ins}'))
    return bad


def expected_names(name):
    for fam in FAMILIES:
        if re.search(r'\d' + fam + r'[IE]', name):
            return fam
    return None


def check_arch(arch, kpath, cpath, fpath):
    fail = 0
    asm = open(kpath).read()
    if f'.amdgcn_target "amdgcn-amd-amdhsa--{arch}' not in asm:
        print(f'FAIL {arch}: {kpath} is not for {arch}')
        fail = 1
    ks = kernels(asm)
    counts = {}
    for name in ks:
        fam = expected_names(name)
        if fam is None:
            print(f'FAIL {arch}: unexpected kernel {name}')
            fail = 1
            continue
        d = re.search(r'I[Li]*Li(64|128|512)E', name)
        pol = 'cr' if 'CrExpLog' in name else 'hipcc' if 'HipccExpLog' in name else '-'
        key = (fam, d.group(1) if d else '-')
        counts[key] = counts.get(key, 0) + 1
        if fam in ('attention_forward_kernel', 'attention_bwd_kernel', 'sparse_mla_forward_kernel',
                   'sparse_mla_bwd_token_kernel', 'sparse_mla_bwd_dsink_kernel', 'sparse_mla_forward_streamed_kernel',
                   'sparse_mla_bwd_token_streamed_kernel') and pol == '-':
            print(f'FAIL {arch}: {name}: no libm policy')
            fail = 1
    for fam, per_d in FAMILIES.items():
        for d, n in per_d.items():
            if counts.get((fam, d), 0) != n:
                print(f'FAIL {arch}: {fam} D={d}: {counts.get((fam, d), 0)} kernels, want {n}')
                fail = 1
    nbad = 0
    for name, (body, desc) in ks.items():
        for rule, detail in violations(name, body, desc, arch):
            print(f'FAIL {arch}: {name}: {rule}: {detail}')
            nbad += 1
    fail |= nbad > 0
    print(f'{arch}: {len(ks)} kernels ({sum(sum(v.values()) for v in FAMILIES.values())} expected), '
          f'{nbad} violations')

    # Negative controls: the same checks must refuse each planted kernel for its reason.
    want = {'control_clean': set(), 'control_global_float_atomic': {'float-atomic'},
            'control_lds_float_atomic': {'float-atomic'}, 'control_int_atomic': {'int-atomic'},
            'control_setreg_mode': {'mode-write'}}
    cs = kernels(open(cpath).read())
    for name, rules in want.items():
        if name not in cs:
            print(f'FAIL {arch}: control {name} missing from {cpath}')
            fail = 1
            continue
        got = {r for r, _ in violations(name, *cs[name], arch)}
        if got != rules:
            print(f'FAIL {arch}: control {name}: rules fired {sorted(got)}, want {sorted(rules)}')
            fail = 1
    fs = kernels(open(fpath).read())
    flushing = [n for n, (b, d) in fs.items() if any(r == 'fp-mode' for r, _ in violations(n, b, d, arch))]
    if not fs or len(flushing) != len(fs):
        print(f'FAIL {arch}: -fgpu-flush-denormals-to-zero controls: {len(flushing)} of {len(fs)} refused for fp-mode')
        fail = 1
    print(f'{arch}: negative controls: {len(want) - 1} planted kernels + {len(fs)} flushing-mode kernels, '
          f'{"all refused for their reason; the clean control passes" if not fail else "NOT as expected"}')
    return fail


def main(argv):
    if len(argv) < 4 or len(argv) % 4:
        sys.exit(__doc__)
    fail = 0
    for i in range(0, len(argv), 4):
        fail |= check_arch(*argv[i:i + 4])
    print('PASS' if not fail else 'FAIL')
    return fail


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
