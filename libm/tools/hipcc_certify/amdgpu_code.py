#!/usr/bin/env python3
"""amdgpu_code — do two AMDGPU kernels compute a value with the same code?

Reads the assembly clang emits for a kernel (`-S`) and builds the expression
graph of the compared value by symbolic execution of the straight-line body:

- the value is what the kernel stores (`global_store_dword ADDR, DATA, ...`),
  or, in kernels that mark the region with inline asm, the operand of the
  sink `; SAMEBITS_SINK vN` (the last one); `; SAMEBITS_SOURCE vN` and loads
  (`s_load_dword`, `global_load_dword`) define inputs, numbered in order;
- each instruction is a node: its opcode, operand modifiers (-x, |x|) and
  operand nodes; branches are refused (the sequences compared have none).

Two graphs, two strengths:

code (strict; what the certification compares): the node is the instruction
  as written — opcode with its encoding (_e32 / _e64 / VOP3-only), so
  v_fmac_f32_e32, v_fmamk_f32 and v_fma_f32 are three different nodes, and a
  register copy (v_mov_b32 vN, sM) is a node of its own; a leaf says where a
  constant lives: ('inline', K) for an inline constant in the instruction,
  ('literal', K) for a 32-bit literal in the instruction, ('sgpr', K) or
  ('vgpr', K) for a register set from K by s_mov_b32 / s_movk_i32 /
  v_mov_b32. The only normal forms are the order of commutative operands
  (add, mul, min, max, the two factors of fma/fmac, cmp_eq/neq/lg/o/u,
  and/or) and v_cmp_gt(a, b) = v_cmp_lt(b, a) (ge: le), same encoding: which
  operand sits in src0 follows from the register allocation.
  code_equal() adds the instruction multiset (each instruction with its
  operands reduced to their kind: v / s / vcc / exec registers, constants by
  value, modifiers kept) and the count of VALU instructions; wait states
  (s_nop) and s_waitcnt are scheduling and are reported, not compared.

dataflow (lenient; the comparison before the strict one, kept for reports and
  for the Triton check): encodings dropped, constants compared by their text
  wherever they live, copies looked through, fmac/fmamk/fmaak read as fma,
  cndmask/cselect as select, v_cmp_nXX as not(v_cmp_XX). It cannot see a
  constant moved from an SGPR into a VGPR (one v_mov_b32 more): the code
  graph can.

Register names, instruction order and scheduling matter in neither.

  amdgpu_code.py A.s KERNEL_A B.s KERNEL_B       exit 0 if the code is equal, 1 if not
  amdgpu_code.py --dataflow A.s KA B.s KB         the lenient comparison
  amdgpu_code.py --dump [--dataflow] A.s KERNEL   print the graph
"""
import collections
import re
import sys

COMMUTATIVE = {'v_add_f32', 'v_mul_f32', 'v_min_f32', 'v_max_f32', 'v_cmp_eq_f32', 'v_cmp_neq_f32',
               'v_cmp_lg_f32', 'v_cmp_o_f32', 'v_cmp_u_f32', 's_add_i32', 'v_add_u32', 'v_and_b32', 'v_or_b32'}
# Bookkeeping that cannot be part of the compared value: waits, no-ops and
# the loads of the kernel-argument pointer.
IGNORED = ('s_waitcnt', 's_nop', 's_load_dwordx2', 's_load_dwordx4')
BRANCH = re.compile(r'^s_(c?branch|cbranch_\w+)\b')
REGISTER = re.compile(r'^[sv]\d+$|^[sv]\[\d+:\d+\]$|^vcc$|^exec$')
ABI = ('s[0:1]', 's0', 's1', 'exec')


def kernel_lines(asm, name):
    lines = asm.splitlines()
    try:
        start = next(i for i, l in enumerate(lines) if l.split(';')[0].strip() == name + ':')
    except StopIteration:
        sys.exit(f'kernel {name} not found')
    body = []
    for l in lines[start + 1:]:
        if re.match(r'^\s*s_endpgm', l):
            break
        body.append(l)
    return body


def instructions(asm, name):
    """The kernel's instructions (comments, directives and labels dropped)."""
    out = []
    for raw in kernel_lines(asm, name):
        line = raw.split(';')[0].strip()
        if line and not line.startswith('.') and not line.endswith(':'):
            out.append(line)
    return out


def split_operands(s):
    out, depth, cur = [], 0, ''
    for ch in s:
        if ch == '[':
            depth += 1
        elif ch == ']':
            depth -= 1
        if ch == ',' and depth == 0:
            out.append(cur.strip())
            cur = ''
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def base_opcode(op):
    op = re.sub(r'_e(32|64)$', '', op)
    op = re.sub(r'_(dpp|sdwa)$', '', op)
    return op


def encoding(op):
    m = re.search(r'_(e32|e64|dpp|sdwa)$', op)
    return m.group(0) if m else ''


def strip_modifiers(tok):
    mods = []
    while True:
        if tok.startswith('-'):
            mods.append('neg')
            tok = tok[1:]
        elif tok.startswith('|') and tok.endswith('|'):
            mods.append('abs')
            tok = tok[1:-1]
        elif tok.startswith('abs(') and tok.endswith(')'):
            mods.append('abs')
            tok = tok[4:-1]
        else:
            return tok, mods


def constant_kind(tok):
    """Where an immediate lives: a 32-bit literal (written 0x...) or an inline constant."""
    return 'literal' if tok.lower().startswith('0x') else 'inline'


def operand_kind(tok):
    """An operand reduced to its kind: register class, or the constant itself."""
    tok, mods = strip_modifiers(tok.strip())
    if REGISTER.match(tok):
        kind = tok if tok in ('vcc', 'exec') else tok[0] + ('[]' if '[' in tok else '')
    else:
        kind = tok.lower()
    for m in reversed(mods):
        kind = f'{m}({kind})'
    return kind


def instruction_kinds(line):
    """One instruction as compared in the multiset: opcode, operand kinds."""
    parts = line.split(None, 1)
    ops = split_operands(parts[1]) if len(parts) > 1 else []
    return ' '.join([parts[0]] + [operand_kind(o) for o in ops])


def canon_dataflow(node):
    """Normal forms that do not depend on how the compiler spelled the operation."""
    kind = node[0]
    if kind == 'op':
        _, opc, args = node
        if opc.startswith('v_cmp_n') and opc[7:9] in ('lt', 'gt', 'le', 'ge', 'eq') and opc[9:10] == '_':
            return ('not', canon_dataflow(('op', 'v_cmp_' + opc[7:], args)))
        if opc.startswith('v_cmp_gt_') or opc.startswith('v_cmp_ge_'):
            return canon_dataflow(('op', opc.replace('_gt_', '_lt_').replace('_ge_', '_le_'), (args[1], args[0])))
        if opc in COMMUTATIVE:
            args = tuple(sorted(args, key=repr))
        elif opc == 'v_fma_f32':
            args = tuple(sorted(args[:2], key=repr)) + args[2:]
        return ('op', opc, args)
    if kind == 'select':
        _, c, t, f = node
        if c[0] == 'not':
            return ('select', c[1], f, t)
        return node
    return node


def canon_code(node):
    """The strict graph's only normal forms: commutative operand order, gt/ge as lt/le swapped."""
    if node[0] != 'op':
        return node
    _, opc, args = node
    base, enc = base_opcode(opc), encoding(opc)
    m = re.match(r'^v_cmp_(gt|ge)_', base)
    if m:
        swapped = base.replace('_gt_', '_lt_', 1) if m.group(1) == 'gt' else base.replace('_ge_', '_le_', 1)
        return canon_code(('op', swapped + enc, (args[1], args[0]) + args[2:]))
    if base in COMMUTATIVE:
        args = tuple(sorted(args, key=repr))
    elif base in ('v_fma_f32', 'v_fmac_f32'):
        args = tuple(sorted(args[:2], key=repr)) + args[2:]
    return ('op', opc, args)


def graph(asm, name, strict=False):
    env = {}
    inputs = [0]
    scc = None
    result = None
    sink = None
    unknown = set()
    canon = canon_code if strict else canon_dataflow

    def reg_key(tok):
        m = re.match(r'^([sv])\[(\d+):(\d+)\]$', tok)
        return tok if not m else f'{m.group(1)}{m.group(2)}'

    def val(tok):
        tok, mods = strip_modifiers(tok.strip())
        if REGISTER.match(tok):
            if reg_key(tok) not in env:
                # A register never written in the kernel: an ABI input other
                # than the loads and sources; compared by name, and flagged.
                unknown.add(tok)
            v = env.get(reg_key(tok), ('reg', tok))
        elif strict:
            v = (constant_kind(tok), tok.lower())
        else:
            v = ('const', tok.lower())
        for m in reversed(mods):
            v = (m, v)
        return v

    def define(dst, node):
        env[reg_key(dst)] = canon(node)

    for raw in kernel_lines(asm, name):
        line = raw.strip()
        m = re.match(r'^;\s*SAMEBITS_(SOURCE|SINK)\s+(\S+)', line)
        if m:
            if m.group(1) == 'SOURCE':
                inputs[0] += 1
                env[reg_key(m.group(2))] = ('input', inputs[0], 'v')
            else:
                sink = val(m.group(2))
            continue
        line = line.split(';')[0].strip()
        if not line or line.startswith('.') or line.endswith(':'):
            continue
        if BRANCH.match(line):
            sys.exit(f'{name}: branch in the compared code: {line}')
        parts = line.split(None, 1)
        opc = parts[0]
        op = base_opcode(opc)
        ops = split_operands(parts[1]) if len(parts) > 1 else []
        if any(line.startswith(p) for p in IGNORED):
            continue
        if op in ('s_load_dword', 'global_load_dword', 'flat_load_dword'):
            inputs[0] += 1
            env[reg_key(ops[0])] = ('input', inputs[0], ops[0][0])
            continue
        if op in ('global_store_dword', 'flat_store_dword'):
            result = val(ops[1])
            continue
        if op in ('v_mov_b32', 's_mov_b32', 's_movk_i32'):
            src = strip_modifiers(ops[1].strip())[0]
            if not strict:
                env[reg_key(ops[0])] = val(ops[1])  # copies and constants looked through
            elif REGISTER.match(src):
                define(ops[0], ('op', opc, (val(ops[1]),)))  # a copy is an instruction
            else:
                env[reg_key(ops[0])] = ('sgpr' if ops[0].startswith('s') else 'vgpr', src.lower())
            continue
        if op == 's_and_b64' and len(ops) == 3 and ops[2] == 'exec':
            if strict:
                scc = canon(('op', opc, (val(ops[1]), val('exec'))))
                env[reg_key(ops[0])] = scc
            else:
                scc = val(ops[1])
            continue
        if op == 's_cselect_b32':
            if scc is None:
                sys.exit(f'{name}: s_cselect without a known condition: {line}')
            if strict:
                define(ops[0], ('op', opc, (val(ops[1]), val(ops[2]), scc)))
            else:
                define(ops[0], ('select', scc, val(ops[1]), val(ops[2])))
            continue
        if op == 'v_cndmask_b32':
            cond = val(ops[3]) if len(ops) > 3 else val('vcc')
            if strict:
                define(ops[0], ('op', opc, (val(ops[1]), val(ops[2]), cond)))
            else:
                define(ops[0], ('select', cond, val(ops[2]), val(ops[1])))
            continue
        if op.startswith('v_cmp_'):
            # e32: writes vcc; e64: the first operand is the destination.
            if opc.endswith('_e32') or len(ops) == 2:
                dst, srcs = 'vcc', ops[-2:]
            else:
                dst, srcs = ops[0], ops[1:]
            define(dst, ('op', opc if strict else op, tuple(val(s) for s in srcs)))
            continue
        if op == 'v_fmac_f32':
            define(ops[0], ('op', opc if strict else 'v_fma_f32', (val(ops[1]), val(ops[2]), val(ops[0]))))
            continue
        if op in ('v_fmamk_f32', 'v_fmaak_f32'):
            define(ops[0], ('op', opc if strict else 'v_fma_f32', (val(ops[1]), val(ops[2]), val(ops[3]))))
            continue
        # Any other instruction: destination first, then sources.
        if not ops:
            continue
        define(ops[0], ('op', opc if strict else op, tuple(val(s) for s in ops[1:])))
    value = sink if sink is not None else result
    if value is None:
        sys.exit(f'{name}: no stored or sunk value found')
    if any(r not in ABI for r in unknown) and uses_unknown(value):
        sys.exit(f'{name}: the value reads registers the kernel never wrote: {sorted(unknown)}')
    return value


def code_graph(asm, name):
    return graph(asm, name, strict=True)


def uses_unknown(node):
    if node[0] == 'reg':
        return node[1] not in ABI
    return any(uses_unknown(c) for c in node[1:] if isinstance(c, tuple)) or (
        node[0] == 'op' and any(uses_unknown(c) for c in node[2]))


def profile(asm, name):
    """What the code comparison reports of one kernel: the instruction multiset,
    the VALU count, and the wait states (s_nop N waits N + 1)."""
    lines = instructions(asm, name)
    compared = [l for l in lines if not l.startswith(('s_nop', 's_waitcnt'))]
    return {
        'multiset': collections.Counter(instruction_kinds(l) for l in compared),
        'valu': sum(1 for l in compared if l.startswith('v_')),
        'instructions': len(compared),
        'wait_states': sum(int(l.split()[1]) + 1 for l in lines if l.startswith('s_nop')),
    }


def code_equal(asm_a, name_a, asm_b, name_b):
    """(equal, differences): the strict graph, the instruction multiset, the VALU count."""
    diffs = []
    pa, pb = profile(asm_a, name_a), profile(asm_b, name_b)
    if pa['valu'] != pb['valu']:
        diffs.append(f'VALU instructions {pa["valu"]} vs {pb["valu"]}')
    only_a, only_b = pa['multiset'] - pb['multiset'], pb['multiset'] - pa['multiset']
    if only_a or only_b:
        diffs.append('instructions only in the first: ' + (', '.join(f'{n}x {i}' for i, n in sorted(only_a.items())) or '-')
                     + '; only in the second: ' + (', '.join(f'{n}x {i}' for i, n in sorted(only_b.items())) or '-'))
    ga, gb = code_graph(asm_a, name_a), code_graph(asm_b, name_b)
    if ga != gb:
        diffs.append('code graphs differ: ' + first_difference(ga, gb))
    return not diffs, diffs


def render(node, depth=0):
    pad = '  ' * depth
    kind = node[0]
    if kind == 'op':
        return pad + node[1] + '\n' + ''.join(render(a, depth + 1) for a in node[2])
    if kind == 'select':
        return pad + 'select\n' + ''.join(render(a, depth + 1) for a in node[1:])
    if kind in ('not', 'neg', 'abs'):
        return pad + kind + '\n' + render(node[1], depth + 1)
    return pad + ' '.join(str(x) for x in node) + '\n'


def first_difference(a, b):
    ra, rb = render(a).splitlines(), render(b).splitlines()
    for i, (x, y) in enumerate(zip(ra, rb)):
        if x != y:
            return f'line {i + 1}: {x.strip()} | {y.strip()}'
    return f'one graph is a prefix of the other ({len(ra)} vs {len(rb)} lines)'


def main(argv):
    args = argv[1:]
    dataflow = '--dataflow' in args
    if dataflow:
        args.remove('--dataflow')
    if len(args) == 3 and args[0] == '--dump':
        print(render(graph(open(args[1]).read(), args[2], strict=not dataflow)), end='')
        return 0
    if len(args) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    a, b = open(args[0]).read(), open(args[2]).read()
    if dataflow:
        same, diffs = graph(a, args[1]) == graph(b, args[3]), ['dataflow graphs differ']
    else:
        same, diffs = code_equal(a, args[1], b, args[3])
    print(f'{args[1]} {"==" if same else "!="} {args[3]}')
    if not same:
        for d in diffs:
            print('  ' + d)
    return 0 if same else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
