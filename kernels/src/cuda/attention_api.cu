// kernels/src/cuda/attention_api.cu — the host API (attention/api.hpp): every
// argument checked on the host, then the launchers. Fail closed: anything
// not understood is refused by name, and nothing is launched.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "attention_launch.hpp"
#include "samebits/kernels/attention/api.hpp"

namespace samebits::kernels::attention {
namespace {

Status fail(StatusCode c, std::string m) { return Status{c, "samebits attention: " + std::move(m)}; }
Status ok() { return Status{}; }

bool dtype_known(DType t) { return t == DType::f32 || t == DType::bf16 || t == DType::f16; }

// Refuses what the kernels cannot compute exactly as the contract says.
Status check_problem(const ProblemParams& p, HostSeqlens host) {
  if (p.libm != Libm::nvcc && p.libm != Libm::cr) return fail(StatusCode::unsupported, "libm code unknown");
  if (!dtype_known(p.in_dtype)) return fail(StatusCode::unsupported, "input dtype code unknown");
  if (p.d != 64 && p.d != 128) return fail(StatusCode::unsupported, "head dim D must be 64 or 128");
  if (p.hq <= 0 || p.hkv <= 0) return fail(StatusCode::invalid_argument, "hq and hkv must be positive");
  if (p.hq % p.hkv != 0) return fail(StatusCode::invalid_argument, "hq must be a multiple of hkv (GQA)");
  if (p.hq > 65535) return fail(StatusCode::unsupported, "hq above 65535");
  if (p.tile_rows != 0 && p.tile_rows != 64 && p.tile_rows != 128)
    return fail(StatusCode::unsupported, "tile_rows must be 0 (default), 64 or 128");
  if (!std::isfinite(p.scale)) return fail(StatusCode::invalid_argument, "scale must be finite");
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
// tensor is empty.
Status check_pointer(const void* ptr, std::int64_t elements, int align, const char* name) {
  if (elements == 0) return ok();
  if (!ptr) return fail(StatusCode::invalid_argument, std::string(name) + " is null");
  if (reinterpret_cast<std::uintptr_t>(ptr) % align != 0)
    return fail(StatusCode::invalid_argument, std::string(name) + " is misaligned for its dtype");
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, ptr) != cudaSuccess) {
    cudaGetLastError();
    return fail(StatusCode::invalid_argument, std::string(name) + " is not a CUDA pointer");
  }
  if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
    return fail(StatusCode::invalid_argument, std::string(name) + " is not device memory");
  return ok();
}

// [rows, heads, D] with the last dimension contiguous: the (row, head) spans
// of D elements must not overlap (either stride order, so [heads, rows, D]
// layouts pass).
Status check_tensor(const void* ptr, DType t, Strides st, std::int64_t rows, int heads, int d, const char* name) {
  if (Status s = check_pointer(ptr, rows * heads * d, dtype_size(t), name); !s.ok()) return s;
  if (rows == 0) return ok();
  if (st.row <= 0 || st.head <= 0)
    return fail(StatusCode::invalid_argument, std::string(name) + ": strides must be positive");
  const bool head_inner = st.head <= st.row;
  const std::int64_t inner = head_inner ? st.head : st.row, outer = head_inner ? st.row : st.head;
  const std::int64_t inner_count = head_inner ? heads : rows, outer_count = head_inner ? rows : heads;
  if (inner < d || (outer_count > 1 && outer < inner * inner_count))
    return fail(StatusCode::invalid_argument, std::string(name) + ": strides make rows or heads overlap");
  // Element offsets are computed in int64: the largest must fit.
  if ((outer_count - 1) > (INT64_MAX / 4) / outer)
    return fail(StatusCode::invalid_argument, std::string(name) + ": strides too large");
  return ok();
}

Status check_launch(cudaError_t e) {
  if (e == cudaSuccess) return ok();
  return fail(StatusCode::cuda_error, std::string("launch failed: ") + cudaGetErrorString(e));
}

}  // namespace

WorkspaceFloats backward_workspace_floats(std::int64_t total_q, std::int64_t total_k, int hq, int d) {
  return WorkspaceFloats{total_q * hq, total_k * hq * d, total_q * hq * d, total_q * hq + 1};
}

Status forward(const ForwardParams& p, HostSeqlens host, void* stream) {
  if (Status s = check_problem(p, host); !s.ok()) return s;
  if (p.o_dtype != p.in_dtype && p.o_dtype != DType::f32)
    return fail(StatusCode::unsupported, "o dtype must be the input dtype or float32");
  Status s;
  if (!(s = check_tensor(p.q, p.in_dtype, p.q_stride, p.total_q, p.hq, p.d, "q")).ok()) return s;
  if (!(s = check_tensor(p.k, p.in_dtype, p.k_stride, p.total_k, p.hkv, p.d, "k")).ok()) return s;
  if (!(s = check_tensor(p.v, p.in_dtype, p.v_stride, p.total_k, p.hkv, p.d, "v")).ok()) return s;
  if (!(s = check_tensor(p.o, p.o_dtype, p.o_stride, p.total_q, p.hq, p.d, "o")).ok()) return s;
  if (!(s = check_pointer(p.lse, p.total_q * p.hq, 4, "lse")).ok()) return s;
  if (p.total_q == 0) return ok();
  return check_launch(cuda::launch_forward(p, static_cast<cudaStream_t>(stream)));
}

Status backward(const BackwardParams& p, HostSeqlens host, void* stream) {
  if (Status s = check_problem(p, host); !s.ok()) return s;
  if (p.o_dtype != p.in_dtype && p.o_dtype != DType::f32)
    return fail(StatusCode::unsupported, "o dtype must be the input dtype or float32");
  if (p.grad_dtype != p.in_dtype && p.grad_dtype != DType::f32)
    return fail(StatusCode::unsupported, "gradient dtype must be the input dtype or float32");
  Status s;
  const std::int64_t tq = p.total_q, tk = p.total_k;
  if (!(s = check_tensor(p.q, p.in_dtype, p.q_stride, tq, p.hq, p.d, "q")).ok()) return s;
  if (!(s = check_tensor(p.k, p.in_dtype, p.k_stride, tk, p.hkv, p.d, "k")).ok()) return s;
  if (!(s = check_tensor(p.v, p.in_dtype, p.v_stride, tk, p.hkv, p.d, "v")).ok()) return s;
  if (!(s = check_tensor(p.o, p.o_dtype, p.o_stride, tq, p.hq, p.d, "o")).ok()) return s;
  if (!(s = check_tensor(p.dout, p.in_dtype, p.dout_stride, tq, p.hq, p.d, "dout")).ok()) return s;
  if (!(s = check_tensor(p.dq, p.grad_dtype, p.dq_stride, tq, p.hq, p.d, "dq")).ok()) return s;
  if (!(s = check_tensor(p.dk, p.grad_dtype, p.dk_stride, tk, p.hkv, p.d, "dk")).ok()) return s;
  if (!(s = check_tensor(p.dv, p.grad_dtype, p.dv_stride, tk, p.hkv, p.d, "dv")).ok()) return s;
  const WorkspaceFloats w = backward_workspace_floats(tq, tk, p.hq, p.d);
  if (!(s = check_pointer(p.lse, tq * p.hq, 4, "lse")).ok()) return s;
  if (!(s = check_pointer(p.delta, w.delta, 4, "delta workspace")).ok()) return s;
  if (!(s = check_pointer(p.accum_k, w.accum, 4, "accum_k workspace")).ok()) return s;
  if (!(s = check_pointer(p.accum_v, w.accum, 4, "accum_v workspace")).ok()) return s;
  if (!(s = check_pointer(p.dq_accum, w.dq_accum, 16, "dq_accum workspace")).ok()) return s;
  if (!(s = check_pointer(p.dq_flags, w.dq_flags, 4, "dq_flags workspace")).ok()) return s;
  if ((p.accum_k_in == nullptr) != (p.accum_v_in == nullptr))
    return fail(StatusCode::invalid_argument, "accum_k_in and accum_v_in go together");
  if (p.accum_k_in) {
    if (!(s = check_pointer(p.accum_k_in, w.accum, 4, "accum_k_in")).ok()) return s;
    if (!(s = check_pointer(p.accum_v_in, w.accum, 4, "accum_v_in")).ok()) return s;
  }
  if (tq == 0 && tk == 0) return ok();
  return check_launch(cuda::launch_backward(p, static_cast<cudaStream_t>(stream)));
}

}  // namespace samebits::kernels::attention
