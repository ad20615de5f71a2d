#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz harnesses into fuzz/corpus/:

  python3 fuzz/make_seed_corpora.py [SAMEBITS]     (default ./build/cli/samebits)

libm/: for each function, the oracle's special inputs (signed zeros,
  infinities, NaN payloads, subnormal and normal extremes, the thresholds it
  finds by bisection), as `samebits score F --json` lists them, one file per
  function, plus one file per input for the thresholds (so that a replay
  reaches each of them on its own).
tensor_io/: the .npy and .safetensors fixtures of tests/data/compare (valid
  and malformed), and a few truncations of valid ones.
sweep/: a handful of ranges (start, span, stride|function, threads, filter).
attention_args/: calls of the attention argument validation, encoded as
  fuzz_attention_args.cpp decodes them: valid problems (forward and backward,
  both dtypes and head dims, GQA, several sequences, both stride orders), and
  each rule broken alone (codes, D, hq/hkv, limits, cu_seqlens, totals,
  max_seqlen, null/misaligned/host pointers, strides that overlap or overflow,
  the workspace); the arithmetic policy (sm90-tensor-core with the model's
  defaults or other parameters, refused by the GPU entry points and computed
  by the reference; codes out of range; mma under fma-chain; each mma field
  out of range; float32 inputs), the problem fingerprint's buffer and the
  reference's input values. Only this part runs without SAMEBITS
  (`--attention-only`).
sparse_mla_args/: calls of the sparse MLA argument validation, encoded as
  fuzz_sparse_mla_args.cpp decodes them: valid problems (forward and backward,
  both dtypes and head dims, sinks, chunks, padded and heads-major strides),
  each rule broken alone (codes, D, heads, tokens, num_kv, topk, scale,
  chunk_tokens, null/misaligned/host pointers, strides that overlap or
  overflow, dsink, the workspace), the C ABI's own fields, the fingerprint's
  buffer, and small index arrays for check_indices. `--sparse-only` writes
  only this part (no SAMEBITS needed).
"""
import json
import os
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
args = [a for a in sys.argv[1:] if a not in ('--attention-only', '--sparse-only')]
attention_only = '--attention-only' in sys.argv[1:]
sparse_only = '--sparse-only' in sys.argv[1:]
exe = args[0] if args else os.path.join(ROOT, 'build', 'cli', 'samebits')
out = os.path.join(HERE, 'corpus')


MMA_FIELDS = ('frac_bits', 'group', 'rounding', 'c_join', 'zero_exponent', 'product_exponent', 'zero_sign',
              'overflow')


def policy_tail(policy=0, mma=None, fingerprint=0, fill=0):
    """The bytes fuzz_attention_args reads after dq_flags: policy (0 fma-chain, 1 sm90-tensor-core,
    ('bad', i): the i-th invalid code of decode_policy), mma (None: a null pointer; a dict
    {field: byte}: byte 0 the default, 1..159 a valid value, 160+i the field's i-th listed bad
    value), the problem fingerprint's buffer mode and the reference's fill byte."""
    b = bytearray([0 if policy == 0 else 128 if policy == 1 else 240 + policy[1]])
    if mma is None:
        b.append(0)
    else:
        b.append(128)
        b += bytes(mma.get(f, 0) for f in MMA_FIELDS)
    b += bytes([fingerprint, fill])
    return bytes(b)


def attention_call(backward=False, libm=0, bf16=True, d128=False, causal=False, hkv=1, group=1, lens=(0,),
                   lens_k=None, picks=None, tensors=None, ptrs=None, accum_in=0, workspace=0, extra=None, tail=b''):
    """Bytes that fuzz_attention_args decodes as this call. picks: {field: byte} for the fields
    read with pick_i32 (byte < 200: the valid value, 200+i: the i-th bad one, else a raw u32 after
    it); tensors: {index: (ptr byte, stride byte[, [bytes the stride choice reads]])} for q k v o
    dout dq dk dv; ptrs: {index: byte}
    for lse delta accum_k accum_v dq_accum dq_flags; tail: policy_tail()'s bytes (none: fma-chain,
    mma null)."""
    picks = picks or {}
    extra = extra or {}
    b = bytearray()
    b.append(int(backward) | int(libm) << 1 | int(not bf16) << 2 | int(d128) << 3 | int(causal) << 4)
    for f in ('libm', 'in_dtype', 'o_dtype', 'grad_dtype', 'd'):
        b.append(picks.get(f, 0))
    b.append((hkv - 1) % 8 | ((group - 1) % 8) << 3)
    for f in ('hkv', 'hq', 'tile_rows', 'causal'):
        b.append(picks.get(f, 0))
    b.append(extra.get('scale', 0))
    b.append(extra.get('num_seqs', len(lens) - 1))
    b += bytes(lens)
    b.append(extra.get('cu_q_start', 0))
    if lens_k is None:
        b.append(0)
    else:
        b.append(200)
        b += bytes(lens_k)
        b.append(0)
    for f in ('total_q', 'total_k', 'max_q', 'max_k', 'nulls'):
        b.append(extra.get(f, 0))
    for i in range(8):
        p, st, *more = (tensors or {}).get(i, (0, 0))
        b += bytes([p, st] + (more[0] if more else []))
    for i in range(4):
        b.append((ptrs or {}).get(i, 0))
    b.append(accum_in)
    b.append(workspace)
    b.append(extra.get('workspace_bytes', 0))
    for i in (4, 5):  # dq_accum, dq_flags
        b.append((ptrs or {}).get(i, 0))
    return bytes(b) + tail


def attention_seeds():
    seeds = {}
    # Valid calls.
    for bwd in (False, True):
        for bf16 in (True, False):
            for d128 in (False, True):
                n = f"valid_{'bwd' if bwd else 'fwd'}_{'bf16' if bf16 else 'f16'}_d{128 if d128 else 64}"
                seeds[n] = attention_call(bwd, bf16=bf16, d128=d128, hkv=2, group=4, lens=(5, 17, 0, 3))
    seeds['valid_gqa8_causal'] = attention_call(True, causal=True, hkv=1, group=8, lens=(9,), lens_k=(31,))
    seeds['valid_heads_major'] = attention_call(False, hkv=2, group=2, lens=(4, 4), tensors={i: (0, 1) for i in range(8)})
    seeds['valid_padded'] = attention_call(True, hkv=4, group=2, lens=(7, 1), tensors={i: (0, 2) for i in range(8)})
    seeds['valid_cr_f32_out'] = attention_call(False, libm=1, lens=(3,), picks={'o_dtype': 200})
    seeds['valid_accum_in'] = attention_call(True, lens=(6,), accum_in=3)
    seeds['valid_accum_in_place'] = attention_call(True, lens=(6,), accum_in=7)
    seeds['valid_empty'] = attention_call(True, lens=(0, 0))
    seeds['valid_tile64'] = attention_call(False, lens=(70,), picks={'tile_rows': 200})
    # hq % hkv != 0, everything else valid (the planted control's input).
    for bwd in (False, True):
        seeds[f"gqa_not_multiple_{'bwd' if bwd else 'fwd'}"] = attention_call(
            bwd, hkv=2, group=1, lens=(5,), picks={'hq': 207})  # hq = 12, hkv = 2: valid; hkv below
        seeds[f"gqa_hkv7_{'bwd' if bwd else 'fwd'}"] = attention_call(bwd, hkv=2, group=4, lens=(5,),
                                                                     picks={'hkv': 205})  # hkv = 7, hq = 8
        seeds[f"gqa_hkv3_{'bwd' if bwd else 'fwd'}"] = attention_call(bwd, hkv=2, group=4, lens=(2, 3),
                                                                     picks={'hkv': 202})  # hkv = 3, hq = 8
    # Each pick broken alone.
    for f, n in (('libm', 4), ('in_dtype', 4), ('o_dtype', 5), ('grad_dtype', 5), ('d', 6), ('hkv', 7), ('hq', 9),
                 ('tile_rows', 6), ('causal', 3)):
        for i in range(n):
            seeds[f'bad_{f}_{i}'] = attention_call(True, hkv=2, group=2, lens=(4, 2), picks={f: 200 + i})
    for name, e in (('scale_zero', {'scale': 200}), ('scale_inf', {'scale': 210}), ('scale_nan', {'scale': 220}),
                    ('scale_neg', {'scale': 230}), ('num_seqs_0', {'num_seqs': 200}),
                    ('num_seqs_neg', {'num_seqs': 210}), ('num_seqs_min', {'num_seqs': 240}),
                    ('cu_start', {'cu_q_start': 240}), ('total_q_plus', {'total_q': 1}),
                    ('total_k_minus', {'total_k': 2}), ('total_q_2p32', {'total_q': 4}),
                    ('max_q_short', {'max_q': 1}), ('max_k_2p30', {'max_k': 2}), ('max_q_2p30_1', {'max_q': 3}),
                    ('max_q_more', {'max_q': 5}), ('host_q_null', {'nulls': 251}), ('host_k_null', {'nulls': 252}),
                    ('dev_cu_q_null', {'nulls': 240}), ('dev_cu_k_null', {'nulls': 245}),
                    ('ws_short', {'workspace_bytes': 200}), ('ws_max', {'workspace_bytes': 220})):
        seeds[f'bad_{name}'] = attention_call(True, hkv=1, group=2, lens=(3, 4), extra=e)
    # cu_seqlens: decreasing, huge (past 2^31: wraps int32), and a long list.
    seeds['cu_decrease'] = attention_call(False, lens=(5, 241, 2))
    seeds['cu_huge'] = attention_call(False, lens=(239, 239, 2))
    seeds['cu_2p31'] = attention_call(False, lens=(232,))
    seeds['cu_k_decrease'] = attention_call(False, lens=(3, 3), lens_k=(2, 245))
    # Pointers: null, misaligned by 1, 2 and 4 bytes, near the top of the address space, host
    # memory, not a CUDA pointer; on each tensor in turn.
    for i, t in enumerate(('q', 'k', 'v', 'o', 'dout', 'dq', 'dk', 'dv')):
        for pname, pb in (('null', 1), ('mis1', 2), ('mis2', 3), ('mis4', 4), ('top', 5), ('host', 16),
                          ('notcuda', 32)):
            if i in (0, 3) or (t in ('k', 'dq', 'dk') and pname in ('null', 'host')):
                seeds[f'ptr_{t}_{pname}'] = attention_call(True, bf16=False, hkv=2, group=2, lens=(8,),
                                                           tensors={i: (pb, 0)})
    for i, t in enumerate(('lse', 'delta', 'accum_k', 'accum_v')):
        for pname, pb in (('null', 1), ('mis2', 3)) if i else (('null', 1), ('mis2', 3), ('host', 16)):
            seeds[f'ptr_{t}_{pname}'] = attention_call(True, hkv=2, group=2, lens=(8,), ptrs={i: pb})
    for i, t in ((4, 'dq_accum'), (5, 'dq_flags')):
        seeds[f'ptr_{t}_null'] = attention_call(True, hkv=2, group=2, lens=(8,), ptrs={i: 1})
        seeds[f'ptr_{t}_mis2'] = attention_call(True, hkv=2, group=2, lens=(8,), ptrs={i: 3})
        seeds[f'ptr_{t}_host'] = attention_call(True, hkv=2, group=2, lens=(8,), ptrs={i: 16})
    seeds['ptr_dq_accum_mis4'] = attention_call(True, hkv=2, group=2, lens=(8,), ptrs={4: 4})  # 4- but not 16-aligned
    seeds['ptr_dq_flags_null_empty'] = attention_call(True, lens=(0,), ptrs={5: 1})  # never empty: total_q*hq + 1
    seeds['accum_k_in_alone'] = attention_call(True, lens=(4,), accum_in=1)
    seeds['accum_v_in_alone'] = attention_call(True, lens=(4,), accum_in=2)
    seeds['workspace_null'] = attention_call(True, lens=(4,), workspace=1)
    seeds['workspace_mis'] = attention_call(True, lens=(4,), workspace=8)
    # Strides: heads-major, padded, small random, huge (each), overlapping by one.
    for i, t in enumerate(('q', 'k', 'dk')):
        ti = (0, 1, 6)[i]
        for sname, sb in (('heads_major', 1), ('small', 3), ('rowm1', 8), ('headm1', 9), ('hugehead', 6),
                          ('hugerow', 7), ('scaled', 11)):
            seeds[f'stride_{t}_{sname}'] = attention_call(True, hkv=2, group=2, lens=(6, 2),
                                                          tensors={ti: (0, sb)})
    # One kv head and a row stride of 2^53 (the head stride's order flips): the largest offset
    # overflows int64 unless refused.
    seeds['stride_k_one_head_huge_row'] = attention_call(False, hkv=1, group=1, lens=(216, 215),
                                                         tensors={1: (0, 4, [15, 7])})
    # Strides whose product with the extent overflows int64 (the overlap test's inner * count).
    seeds['stride_q_overlap_overflow'] = attention_call(False, hkv=1, group=2, lens=(4,),
                                                        tensors={0: (0, 4, [8, 8])})
    seeds['stride_q_2p62'] = attention_call(False, hkv=1, group=2, lens=(4,), tensors={0: (0, 4, [8, 7])})
    # A tensor that ends exactly at the top of the address space (valid), and one past it.
    seeds['ptr_q_top_exact'] = attention_call(True, bf16=False, hkv=2, group=2, lens=(8,), tensors={0: (5, 0)})
    for i, t in enumerate(('q', 'k', 'lse')):
        if t == 'lse':
            seeds['ptr_lse_top_long'] = attention_call(False, hkv=8, group=8, lens=(30,), ptrs={0: 5})
        else:
            seeds[f'ptr_{t}_top_long'] = attention_call(False, hkv=8, group=8, lens=(30,), tensors={i: (5, 0)})
    # The C ABI backward's workspace for hq near 2^31: its size overflows int64.
    seeds['workspace_overflow_hq'] = attention_call(True, lens=(216, 215), picks={'hkv': 204, 'hq': 204})
    # The arithmetic policy (small problems: the reference runs on them). sm90-tensor-core: the GPU
    # entry points refuse it, the reference computes it (bf16, fp16; the model's defaults, null or
    # given, and other parameters); the fill bytes pick 1.0, -0.0, 0.5, -2.0 as the inputs.
    for bwd in (False, True):
        for bf16 in (True, False):
            for causal in (False, True):
                n = f"tc_{'bwd' if bwd else 'fwd'}_{'bf16' if bf16 else 'f16'}_{'causal' if causal else 'full'}"
                seeds[n] = attention_call(bwd, bf16=bf16, causal=causal, hkv=2, group=2, lens=(5, 12),
                                          tail=policy_tail(1, fill=1 + bwd + 2 * causal))
    seeds['tc_d128_gqa4_cr'] = attention_call(True, libm=1, d128=True, hkv=1, group=4, lens=(3, 20), lens_k=(17, 4),
                                              tail=policy_tail(1, fill=3))
    seeds['tc_mma_defaults_given'] = attention_call(True, hkv=2, group=2, lens=(9,), tail=policy_tail(1, mma={}))
    # every field at a valid non-default value: F = 1 + 13 % 40, G = 2^(3 % 5) = 8, rn, after,
    # Z = 2 % 3 (fixed_m126), normalized, ieee (2 % 2), saturate
    seeds['tc_mma_other'] = attention_call(True, causal=True, hkv=2, group=2, lens=(7, 9),
                                           tail=policy_tail(1, mma={f: (13, 3, 1, 1, 2, 1, 2, 1)[i]
                                                                    for i, f in enumerate(MMA_FIELDS)}, fill=1))
    seeds['tc_mma_f40_g1'] = attention_call(False, hkv=1, group=1, lens=(4,),
                                            tail=policy_tail(1, mma={'frac_bits': 39, 'group': 5}, fill=1))
    # policy codes out of range: 2, -1, 256, 257, INT32_MIN, INT32_MAX, raw
    for i in range(6):
        seeds[f'policy_bad_{i}'] = attention_call(i % 2 == 1, hkv=2, group=2, lens=(4, 2), tail=policy_tail(('bad', i)))
    seeds['policy_bad_raw'] = attention_call(True, lens=(4,), tail=policy_tail(('bad', 6)) + bytes([7, 0, 0, 1]))
    # mma given under fma-chain (read only by sm90-tensor-core), valid and not
    seeds['mma_under_fma_chain'] = attention_call(True, hkv=2, group=2, lens=(4, 2), tail=policy_tail(0, mma={}))
    seeds['mma_bad_under_fma_chain'] = attention_call(False, lens=(4,), tail=policy_tail(0, mma={'group': 161}))
    # each mma field out of range alone (the first listed values; 256 + x would wrap in a uint8)
    for f, n in (('frac_bits', 7), ('group', 9), ('rounding', 7), ('c_join', 4), ('zero_exponent', 7),
                 ('product_exponent', 4), ('zero_sign', 4), ('overflow', 4)):
        for i in range(n):
            seeds[f'mma_bad_{f}_{i}'] = attention_call(i % 2 == 0, hkv=2, group=2, lens=(3, 5),
                                                       tail=policy_tail(1, mma={f: 160 + i}))
    # float32 inputs, an unknown input dtype, D 96 under the tensor-core policy
    seeds['tc_f32_inputs'] = attention_call(True, hkv=2, group=2, lens=(6,), picks={'in_dtype': 200},
                                            tail=policy_tail(1))
    seeds['tc_f32_inputs_fwd'] = attention_call(False, lens=(6,), picks={'in_dtype': 200, 'o_dtype': 200},
                                                tail=policy_tail(1))
    seeds['tc_in_dtype_3'] = attention_call(True, lens=(6,), picks={'in_dtype': 201}, tail=policy_tail(1))
    seeds['tc_d96'] = attention_call(False, lens=(6,), picks={'d': 200}, tail=policy_tail(1))
    seeds['tc_hkv3'] = attention_call(True, hkv=2, group=4, lens=(2, 3), picks={'hkv': 202}, tail=policy_tail(1))
    seeds['tc_cu_decrease'] = attention_call(False, lens=(5, 241, 2), tail=policy_tail(1))
    # the problem fingerprint's buffer: exactly enough, one short, 0, -1, null; a null problem
    for n, mode in (('exact', 200), ('short', 210), ('zero', 220), ('neg', 230), ('null_buf', 240),
                    ('null_problem', 250)):
        seeds[f'fingerprint_tc_{n}'] = attention_call(False, lens=(2,), tail=policy_tail(1, fingerprint=mode))
        seeds[f'fingerprint_fma_{n}'] = attention_call(False, libm=1, lens=(2,), tail=policy_tail(0, fingerprint=mode))
    seeds['fingerprint_tc_mma_exact'] = attention_call(False, lens=(2,), tail=policy_tail(
        1, mma={'frac_bits': 9, 'group': 1, 'zero_exponent': 1}, fingerprint=200))
    # Outputs over inputs or other outputs (pointer byte 7: an address given as the u64 that follows,
    # then the stride byte): o at q's base, o over q's last element, o just past q (valid), dq at dk's
    # base (two outputs). q is tensor 0 at 1 << 32; dk tensor 6 at 7 << 32.
    def at(addr, stride=0):
        u = list(addr.to_bytes(8, 'little'))
        return (7, u[0], u[1:] + [stride])
    q_bytes = 8 * 4 * 64 * 2  # rows 8, hq 4, D 64, bf16, contiguous
    seeds['overlap_o_at_q'] = attention_call(False, hkv=2, group=2, lens=(8,), tensors={3: at(1 << 32)})
    seeds['overlap_o_over_q_last'] = attention_call(False, hkv=2, group=2, lens=(8,),
                                                    tensors={3: at((1 << 32) + q_bytes - 2)})
    seeds['overlap_o_after_q'] = attention_call(False, hkv=2, group=2, lens=(8,), tensors={3: at((1 << 32) + q_bytes)})
    seeds['overlap_dq_at_dk'] = attention_call(True, hkv=2, group=2, lens=(8,), tensors={5: at(7 << 32)})
    seeds['overlap_dv_at_v_tc'] = attention_call(True, hkv=2, group=2, lens=(8,), tensors={7: at(3 << 32)},
                                                 tail=policy_tail(1))
    return seeds


def sparse_call(backward=False, libm=0, f32=False, d128=False, vi=0, picks=None, heads=4, tokens_x9=2, kv_x40=1,
                topk=8, scale=0, tensors=None, mats=None, ptrs=None, opts=None, need=4, wb=0, null_problem=False,
                misc=(0, 0, 0), indices=(0x31, 5, [])):
    """Bytes that fuzz_sparse_mla_args decodes as this call. picks: {field: byte} for the fields read
    with pick_i32 / pick_i64 (byte < 200: the valid value, 200+i: the i-th bad one); heads 1..8,
    tokens 9 * (0..7), num_kv 40 * (0..3), topk 1..70 when not picked; tensors: {index: (ptr byte,
    stride byte[, extra bytes])} for q o dout dq; mats: {name: (ptr byte, stride byte[, extra])} for
    kv dkv indices; ptrs: {name: byte} for lse dsink workspace; opts: {name: byte or None} for
    lse_excl sink error_flag (None: null); need, wb: the workspace need and size bytes; misc: the
    fingerprint's (libm bit, libm pick, len byte); indices: check_indices' (shape, num_kv byte,
    index bytes)."""
    picks = picks or {}
    tensors = tensors or {}
    mats = mats or {}
    ptrs = ptrs or {}
    opts = opts or {}
    b = bytearray()
    b.append(int(backward) | int(libm) << 1 | int(f32) << 2 | int(d128) << 3 | int(vi) << 4)
    for f in ('libm', 'in_dtype', 'o_dtype', 'grad_dtype', 'd'):
        b.append(picks.get(f, 0))
    b.append((heads - 1) % 8 | (tokens_x9 % 8) << 3 | (kv_x40 % 4) << 6)
    for f in ('heads', 'tokens', 'num_kv'):
        b.append(picks.get(f, 0))
    b.append((topk - 1) % 70)
    b.append(picks.get('topk', 0))
    b.append(scale)
    b.append(picks.get('chunk', 0))
    b.append(picks.get('validate_indices', 0))
    for i in range(4):
        p, st, *more = tensors.get(i, (0, 0))
        b += bytes([p, st] + (more[0] if more else []))
    for n in ('kv', 'dkv', 'indices'):
        p, st, *more = mats.get(n, (0, 0))
        b += bytes([p, st] + (more[0] if more else []))
    b.append(ptrs.get('lse', 0))
    for n, p in (('lse_excl', None), ('sink', None), ('dsink', 0), ('error_flag', None)):
        if n == 'dsink':
            b.append(ptrs.get('dsink', 0))
            continue
        v = opts.get(n, p)
        if v is None:
            b.append(0)
        else:
            b += bytes([128, v])
    b.append(ptrs.get('workspace', 0))
    b.append(need)
    b.append(wb)
    b.append(250 if null_problem else 0)
    b += bytes(misc)
    shape, kvb, vals = indices
    b += bytes([shape, kvb] + list(vals))
    return bytes(b)


def sparse_seeds():
    seeds = {}
    # Valid calls.
    for bwd in (False, True):
        for f32 in (False, True):
            for d128 in (False, True):
                n = f"valid_{'bwd' if bwd else 'fwd'}_{'f32' if f32 else 'bf16'}_d{128 if d128 else 512}"
                seeds[n] = sparse_call(bwd, f32=f32, d128=d128, heads=3, tokens_x9=3, kv_x40=2, topk=7)
    seeds['valid_sink_excl_flag'] = sparse_call(False, opts={'lse_excl': 0, 'sink': 0, 'error_flag': 0})
    seeds['valid_bwd_sink'] = sparse_call(True, libm=1, opts={'sink': 0, 'error_flag': 0})
    seeds['valid_heads_major'] = sparse_call(True, tensors={i: (0, 1) for i in range(4)})
    seeds['valid_padded'] = sparse_call(True, tensors={i: (0, 2, [64, 0]) for i in range(4)},
                                        mats={'kv': (0, 1, [9]), 'dkv': (0, 6, [2]), 'indices': (0, 1, [3])})
    seeds['valid_f32_out_grad'] = sparse_call(True, picks={'o_dtype': 200, 'grad_dtype': 200})
    seeds['valid_empty'] = sparse_call(True, tokens_x9=0, kv_x40=0)
    seeds['valid_topk_2p24_chunk64'] = sparse_call(True, picks={'topk': 204, 'chunk': 200})
    seeds['valid_chunk_128_vi1'] = sparse_call(True, vi=1, picks={'chunk': 207})
    # chunk_tokens not a multiple of 64, everything else valid (the planted control's input).
    for n, c in (('63', 202), ('65', 203), ('32', 209), ('1', 210)):
        seeds[f'chunk_not_multiple_{n}'] = sparse_call(True, picks={'chunk': c})
    seeds['chunk_not_multiple_65_d128_topk64'] = sparse_call(True, d128=True, topk=64, picks={'chunk': 203})
    # Each pick broken (or at its limit) alone: the byte 200 + i picks the i-th value of the list
    # in fuzz_sparse_mla_args.cpp's decode().
    for f, picks in (('libm', (200, 202)), ('in_dtype', (200, 201, 202)), ('o_dtype', (202, 203)),
                     ('grad_dtype', (202, 203)), ('d', (200, 201, 203, 204)), ('heads', (202, 203, 204, 205, 206)),
                     ('tokens', (203, 204, 205, 206)), ('num_kv', (202, 203, 204, 205)),
                     ('topk', (202, 203, 205, 206, 208)), ('chunk', (201, 204, 205, 206, 208)),
                     ('validate_indices', (200, 201))):
        for i, b in enumerate(picks):
            seeds[f'bad_{f}_{b - 200}'] = sparse_call(f in ('grad_dtype', 'chunk', 'topk') or i % 2 == 1, picks={f: b})
    for n, sc in (('inf', 210), ('nan', 220), ('raw', 240)):
        seeds[f'bad_scale_{n}'] = sparse_call(True, scale=sc)
    # The workspace: need unknown (-1), short by one, 2^40, negative size; null, misaligned, host, near the top.
    for n, need, wb in (('unknown', 200, 0), ('short', 4, 200), ('2p40', 210, 0), ('bytes_neg', 4, 220)):
        seeds[f'ws_{n}'] = sparse_call(True, need=need, wb=wb)
    for n, pb in (('null', 1), ('mis128', 8), ('host', 16), ('top', 5)):
        seeds[f'ws_ptr_{n}'] = sparse_call(True, ptrs={'workspace': pb}, need=210 if n == 'top' else 4)
    # Pointers: null, misaligned, host memory, near the top.
    for i, t, pname, pb in ((0, 'q', 'null', 1), (0, 'q', 'mis2', 3), (0, 'q', 'host', 16), (0, 'q', 'top', 5),
                            (1, 'o', 'null', 1), (2, 'dout', 'null', 1), (3, 'dq', 'host', 16), (3, 'dq', 'mis2', 3)):
        seeds[f'ptr_{t}_{pname}'] = sparse_call(True, f32=True, tensors={i: (pb, 0)})
    for t, pname, pb in (('kv', 'null', 1), ('kv', 'top', 5), ('dkv', 'null', 1), ('indices', 'null', 1),
                         ('indices', 'mis2', 3)):
        seeds[f'ptr_{t}_{pname}'] = sparse_call(True, mats={t: (pb, 0)})
    for t, pname, pb in (('lse', 'null', 1), ('lse', 'host', 16), ('dsink', 'null', 1), ('dsink', 'mis2', 3)):
        seeds[f'ptr_{t}_{pname}'] = sparse_call(True, ptrs={t: pb}, opts={'sink': 0})
    for t, pname, pb in (('lse_excl', 'mis2', 3), ('sink', 'notcuda', 32), ('error_flag', 'mis2', 3)):
        seeds[f'ptr_{t}_{pname}'] = sparse_call(False, opts={t: pb})
    seeds['ptr_q_null_empty'] = sparse_call(True, tokens_x9=0, tensors={0: (1, 0)})
    seeds['ptr_kv_null_empty'] = sparse_call(True, kv_x40=0, mats={'kv': (1, 0)})
    # Strides: small random, overlapping by one, huge; the row strides of kv, dkv, indices.
    for sname, sb in (('small', 3), ('rowm1', 8), ('headm1', 9), ('hugerow', 7)):
        seeds[f'stride_q_{sname}'] = sparse_call(True, tensors={0: (0, sb, [3] if sb == 7 else [])})
    for t, sname, sb, more in (('kv', 'm1', 2, []), ('kv', 'zero', 7, []), ('kv', '2p53', 4, [15]),
                               ('kv', 'max', 4, [9]), ('dkv', 'm1', 2, []), ('indices', 'm1', 2, []),
                               ('indices', 'small', 3, [5, 0, 0, 0])):
        seeds[f'stride_{t}_{sname}'] = sparse_call(True, mats={t: (0, sb, more)})
    # Huge sizes with valid strides: offsets past int64/4 or the address space.
    seeds['huge_tokens_heads'] = sparse_call(False, picks={'tokens': 203, 'heads': 204})
    seeds['huge_num_kv_top'] = sparse_call(True, picks={'num_kv': 202}, mats={'kv': (5, 0)})
    # The C ABI: a null problem; the fingerprint's libm and buffer.
    seeds['c_null_problem'] = sparse_call(True, null_problem=True)
    for n, m in (('cr', (1, 0, 0)), ('libm2', (0, 200, 0)), ('len_short', (1, 0, 251)), ('neg', (0, 0, 240)),
                 ('null', (0, 0, 250))):
        seeds[f'fingerprint_{n}'] = sparse_call(False, misc=m)
    # check_indices: in range, holes, -2, num_kv, INT32_MIN, num_kv 0, large num_kv, raw.
    for n, ind in (('ok', (0x33, 11, [1, 2, 200, 3, 4, 5, 6, 7, 8])), ('m2', (0x22, 5, [0, 220, 1, 2])),
                   ('past', (0x23, 7, [0, 1, 2, 3, 4, 225])), ('min', (0x18, 3, [0, 1, 230] + [0] * 13)),
                   ('none', (0x21, 200, [200, 0])), ('big', (0x22, 220, [240, 199, 3, 4])),
                   ('last', (0x22, 9, [240, 240, 240, 226])), ('raw', (0x11, 5, [250, 0xff, 0xff, 0xff, 0x7f]))):
        seeds[f'indices_{n}'] = sparse_call(False, indices=ind)
    # Outputs over inputs (pointer byte 7: the u64 address that follows, then the stride byte):
    # o at kv's base (kv: the fifth pointer, at 5 << 32), dq at q's (1 << 32), dkv at dout's (3 << 32).
    def at(addr, stride=0):
        u = list(addr.to_bytes(8, 'little'))
        return (7, u[0], u[1:] + [stride])
    seeds['overlap_o_at_kv'] = sparse_call(False, tensors={1: at(5 << 32)})
    seeds['overlap_dq_at_q'] = sparse_call(True, tensors={3: at(1 << 32)})
    seeds['overlap_dkv_at_dout'] = sparse_call(True, mats={'dkv': at(3 << 32)})
    return seeds

if not attention_only:
    sp = os.path.join(out, 'sparse_mla_args')
    os.makedirs(sp, exist_ok=True)
    for name, data in sparse_seeds().items():
        open(os.path.join(sp, 'seed_' + name), 'wb').write(data)
    print(len(sparse_seeds()), 'seeds written to', sp)
if sparse_only:
    sys.exit(0)

aa = os.path.join(out, 'attention_args')
os.makedirs(aa, exist_ok=True)
for name, data in attention_seeds().items():
    open(os.path.join(aa, 'seed_' + name), 'wb').write(data)
if attention_only:
    print('seed corpus written to', aa)
    sys.exit(0)

libm = os.path.join(out, 'libm')
os.makedirs(libm, exist_ok=True)
for f in ['expf', 'exp2f', 'exp10f', 'logf', 'log2f', 'log10f']:
    j = json.loads(subprocess.run([exe, 'score', f, '--impl', 'cr', '--range', '1:1', '--json', '-q'],
                                  check=True, capture_output=True, text=True).stdout)
    xs = [int(s['input']['bits'], 16) for s in j['special_values']]
    with open(os.path.join(libm, f'specials_{f}'), 'wb') as fh:
        fh.write(b''.join(struct.pack('<I', x) for x in xs[:64]))
    for s in j['special_values']:
        label = ''.join(c if c.isalnum() else '_' for c in s['label']).strip('_')
        with open(os.path.join(libm, f'{f}_{label}'), 'wb') as fh:
            fh.write(struct.pack('<I', int(s['input']['bits'], 16)))

tio = os.path.join(out, 'tensor_io')
os.makedirs(tio, exist_ok=True)
data = os.path.join(ROOT, 'tests', 'data', 'compare')
for name in sorted(os.listdir(data)):
    if name.endswith(('.npy', '.safetensors')):
        shutil.copy(os.path.join(data, name), os.path.join(tio, name))
for name in ('f32.npy', 'f32.safetensors'):
    src = os.path.join(data, name)
    if os.path.exists(src):
        b = open(src, 'rb').read()
        for cut in (8, len(b) // 2, len(b) - 1):
            open(os.path.join(tio, f'{name}.cut{cut}'), 'wb').write(b[:cut])

sw = os.path.join(out, 'sweep')
os.makedirs(sw, exist_ok=True)
for i, (first, span, extra, threads, flt) in enumerate([
        (0x3f800000, 1000, 0x00, 1, 0), (0x00000000, 4095, 0x13, 6, 1), (0x7f7ff000, 4095, 0x2f, 3, 0),
        (0xff800000, 100, 0x51, 7, 0), (0x80000000, 2000, 0x40, 2, 1)]):
    open(os.path.join(sw, f'seed{i}'), 'wb').write(struct.pack('<IIBBB', first, span, extra, threads, flt))
print('seed corpora written to', out)
