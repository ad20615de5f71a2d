// kernels/src/validate/attention_validate.cpp — the one validation of the
// attention arguments (attention_validate.hpp). Host-only, no CUDA, no C ABI.
#include "validate/attention_validate.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "samebits/kernels/attention/contract.hpp"
#include "samebits/kernels/attention/tensor_core.hpp"
#include "validate/rules.hpp"

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

Status refusal(const char* op, StatusCode code, const std::string& what) { return Status{code, op + what}; }

namespace {

Status fail(StatusCode c, const std::string& m, const char* op = kOp) { return refusal(op, c, m); }
Status ok() { return Status{}; }
Status of(const rules::Verdict& v, const char* op = kOp) { return v.ok() ? ok() : refusal(op, v.code, v.what); }

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

Status check_address(const void* ptr, bool empty, int align, const char* name, PointerQuery q, const char* op) {
  if (empty) return ok();
  if (!ptr) return fail(StatusCode::invalid_argument, std::string(name) + " is null", op);
  if (reinterpret_cast<std::uintptr_t>(ptr) % align != 0)
    return fail(StatusCode::invalid_argument, std::string(name) + " is misaligned for its dtype", op);
  if (q.kind) {
    switch (q.kind(ptr, q.ctx)) {
      case MemoryKind::device: break;
      case MemoryKind::not_cuda:
        return fail(StatusCode::invalid_argument, std::string(name) + " is not a CUDA pointer", op);
      default:
        return fail(StatusCode::invalid_argument, std::string(name) + " is not device memory", op);
    }
  }
  return ok();
}

// The device cu_seqlens the kernels read (their values are checked on the host copies).
Status check_device_seqlens(const ProblemParams& p) {
  if (!p.cu_seqlens_q) return fail(StatusCode::invalid_argument, "cu_seqlens_q: the device array is null");
  if (!p.cu_seqlens_k) return fail(StatusCode::invalid_argument, "cu_seqlens_k: the device array is null");
  return ok();
}

Span seqlens_span(const std::int32_t* cu, int num_seqs, const char* name) {
  return bytes_span(cu, (std::int64_t{num_seqs} + 1) * 4, name);
}

}  // namespace

// Refuses what neither the kernels nor the reference can compute exactly as the contract says.
Status check_problem_rules(const ProblemParams& p, HostSeqlens host, Target target) {
  const bool gpu = target == Target::gpu, tc = p.policy == Policy::sm90_tensor_core;
  if (Status s = of(rules::policy(p.policy)); !s.ok()) return s;
  if (Status s = of(rules::libm(p.libm, p.policy)); !s.ok()) return s;
  if (Status s = of(rules::scale(p.scale)); !s.ok()) return s;
  // The reference's fma-chain core reads binary32 whatever in_dtype says.
  if (gpu || tc)
    if (Status s = of(rules::input_dtype(p.in_dtype, p.policy)); !s.ok()) return s;
  if (Status s = of(rules::head_dim(p.d)); !s.ok()) return s;
  if (Status s = of(rules::heads(p.hq, p.hkv)); !s.ok()) return s;
  if (tc)
    if (Status s = of(gpu ? rules::mma_on_gpu(p.mma) : rules::mma(p.mma)); !s.ok()) return s;
  if (gpu) {
    if (tc && p.tile_rows != 0)
      return fail(StatusCode::unsupported, "tile_rows = " + std::to_string(p.tile_rows) +
                                               ": policy sm90-tensor-core takes 0 (its tiles are 128 positions)");
    if (p.tile_rows != 0 && p.tile_rows != 64 && p.tile_rows != 128)
      return fail(StatusCode::unsupported,
                  "tile_rows = " + std::to_string(p.tile_rows) + ": must be 0 (the launcher's choice), 64 or 128");
  }
  if (Status s = of(rules::num_seqs(p.num_seqs)); !s.ok()) return s;
  if (Status s = of(rules::cu_seqlens(p.num_seqs, host.cu_q, host.cu_k, p.total_q, p.total_k)); !s.ok()) return s;
  if (!gpu) return ok();
  std::int64_t max_q = 0, max_k = 0;
  for (int s = 0; s < p.num_seqs; ++s) {
    max_q = std::max<std::int64_t>(max_q, std::int64_t{host.cu_q[s + 1]} - host.cu_q[s]);
    max_k = std::max<std::int64_t>(max_k, std::int64_t{host.cu_k[s + 1]} - host.cu_k[s]);
  }
  const struct {
    const char* name;
    int value;
    std::int64_t longest;
  } bounds[] = {{"max_seqlen_q", p.max_seqlen_q, max_q}, {"max_seqlen_k", p.max_seqlen_k, max_k}};
  for (const auto& b : bounds) {
    if (b.value < b.longest)
      return fail(StatusCode::invalid_argument, std::string(b.name) + " = " + std::to_string(b.value) +
                                                    ": below the longest sequence (" + std::to_string(b.longest) + ")");
    if (b.value > (1 << 30))
      return fail(StatusCode::invalid_argument, std::string(b.name) + " = " + std::to_string(b.value) + ": at most 2^30");
  }
  return ok();
}

Status check_output_dtypes(const ProblemParams& p, DType o, const DType* grad) {
  if (Status s = of(rules::output_dtype(o, p.in_dtype, "o_dtype")); !s.ok()) return s;
  if (grad)
    if (Status s = of(rules::output_dtype(*grad, p.in_dtype, "grad_dtype")); !s.ok()) return s;
  return ok();
}

// A device (or managed) pointer, aligned to `align` bytes; null only when the
// array is empty.
Status check_pointer(const void* ptr, std::int64_t elements, int align, const char* name, PointerQuery q,
                     const char* op) {
  if (Status s = check_address(ptr, elements == 0, align, name, q, op); !s.ok()) return s;
  std::int64_t bytes = 0;
  if (elements > 0 &&
      (!mul_add(elements, 4, 0, &bytes) || !end_in_address_space(ptr, static_cast<std::uint64_t>(bytes))))
    return fail(StatusCode::invalid_argument, std::string(name) + " extends past the end of the address space", op);
  return ok();
}

// [rows, heads, D] with the last dimension contiguous: the (row, head) spans
// of D elements must not overlap (either stride order, so [heads, rows, D]
// layouts pass), and the largest element offset,
// (rows-1)*row + (heads-1)*head + D-1, must fit kMaxElementOffset (computed
// with overflow checks: strides are any int64 a caller passes).
Status check_tensor(const void* ptr, DType t, Strides st, std::int64_t rows, int heads, int d, const char* name,
                    PointerQuery q, const char* op) {
  if (Status s = check_address(ptr, rows == 0, dtype_size(t), name, q, op); !s.ok()) return s;
  if (rows == 0) return ok();
  if (st.row <= 0 || st.head <= 0) return fail(StatusCode::invalid_argument, std::string(name) + ": strides must be positive", op);
  const bool head_inner = st.head <= st.row;
  const std::int64_t inner = head_inner ? st.head : st.row, outer = head_inner ? st.row : st.head;
  const std::int64_t inner_count = head_inner ? heads : rows, outer_count = head_inner ? rows : heads;
  // outer < inner * inner_count, without forming the product (it may overflow).
  if (inner < d || (outer_count > 1 && inner_count > outer / inner))
    return fail(StatusCode::invalid_argument, std::string(name) + ": strides make rows or heads overlap", op);
  std::int64_t last = d - 1;
  if (!mul_add(rows - 1, st.row, last, &last) || !mul_add(std::int64_t{heads} - 1, st.head, last, &last) ||
      last > kMaxElementOffset)
    return fail(StatusCode::invalid_argument, std::string(name) + ": strides too large", op);
  if (!end_in_address_space(ptr, static_cast<std::uint64_t>(last + 1) * static_cast<std::uint64_t>(dtype_size(t))))
    return fail(StatusCode::invalid_argument, std::string(name) + ": strides reach past the end of the address space", op);
  return ok();
}

Span bytes_span(const void* ptr, std::int64_t bytes, const char* name) {
  Span s;
  s.name = name;
  if (!ptr || bytes <= 0) return s;
  s.first = reinterpret_cast<std::uintptr_t>(ptr);
  s.last = s.first + static_cast<std::uintptr_t>(bytes - 1);
  s.empty = false;
  return s;
}

Span tensor_span(const void* ptr, DType t, Strides st, std::int64_t rows, int heads, int d, const char* name) {
  if (rows <= 0 || heads <= 0) return bytes_span(nullptr, 0, name);
  // check_tensor bounded the last element offset by kMaxElementOffset: no overflow.
  const std::int64_t last = (rows - 1) * st.row + (std::int64_t{heads} - 1) * st.head + d - 1;
  return bytes_span(ptr, (last + 1) * dtype_size(t), name);
}

Status check_disjoint(std::initializer_list<Span> inputs, std::initializer_list<Span> outputs, const char* op) {
  auto meet = [](const Span& a, const Span& b) { return !a.empty && !b.empty && a.first <= b.last && b.first <= a.last; };
  auto say = [&](const Span& out, const Span& other) {
    char where[96];
    std::snprintf(where, sizeof where, " (bytes 0x%" PRIxPTR "..0x%" PRIxPTR " and 0x%" PRIxPTR "..0x%" PRIxPTR ")",
                  out.first, out.last, other.first, other.last);
    return fail(StatusCode::invalid_argument,
                std::string(out.name) + " overlaps " + other.name + where +
                    ": an output must not share memory with an input or another output",
                op);
  };
  for (auto o = outputs.begin(); o != outputs.end(); ++o) {
    for (const Span& in : inputs) {
      const bool alias = in.alias_of && std::strcmp(in.alias_of, o->name) == 0 && in.first == o->first &&
                         in.last == o->last;
      if (meet(*o, in) && !alias) return say(*o, in);
    }
    for (auto e = outputs.begin(); e != o; ++e)
      if (meet(*o, *e)) return say(*o, *e);
  }
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
Status check_chunked(std::initializer_list<ChunkedTensor> ts) {
  for (const ChunkedTensor& t : ts)
    if (t.rows > 0 &&
        (reinterpret_cast<std::uintptr_t>(t.ptr) % 16 != 0 || t.st.row % 8 != 0 || t.st.head % 8 != 0))
      return fail(StatusCode::unsupported, std::string(t.name) +
                                               ": policy sm90-tensor-core needs it 16-byte aligned with row and head "
                                               "strides multiples of 8 elements (its rows are copied in 16-byte chunks)");
  return ok();
}
}  // namespace

Status check_forward(const ForwardParams& p, HostSeqlens host, PointerQuery q) {
  if (Status s = check_problem_rules(p, host, Target::gpu); !s.ok()) return s;
  if (Status s = check_output_dtypes(p, p.o_dtype, nullptr); !s.ok()) return s;
  if (Status s = check_device_seqlens(p); !s.ok()) return s;
  Status s;
  if (!(s = check_tensor(p.q, p.in_dtype, p.q_stride, p.total_q, p.hq, p.d, "q", q)).ok()) return s;
  if (!(s = check_tensor(p.k, p.in_dtype, p.k_stride, p.total_k, p.hkv, p.d, "k", q)).ok()) return s;
  if (!(s = check_tensor(p.v, p.in_dtype, p.v_stride, p.total_k, p.hkv, p.d, "v", q)).ok()) return s;
  if (!(s = check_tensor(p.o, p.o_dtype, p.o_stride, p.total_q, p.hq, p.d, "o", q)).ok()) return s;
  if (!(s = check_pointer(p.lse, p.total_q * p.hq, 4, "lse", q)).ok()) return s;
  if (p.policy == Policy::sm90_tensor_core)
    if (!(s = check_chunked({{p.q, p.q_stride, p.total_q, "q"}, {p.k, p.k_stride, p.total_k, "k"},
                             {p.v, p.v_stride, p.total_k, "v"}}))
             .ok())
      return s;
  return check_disjoint({tensor_span(p.q, p.in_dtype, p.q_stride, p.total_q, p.hq, p.d, "q"),
                         tensor_span(p.k, p.in_dtype, p.k_stride, p.total_k, p.hkv, p.d, "k"),
                         tensor_span(p.v, p.in_dtype, p.v_stride, p.total_k, p.hkv, p.d, "v"),
                         seqlens_span(p.cu_seqlens_q, p.num_seqs, "cu_seqlens_q"),
                         seqlens_span(p.cu_seqlens_k, p.num_seqs, "cu_seqlens_k")},
                        {tensor_span(p.o, p.o_dtype, p.o_stride, p.total_q, p.hq, p.d, "o"),
                         bytes_span(p.lse, p.total_q * p.hq * 4, "lse")});
}

Status check_backward(const BackwardParams& p, HostSeqlens host, PointerQuery q) {
  if (Status s = check_problem_rules(p, host, Target::gpu); !s.ok()) return s;
  if (Status s = check_output_dtypes(p, p.o_dtype, &p.grad_dtype); !s.ok()) return s;
  if (Status s = check_device_seqlens(p); !s.ok()) return s;
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
  // check_problem_rules bounds tq, tk (< 2^31), hq (<= 65535) and d (<= 128): no overflow.
  const WorkspaceFloats w = backward_workspace_floats(tq, tk, p.hq, p.d);
  if (!(s = check_pointer(p.lse, tq * p.hq, 4, "lse", q)).ok()) return s;
  if (!(s = check_pointer(p.delta, w.delta, 4, "delta workspace", q)).ok()) return s;
  if (!(s = check_pointer(p.accum_k, w.accum, 4, "accum_k workspace", q)).ok()) return s;
  if (!(s = check_pointer(p.accum_v, w.accum, 4, "accum_v workspace", q)).ok()) return s;
  if (!(s = check_pointer(p.dq_accum, w.dq_accum, 16, "dq_accum workspace", q)).ok()) return s;
  if (!(s = check_pointer(p.dq_flags, w.dq_flags, 4, "dq_flags workspace", q)).ok()) return s;
  if ((p.accum_k_in == nullptr) != (p.accum_v_in == nullptr))
    return fail(StatusCode::invalid_argument, "accum_k_in, accum_v_in: give both or neither");
  if (p.accum_k_in) {
    if (!(s = check_pointer(p.accum_k_in, w.accum, 4, "accum_k_in", q)).ok()) return s;
    if (!(s = check_pointer(p.accum_v_in, w.accum, 4, "accum_v_in", q)).ok()) return s;
  }
  std::int64_t ds_need = 0;
  if (p.ds_workspace) {
    if (p.policy != Policy::sm90_tensor_core)
      return fail(StatusCode::invalid_argument, "ds_workspace is used by policy sm90-tensor-core only (set it to null)");
    ds_need = backward_ds_workspace_bytes(p.num_seqs, p.max_seqlen_q, p.max_seqlen_k, p.hq);
    if (ds_need < 0) return fail(StatusCode::invalid_argument, "ds_workspace: its size overflows int64");
    if (p.ds_workspace_bytes < ds_need)
      return fail(StatusCode::invalid_argument, "ds_workspace holds " + std::to_string(p.ds_workspace_bytes) +
                                                    " bytes, backward_ds_workspace_bytes() needs " + std::to_string(ds_need));
    if (!(s = check_pointer(p.ds_workspace, ds_need / 4, 16, "ds_workspace", q)).ok()) return s;
  }
  if (p.policy == Policy::sm90_tensor_core) {
    if (!(s = check_chunked({{p.q, p.q_stride, tq, "q"},
                             {p.k, p.k_stride, tk, "k"},
                             {p.v, p.v_stride, tk, "v"},
                             {p.dout, p.dout_stride, tq, "dout"}}))
             .ok())
      return s;
    if (p.accum_k_in)
      if (!(s = of(rules::handover_row_groups(p.num_seqs, host.cu_q, host.cu_k))).ok()) return s;
  }
  Span accum_k_in = bytes_span(p.accum_k_in, w.accum * 4, "accum_k_in");
  Span accum_v_in = bytes_span(p.accum_v_in, w.accum * 4, "accum_v_in");
  accum_k_in.alias_of = "accum_k workspace";  // in place: each element read once, then written by the same thread
  accum_v_in.alias_of = "accum_v workspace";
  return check_disjoint({tensor_span(p.q, p.in_dtype, p.q_stride, tq, p.hq, p.d, "q"),
                         tensor_span(p.k, p.in_dtype, p.k_stride, tk, p.hkv, p.d, "k"),
                         tensor_span(p.v, p.in_dtype, p.v_stride, tk, p.hkv, p.d, "v"),
                         tensor_span(p.o, p.o_dtype, p.o_stride, tq, p.hq, p.d, "o"),
                         tensor_span(p.dout, p.in_dtype, p.dout_stride, tq, p.hq, p.d, "dout"),
                         bytes_span(p.lse, tq * p.hq * 4, "lse"), accum_k_in, accum_v_in,
                         seqlens_span(p.cu_seqlens_q, p.num_seqs, "cu_seqlens_q"),
                         seqlens_span(p.cu_seqlens_k, p.num_seqs, "cu_seqlens_k")},
                        {tensor_span(p.dq, p.grad_dtype, p.dq_stride, tq, p.hq, p.d, "dq"),
                         tensor_span(p.dk, p.grad_dtype, p.dk_stride, tk, p.hkv, p.d, "dk"),
                         tensor_span(p.dv, p.grad_dtype, p.dv_stride, tk, p.hkv, p.d, "dv"),
                         bytes_span(p.delta, w.delta * 4, "delta workspace"),
                         bytes_span(p.accum_k, w.accum * 4, "accum_k workspace"),
                         bytes_span(p.accum_v, w.accum * 4, "accum_v workspace"),
                         bytes_span(p.dq_accum, w.dq_accum * 4, "dq_accum workspace"),
                         bytes_span(p.dq_flags, w.dq_flags * 4, "dq_flags workspace"),
                         bytes_span(p.ds_workspace, ds_need, "ds_workspace")});
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

}  // namespace validate
}  // namespace samebits::kernels::attention
