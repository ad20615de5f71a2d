"""Triton cores of the attention contract (docs/kernels/attention.md, policy fma-chain/1, B = 64):
forward (o, lse) and backward (delta, dq, the per-head dK/dV accumulators, the head fold), the
same operations in the same order as the CPU reference and the CUDA kernels, so the same bits.

How the contract's orders are written in Triton (the seed's way: the contraction index is the
loop, never tl.dot or tl.sum's tree):
  - dot(x, y) over d: a runtime loop over d of tl.fma on column vectors, from +0;
  - p.v, ds.k, and the dK/dV accumulators: a runtime loop over the block's list positions (or
    query rows) in order, one tl.fma per position; the block's p (ds) goes through a per-program
    scratch buffer so that position j's column can be read back exactly;
  - l: add over the members in order in the same loop; max: tl.max (maxNum: order-free);
  - exp, log: samebits.triton's expf/logf (nvcc or cr bits); division: tl.math.div_rn;
  - launched with enable_fp_fusion=False (no multiply-add contraction anywhere).
Non-members (positions past a row's list) take part in no operation: every update is a select.
NaN outputs are written canonical (0x7fffffff, bf16/fp16 0x7fff), as the contract says.

Speed is not the point of these cores (the CUDA kernels are the fast path); they show that a
Triton author gets the contract's bits. Issue 18; verified on the device by
tests/device/triton/triton_attention.py (not yet run when this was written).
"""
import torch
import triton
import triton.language as tl

from .._asm import cr as _cr
from .._asm import nvcc as _nvcc

LIBM = {"nvcc": 0, "cr": 1, "tl.exp": 2}  # 2: plain tl.exp / tl.log (the mismatch-count control)
BLOCK = 64  # the contract's B
# Read inside @triton.jit functions: globals there must be tl.constexpr objects (Triton 3 refuses
# plain module globals: NameError "Cannot access global variable ...", as the H100 run of
# 2026-12-06 showed).
NEG_INF_BITS = tl.constexpr(-8388608)  # 0xff800000 as int32
CANONICAL_NAN_BITS = tl.constexpr(2147483647)  # 0x7fffffff


@triton.jit
def _exp(x, LIBM_ID: tl.constexpr):
    if LIBM_ID == 0:
        y = _nvcc.expf(x)
    elif LIBM_ID == 1:
        y = _cr.expf(x)
    else:
        y = tl.exp(x)
    return y


@triton.jit
def _log(x, LIBM_ID: tl.constexpr):
    if LIBM_ID == 0:
        y = _nvcc.logf(x)
    elif LIBM_ID == 1:
        y = _cr.logf(x)
    else:
        y = tl.log(x)
    return y


@triton.jit
def _canonical(x):
    nan = tl.full(x.shape, CANONICAL_NAN_BITS, tl.int32).to(tl.float32, bitcast=True)
    return tl.where(x != x, nan, x)


@triton.jit
def _list_length(rows, lq, lk, CAUSAL: tl.constexpr):
    """List length of query rows `rows` of a sequence (0 past its queries): keys 0 .. n-1, bottom-right causal."""
    if CAUSAL:
        n = tl.minimum(tl.maximum(lk - lq + rows + 1, 0), lk)
    else:
        n = tl.zeros_like(rows) + lk
    return tl.where(rows < lq, n, 0)


@triton.jit
def _attention_fwd(Q, K, V, O, LSE, SCRATCH, CU_Q, CU_K,
                   sq_row, sq_head, sk_row, sk_head, sv_row, sv_head, so_row, so_head,
                   scale, G: tl.constexpr, D: tl.constexpr, BM: tl.constexpr, CAUSAL: tl.constexpr,
                   LIBM_ID: tl.constexpr):
    mblk = tl.program_id(0)
    h = tl.program_id(1)
    seq = tl.program_id(2)
    q0 = tl.load(CU_Q + seq).to(tl.int64)
    lq = (tl.load(CU_Q + seq + 1) - tl.load(CU_Q + seq))
    k0 = tl.load(CU_K + seq).to(tl.int64)
    lk = (tl.load(CU_K + seq + 1) - tl.load(CU_K + seq))
    if mblk * BM < lq:
        g = h // G
        r = tl.arange(0, BM)
        rows = mblk * BM + r
        row_ok = rows < lq
        n = _list_length(rows, lq, lk, CAUSAL)
        nmax = tl.max(n, axis=0)
        cols = tl.arange(0, 64)
        dcols = tl.arange(0, D)
        pid = tl.program_id(0) + tl.num_programs(0) * (tl.program_id(1) + tl.num_programs(1) * tl.program_id(2))
        scratch = SCRATCH + pid.to(tl.int64) * BM * 64
        q_rows = Q + (q0 + rows).to(tl.int64) * sq_row + h * sq_head
        m = tl.zeros([BM], dtype=tl.float32)
        l = tl.zeros([BM], dtype=tl.float32)
        o = tl.zeros([BM, D], dtype=tl.float32)
        started = rows < 0  # all false
        for b in range(0, tl.cdiv(nmax, 64)):
            keys = b * 64 + cols
            member = keys[None, :] < n[:, None]
            has = tl.max(member.to(tl.int32), axis=1) > 0
            k_rows = K + (k0 + keys).to(tl.int64) * sk_row + g * sk_head
            # 1. scores: one chain over d from +0 per (row, key)
            s = tl.zeros([BM, 64], dtype=tl.float32)
            for d in range(D):
                qd = tl.load(q_rows + d, mask=row_ok, other=0.0).to(tl.float32)
                kd = tl.load(k_rows + d, mask=keys < lk, other=0.0).to(tl.float32)
                s = tl.fma(qd[:, None], kd[None, :], s)
            t = s * scale
            # 2. block max over members (maxNum), 3. p
            nan = tl.full([BM, 64], CANONICAL_NAN_BITS, tl.int32).to(tl.float32, bitcast=True)
            mb = tl.max(tl.where(member, t, nan), axis=1)
            m_new = tl.where(started, tl.maximum(m, mb), mb)
            p = tl.where(member, _exp(t - m_new[:, None], LIBM_ID), 0.0)
            # 4. rescale (later blocks), or l = +0 (the first block with a member)
            alpha = _exp(m - m_new, LIBM_ID)
            resc = started & has
            l = tl.where(resc, l * alpha, tl.where(has, 0.0, l))
            o = tl.where(resc[:, None], o * alpha[:, None], o)
            tl.store(scratch + r[:, None] * 64 + cols[None, :], p)
            tl.debug_barrier()
            for j in range(64):
                key = b * 64 + j
                pj = tl.load(scratch + r * 64 + j)
                mj = key < n
                vj = tl.load(V + (k0 + key) * sv_row + g * sv_head + dcols, mask=(dcols < D) & (key < lk),
                             other=0.0).to(tl.float32)
                l = tl.where(mj, l + pj, l)
                o = tl.where(mj[:, None], tl.fma(pj[:, None], vj[None, :], o), o)
            tl.debug_barrier()  # every thread has read the scratch before the next block writes it
            m = tl.where(has, m_new, m)
            started = started | has
        # 5. finish
        neg_inf = tl.full([BM], NEG_INF_BITS, tl.int32).to(tl.float32, bitcast=True)
        lse = tl.where(started, m + _log(l, LIBM_ID), neg_inf)
        o = tl.where(started[:, None], tl.math.div_rn(o, l[:, None] + tl.zeros([BM, D], dtype=tl.float32)), 0.0)
        o = _canonical(o)
        o_ptr = O + (q0 + rows).to(tl.int64)[:, None] * so_row + h * so_head + dcols[None, :]
        tl.store(o_ptr, o.to(O.dtype.element_ty), mask=row_ok[:, None])
        tl.store(LSE + (q0 + rows).to(tl.int64) * tl.num_programs(1) + h, _canonical(lse), mask=row_ok)


@triton.jit
def _attention_bwd_delta(DO, O, DELTA, total_q, sdo_row, sdo_head, so_row, so_head, HQ: tl.constexpr,
                         D: tl.constexpr, BR: tl.constexpr):
    """delta[i, h] = dO . o over d in order from +0 (the stored o)."""
    task = tl.program_id(0) * BR + tl.arange(0, BR)
    ok = task < total_q * HQ
    i = (task // HQ).to(tl.int64)
    h = task % HQ
    acc = tl.zeros([BR], dtype=tl.float32)
    for d in range(D):
        x = tl.load(DO + i * sdo_row + h * sdo_head + d, mask=ok, other=0.0).to(tl.float32)
        y = tl.load(O + i * so_row + h * so_head + d, mask=ok, other=0.0).to(tl.float32)
        acc = tl.fma(x, y, acc)
    tl.store(DELTA + task, acc, mask=ok)


@triton.jit
def _attention_bwd_dq(Q, K, V, DO, LSE, DELTA, DQ, SCRATCH, CU_Q, CU_K,
                      sq_row, sq_head, sk_row, sk_head, sv_row, sv_head, sdo_row, sdo_head, sdq_row, sdq_head,
                      scale, G: tl.constexpr, D: tl.constexpr, BM: tl.constexpr, CAUSAL: tl.constexpr,
                      LIBM_ID: tl.constexpr):
    """dq per row: over the list's members in order, acc = fma(ds, k, acc); dq = mul(acc, scale)."""
    mblk = tl.program_id(0)
    h = tl.program_id(1)
    seq = tl.program_id(2)
    hq = tl.num_programs(1)
    q0 = tl.load(CU_Q + seq).to(tl.int64)
    lq = (tl.load(CU_Q + seq + 1) - tl.load(CU_Q + seq))
    k0 = tl.load(CU_K + seq).to(tl.int64)
    lk = (tl.load(CU_K + seq + 1) - tl.load(CU_K + seq))
    if mblk * BM < lq:
        g = h // G
        r = tl.arange(0, BM)
        rows = mblk * BM + r
        row_ok = rows < lq
        n = _list_length(rows, lq, lk, CAUSAL)
        nmax = tl.max(n, axis=0)
        cols = tl.arange(0, 64)
        dcols = tl.arange(0, D)
        pid = tl.program_id(0) + tl.num_programs(0) * (tl.program_id(1) + tl.num_programs(1) * tl.program_id(2))
        scratch = SCRATCH + pid.to(tl.int64) * BM * 64
        grow = (q0 + rows).to(tl.int64)
        q_rows = Q + grow * sq_row + h * sq_head
        do_rows = DO + grow * sdo_row + h * sdo_head
        lse = tl.load(LSE + grow * hq + h, mask=row_ok, other=0.0)
        delta = tl.load(DELTA + grow * hq + h, mask=row_ok, other=0.0)
        acc = tl.zeros([BM, D], dtype=tl.float32)
        for b in range(0, tl.cdiv(nmax, 64)):
            keys = b * 64 + cols
            member = keys[None, :] < n[:, None]
            k_rows = K + (k0 + keys).to(tl.int64) * sk_row + g * sk_head
            v_rows = V + (k0 + keys).to(tl.int64) * sv_row + g * sv_head
            s = tl.zeros([BM, 64], dtype=tl.float32)
            dp = tl.zeros([BM, 64], dtype=tl.float32)
            for d in range(D):
                qd = tl.load(q_rows + d, mask=row_ok, other=0.0).to(tl.float32)
                dod = tl.load(do_rows + d, mask=row_ok, other=0.0).to(tl.float32)
                kd = tl.load(k_rows + d, mask=keys < lk, other=0.0).to(tl.float32)
                vd = tl.load(v_rows + d, mask=keys < lk, other=0.0).to(tl.float32)
                s = tl.fma(qd[:, None], kd[None, :], s)
                dp = tl.fma(dod[:, None], vd[None, :], dp)
            p = _exp(s * scale - lse[:, None], LIBM_ID)
            ds = tl.where(member, p * (dp - delta[:, None]), 0.0)
            tl.store(scratch + r[:, None] * 64 + cols[None, :], ds)
            tl.debug_barrier()
            for j in range(64):
                key = b * 64 + j
                dsj = tl.load(scratch + r * 64 + j)
                mj = key < n
                kj = tl.load(K + (k0 + key) * sk_row + g * sk_head + dcols, mask=(dcols < D) & (key < lk),
                             other=0.0).to(tl.float32)
                acc = tl.where(mj[:, None], tl.fma(dsj[:, None], kj[None, :], acc), acc)
            tl.debug_barrier()
        dq = _canonical(acc * scale)
        tl.store(DQ + grow[:, None] * sdq_row + h * sdq_head + dcols[None, :], dq.to(DQ.dtype.element_ty),
                 mask=row_ok[:, None])


@triton.jit
def _attention_bwd_dkv(Q, K, V, DO, LSE, DELTA, AK, AV, SCRATCH, CU_Q, CU_K,
                       sq_row, sq_head, sk_row, sk_head, sv_row, sv_head, sdo_row, sdo_head,
                       scale, G: tl.constexpr, D: tl.constexpr, BM: tl.constexpr, CAUSAL: tl.constexpr,
                       LIBM_ID: tl.constexpr):
    """Per (64-key block, query head): A_K, A_V from +0 over the query rows in ascending order
    (rows whose list does not hold the key skipped), written fp32 to AK, AV [total_k, HQ, D]."""
    kblk = tl.program_id(0)
    h = tl.program_id(1)
    seq = tl.program_id(2)
    hq = tl.num_programs(1)
    q0 = tl.load(CU_Q + seq).to(tl.int64)
    lq = (tl.load(CU_Q + seq + 1) - tl.load(CU_Q + seq))
    k0 = tl.load(CU_K + seq).to(tl.int64)
    lk = (tl.load(CU_K + seq + 1) - tl.load(CU_K + seq))
    if kblk * 64 < lk:
        g = h // G
        c = tl.arange(0, 64)
        keys = kblk * 64 + c
        key_ok = keys < lk
        rr = tl.arange(0, BM)
        dcols = tl.arange(0, D)
        pid = tl.program_id(0) + tl.num_programs(0) * (tl.program_id(1) + tl.num_programs(1) * tl.program_id(2))
        scratch = SCRATCH + pid.to(tl.int64) * BM * 64 * 2
        gkey = (k0 + keys).to(tl.int64)
        k_rows = K + gkey * sk_row + g * sk_head
        v_rows = V + gkey * sv_row + g * sv_head
        ak = tl.zeros([64, D], dtype=tl.float32)
        av = tl.zeros([64, D], dtype=tl.float32)
        for i0 in range(0, lq, BM):
            rows = i0 + rr
            row_ok = rows < lq
            n = _list_length(rows, lq, lk, CAUSAL)
            member = keys[None, :] < n[:, None]  # [BM rows, 64 keys]
            grow = (q0 + rows).to(tl.int64)
            q_rows = Q + grow * sq_row + h * sq_head
            do_rows = DO + grow * sdo_row + h * sdo_head
            lse = tl.load(LSE + grow * hq + h, mask=row_ok, other=0.0)
            delta = tl.load(DELTA + grow * hq + h, mask=row_ok, other=0.0)
            s = tl.zeros([BM, 64], dtype=tl.float32)
            dp = tl.zeros([BM, 64], dtype=tl.float32)
            for d in range(D):
                qd = tl.load(q_rows + d, mask=row_ok, other=0.0).to(tl.float32)
                dod = tl.load(do_rows + d, mask=row_ok, other=0.0).to(tl.float32)
                kd = tl.load(k_rows + d, mask=key_ok, other=0.0).to(tl.float32)
                vd = tl.load(v_rows + d, mask=key_ok, other=0.0).to(tl.float32)
                s = tl.fma(kd[None, :], qd[:, None], s)  # dot(k, q): the reference's operand order
                dp = tl.fma(vd[None, :], dod[:, None], dp)
            p = tl.where(member, _exp(s * scale - lse[:, None], LIBM_ID), 0.0)
            ds = tl.where(member, p * (dp - delta[:, None]), 0.0)
            tl.store(scratch + rr[:, None] * 64 + c[None, :], p)
            tl.store(scratch + BM * 64 + rr[:, None] * 64 + c[None, :], ds)
            tl.debug_barrier()
            for x in range(BM):
                row = i0 + x
                if row < lq:
                    grow1 = q0 + row
                    px = tl.load(scratch + x * 64 + c)
                    dsx = tl.load(scratch + BM * 64 + x * 64 + c)
                    mx = keys < _list_length(tl.zeros_like(c) + row, lq, lk, CAUSAL)
                    qx = tl.load(Q + grow1 * sq_row + h * sq_head + dcols).to(tl.float32)
                    dox = tl.load(DO + grow1 * sdo_row + h * sdo_head + dcols).to(tl.float32)
                    av = tl.where(mx[:, None], tl.fma(px[:, None], dox[None, :], av), av)
                    ak = tl.where(mx[:, None], tl.fma(dsx[:, None], qx[None, :], ak), ak)
            tl.debug_barrier()
        out = gkey[:, None] * (hq * D) + h * D + dcols[None, :]
        tl.store(AK + out, ak, mask=key_ok[:, None])
        tl.store(AV + out, av, mask=key_ok[:, None])


@triton.jit
def _attention_bwd_fold(AK, AV, DK, DV, total_k, sdk_row, sdk_head, sdv_row, sdv_head, scale,
                        G: tl.constexpr, HKV: tl.constexpr, D: tl.constexpr, BR: tl.constexpr):
    """Per (key, kv head): R = A[h0]; R = add(R, A[h]) in head order; dk = mul(R_K, scale), dv = R_V."""
    task = tl.program_id(0) * BR + tl.arange(0, BR)
    ok = task < total_k * HKV
    j = (task // HKV).to(tl.int64)
    g = task % HKV
    dcols = tl.arange(0, D)
    hq = HKV * G
    base = j[:, None] * (hq * D) + (g * G)[:, None] * D + dcols[None, :]
    rk = tl.load(AK + base, mask=ok[:, None], other=0.0)
    rv = tl.load(AV + base, mask=ok[:, None], other=0.0)
    for hh in range(1, G):
        rk = rk + tl.load(AK + base + hh * D, mask=ok[:, None], other=0.0)
        rv = rv + tl.load(AV + base + hh * D, mask=ok[:, None], other=0.0)
    dk = _canonical(rk * scale)
    dv = _canonical(rv)
    tl.store(DK + j[:, None] * sdk_row + g[:, None] * sdk_head + dcols[None, :], dk.to(DK.dtype.element_ty),
             mask=ok[:, None])
    tl.store(DV + j[:, None] * sdv_row + g[:, None] * sdv_head + dcols[None, :], dv.to(DV.dtype.element_ty),
             mask=ok[:, None])


# ---- host side ---------------------------------------------------------------------------------

def default_scale(d):
    """The binary32 nearest 1/sqrt(d) (attention.md §3)."""
    return float(torch.tensor(1.0 / (d ** 0.5), dtype=torch.float64).to(torch.float32))


def _check(q, k, v, cu_q, cu_k):
    for name, x in (("q", q), ("k", k), ("v", v)):
        if x.dim() != 3 or x.stride(-1) != 1:
            raise ValueError(f"samebits.triton attention: {name} must be [rows, heads, D] with D contiguous")
        if not x.is_cuda:
            raise ValueError(f"samebits.triton attention: {name} must be on a CUDA device")
    if q.dtype != k.dtype or q.dtype != v.dtype or q.dtype not in (torch.bfloat16, torch.float16, torch.float32):
        raise ValueError("samebits.triton attention: q, k, v must share one dtype of bfloat16, float16, float32")
    d = q.shape[2]
    if d not in (64, 128) or k.shape[2] != d or v.shape[2] != d:
        raise ValueError(f"samebits.triton attention: head dim must be 64 or 128 (got {d})")
    if q.shape[1] % k.shape[1] != 0 or k.shape[1] != v.shape[1]:
        raise ValueError("samebits.triton attention: query heads must be a multiple of kv heads")
    if cu_q.dtype != torch.int32 or cu_k.dtype != torch.int32 or cu_q.shape != cu_k.shape:
        raise ValueError("samebits.triton attention: cu_seqlens must be int32 of one length")


def attention_forward(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, *, causal, scale=None, libm="nvcc",
                      out_dtype=None, block_m=32):
    """o [total_q, Hq, D] (q's dtype, or out_dtype), lse [total_q, Hq] fp32."""
    _check(q, k, v, cu_seqlens_q, cu_seqlens_k)
    total_q, hq, d = q.shape
    hkv = k.shape[1]
    scale = default_scale(d) if scale is None else scale
    o = torch.empty(total_q, hq, d, device=q.device, dtype=out_dtype or q.dtype)
    lse = torch.empty(total_q, hq, device=q.device, dtype=torch.float32)
    nseq = cu_seqlens_q.numel() - 1
    grid = (triton.cdiv(max(max_seqlen_q, 1), block_m), hq, nseq)
    scratch = torch.empty(grid[0] * grid[1] * grid[2] * block_m * 64, device=q.device, dtype=torch.float32)
    _attention_fwd[grid](q, k, v, o, lse, scratch, cu_seqlens_q, cu_seqlens_k,
                         q.stride(0), q.stride(1), k.stride(0), k.stride(1), v.stride(0), v.stride(1),
                         o.stride(0), o.stride(1), scale, G=hq // hkv, D=d, BM=block_m, CAUSAL=bool(causal),
                         LIBM_ID=LIBM[libm], enable_fp_fusion=False)
    return o, lse


def attention_backward(q, k, v, o, do, lse, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, *, causal,
                       scale=None, libm="nvcc", grad_dtype=None, block_m=32):
    """dq, dk, dv (q's dtype, or grad_dtype) from the forward's o as stored and its lse."""
    _check(q, k, v, cu_seqlens_q, cu_seqlens_k)
    total_q, hq, d = q.shape
    total_k, hkv = k.shape[0], k.shape[1]
    scale = default_scale(d) if scale is None else scale
    gd = grad_dtype or q.dtype
    nseq = cu_seqlens_q.numel() - 1
    delta = torch.empty(total_q, hq, device=q.device, dtype=torch.float32)
    br = 128
    _attention_bwd_delta[(triton.cdiv(total_q * hq, br),)](do, o, delta, total_q, do.stride(0), do.stride(1),
                                                            o.stride(0), o.stride(1), HQ=hq, D=d, BR=br,
                                                            enable_fp_fusion=False)
    dq = torch.empty(total_q, hq, d, device=q.device, dtype=gd)
    grid = (triton.cdiv(max(max_seqlen_q, 1), block_m), hq, nseq)
    scratch = torch.empty(grid[0] * grid[1] * grid[2] * block_m * 64, device=q.device, dtype=torch.float32)
    _attention_bwd_dq[grid](q, k, v, do, lse, delta, dq, scratch, cu_seqlens_q, cu_seqlens_k,
                            q.stride(0), q.stride(1), k.stride(0), k.stride(1), v.stride(0), v.stride(1),
                            do.stride(0), do.stride(1), dq.stride(0), dq.stride(1), scale, G=hq // hkv, D=d,
                            BM=block_m, CAUSAL=bool(causal), LIBM_ID=LIBM[libm], enable_fp_fusion=False)
    ak = torch.zeros(total_k, hq, d, device=q.device, dtype=torch.float32)
    av = torch.zeros(total_k, hq, d, device=q.device, dtype=torch.float32)
    grid = (triton.cdiv(max(max_seqlen_k, 1), 64), hq, nseq)
    scratch = torch.empty(grid[0] * grid[1] * grid[2] * block_m * 64 * 2, device=q.device, dtype=torch.float32)
    _attention_bwd_dkv[grid](q, k, v, do, lse, delta, ak, av, scratch, cu_seqlens_q, cu_seqlens_k,
                             q.stride(0), q.stride(1), k.stride(0), k.stride(1), v.stride(0), v.stride(1),
                             do.stride(0), do.stride(1), scale, G=hq // hkv, D=d, BM=block_m,
                             CAUSAL=bool(causal), LIBM_ID=LIBM[libm], enable_fp_fusion=False)
    dk = torch.empty(total_k, hkv, d, device=q.device, dtype=gd)
    dv = torch.empty(total_k, hkv, d, device=q.device, dtype=gd)
    br = 32
    _attention_bwd_fold[(triton.cdiv(total_k * hkv, br),)](ak, av, dk, dv, total_k, dk.stride(0), dk.stride(1),
                                                            dv.stride(0), dv.stride(1), scale, G=hq // hkv,
                                                            HKV=hkv, D=d, BR=br, enable_fp_fusion=False)
    return dq, dk, dv
