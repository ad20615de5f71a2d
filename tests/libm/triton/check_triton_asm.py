#!/usr/bin/env python3
"""samebits.triton's inline-asm text, checked without Triton and without a GPU.

  check_triton_asm.py [--no-compile-check]

1. Current: regenerating the text from the project's own build
   (libm/tools/gen_triton_asm.py: nvcc's PTX, clang-22's gfx942/gfx950 code)
   gives exactly the committed python/samebits/triton/_asm/*.py.
   Negative control: a copy with one constant moved by one ulp
   (nvcc.expf's 0f3FB8AA3B -> 0f3FB8AA3C) is reported stale.
2. Assembles: every text, put twice into one kernel through LLVM's inline-asm
   path (llc-22: sm_90 then ptxas; gfx942; gfx950), as Triton would.
3. Triton's own AMD lowering: samebits.triton.hipcc.triton.expf / .logf have
   the same dataflow (libm/tools/hipcc_certify/amdgpu_code.py) as the code Triton
   3.6.0 itself emits for tl.exp / tl.log on gfx942 and gfx950, captured in
   tests/data/triton/ (the capture command is in those files).
   Negative controls: the text with one constant moved by one ulp, and the
   forms samebits shipped before Triton's own output was read (expf: the
   multiply, then a separate add of the range shift; logf: HIP's logf with
   its h + l tail; Triton's LLVM fuses both into one fma), must each differ.

Exit 0: all hold; 1: a check failed; 77 (skip): nvcc, clang++-22 or llc-22 missing.
"""
import importlib.util
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
GOLDEN = os.path.join(ROOT, 'tests', 'data', 'triton')
TRITON_VERSION = '3.6.0'


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


gen = load(os.path.join(ROOT, 'libm', 'tools', 'gen_triton_asm.py'), 'gen_triton_asm')
dataflow = load(os.path.join(ROOT, 'libm', 'tools', 'hipcc_certify', 'amdgpu_code.py'), 'amdgpu_code')

# samebits.triton.hipcc.triton.expf as generated before Triton 3.6's own AMD
# code was read (the multiply by log2(e) and the +64 range shift as two
# roundings); Triton's LLVM contracts them into one v_fmac. Kept verbatim as
# the structural negative control: the dataflow check must tell them apart.
PRE_FIX_EXPF = """v_mov_b32 v0, $1
v_mul_f32_e32 v0, 0x3fb8aa3b, v0
s_mov_b32 s0, 0xc2fc0000
v_mov_b32_e32 v1, 0x42800000
v_cmp_gt_f32_e32 vcc, s0, v0
s_nop 1
v_cndmask_b32_e32 v1, 0, v1, vcc
v_add_f32_e32 v0, v0, v1
v_exp_f32_e32 v0, v0
v_not_b32_e32 v1, 63
v_cndmask_b32_e32 v1, 0, v1, vcc
s_nop 0
v_ldexp_f32 v0, v0, v1
v_mov_b32 $0, v0
"""

# ... and tl.log as logf's HIP lowering (h + l at the end), where Triton's
# LLVM contracts the tail into fma(y, ln2_hi, l).
PRE_FIX_LOGF = """v_mov_b32 v0, $1
s_mov_b32 s0, 0x800000
v_cmp_gt_f32_e32 vcc, s0, v0
s_mov_b32 s0, 0x3f317217
s_nop 0
v_cndmask_b32_e64 v1, 0, 32, vcc
s_nop 0
v_ldexp_f32 v0, v0, v1
v_log_f32_e32 v0, v0
s_nop 0
v_mul_f32_e32 v1, 0x3f317217, v0
s_nop 0
v_fma_f32 v2, v0, s0, -v1
v_fmamk_f32 v2, v0, 0x3377d1cf, v2
v_add_f32_e32 v1, v1, v2
v_mov_b32_e32 v2, 0x7f800000
s_nop 0
v_cmp_lt_f32_e64 s[0:1], |v0|, v2
s_nop 1
v_cndmask_b32_e64 v0, v0, v1, s[0:1]
v_mov_b32_e32 v1, 0x41b17218
v_cndmask_b32_e32 v1, 0, v1, vcc
v_sub_f32_e32 v0, v0, v1
v_mov_b32 $0, v0
"""

failures = 0


def check(ok, what):
    global failures
    print(f"{'ok  ' if ok else 'FAIL'} {what}")
    if not ok:
        failures += 1


def as_kernel(name, body, input_reg):
    """A pseudo kernel amdgpu_code can read: load the input, BODY, store the result."""
    return f'{name}:\n\tglobal_load_dword {input_reg}, v[250:251], off\n{body}\ts_endpgm\n'


def ours_kernel(name, text):
    body = text.replace('$1', 'v240').replace('$0', 'v241')
    return as_kernel(name, body + '\n\tglobal_store_dword v[252:253], v241, off\n', 'v240')


def triton_kernel(golden_text, op, name):
    """The straight-line block of Triton's kernel that computes one element:
    from the label before the first v_OP_f32 to the store after it. Its input is
    the one 32-bit VGPR the block reads before writing."""
    section = golden_text.split(f'// ===== tl.{op} ')[1].split('// ===== ')[0]
    lines = section.splitlines()
    i = next(k for k, l in enumerate(lines) if f'v_{op}_f32' in l)
    start = max(k for k in range(i) if re.match(r'^\.LBB\w+:', lines[k].strip()))
    end = next(k for k in range(i, len(lines)) if 'global_store_dword' in lines[k])
    block = [l for l in lines[start + 1:end + 1] if l.strip() and not l.strip().startswith('.')]
    written, read_first = set(), []
    for l in block:
        code = l.split(';')[0].strip()
        parts = code.split(None, 1)
        if len(parts) < 2:
            continue
        ops = [o.strip() for o in dataflow.split_operands(parts[1])]
        op0 = dataflow.base_opcode(parts[0])
        srcs = ops if op0 in ('global_store_dword',) else ops[1:]
        if op0 == 'v_fmac_f32':
            srcs = ops  # reads its destination
        for s in srcs:
            for r in re.findall(r'(?<![\w\[])v\d+(?![\w\]:])', s.replace('|', ' ').replace('-', ' ')):
                if r not in written and r not in read_first:
                    read_first.append(r)
        if op0 not in ('global_store_dword',) and ops and re.match(r'^v\d+$', ops[0]):
            written.add(ops[0])
    inputs = read_first
    if len(inputs) != 1:
        raise SystemExit(f'{name}: expected one input register in Triton\'s block, found {inputs}')
    return as_kernel(name, '\n'.join(block[:-1]) + '\n' + block[-1] + '\n', inputs[0])


def same_dataflow(a_text, a_name, b_text, b_name):
    try:
        return dataflow.graph(a_text, a_name) == dataflow.graph(b_text, b_name)
    except SystemExit as e:
        print(f'     dataflow: {e}')
        return False


def main():
    compile_check = '--no-compile-check' not in sys.argv[1:]
    for t in ('nvcc', 'clang++-22') + (('llc-22',) if compile_check else ()):
        try:
            gen.tool(t, {'nvcc': '/usr/local/cuda/bin/nvcc', 'llc-22': '/usr/lib/llvm-22/bin/llc'}.get(t))
        except gen.GenError as e:
            print(f'SKIP: {e}')
            return 77
    try:
        files, nv, amd = gen.generate()
    except gen.GenError as e:
        print(f'FAIL generator: {e}')
        return 1

    # 1. current, and the planted change is caught
    stale = [n for n, text in sorted(files.items())
             if not os.path.exists(os.path.join(gen.PKG, n)) or open(os.path.join(gen.PKG, n)).read() != text]
    check(not stale, f'the {len(files)} committed files equal a fresh generation' + (f' (stale: {stale})' if stale else ''))
    with tempfile.TemporaryDirectory() as tmp:
        for n in files:
            shutil.copy(os.path.join(gen.PKG, n), tmp)
        p = os.path.join(tmp, 'nvcc.py')
        text = open(p).read()
        planted = text.replace('0f3FB8AA3B', '0f3FB8AA3C', 1)
        check(planted != text, 'negative control planted (nvcc.py holds 0f3FB8AA3B)')
        open(p, 'w').write(planted)
        caught = [n for n, t in files.items() if open(os.path.join(tmp, n)).read() != t]
        check(caught == ['nvcc.py'], f'negative control: a one-ulp constant change in nvcc.py is reported stale ({caught})')

    # 2. assembles
    if compile_check:
        bad = gen.compile_check(nv, amd)
        check(bad == 0, f'every text assembles twice in one kernel (sm_90 + ptxas, gfx942, gfx950): {bad} failures')

    # 3. Triton's own AMD lowering
    for arch in gen.AMD_ARCHS:
        golden = open(os.path.join(GOLDEN, f'triton-{TRITON_VERSION}_tl_exp_log_{arch}.amdgcn')).read()
        ours = {fn: text for fn, _, text, _, _ in amd[(arch, 'hipcc_triton')]}
        for fn, op in (('expf', 'exp'), ('logf', 'log')):
            theirs = triton_kernel(golden, op, 'triton_k')
            mine = ours_kernel('ours_k', ours[fn])
            check(same_dataflow(mine, 'ours_k', theirs, 'triton_k'),
                  f'{arch}: samebits.triton.hipcc.triton.{fn} has the dataflow of Triton {TRITON_VERSION}\'s tl.{op}')
            bumped = ours[fn].replace('0x3fb8aa3b' if op == 'exp' else '0x3f317217',
                                      '0x3fb8aa3c' if op == 'exp' else '0x3f317218')
            check(bumped != ours[fn] and not same_dataflow(ours_kernel('bad_k', bumped), 'bad_k', theirs, 'triton_k'),
                  f'{arch}: negative control: tl.{op} vs our text with a constant moved by one ulp differ')
        theirs = triton_kernel(golden, 'exp', 'triton_k')
        check(not same_dataflow(ours_kernel('old_k', PRE_FIX_EXPF), 'old_k', theirs, 'triton_k'),
              f'{arch}: negative control: the pre-fix expf (separate multiply and add) differs from tl.exp')
        theirs = triton_kernel(golden, 'log', 'triton_k')
        check(not same_dataflow(ours_kernel('old_k', PRE_FIX_LOGF), 'old_k', theirs, 'triton_k'),
              f'{arch}: negative control: the pre-fix logf (HIP logf, tail h + l) differs from tl.log')
    print(f'{failures} failed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
