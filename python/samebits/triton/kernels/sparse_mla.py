"""Triton core of the sparse MLA forward (docs/kernels/sparse_mla.md §3 = attention.md §4 on slot
lists, policy fma-chain/1, B = 64): o, the sink-inclusive lse and the sink-exclusive lse_excl,
the same operations in the same order as the CPU reference and the CUDA kernels.

A row is (token t, head h); its list is the token's top-k slots, -1 a hole (no load, no
arithmetic). The chains and loops are written as in samebits.triton.kernels.attention (see its
docstring). Indices must be valid (-1 .. num_kv - 1): the C++ host API checks them (a device flag
and a validating mode); this core treats an out-of-range index as a hole and does not report it.
Verified on the device by tests/device/triton/triton_attention.py (not yet run when this was
written)."""
import torch
import triton
import triton.language as tl

from .attention import CANONICAL_NAN_BITS, LIBM, NEG_INF_BITS, _canonical, _exp, _log, default_scale


@triton.jit
def _sparse_mla_fwd(Q, KV, IDX, SINK, O, LSE, LSE_EXCL, SCRATCH, heads, topk, num_kv,
                    sq_row, sq_head, skv_row, sidx_row, so_row, so_head, scale,
                    D: tl.constexpr, BH: tl.constexpr, HAS_SINK: tl.constexpr, LIBM_ID: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    hb = tl.program_id(1)
    r = tl.arange(0, BH)
    hs = hb * BH + r
    h_ok = hs < heads
    cols = tl.arange(0, 64)
    dcols = tl.arange(0, D)
    pid = tl.program_id(0) + tl.num_programs(0) * tl.program_id(1)
    scratch = SCRATCH + pid.to(tl.int64) * BH * 64
    q_rows = Q + t * sq_row + hs.to(tl.int64) * sq_head
    m = tl.zeros([BH], dtype=tl.float32)
    l = tl.zeros([BH], dtype=tl.float32)
    o = tl.zeros([BH, D], dtype=tl.float32)
    started = hs < 0  # all false: one list for every head of the token
    for b in range(0, tl.cdiv(topk, 64)):
        slots = b * 64 + cols
        idx = tl.load(IDX + t * sidx_row + slots, mask=slots < topk, other=-1)
        member = (idx >= 0) & (idx < num_kv)
        has = tl.max(member.to(tl.int32), axis=0) > 0
        if has:  # a block with no member is skipped (§2)
            kv_rows = KV + tl.where(member, idx, 0).to(tl.int64) * skv_row
            s = tl.zeros([BH, 64], dtype=tl.float32)
            for d in range(D):
                qd = tl.load(q_rows + d, mask=h_ok, other=0.0).to(tl.float32)
                kd = tl.load(kv_rows + d, mask=member, other=0.0).to(tl.float32)
                s = tl.fma(qd[:, None], kd[None, :], s)
            tv = s * scale
            nan = tl.full([BH, 64], CANONICAL_NAN_BITS, tl.int32).to(tl.float32, bitcast=True)
            mb = tl.max(tl.where(member[None, :], tv, nan), axis=1)
            m_new = tl.where(started, tl.maximum(m, mb), mb)
            p = tl.where(member[None, :], _exp(tv - m_new[:, None], LIBM_ID), 0.0)
            alpha = _exp(m - m_new, LIBM_ID)
            l = tl.where(started, l * alpha, 0.0)
            o = tl.where(started[:, None], o * alpha[:, None], o)
            tl.store(scratch + r[:, None] * 64 + cols[None, :], p)
            tl.debug_barrier()
            for j in range(64):
                slot = b * 64 + j
                i = tl.load(IDX + t * sidx_row + slot, mask=slot < topk, other=-1)
                if (i >= 0) & (i < num_kv):
                    pj = tl.load(scratch + r * 64 + j)
                    vj = tl.load(KV + i.to(tl.int64) * skv_row + dcols).to(tl.float32)
                    l = l + pj
                    o = tl.fma(pj[:, None], vj[None, :], o)
            tl.debug_barrier()
            m = m_new
            started = hs >= 0  # all true
    neg_inf = tl.full([BH], NEG_INF_BITS, tl.int32).to(tl.float32, bitcast=True)
    lse_excl = tl.where(started, m + _log(l, LIBM_ID), neg_inf)
    if HAS_SINK:
        sigma = tl.load(SINK + hs, mask=h_ok, other=0.0)
        m_f = tl.maximum(m, sigma)
        alpha_f = _exp(m - m_f, LIBM_ID)
        l_f = l * alpha_f + _exp(sigma - m_f, LIBM_ID)
        o = tl.where(started[:, None], o * alpha_f[:, None], o)
        lse = tl.where(started, m_f + _log(l_f, LIBM_ID), sigma)
        l = l_f
    else:
        lse = lse_excl
    o = tl.where(started[:, None], tl.math.div_rn(o, l[:, None] + tl.zeros([BH, D], dtype=tl.float32)), 0.0)
    o = _canonical(o)
    tl.store(O + t * so_row + hs.to(tl.int64)[:, None] * so_head + dcols[None, :], o.to(O.dtype.element_ty),
             mask=h_ok[:, None])
    tl.store(LSE + t * heads + hs, _canonical(lse), mask=h_ok)
    tl.store(LSE_EXCL + t * heads + hs, _canonical(lse_excl), mask=h_ok)


def sparse_mla_forward(q, kv, indices, *, attn_sink=None, scale=None, libm="nvcc", out_dtype=None, block_h=32):
    """o [T, H, D], lse [T, H] (sink-inclusive), lse_excl [T, H] (sink-exclusive)."""
    if q.dim() != 3 or kv.dim() != 2 or indices.dim() != 2:
        raise ValueError("samebits.triton sparse_mla: q [T, H, D], kv [num_kv, D], indices [T, topk]")
    if q.stride(-1) != 1 or kv.stride(-1) != 1 or indices.stride(-1) != 1:
        raise ValueError("samebits.triton sparse_mla: the last dimension must be contiguous")
    if q.dtype != kv.dtype or q.dtype not in (torch.bfloat16, torch.float32):
        raise ValueError("samebits.triton sparse_mla: q and kv must share one dtype of bfloat16, float32")
    if indices.dtype != torch.int32:
        raise ValueError("samebits.triton sparse_mla: indices must be int32")
    T, H, D = q.shape
    if D not in (128, 512) or kv.shape[1] != D or indices.shape[0] != T:
        raise ValueError(f"samebits.triton sparse_mla: D must be 512 (128 for tests), got {D}")
    if attn_sink is not None and (attn_sink.dtype != torch.float32 or attn_sink.shape != (H,)):
        raise ValueError("samebits.triton sparse_mla: attn_sink must be float32 [H]")
    topk = indices.shape[1]
    scale = default_scale(D) if scale is None else scale
    o = torch.empty(T, H, D, device=q.device, dtype=out_dtype or q.dtype)
    lse = torch.empty(T, H, device=q.device, dtype=torch.float32)
    lse_excl = torch.empty_like(lse)
    grid = (T, triton.cdiv(H, block_h))
    scratch = torch.empty(grid[0] * grid[1] * block_h * 64, device=q.device, dtype=torch.float32)
    sink = attn_sink if attn_sink is not None else lse  # unused without a sink
    _sparse_mla_fwd[grid](q, kv, indices, sink, o, lse, lse_excl, scratch, H, topk, kv.shape[0],
                          q.stride(0), q.stride(1), kv.stride(0), indices.stride(0), o.stride(0), o.stride(1), scale,
                          D=D, BH=block_h, HAS_SINK=attn_sink is not None, LIBM_ID=LIBM[libm],
                          enable_fp_fusion=False)
    return o, lse, lse_excl
