/* samebits/kernels/c_api.h — the kernels' C ABI: plain pointers, shapes,
 * strides, dtype codes, a stream, and status codes with a message. What a
 * Python process (ctypes) or any other language calls; the C++ host API
 * (samebits/kernels/attention/api.hpp) is behind it.
 *
 * Conventions
 *  - Every function returns a status code (SAMEBITS_OK = 0); on failure,
 *    samebits_last_error() returns the message of the last failing call on
 *    the calling thread (it names the argument). A call that fails launched
 *    nothing and wrote nothing. The rules are the C++ host API's, checked by
 *    its one validation (kernels/src/validate/); samebits_attention_check and
 *    samebits_sparse_mla_check answer for a problem without launching, with
 *    the same message a call would give.
 *  - Tensors [rows, heads, D] are given as a data pointer plus row and head
 *    strides in ELEMENTS; the last dimension must be contiguous.
 *  - cu_seqlens are given twice: the device arrays the kernels read, and host
 *    copies that the validation reads (no device-to-host copy on the hot path,
 *    so a call can be captured in a CUDA graph).
 *  - Outputs do not overlap: the bytes from an output's first to its last
 *    element (pointer, strides, shape) share none with an input's or another
 *    output's, else SAMEBITS_INVALID_ARGUMENT naming both ("o overlaps q").
 *    The backward's accum_k_in / accum_v_in may be exactly its workspace's
 *    accum_k / accum_v (in place).
 *  - scale: NaN (SAMEBITS_DEFAULT_SCALE) is "not given": the binary32 nearest
 *    1/sqrt(d). A given scale is finite and > 0; 0, infinities and negative
 *    values are refused (SAMEBITS_INVALID_ARGUMENT naming scale), 0 is never
 *    read as the default.
 *  - Codes below are stable: never renumbered.
 */
#ifndef SAMEBITS_KERNELS_C_API_H
#define SAMEBITS_KERNELS_C_API_H

#include <math.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version 2: samebits_attention_problem gained `policy` and `mma` (appended),
 * and samebits_attention_problem_fingerprint was added. Version 3: scale 0 is
 * refused (the default is NaN, SAMEBITS_DEFAULT_SCALE); overlapping outputs are
 * refused; samebits_attention_check, samebits_sparse_mla_check and
 * samebits_code_name were added. */
#define SAMEBITS_C_ABI_VERSION 3

/* The scale that means "not given": the binary32 nearest 1/sqrt(d). */
#define SAMEBITS_DEFAULT_SCALE NAN

enum samebits_status {
  SAMEBITS_OK = 0,
  SAMEBITS_INVALID_ARGUMENT = 1,
  SAMEBITS_UNSUPPORTED = 2,
  SAMEBITS_CUDA_ERROR = 3,
  SAMEBITS_NOT_BUILT = 4 /* this library was built without the GPU kernels (returned by a call that
                            passed the whole validation: the other codes say what was refused) */
};
enum samebits_dtype { SAMEBITS_F32 = 0, SAMEBITS_BF16 = 1, SAMEBITS_F16 = 2 };
/* NVCC: CUDA's expf/logf; CR: correctly rounded; NVCC_FAST: expf/logf as nvcc -use_fast_math
 * compiles them (one FMUL and one MUFU.EX2 an exponential), the sm90-tensor-core policy only
 * (docs/kernels/attention-tc.md §23; the fma-chain policy and sparse MLA refuse it). */
enum samebits_libm { SAMEBITS_LIBM_NVCC = 0, SAMEBITS_LIBM_CR = 1, SAMEBITS_LIBM_NVCC_FAST = 2 };
/* The attention contract's arithmetic policies (docs/kernels/attention.md §7):
 * fma-chain/1, and sm90-tensor-core/1 (docs/kernels/attention-tc.md: every
 * product through the tensor-core model; bf16/fp16 inputs; CPU reference only
 * for now: the GPU entry points refuse it). */
enum samebits_policy { SAMEBITS_POLICY_FMA_CHAIN = 0, SAMEBITS_POLICY_SM90_TENSOR_CORE = 1 };
/* The code tables samebits_code_name reads. The enums above restate the C++
 * ones (contract.hpp, dtype.hpp, api.hpp; static_asserts in kernels/src/capi/),
 * and a binding reads the names from the library rather than restating them. */
enum samebits_code_kind {
  SAMEBITS_CODE_STATUS = 0, /* "ok", "invalid_argument", "unsupported", "cuda_error", "not_built" */
  SAMEBITS_CODE_DTYPE = 1,  /* "float32", "bfloat16", "float16" */
  SAMEBITS_CODE_LIBM = 2,   /* "nvcc", "cr", "nvcc-fast" */
  SAMEBITS_CODE_POLICY = 3  /* "fma-chain", "sm90-tensor-core" */
};

/* The tensor-core model's parameters (samebits::mma::sm90::Params,
 * docs/kernels/mma.md §2), codes as that header's enums. The alignment
 * exponent's floor (Params::emax_floor) is not among them: always the
 * measured -133 here. */
typedef struct samebits_mma_params {
  int32_t frac_bits;        /* F, 1..40 (default 25) */
  int32_t group;            /* products per fused step, divides 16 (default 16) */
  int32_t rounding;         /* 0 toward zero (default), 1 nearest even */
  int32_t c_join;           /* 0 C fused with the first group (default), 1 after the products */
  int32_t zero_exponent;    /* 0 format_min, 1 ignored (default), 2 fixed at -126 */
  int32_t product_exponent; /* 0 raw (default), 1 normalized */
  int32_t zero_sign;        /* 0 ieee, 1 positive (default) */
  int32_t overflow;         /* 0 infinity (default), 1 saturate */
} samebits_mma_params;

typedef struct samebits_tensor3 {
  void* data;
  int64_t row_stride;  /* elements */
  int64_t head_stride; /* elements */
} samebits_tensor3;

typedef struct samebits_attention_problem {
  int32_t num_seqs;
  int32_t max_seqlen_q, max_seqlen_k;
  int64_t total_q, total_k;
  int32_t hq, hkv, d;
  int32_t causal;        /* 0 or 1, bottom-right aligned */
  float scale;           /* NaN (SAMEBITS_DEFAULT_SCALE): binary32 nearest 1/sqrt(d); else finite, > 0 */
  int32_t in_dtype;      /* q, k, v, dO */
  int32_t o_dtype;       /* o: in_dtype or SAMEBITS_F32 */
  int32_t grad_dtype;    /* dq, dk, dv: in_dtype or SAMEBITS_F32 */
  int32_t libm;          /* samebits_libm */
  const int32_t* cu_seqlens_q;      /* device, num_seqs + 1 */
  const int32_t* cu_seqlens_k;      /* device, num_seqs + 1 */
  const int32_t* cu_seqlens_q_host; /* host copies, num_seqs + 1 */
  const int32_t* cu_seqlens_k_host;
  int32_t policy;                   /* samebits_policy; 0 (fma-chain) in a zeroed struct */
  const samebits_mma_params* mma;   /* sm90-tensor-core: the model's parameters, null: its defaults;
                                       must be null under fma-chain */
} samebits_attention_problem;

int32_t samebits_c_abi_version(void);
const char* samebits_last_error(void);
/* 1 when the GPU kernels are compiled into this library. */
int32_t samebits_has_cuda_kernels(void);
/* The name of a code of a samebits_code_kind (a static string), or NULL for a
 * code not in use: what a binding reads at load time instead of restating the
 * enums. */
const char* samebits_code_name(int32_t kind, int32_t code);

/* "samebits-attention/1 policy=fma-chain/1 B=64 libm=nvcc": written into buf
 * (NUL-terminated); returns SAMEBITS_INVALID_ARGUMENT if len is too small. */
int32_t samebits_attention_fingerprint(int32_t libm, char* buf, int64_t len);

/* The fingerprint of the problem's policy (with the model's parameters under
 * sm90-tensor-core) and libm, e.g. "samebits-attention/1 policy=sm90-tc/1(F=25,
 * G=16,R=rz,C=first,Z=ignored,P=raw,S=pos,O=inf,E=-133) Bk=128 libm=nvcc"; reads only
 * policy, mma and libm. */
int32_t samebits_attention_problem_fingerprint(const samebits_attention_problem* p, char* buf, int64_t len);

/* o [total_q, hq, d] in o_dtype; lse [total_q, hq] fp32, natural log.
 * Policy sm90-tensor-core (here and in the backward): the wgmma kernels
 * (compute capability 9.0), bf16/f16 inputs, q/k/v (dout) 16-byte aligned with
 * strides multiples of 8 elements, and mma null or the hardware's parameters
 * (tc::kHardwareParams, the header's defaults); anything else SAMEBITS_UNSUPPORTED. */
int32_t samebits_attention_forward(const samebits_attention_problem* p, samebits_tensor3 q, samebits_tensor3 k,
                                   samebits_tensor3 v, samebits_tensor3 o, float* lse, void* stream);

/* The problem as samebits_attention_forward (backward 0) or
 * samebits_attention_backward (backward 1) checks it, without tensors and
 * without launching: the codes, policy and libm, scale, dtypes (o_dtype;
 * grad_dtype for the backward), d, hq and hkv, num_seqs, the host cu_seqlens,
 * max_seqlen, mma. The device cu_seqlens are not read. SAMEBITS_OK, or the
 * status and message the call would give for these fields (what remains for
 * the call: the tensors, the workspace). */
int32_t samebits_attention_check(const samebits_attention_problem* p, int32_t backward);

/* Bytes of workspace the backward needs:
 * [delta | accum_k | accum_v | dq_accum | dq_flags]: fp32 delta [total_q, hq],
 * the per-head dK/dV accumulators [total_k, hq, d] each (what a context-
 * parallel part hands on), dq's fp32 accumulators [total_q, hq, d] and int32
 * flags [total_q * hq + 1]; each part starts at a multiple of 256 bytes
 * (accum offsets below). The backward clears what it needs cleared. Both
 * return -1 when an argument is negative or the size does not fit int64. */
int64_t samebits_attention_backward_workspace_bytes(int64_t total_q, int64_t total_k, int32_t hq, int32_t d);
int64_t samebits_attention_backward_accum_offset(int64_t total_q, int64_t total_k, int32_t hq, int32_t d,
                                                 int32_t which /* 0: accum_k, 1: accum_v */);

/* Policy sm90-tensor-core: the bytes of a workspace that also holds the
 * stored D^S (docs/kernels/attention-tc.md §21): the parts above, then, from
 * the next multiple of 256 bytes, one 16 KiB tile per (sequence, 64-row query
 * tile, key block of 128, query head), sized by the longest sequences. A
 * backward given at least this many bytes has its dK/dV pass store D^S and
 * its dq pass read it back instead of recomputing it: the same bits, faster,
 * O(hq * max_seqlen_q * max_seqlen_k) bytes (1.1 GB for one sequence of 4096
 * at hq 32). -1 under fma-chain or when the size does not fit int64. Added to
 * C ABI version 2 after its first release: a library built before it lacks it. */
int64_t samebits_attention_backward_stored_ds_workspace_bytes(const samebits_attention_problem* p);

/* dq [total_q, hq, d], dk and dv [total_k, hkv, d] in grad_dtype. o as the
 * forward stored it (o_dtype). accum_k_in / accum_v_in: null, or the fp32
 * accumulators a previous context-parallel part handed on (§5 of the
 * contract); after the call the workspace holds this part's accumulators. */
int32_t samebits_attention_backward(const samebits_attention_problem* p, samebits_tensor3 q, samebits_tensor3 k,
                                    samebits_tensor3 v, samebits_tensor3 o, samebits_tensor3 dout, const float* lse,
                                    samebits_tensor3 dq, samebits_tensor3 dk, samebits_tensor3 dv, void* workspace,
                                    int64_t workspace_bytes, const float* accum_k_in, const float* accum_v_in,
                                    void* stream);

/* The CPU reference (the contract in code) on contiguous binary32 host
 * arrays, for checking: q [total_q, hq, d], k/v [total_k, hkv, d]. threads 0:
 * all cores. The problem's device pointers are ignored, and so are its dtypes
 * under fma-chain; under sm90-tensor-core in_dtype (bf16 or fp16) is the
 * inputs' dtype: every q, k, v, dO value must be one of its values (widened
 * exactly), o_dtype and grad_dtype are ignored. */
int32_t samebits_attention_reference_forward(const samebits_attention_problem* p, const float* q, const float* k,
                                             const float* v, float* o, float* lse, int32_t threads);
int32_t samebits_attention_reference_backward(const samebits_attention_problem* p, const float* q, const float* k,
                                              const float* v, const float* o, const float* dout, const float* lse,
                                              float* dq, float* dk, float* dv, int32_t threads);
/* The reference backward of one part of a split of the query rows (context
 * parallelism, §5 of the contract): accum_k_in / accum_v_in as
 * samebits_attention_backward takes them ([total_k, hq, d]; null: +0), and
 * accum_k_out / accum_v_out [total_k, hq, d] (null: not written) receive this
 * part's per-head accumulators, as the GPU backward leaves them in its
 * workspace. Each pair goes together. Added to C ABI version 1 after its first
 * release: a library built before it lacks it. */
int32_t samebits_attention_reference_backward_handover(const samebits_attention_problem* p, const float* q,
                                                       const float* k, const float* v, const float* o,
                                                       const float* dout, const float* lse, float* dq, float* dk,
                                                       float* dv, const float* accum_k_in, const float* accum_v_in,
                                                       float* accum_k_out, float* accum_v_out, int32_t threads);

/* ---- DeepSeek-V4 sparse MLA (docs/kernels/sparse_mla.md) ----------------
 * q, o, dO, dq [tokens, heads, d] as samebits_tensor3; kv, dkv [num_kv, d]
 * (a pointer and a row stride in elements); indices [tokens, topk] int32
 * (row stride in elements), -1 = hole; lse, lse_excl [tokens, heads] fp32;
 * sink, dsink [heads] fp32. heads 1 .. 1048560, tokens 0 .. 2^31 - 1, num_kv
 * 0 .. 2^31 - 2 (any, more or fewer rows than tokens), topk 1 .. 2^24. */
typedef struct samebits_sparse_mla_problem {
  int64_t tokens, num_kv;
  int32_t heads, d, topk; /* d: 512 (128: the dense-equality instantiation) */
  float scale;            /* NaN (SAMEBITS_DEFAULT_SCALE): binary32 nearest 1/sqrt(d); else finite, > 0 */
  int32_t in_dtype;       /* SAMEBITS_BF16 or SAMEBITS_F32 */
  int32_t o_dtype;        /* in_dtype or SAMEBITS_F32 */
  int32_t grad_dtype;     /* dq, dkv: in_dtype or SAMEBITS_F32 */
  int32_t libm;
  const int32_t* indices; /* device */
  int64_t indices_row_stride;
  const float* sink;      /* device [heads], or null: no sink */
  int32_t* error_flag;    /* device int32 the caller zeroes, or null: kernels raise it on an out-of-range index */
  int64_t chunk_tokens;   /* backward: 0 (default) or a positive multiple of 64 */
  int32_t validate_indices; /* 1: check every index on the host first (a device-to-host copy: not the hot path) */
} samebits_sparse_mla_problem;

/* "samebits-sparse-mla/1 policy=fma-chain/1 B=64 libm=nvcc". */
int32_t samebits_sparse_mla_fingerprint(int32_t libm, char* buf, int64_t len);
/* The problem as samebits_sparse_mla_forward (backward 0) or _backward
 * (backward 1) checks it, without tensors and without launching: libm,
 * dtypes, d, the sizes, scale, validate_indices (and chunk_tokens for the
 * backward). SAMEBITS_OK, or the status and message the call would give. */
int32_t samebits_sparse_mla_check(const samebits_sparse_mla_problem* p, int32_t backward);
/* o in o_dtype; lse sink-inclusive; lse_excl (may be null) sink-exclusive. */
int32_t samebits_sparse_mla_forward(const samebits_sparse_mla_problem* p, samebits_tensor3 q, const void* kv,
                                    int64_t kv_row_stride, samebits_tensor3 o, float* lse, float* lse_excl,
                                    void* stream);
/* Bytes of workspace the backward needs (256-byte aligned); -1 when the sizes
 * are out of range or this library has no GPU kernels. */
int64_t samebits_sparse_mla_backward_workspace_bytes(const samebits_sparse_mla_problem* p);
int32_t samebits_sparse_mla_backward(const samebits_sparse_mla_problem* p, samebits_tensor3 q, const void* kv,
                                     int64_t kv_row_stride, samebits_tensor3 o, samebits_tensor3 dout,
                                     const float* lse, samebits_tensor3 dq, void* dkv, int64_t dkv_row_stride,
                                     float* dsink, void* workspace, int64_t workspace_bytes, void* stream);
/* After the stream ran calls with error_flag: SAMEBITS_INVALID_ARGUMENT when a
 * kernel met an out-of-range index (a 4-byte device-to-host copy). */
int32_t samebits_sparse_mla_check_index_error(const int32_t* error_flag, void* stream);

/* The sparse MLA CPU reference (the contract in code) on contiguous binary32
 * host arrays, for checking: q, o, dO, dq [tokens, heads, d]; kv, dkv
 * [num_kv, d]; lse, lse_excl [tokens, heads]; d_sink [heads]. Here the
 * problem's `indices` (indices_row_stride elements apart) and `sink` (or null)
 * are HOST pointers; its dtypes, error_flag, chunk_tokens and validate_indices
 * are ignored. Sizes are refused as the kernels refuse them; an index outside
 * -1 .. num_kv - 1 is SAMEBITS_INVALID_ARGUMENT naming the token and slot.
 * lse_excl may be null; dsink is required when there is a sink. threads 0:
 * all cores. */
int32_t samebits_sparse_mla_reference_forward(const samebits_sparse_mla_problem* p, const float* q, const float* kv,
                                              float* o, float* lse, float* lse_excl, int32_t threads);
int32_t samebits_sparse_mla_reference_backward(const samebits_sparse_mla_problem* p, const float* q, const float* kv,
                                               const float* o, const float* dout, const float* lse, float* dq,
                                               float* dkv, float* dsink, int32_t threads);

#ifdef __cplusplus
}
#endif

#endif /* SAMEBITS_KERNELS_C_API_H */
