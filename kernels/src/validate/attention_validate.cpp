// kernels/src/validate/attention_validate.cpp — the one validation of the
// attention arguments (attention_validate.hpp). Host-only, no CUDA.
//
// Built with -DSAMEBITS_PLANT_VALIDATION_BUG it accepts hq % hkv != 0, with
// -DSAMEBITS_PLANT_MMA_VALIDATION_BUG it lets an mma enum code past 255 wrap
// into a valid one: the negative controls of the fuzzer (fuzz/meson.build),
// never a real build.
#include "validate/attention_validate.hpp"

#include <cmath>
#include <cstdint>
#include <string>

#include "samebits/kernels/attention/contract.hpp"
#include "samebits/kernels/attention/tensor_core.hpp"

namespace samebits::kernels::attention {

WorkspaceFloats backward_workspace_floats(std::int64_t total_q, std::int64_t total_k, int hq, int d) {
  return WorkspaceFloats{total_q * hq, total_k * hq * d, total_q * hq * d, total_q * hq + 1};
}

std::int64_t backward_ds_workspace_bytes(int num_seqs, int max_seqlen_q, int max_seqlen_k, int hq) {
  if (num_seqs < 0 || max_seqlen_q < 0 || max_seqlen_k < 0 || hq < 0) return -1;
  const std::int64_t tiles = (std::int64_t{max_seqlen_q} + 63) / 64 + 1, blocks = (std::int64_t{max_seqlen_k} + 127) / 128;
  std::int64_t n = num_seqs;
  for (const std::int64_t f : {tiles, blocks, std::int64_t{hq}, std::int64_t{16384}})
    if (__builtin_mul_overflow(n, f, &n)) return -1;
  return n;
}

namespace validate {
namespace {

Status fail(StatusCode c, std::string m) { return Status{c, "samebits attention: " + std::move(m)}; }
Status fail_c(std::int32_t c, std::string m) { return Status{static_cast<StatusCode>(c), std::move(m)}; }
Status ok() { return Status{}; }

bool dtype_known(DType t) { return t == DType::f32 || t == DType::bf16 || t == DType::f16; }
bool dtype_code_known(std::int32_t t) { return t == SAMEBITS_F32 || t == SAMEBITS_BF16 || t == SAMEBITS_F16; }

// a * b + c for non-negative int64 operands; false on overflow.
bool mul_add(std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t* out) {
  std::int64_t m;
  return !__builtin_mul_overflow(a, b, &m) && !__builtin_add_overflow(m, c, out);
}

// The tensor's last byte, ptr + bytes - 1, must not wrap the address space.
bool end_in_address_space(const void* ptr, std::uint64_t bytes) {
  const auto base = reinterpret_cast<std::uintptr_t>(ptr);
  return bytes == 0 || bytes - 1 <= UINTPTR_MAX - base;
}

Status check_address(const void* ptr, bool empty, int align, const char* name, PointerQuery q) {
  if (empty) return ok();
  if (!ptr) return fail(StatusCode::invalid_argument, std::string(name) + " is null");
  if (reinterpret_cast<std::uintptr_t>(ptr) % align != 0)
    return fail(StatusCode::invalid_argument, std::string(name) + " is misaligned for its dtype");
  if (q.kind) {
    switch (q.kind(ptr, q.ctx)) {
      case MemoryKind::device: break;
      case MemoryKind::not_cuda:
        return fail(StatusCode::invalid_argument, std::string(name) + " is not a CUDA pointer");
      default:
        return fail(StatusCode::invalid_argument, std::string(name) + " is not device memory");
    }
  }
  return ok();
}

Status check_o_dtype(DType o, DType in) {
  if (o != in && o != DType::f32) return fail(StatusCode::unsupported, "o dtype must be the input dtype or float32");
  return ok();
}

}  // namespace

// Refuses what the kernels cannot compute exactly as the contract says.
Status check_problem(const ProblemParams& p, HostSeqlens host) {
  if (p.policy != Policy::fma_chain && p.policy != Policy::sm90_tensor_core)
    return fail(StatusCode::unsupported, "policy code unknown");
  if (p.policy == Policy::sm90_tensor_core) {
    if (!tc::dtype_supported(p.in_dtype))
      return fail(StatusCode::unsupported, std::string("policy sm90-tensor-core: input dtype ") +
                                               dtype_name(p.in_dtype) + " is not supported (bf16 or fp16 inputs only)");
    if (p.tile_rows != 0)
      return fail(StatusCode::unsupported, "policy sm90-tensor-core: tile_rows must be 0 (its tiles are 128 positions)");
    if (!tc::same_params(p.mma, tc::kHardwareParams))
      return fail(StatusCode::unsupported,
                  "policy sm90-tensor-core: the GPU computes its own tensor cores' arithmetic, named " +
                      tc::params_string(tc::kHardwareParams) + "; the given mma parameters " +
                      tc::params_string(p.mma) + " describe other arithmetic (the CPU reference computes it)");
  }
  if (p.libm != Libm::nvcc && p.libm != Libm::cr && p.libm != Libm::nvcc_fast)
    return fail(StatusCode::unsupported, "libm code unknown");
  if (p.libm == Libm::nvcc_fast && p.policy != Policy::sm90_tensor_core)
    return fail(StatusCode::unsupported, std::string("libm nvcc-fast is offered by the sm90-tensor-core policy only (policy ") +
                                             policy_long_name(p.policy) + " takes nvcc or cr)");
  if (!dtype_known(p.in_dtype)) return fail(StatusCode::unsupported, "input dtype code unknown");
  if (p.d != 64 && p.d != 128) return fail(StatusCode::unsupported, "head dim D must be 64 or 128");
  if (p.hq <= 0 || p.hkv <= 0) return fail(StatusCode::invalid_argument, "hq and hkv must be positive");
#if !defined(SAMEBITS_PLANT_VALIDATION_BUG)
  if (p.hq % p.hkv != 0) return fail(StatusCode::invalid_argument, "hq must be a multiple of hkv (GQA)");
#endif
  if (p.hq > 65535) return fail(StatusCode::unsupported, "hq above 65535");
  if (p.tile_rows != 0 && p.tile_rows != 64 && p.tile_rows != 128)
    return fail(StatusCode::unsupported, "tile_rows must be 0 (default), 64 or 128");
  if (!std::isfinite(p.scale)) return fail(StatusCode::invalid_argument, "scale must be finite");
  if (p.libm == Libm::nvcc_fast && p.scale < 0.0f)  // attention-tc.md §25
    return fail(StatusCode::unsupported, "libm nvcc-fast needs a scale that is not negative (its base-2 softmax "
                                         "takes the maximum of the unscaled scores)");
  if (p.num_seqs <= 0 || p.num_seqs > 65535) return fail(StatusCode::invalid_argument, "num_seqs must be in 1..65535");
  if (!host.cu_q || !host.cu_k) return fail(StatusCode::invalid_argument, "host copies of cu_seqlens are required");
  if (!p.cu_seqlens_q || !p.cu_seqlens_k) return fail(StatusCode::invalid_argument, "cu_seqlens device pointers are null");
  if (host.cu_q[0] != 0 || host.cu_k[0] != 0) return fail(StatusCode::invalid_argument, "cu_seqlens must start at 0");
  int max_q = 0, max_k = 0;
  for (int s = 0; s < p.num_seqs; ++s) {
    const std::int64_t lq = std::int64_t{host.cu_q[s + 1]} - host.cu_q[s];
    const std::int64_t lk = std::int64_t{host.cu_k[s + 1]} - host.cu_k[s];
    if (lq < 0 || lk < 0)
      return fail(StatusCode::invalid_argument, "cu_seqlens decrease at sequence " + std::to_string(s));
    if (lq > max_q) max_q = static_cast<int>(lq);
    if (lk > max_k) max_k = static_cast<int>(lk);
  }
  if (host.cu_q[p.num_seqs] != p.total_q || host.cu_k[p.num_seqs] != p.total_k)
    return fail(StatusCode::invalid_argument, "cu_seqlens[num_seqs] differs from total_q / total_k");
  if (p.max_seqlen_q < max_q || p.max_seqlen_k < max_k)
    return fail(StatusCode::invalid_argument, "max_seqlen_q / max_seqlen_k below the longest sequence");
  if (p.max_seqlen_q > (1 << 30) || p.max_seqlen_k > (1 << 30))
    return fail(StatusCode::invalid_argument, "max_seqlen above 2^30");
  return ok();
}

// A device (or managed) pointer, aligned to `align` bytes; null only when the
// array is empty.
Status check_pointer(const void* ptr, std::int64_t elements, int align, const char* name, PointerQuery q) {
  if (Status s = check_address(ptr, elements == 0, align, name, q); !s.ok()) return s;
  std::int64_t bytes = 0;
  if (elements > 0 &&
      (!mul_add(elements, 4, 0, &bytes) || !end_in_address_space(ptr, static_cast<std::uint64_t>(bytes))))
    return fail(StatusCode::invalid_argument, std::string(name) + " extends past the end of the address space");
  return ok();
}

// [rows, heads, D] with the last dimension contiguous: the (row, head) spans
// of D elements must not overlap (either stride order, so [heads, rows, D]
// layouts pass), and the largest element offset,
// (rows-1)*row + (heads-1)*head + D-1, must fit kMaxElementOffset (computed
// with overflow checks: strides are any int64 a caller passes).
Status check_tensor(const void* ptr, DType t, Strides st, std::int64_t rows, int heads, int d, const char* name,
                    PointerQuery q) {
  if (Status s = check_address(ptr, rows == 0, dtype_size(t), name, q); !s.ok()) return s;
  if (rows == 0) return ok();
  if (st.row <= 0 || st.head <= 0)
    return fail(StatusCode::invalid_argument, std::string(name) + ": strides must be positive");
  const bool head_inner = st.head <= st.row;
  const std::int64_t inner = head_inner ? st.head : st.row, outer = head_inner ? st.row : st.head;
  const std::int64_t inner_count = head_inner ? heads : rows, outer_count = head_inner ? rows : heads;
  // outer < inner * inner_count, without forming the product (it may overflow).
  if (inner < d || (outer_count > 1 && inner_count > outer / inner))
    return fail(StatusCode::invalid_argument, std::string(name) + ": strides make rows or heads overlap");
  std::int64_t last = d - 1;
  if (!mul_add(rows - 1, st.row, last, &last) || !mul_add(std::int64_t{heads} - 1, st.head, last, &last) ||
      last > kMaxElementOffset)
    return fail(StatusCode::invalid_argument, std::string(name) + ": strides too large");
  if (!end_in_address_space(ptr, static_cast<std::uint64_t>(last + 1) * static_cast<std::uint64_t>(dtype_size(t))))
    return fail(StatusCode::invalid_argument, std::string(name) + ": strides reach past the end of the address space");
  return ok();
}

namespace {
// The sm90-tensor-core kernels copy 16-byte chunks of these tensors' rows
// into shared memory.
struct ChunkedTensor {
  const void* ptr;
  Strides st;
  std::int64_t rows;
  const char* name;
};
Status check_chunked(const ChunkedTensor* t, int n) {
  for (int i = 0; i < n; ++i)
    if (t[i].rows > 0 &&
        (reinterpret_cast<std::uintptr_t>(t[i].ptr) % 16 != 0 || t[i].st.row % 8 != 0 || t[i].st.head % 8 != 0))
      return fail(StatusCode::unsupported, std::string("policy sm90-tensor-core: ") + t[i].name +
                                               " must be 16-byte aligned with row and head strides multiples of 8 "
                                               "elements (its rows are copied in 16-byte chunks)");
  return ok();
}
}  // namespace

Status check_forward(const ForwardParams& p, HostSeqlens host, PointerQuery q) {
  if (Status s = check_problem(p, host); !s.ok()) return s;
  if (Status s = check_o_dtype(p.o_dtype, p.in_dtype); !s.ok()) return s;
  Status s;
  if (!(s = check_tensor(p.q, p.in_dtype, p.q_stride, p.total_q, p.hq, p.d, "q", q)).ok()) return s;
  if (!(s = check_tensor(p.k, p.in_dtype, p.k_stride, p.total_k, p.hkv, p.d, "k", q)).ok()) return s;
  if (!(s = check_tensor(p.v, p.in_dtype, p.v_stride, p.total_k, p.hkv, p.d, "v", q)).ok()) return s;
  if (!(s = check_tensor(p.o, p.o_dtype, p.o_stride, p.total_q, p.hq, p.d, "o", q)).ok()) return s;
  if (!(s = check_pointer(p.lse, p.total_q * p.hq, 4, "lse", q)).ok()) return s;
  if (p.policy == Policy::sm90_tensor_core) {
    const ChunkedTensor t[] = {{p.q, p.q_stride, p.total_q, "q"}, {p.k, p.k_stride, p.total_k, "k"},
                               {p.v, p.v_stride, p.total_k, "v"}};
    if (Status s = check_chunked(t, 3); !s.ok()) return s;
  }
  return ok();
}

Status check_backward(const BackwardParams& p, HostSeqlens host, PointerQuery q) {
  if (Status s = check_problem(p, host); !s.ok()) return s;
  if (Status s = check_o_dtype(p.o_dtype, p.in_dtype); !s.ok()) return s;
  if (p.grad_dtype != p.in_dtype && p.grad_dtype != DType::f32)
    return fail(StatusCode::unsupported, "gradient dtype must be the input dtype or float32");
  Status s;
  const std::int64_t tq = p.total_q, tk = p.total_k;
  if (!(s = check_tensor(p.q, p.in_dtype, p.q_stride, tq, p.hq, p.d, "q", q)).ok()) return s;
  if (!(s = check_tensor(p.k, p.in_dtype, p.k_stride, tk, p.hkv, p.d, "k", q)).ok()) return s;
  if (!(s = check_tensor(p.v, p.in_dtype, p.v_stride, tk, p.hkv, p.d, "v", q)).ok()) return s;
  if (!(s = check_tensor(p.o, p.o_dtype, p.o_stride, tq, p.hq, p.d, "o", q)).ok()) return s;
  if (!(s = check_tensor(p.dout, p.in_dtype, p.dout_stride, tq, p.hq, p.d, "dout", q)).ok()) return s;
  if (!(s = check_tensor(p.dq, p.grad_dtype, p.dq_stride, tq, p.hq, p.d, "dq", q)).ok()) return s;
  if (!(s = check_tensor(p.dk, p.grad_dtype, p.dk_stride, tk, p.hkv, p.d, "dk", q)).ok()) return s;
  if (!(s = check_tensor(p.dv, p.grad_dtype, p.dv_stride, tk, p.hkv, p.d, "dv", q)).ok()) return s;
  // check_problem bounds tq, tk (< 2^31), hq (<= 65535) and d (<= 128): no overflow.
  const WorkspaceFloats w = backward_workspace_floats(tq, tk, p.hq, p.d);
  if (!(s = check_pointer(p.lse, tq * p.hq, 4, "lse", q)).ok()) return s;
  if (!(s = check_pointer(p.delta, w.delta, 4, "delta workspace", q)).ok()) return s;
  if (!(s = check_pointer(p.accum_k, w.accum, 4, "accum_k workspace", q)).ok()) return s;
  if (!(s = check_pointer(p.accum_v, w.accum, 4, "accum_v workspace", q)).ok()) return s;
  if (!(s = check_pointer(p.dq_accum, w.dq_accum, 16, "dq_accum workspace", q)).ok()) return s;
  if (!(s = check_pointer(p.dq_flags, w.dq_flags, 4, "dq_flags workspace", q)).ok()) return s;
  if ((p.accum_k_in == nullptr) != (p.accum_v_in == nullptr))
    return fail(StatusCode::invalid_argument, "accum_k_in and accum_v_in go together");
  if (p.accum_k_in) {
    if (!(s = check_pointer(p.accum_k_in, w.accum, 4, "accum_k_in", q)).ok()) return s;
    if (!(s = check_pointer(p.accum_v_in, w.accum, 4, "accum_v_in", q)).ok()) return s;
  }
  if (p.ds_workspace) {
    if (p.policy != Policy::sm90_tensor_core)
      return fail(StatusCode::invalid_argument, "ds_workspace is used by policy sm90-tensor-core only (set it to null)");
    const std::int64_t need = backward_ds_workspace_bytes(p.num_seqs, p.max_seqlen_q, p.max_seqlen_k, p.hq);
    if (need < 0) return fail(StatusCode::invalid_argument, "ds_workspace: its size overflows int64");
    if (p.ds_workspace_bytes < need)
      return fail(StatusCode::invalid_argument, "ds_workspace holds " + std::to_string(p.ds_workspace_bytes) +
                                                    " bytes, backward_ds_workspace_bytes() needs " + std::to_string(need));
    if (!(s = check_pointer(p.ds_workspace, need / 4, 16, "ds_workspace", q)).ok()) return s;
  }
  if (p.policy == Policy::sm90_tensor_core) {
    const ChunkedTensor t[] = {{p.q, p.q_stride, tq, "q"},
                               {p.k, p.k_stride, tk, "k"},
                               {p.v, p.v_stride, tk, "v"},
                               {p.dout, p.dout_stride, tq, "dout"}};
    if (!(s = check_chunked(t, 4)).ok()) return s;
    // §6: a part that continues handed-on accumulators starts every sequence at a 16-row group.
    if (p.accum_k_in)
      for (int i = 0; i < p.num_seqs; ++i) {
        const std::int64_t a0 = (std::int64_t{host.cu_k[i + 1]} - host.cu_k[i]) - (std::int64_t{host.cu_q[i + 1]} - host.cu_q[i]);
        if (host.cu_q[i + 1] > host.cu_q[i] && ((a0 % tc::kRowGroup) + tc::kRowGroup) % tc::kRowGroup != 0)
          return fail(StatusCode::unsupported,
                      "policy sm90-tensor-core: handed-on dK/dV accumulators need every sequence to start at a " +
                          std::to_string(tc::kRowGroup) + "-row group boundary: sequence " + std::to_string(i) +
                          " starts at query position Lk - Lq = " + std::to_string(a0) + " (split queries at multiples of " +
                          std::to_string(tc::kRowGroup) + " rows)");
      }
  }
  return ok();
}

bool workspace_floats_checked(std::int64_t total_q, std::int64_t total_k, int hq, int d, WorkspaceFloats* out) {
  if (total_q < 0 || total_k < 0 || hq < 0 || d < 0) return false;
  std::int64_t a = 0, b = 0, c = 0, f = 0;
  if (!mul_add(total_q, hq, 0, &a) || !mul_add(total_k, hq, 0, &b) || !mul_add(b, d, 0, &b) ||
      !mul_add(a, d, 0, &c) || !mul_add(a, 1, 1, &f))
    return false;
  *out = WorkspaceFloats{a, b, c, f};
  return true;
}

// --- The C ABI ---

Status check_c_problem(const samebits_attention_problem* p, const char* fn) {
  const std::string where = std::string(fn) + ": ";
  if (!p) return fail_c(SAMEBITS_INVALID_ARGUMENT, where + "problem is null");
  if (p->libm != SAMEBITS_LIBM_NVCC && p->libm != SAMEBITS_LIBM_CR && p->libm != SAMEBITS_LIBM_NVCC_FAST)
    return fail_c(SAMEBITS_UNSUPPORTED,
                  where + "libm code " + std::to_string(p->libm) + " unknown (0 nvcc, 1 cr, 2 nvcc-fast)");
  if (p->policy != SAMEBITS_POLICY_FMA_CHAIN && p->policy != SAMEBITS_POLICY_SM90_TENSOR_CORE)
    return fail_c(SAMEBITS_UNSUPPORTED, where + "policy code " + std::to_string(p->policy) +
                                            " unknown (0 fma-chain, 1 sm90-tensor-core)");
  if (p->mma && p->policy != SAMEBITS_POLICY_SM90_TENSOR_CORE)
    return fail_c(SAMEBITS_INVALID_ARGUMENT, where + "mma is read only by policy sm90-tensor-core (pass null)");
  if (p->mma)
    if (const char* why = mma::sm90::invalid_argument(mma_params_of(p->mma), tc::kGroup))
      return fail_c(SAMEBITS_INVALID_ARGUMENT, where + "mma: " + why);
  if (p->libm == SAMEBITS_LIBM_NVCC_FAST && p->policy != SAMEBITS_POLICY_SM90_TENSOR_CORE)
    return fail_c(SAMEBITS_UNSUPPORTED, where + "libm nvcc-fast is offered by the sm90-tensor-core policy only "
                                                "(policy fma-chain takes nvcc or cr)");
  if (p->d != 64 && p->d != 128)
    return fail_c(SAMEBITS_UNSUPPORTED, where + "d = " + std::to_string(p->d) + " unsupported (64 or 128)");
  if (p->hq <= 0 || p->hkv <= 0 || p->hq % p->hkv != 0)
    return fail_c(SAMEBITS_INVALID_ARGUMENT, where + "hq = " + std::to_string(p->hq) + ", hkv = " +
                                                 std::to_string(p->hkv) + ": need hq % hkv == 0, both positive");
  if (p->causal != 0 && p->causal != 1) return fail_c(SAMEBITS_INVALID_ARGUMENT, where + "causal must be 0 or 1");
  if (!std::isfinite(p->scale) || p->scale < 0)
    return fail_c(SAMEBITS_INVALID_ARGUMENT, where + "scale must be finite and >= 0 (0: default)");
  if (p->num_seqs <= 0) return fail_c(SAMEBITS_INVALID_ARGUMENT, where + "num_seqs must be positive");
  if (!p->cu_seqlens_q_host || !p->cu_seqlens_k_host)
    return fail_c(SAMEBITS_INVALID_ARGUMENT,
                  where + "cu_seqlens_q_host / cu_seqlens_k_host are required (host copies)");
  if (p->cu_seqlens_q_host[0] != 0 || p->cu_seqlens_k_host[0] != 0)
    return fail_c(SAMEBITS_INVALID_ARGUMENT, where + "cu_seqlens must start at 0");
  for (std::int32_t s = 0; s < p->num_seqs; ++s) {
    if (p->cu_seqlens_q_host[s + 1] < p->cu_seqlens_q_host[s])
      return fail_c(SAMEBITS_INVALID_ARGUMENT, where + "cu_seqlens_q decreases at sequence " + std::to_string(s));
    if (p->cu_seqlens_k_host[s + 1] < p->cu_seqlens_k_host[s])
      return fail_c(SAMEBITS_INVALID_ARGUMENT, where + "cu_seqlens_k decreases at sequence " + std::to_string(s));
  }
  if (p->cu_seqlens_q_host[p->num_seqs] != p->total_q || p->cu_seqlens_k_host[p->num_seqs] != p->total_k)
    return fail_c(SAMEBITS_INVALID_ARGUMENT, where + "cu_seqlens[num_seqs] differs from total_q / total_k");
  return ok();
}

mma::sm90::Params mma_params_of(const samebits_mma_params* m) {
  mma::sm90::Params r;
  if (!m) return r;
  r.frac_bits = m->frac_bits;
  r.group = m->group;
  r.rounding = static_cast<mma::sm90::Rounding>(m->rounding);
  r.c_join = static_cast<mma::sm90::CJoin>(m->c_join);
  r.zero_exponent = static_cast<mma::sm90::ZeroExponent>(m->zero_exponent);
  r.product_exponent = static_cast<mma::sm90::ProductExponent>(m->product_exponent);
  r.zero_sign = static_cast<mma::sm90::ZeroSign>(m->zero_sign);
  r.overflow = static_cast<mma::sm90::Overflow>(m->overflow);
  // An enum code outside the uint8 range would wrap into a valid one: keep it out of range instead.
#if defined(SAMEBITS_PLANT_MMA_VALIDATION_BUG)
  auto bad = [](std::int32_t) { return false; };  // the fuzzer's negative control: codes wrap
#else
  auto bad = [](std::int32_t c) { return c < 0 || c > 255; };
#endif
  if (bad(m->rounding)) r.rounding = static_cast<mma::sm90::Rounding>(255);
  if (bad(m->c_join)) r.c_join = static_cast<mma::sm90::CJoin>(255);
  if (bad(m->zero_exponent)) r.zero_exponent = static_cast<mma::sm90::ZeroExponent>(255);
  if (bad(m->product_exponent)) r.product_exponent = static_cast<mma::sm90::ProductExponent>(255);
  if (bad(m->zero_sign)) r.zero_sign = static_cast<mma::sm90::ZeroSign>(255);
  if (bad(m->overflow)) r.overflow = static_cast<mma::sm90::Overflow>(255);
  return r;
}

Status check_c_reference_policy(const samebits_attention_problem* p, const char* fn) {
  if (p->policy != SAMEBITS_POLICY_SM90_TENSOR_CORE) return ok();
  if (!dtype_code_known(p->in_dtype))
    return fail_c(SAMEBITS_UNSUPPORTED, std::string(fn) + ": in_dtype code " + std::to_string(p->in_dtype) +
                                            " unknown (0 f32, 1 bf16, 2 f16)");
  if (!tc::dtype_supported(static_cast<DType>(p->in_dtype)))
    return fail_c(SAMEBITS_UNSUPPORTED, std::string(fn) + ": policy sm90-tensor-core: in_dtype " +
                                            dtype_name(static_cast<DType>(p->in_dtype)) +
                                            " is not supported (bf16 or fp16 inputs only)");
  return ok();
}

Status check_c_dtypes(const samebits_attention_problem* p, const char* fn, bool backward) {
  const struct {
    const char* field;
    std::int32_t code;
  } codes[] = {{"in_dtype", p->in_dtype}, {"o_dtype", p->o_dtype}, {"grad_dtype", p->grad_dtype}};
  for (int i = 0; i < (backward ? 3 : 2); ++i)
    if (!dtype_code_known(codes[i].code))
      return fail_c(SAMEBITS_UNSUPPORTED, std::string(fn) + ": " + codes[i].field + " code " +
                                              std::to_string(codes[i].code) + " unknown (0 f32, 1 bf16, 2 f16)");
  return ok();
}

namespace {
// round_up(bytes, 256) with overflow checks; -1 on overflow.
std::int64_t round_up_256(std::int64_t bytes) {
  std::int64_t r;
  if (__builtin_add_overflow(bytes, 255, &r)) return -1;
  return r / 256 * 256;
}
// [delta | accum_k | accum_v | dq_accum | dq_flags] part sizes in bytes, each
// rounded up to 256 (accum: each of accum_k and accum_v).
struct Parts {
  std::int64_t delta, accum, dq_accum, dq_flags;
};
bool c_parts(std::int64_t total_q, std::int64_t total_k, std::int32_t hq, std::int32_t d, Parts* out) {
  WorkspaceFloats w;
  if (!workspace_floats_checked(total_q, total_k, hq, d, &w)) return false;
  std::int64_t a, b, c, f;  // all 4-byte elements
  if (!mul_add(w.delta, 4, 0, &a) || !mul_add(w.accum, 4, 0, &b) || !mul_add(w.dq_accum, 4, 0, &c) ||
      !mul_add(w.dq_flags, 4, 0, &f))
    return false;
  *out = Parts{round_up_256(a), round_up_256(b), round_up_256(c), round_up_256(f)};
  return out->delta >= 0 && out->accum >= 0 && out->dq_accum >= 0 && out->dq_flags >= 0;
}
}  // namespace

std::int64_t c_workspace_bytes(std::int64_t total_q, std::int64_t total_k, std::int32_t hq, std::int32_t d) {
  Parts w;
  std::int64_t r;
  if (!c_parts(total_q, total_k, hq, d, &w) || !mul_add(w.accum, 2, w.delta, &r) ||
      !mul_add(w.dq_accum, 1, r, &r) || !mul_add(w.dq_flags, 1, r, &r))
    return -1;
  return r;
}

std::int64_t c_accum_offset(std::int64_t total_q, std::int64_t total_k, std::int32_t hq, std::int32_t d,
                            std::int32_t which) {
  Parts w;
  std::int64_t r;
  if (!c_parts(total_q, total_k, hq, d, &w) || !mul_add(w.accum, which ? 1 : 0, w.delta, &r)) return -1;
  return r;
}

namespace {
// Where dq_accum and dq_flags start: after accum_v (called once
// c_workspace_bytes has said the whole fits int64).
std::int64_t c_dq_offset(const samebits_attention_problem* p, bool flags) {
  Parts w;
  c_parts(p->total_q, p->total_k, p->hq, p->d, &w);
  return w.delta + 2 * w.accum + (flags ? w.dq_accum : 0);
}
}  // namespace

Status check_c_workspace(const samebits_attention_problem* p, const char* fn, const void* workspace,
                         std::int64_t workspace_bytes, const float* accum_k_in, const float* accum_v_in) {
  const std::int64_t need = c_workspace_bytes(p->total_q, p->total_k, p->hq, p->d);
  if (need < 0)
    return fail_c(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": workspace_bytes: the workspace of total_q = " +
                                                 std::to_string(p->total_q) + ", total_k = " +
                                                 std::to_string(p->total_k) + ", hq = " + std::to_string(p->hq) +
                                                 ", d = " + std::to_string(p->d) + " overflows int64");
  if (workspace_bytes < need)
    return fail_c(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": workspace_bytes " + std::to_string(workspace_bytes) +
                                                 " < " + std::to_string(need) + " needed");
  if (!workspace || reinterpret_cast<std::uintptr_t>(workspace) % 256 != 0)
    return fail_c(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": workspace must be non-null and 256-byte aligned");
  if (!end_in_address_space(workspace, static_cast<std::uint64_t>(need)))
    return fail_c(SAMEBITS_INVALID_ARGUMENT,
                  std::string(fn) + ": workspace of " + std::to_string(need) + " bytes extends past the end of the address space");
  if ((accum_k_in == nullptr) != (accum_v_in == nullptr))
    return fail_c(SAMEBITS_INVALID_ARGUMENT, std::string(fn) + ": give both accum_k_in and accum_v_in, or neither");
  return ok();
}

namespace {
void fill_problem(ProblemParams& q, const samebits_attention_problem* p) {
  q.cu_seqlens_q = p->cu_seqlens_q;
  q.cu_seqlens_k = p->cu_seqlens_k;
  q.num_seqs = p->num_seqs;
  q.max_seqlen_q = p->max_seqlen_q;
  q.max_seqlen_k = p->max_seqlen_k;
  q.total_q = p->total_q;
  q.total_k = p->total_k;
  q.hq = p->hq;
  q.hkv = p->hkv;
  q.d = p->d;
  q.causal = p->causal != 0;
  q.scale = p->scale == 0.0f ? default_scale(p->d) : p->scale;
  q.in_dtype = static_cast<DType>(p->in_dtype);
  q.libm = static_cast<Libm>(p->libm);
  q.policy = static_cast<Policy>(p->policy);
  if (q.policy == Policy::sm90_tensor_core) q.mma = mma_params_of(p->mma);
}
Strides strides_of(samebits_tensor3 t) { return Strides{t.row_stride, t.head_stride}; }
// The workspace's parts as addresses (integer arithmetic: no pointer is formed
// past an object; check_c_workspace has kept the end inside the address space).
float* part(void* workspace, std::int64_t offset) {
  return reinterpret_cast<float*>(reinterpret_cast<std::uintptr_t>(workspace) + static_cast<std::uint64_t>(offset));
}
}  // namespace

ForwardParams c_forward_params(const samebits_attention_problem* p, samebits_tensor3 q, samebits_tensor3 k,
                               samebits_tensor3 v, samebits_tensor3 o, float* lse) {
  ForwardParams f;
  fill_problem(f, p);
  f.q = q.data;
  f.k = k.data;
  f.v = v.data;
  f.o = o.data;
  f.lse = lse;
  f.q_stride = strides_of(q);
  f.k_stride = strides_of(k);
  f.v_stride = strides_of(v);
  f.o_stride = strides_of(o);
  f.o_dtype = static_cast<DType>(p->o_dtype);
  return f;
}

std::int64_t c_stored_ds_offset(const samebits_attention_problem* p) {
  if (!p || p->policy != SAMEBITS_POLICY_SM90_TENSOR_CORE) return -1;
  const std::int64_t base = c_workspace_bytes(p->total_q, p->total_k, p->hq, p->d);
  std::int64_t r;
  if (base < 0 || !mul_add((base + 255) / 256, 256, 0, &r)) return -1;
  return r;
}

std::int64_t c_stored_ds_workspace_bytes(const samebits_attention_problem* p) {
  const std::int64_t at = c_stored_ds_offset(p);
  const std::int64_t ds = p ? backward_ds_workspace_bytes(p->num_seqs, p->max_seqlen_q, p->max_seqlen_k, p->hq) : -1;
  std::int64_t r;
  if (at < 0 || ds < 0 || !mul_add(ds, 1, at, &r)) return -1;
  return r;
}

BackwardParams c_backward_params(const samebits_attention_problem* p, samebits_tensor3 q, samebits_tensor3 k,
                                 samebits_tensor3 v, samebits_tensor3 o, samebits_tensor3 dout, const float* lse,
                                 samebits_tensor3 dq, samebits_tensor3 dk, samebits_tensor3 dv, void* workspace,
                                 std::int64_t workspace_bytes, const float* accum_k_in, const float* accum_v_in) {
  BackwardParams b;
  fill_problem(b, p);
  b.q = q.data;
  b.k = k.data;
  b.v = v.data;
  b.o = o.data;
  b.dout = dout.data;
  b.lse = lse;
  b.dq = dq.data;
  b.dk = dk.data;
  b.dv = dv.data;
  b.q_stride = strides_of(q);
  b.k_stride = strides_of(k);
  b.v_stride = strides_of(v);
  b.o_stride = strides_of(o);
  b.dout_stride = strides_of(dout);
  b.dq_stride = strides_of(dq);
  b.dk_stride = strides_of(dk);
  b.dv_stride = strides_of(dv);
  b.o_dtype = static_cast<DType>(p->o_dtype);
  b.grad_dtype = static_cast<DType>(p->grad_dtype);
  b.delta = static_cast<float*>(workspace);
  b.accum_k = part(workspace, c_accum_offset(p->total_q, p->total_k, p->hq, p->d, 0));
  b.accum_v = part(workspace, c_accum_offset(p->total_q, p->total_k, p->hq, p->d, 1));
  b.dq_accum = part(workspace, c_dq_offset(p, false));
  b.dq_flags = reinterpret_cast<std::int32_t*>(part(workspace, c_dq_offset(p, true)));
  // A workspace that also holds the stored D^S (attention-tc.md §21) turns the tensor-core
  // backward's dq pass from recomputing into reading it: the same bits.
  const std::int64_t ds_at = c_stored_ds_offset(p), ds_total = c_stored_ds_workspace_bytes(p);
  if (ds_at >= 0 && ds_total >= 0 && workspace_bytes >= ds_total) {
    b.ds_workspace = part(workspace, ds_at);
    b.ds_workspace_bytes = workspace_bytes - ds_at;
  }
  b.accum_k_in = accum_k_in;
  b.accum_v_in = accum_v_in;
  return b;
}

}  // namespace validate
}  // namespace samebits::kernels::attention
