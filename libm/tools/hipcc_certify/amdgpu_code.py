#!/usr/bin/env python3
"""amdgpu_dataflow — do two AMDGPU kernels compute a value the same way?

Reads the assembly clang emits for a kernel (`-S`) and builds the expression
graph of the compared value by symbolic execution of the straight-line body:

- the value is what the kernel stores (`global_store_dword ADDR, DATA, ...`),
  or, in kernels that mark the region with inline asm, the operand of the
  sink `; SAMEBITS_SINK vN` (the last one); `; SAMEBITS_SOURCE vN` and loads
  (`s_load_dword`, `global_load_dword`) define inputs, numbered in order;
- each instruction is a node: its opcode (the encoding suffix _e32/_e64 and
  the dpp/sdwa forms dropped), operand modifiers (-x, |x|) and the operand
  nodes; constants (literals, inline constants, and registers set by
  s_mov/v_mov from a constant) are compared by their text; copies
  (v_mov_b32, s_mov_b32 of a register) are looked through;
- forms that compute the same operation are normalised: v_fmac_f32 d, a, b
  (d += a b), v_fmamk_f32 d, a, K, b and v_fmaak_f32 d, a, b, K are fma(a, b,
  c); v_cndmask_b32 d, f, t, c is select(c, t, f), and so is s_cselect_b32
  d, t, f after s_and_b64 s, c, exec (the uniform form of the same select);
  v_cmp_nXX is not(v_cmp_XX), v_cmp_gt(a, b) is v_cmp_lt(b, a) (ge: le), and
  select(not c, a, b) is select(c, b, a);
  commutative operands (add, mul, min, max, the two factors of fma, the
  operands of cmp_eq/cmp_neq) are put in a canonical order;
- branches are refused (the sequences compared here have none).

Register names, instruction order and scheduling do not matter; opcodes,
modifiers, constants and the dependency structure do.

  amdgpu_dataflow.py A.s KERNEL_A B.s KERNEL_B     exit 0 if equal, 1 if not
  amdgpu_dataflow.py --dump A.s KERNEL             print the graph
"""
import re
import sys

COMMUTATIVE = {'v_add_f32', 'v_mul_f32', 'v_min_f32', 'v_max_f32', 'v_cmp_eq_f32', 'v_cmp_neq_f32',
               'v_cmp_lg_f32', 'v_cmp_o_f32', 'v_cmp_u_f32', 's_add_i32', 'v_add_u32', 'v_and_b32', 'v_or_b32'}
# Bookkeeping that cannot be part of the compared value: waits, no-ops and
# the loads of the kernel-argument pointer.
IGNORED = ('s_waitcnt', 's_nop', 's_load_dwordx2', 's_load_dwordx4')
BRANCH = re.compile(r'^s_(c?branch|cbranch_\w+)\b')


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


def canon(node):
    """Normal forms that do not depend on how the compiler spelled the operation."""
    kind = node[0]
    if kind == 'op':
        _, opc, args = node
        if opc.startswith('v_cmp_n') and opc[7:9] in ('lt', 'gt', 'le', 'ge', 'eq') and opc[9:10] == '_':
            return ('not', canon(('op', 'v_cmp_' + opc[7:], args)))
        # a > b is b < a, a >= b is b <= a (the same comparison, operands swapped)
        if opc.startswith('v_cmp_gt_') or opc.startswith('v_cmp_ge_'):
            return canon(('op', opc.replace('_gt_', '_lt_').replace('_ge_', '_le_'), (args[1], args[0])))
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


def graph(asm, name):
    env = {}
    inputs = [0]
    scc = None
    result = None
    sink = None
    unknown = set()

    def reg_key(tok):
        m = re.match(r'^([sv])\[(\d+):(\d+)\]$', tok)
        return tok if not m else f'{m.group(1)}{m.group(2)}'

    def val(tok):
        tok = tok.strip()
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
                break
        if re.match(r'^[sv]\d+$|^[sv]\[\d+:\d+\]$|^vcc$|^exec$', tok):
            if reg_key(tok) not in env:
                # A register never written in the kernel: an ABI input other
                # than the loads and sources; compared by name, and flagged.
                unknown.add(tok)
            v = env.get(reg_key(tok), ('reg', tok))
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
                env[reg_key(m.group(2))] = ('input', inputs[0])
            else:
                sink = val(m.group(2))
            continue
        line = line.split(';')[0].strip()
        if not line or line.startswith('.') or line.endswith(':'):
            continue
        if BRANCH.match(line):
            sys.exit(f'{name}: branch in the compared code: {line}')
        parts = line.split(None, 1)
        op = base_opcode(parts[0])
        ops = split_operands(parts[1]) if len(parts) > 1 else []
        if any(line.startswith(p) for p in IGNORED):
            continue
        if op in ('s_load_dword', 'global_load_dword', 'flat_load_dword'):
            inputs[0] += 1
            env[reg_key(ops[0])] = ('input', inputs[0])
            continue
        if op in ('global_store_dword', 'flat_store_dword'):
            result = val(ops[1])
            continue
        if op in ('v_mov_b32', 's_mov_b32', 's_movk_i32'):
            env[reg_key(ops[0])] = val(ops[1])
            continue
        if op == 'v_cndmask_b32':
            cond = val(ops[3]) if len(ops) > 3 else val('vcc')
            define(ops[0], ('select', cond, val(ops[2]), val(ops[1])))
            continue
        if op == 's_and_b64' and len(ops) == 3 and ops[2] == 'exec':
            scc = val(ops[1])
            continue
        if op == 's_cselect_b32':
            if scc is None:
                sys.exit(f'{name}: s_cselect without a known condition: {line}')
            define(ops[0], ('select', scc, val(ops[1]), val(ops[2])))
            continue
        if op.startswith('v_cmp_'):
            # e32: writes vcc; e64: the first operand is the destination.
            if parts[0].endswith('_e32') or len(ops) == 2:
                dst, srcs = 'vcc', ops[-2:]
            else:
                dst, srcs = ops[0], ops[1:]
            define(dst, ('op', op, tuple(val(s) for s in srcs)))
            continue
        if op == 'v_fmac_f32':
            define(ops[0], ('op', 'v_fma_f32', (val(ops[1]), val(ops[2]), val(ops[0]))))
            continue
        if op == 'v_fmamk_f32':
            define(ops[0], ('op', 'v_fma_f32', (val(ops[1]), val(ops[2]), val(ops[3]))))
            continue
        if op == 'v_fmaak_f32':
            define(ops[0], ('op', 'v_fma_f32', (val(ops[1]), val(ops[2]), val(ops[3]))))
            continue
        # Any other instruction: destination first, then sources.
        if not ops:
            continue
        define(ops[0], ('op', op, tuple(val(s) for s in ops[1:])))
    value = sink if sink is not None else result
    if value is None:
        sys.exit(f'{name}: no stored or sunk value found')
    if any(r not in ('s[0:1]', 's0', 's1', 'exec') for r in unknown) and uses_unknown(value):
        sys.exit(f'{name}: the value reads registers the kernel never wrote: {sorted(unknown)}')
    return value


def uses_unknown(node):
    if node[0] == 'reg':
        return node[1] not in ('s[0:1]', 's0', 's1', 'exec')
    return any(uses_unknown(c) for c in node[1:] if isinstance(c, tuple)) or (
        node[0] == 'op' and any(uses_unknown(c) for c in node[2]))


def render(node, depth=0, seen=None):
    pad = '  ' * depth
    kind = node[0]
    if kind == 'op':
        return pad + node[1] + '\n' + ''.join(render(a, depth + 1) for a in node[2])
    if kind == 'select':
        return pad + 'select\n' + ''.join(render(a, depth + 1) for a in node[1:])
    if kind in ('not', 'neg', 'abs'):
        return pad + kind + '\n' + render(node[1], depth + 1)
    return pad + ' '.join(str(x) for x in node) + '\n'


def main(argv):
    if len(argv) == 4 and argv[1] == '--dump':
        print(render(graph(open(argv[2]).read(), argv[3])), end='')
        return 0
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    a = graph(open(argv[1]).read(), argv[2])
    b = graph(open(argv[3]).read(), argv[4])
    if a == b:
        print(f'{argv[2]} == {argv[4]}')
        return 0
    print(f'{argv[2]} != {argv[4]}')
    ra, rb = render(a).splitlines(), render(b).splitlines()
    for i, (x, y) in enumerate(zip(ra, rb)):
        if x != y:
            print(f'  first difference at line {i + 1}:\n    {argv[2]}: {x.strip()}\n    {argv[4]}: {y.strip()}')
            break
    else:
        print(f'  one graph is a prefix of the other ({len(ra)} vs {len(rb)} lines)')
    return 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
