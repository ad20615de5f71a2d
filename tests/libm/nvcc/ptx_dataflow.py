#!/usr/bin/env python3
"""ptx_dataflow — do two PTX kernels compute their stored value the same way?

Builds, for one kernel of a PTX file, the expression graph of the value it
stores: each instruction is a node (opcode with every modifier, e.g.
fma.rm.ftz.f32), operands are the nodes that defined them, immediates and
registers loaded by `mov` from an immediate are constants (compared by their
bit pattern), plain register moves and bit reinterpretations are looked
through, and a forward branch over a block (`@%p bra L; ...; L:`) becomes a
select on %p between the values before and after the block, as `selp` is.
Operands of commutative operations (add, mul, the two factors of fma) are
put in a canonical order. Register names and instruction order therefore do
not matter; operations, modifiers, constants and the dependency structure do.

  ptx_dataflow.py A.ptx KERNEL_A B.ptx KERNEL_B    exit 0 if equal, 1 if not
"""
import re
import sys

INSTR = re.compile(r'^(?:@(!?)(%\w+)\s+)?([a-z][\w.]*)\s*(.*?);$')


def kernel_body(ptx, name):
    m = re.search(r'\.entry\s+' + re.escape(name) + r'\s*\((.*?)\)\s*\{(.*?)\n\}', ptx, re.S)
    if not m:
        sys.exit(f'kernel {name} not found')
    return m.group(2)


def split_operands(s):
    return [o.strip() for o in s.split(',')] if s.strip() else []


def graph(ptx, name):
    body = kernel_body(ptx, name)
    env = {}            # register -> node
    pending = []        # (label, predicate node, negated, snapshot of env)
    stored = None
    counter = [0]

    def const(tok):
        return ('const', tok.lower())

    def val(tok):
        tok = tok.strip()
        if tok.startswith('%'):
            return env.get(tok, ('input', tok))
        if tok.startswith('['):
            return ('addr',)
        return const(tok)

    # Statements end with ';' or are labels; inline asm puts several on one
    # line inside braces.
    text = re.sub(r'//[^\n]*', '', body).replace('{', ';').replace('}', ';')
    stmts = []
    for piece in text.split(';'):
        piece = piece.strip()
        while re.match(r'^[$\w]+:', piece):           # a label before a statement
            lab, piece = piece.split(':', 1)
            stmts.append(lab.strip() + ':')
            piece = piece.strip()
        if piece:
            stmts.append(piece + ';')
    for line in stmts:
        if line.startswith(('.reg', '.loc', '.pragma')):
            continue
        if line.endswith(':'):
            label = line[:-1]
            still = []
            for (lab, pred, neg, snap) in pending:
                if lab != label:
                    still.append((lab, pred, neg, snap))
                    continue
                # Registers changed inside the skipped block become selects:
                # the block ran when the branch was not taken.
                for reg in set(env) | set(snap):
                    before, after = snap.get(reg, ('input', reg)), env.get(reg, ('input', reg))
                    if before != after:
                        # branch taken (pred true, or false if negated) -> before
                        env[reg] = ('select', pred, after, before) if neg else ('select', pred, before, after)
            pending = still
            continue
        m = INSTR.match(line)
        if not m:
            continue
        neg, pred, op, rest = m.groups()
        ops = split_operands(rest)
        if op.startswith('bra'):
            if pred:
                pending.append((ops[0], val(pred), neg == '!', dict(env)))
            continue
        if op in ('ret', 'exit'):
            continue
        if op.startswith('st.global'):
            stored = val(ops[1])
            continue
        if op.startswith('ld.global'):
            counter[0] += 1
            env[ops[0]] = ('load',)
            continue
        if op.startswith(('ld.param', 'cvta', 'mov.u32', 'mul.wide', 'mad.lo', 'cvt.u64')) and \
                not ops[1:2] == []:
            if op.startswith('mov.u32') and ops[1].startswith('%tid'):
                env[ops[0]] = ('index',)
                continue
        dst, srcs = ops[0], ops[1:]
        if op.startswith('mov.') and len(srcs) == 1:
            env[dst] = val(srcs[0])      # register move, bit reinterpretation, or constant
            continue
        args = [val(s) for s in srcs]
        base = op.split('.')[0]
        if base in ('add', 'mul') and len(args) == 2:
            args = sorted(args, key=repr)
        if base == 'fma' and len(args) == 3:
            args = sorted(args[:2], key=repr) + [args[2]]
        if pred:  # a predicated instruction: keeps the old value when not executed
            new = (op,) + tuple(args)
            old = env.get(dst, ('input', dst))
            env[dst] = ('select', val(pred), old, new) if neg == '!' else ('select', val(pred), new, old)
            continue
        if base == 'selp':
            args = [args[2], args[0], args[1]]
            env[dst] = ('select',) + tuple(args)
            continue
        env[dst] = (op,) + tuple(args)
    if stored is None:
        sys.exit(f'kernel {name}: no store found')
    return stored


def render(node, depth=0):
    if not isinstance(node, tuple):
        return str(node)
    if len(node) == 1:
        return node[0]
    return node[0] + '(' + ', '.join(render(c, depth + 1) for c in node[1:]) + ')'


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    a = graph(open(sys.argv[1]).read(), sys.argv[2])
    b = graph(open(sys.argv[3]).read(), sys.argv[4])
    if a == b:
        print(f'{sys.argv[2]} == {sys.argv[4]}: same dataflow')
        return 0
    print(f'{sys.argv[2]} != {sys.argv[4]}')
    # Show where they first differ, walking both graphs together.
    def first_diff(x, y, path):
        if x == y:
            return None
        if isinstance(x, tuple) and isinstance(y, tuple) and len(x) == len(y) and x[0] == y[0]:
            for i, (cx, cy) in enumerate(zip(x[1:], y[1:])):
                d = first_diff(cx, cy, path + [f'{x[0]}#{i}'])
                if d:
                    return d
        return path, x, y
    path, x, y = first_diff(a, b, [])
    print('  at', ' > '.join(path) or '(root)')
    print('  A:', render(x)[:300])
    print('  B:', render(y)[:300])
    return 1


if __name__ == '__main__':
    sys.exit(main())
