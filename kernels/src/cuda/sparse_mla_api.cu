// kernels/src/cuda/sparse_mla_api.cu — the sparse MLA host API
// (sparse_mla/api.hpp): every argument checked on the host, then the
// launchers. Fail closed: anything not understood is refused by name.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "samebits/kernels/sparse_mla/api.hpp"
#include "sparse_mla_launch.hpp"

namespace samebits::kernels::sparse_mla {
namespace {

Status fail(StatusCode c, std::string m) { return Status{c, "samebits sparse-mla: " + std::move(m)}; }
Status ok() { return Status{}; }

Status check_device_pointer(const void* ptr, std::int64_t elements, int align, const char* name) {
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

// [rows, heads, D], last dim contiguous, (row, head) spans not overlapping.
Status check_rhd(const void* ptr, DType t, Strides st, std::int64_t rows, int heads, int d, const char* name) {
  if (Status s = check_device_pointer(ptr, rows * heads * d, dtype_size(t), name); !s.ok()) return s;
  if (rows == 0) return ok();
  if (st.head < d || (heads > 1 && st.head <= 0) || st.row < static_cast<std::int64_t>(heads) * st.head)
    return fail(StatusCode::invalid_argument,
                std::string(name) + ": strides must be [rows, heads, D] with D contiguous and no overlap");
  if (rows - 1 > (INT64_MAX / 4) / st.row) return fail(StatusCode::invalid_argument, std::string(name) + ": strides too large");
  return ok();
}

Status check_problem(const ProblemParams& p) {
  if (p.libm != Libm::nvcc && p.libm != Libm::cr) return fail(StatusCode::unsupported, "libm code unknown");
  if (p.in_dtype != DType::bf16 && p.in_dtype != DType::f32)
    return fail(StatusCode::unsupported, "input dtype must be bfloat16 or float32");
  if (p.d != 512 && p.d != 128)
    return fail(StatusCode::unsupported, "head dim D must be 512 (128: the dense-equality instantiation)");
  if (p.heads <= 0 || p.heads > 65535 * 32) return fail(StatusCode::invalid_argument, "heads must be in 1 .. 2097120");
  if (p.tokens < 0 || p.tokens > 0x7fffffff) return fail(StatusCode::invalid_argument, "tokens must be in 0 .. 2^31 - 1");
  if (p.num_kv < 0 || p.num_kv > 0x7fffffff) return fail(StatusCode::invalid_argument, "num_kv must be in 0 .. 2^31 - 1");
  if (p.topk <= 0) return fail(StatusCode::invalid_argument, "topk must be positive");
  if (!std::isfinite(p.scale)) return fail(StatusCode::invalid_argument, "scale must be finite");
  if (Status s = check_device_pointer(p.indices, p.tokens * p.topk, 4, "indices"); !s.ok()) return s;
  if (p.tokens > 0 && p.indices_row_stride < p.topk)
    return fail(StatusCode::invalid_argument, "indices: row stride below topk (rows overlap)");
  if (p.sink) {
    if (Status s = check_device_pointer(p.sink, p.heads, 4, "sink"); !s.ok()) return s;
  }
  if (p.error_flag) {
    if (Status s = check_device_pointer(p.error_flag, 1, 4, "error_flag"); !s.ok()) return s;
  }
  return ok();
}

// The validating mode: the indices copied to the host and checked there.
Status check_indices_on_host(const ProblemParams& p, cudaStream_t stream) {
  if (p.tokens == 0) return ok();
  std::vector<std::int32_t> h(static_cast<std::size_t>(p.tokens) * p.topk);
  cudaError_t e = cudaMemcpy2DAsync(h.data(), p.topk * 4, p.indices, p.indices_row_stride * 4, p.topk * 4,
                                    static_cast<std::size_t>(p.tokens), cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  if (e != cudaSuccess) return fail(StatusCode::cuda_error, std::string("indices copy: ") + cudaGetErrorString(e));
  for (std::int64_t t = 0; t < p.tokens; ++t)
    for (int s = 0; s < p.topk; ++s) {
      const std::int32_t i = h[t * p.topk + s];
      if (i < -1 || i >= p.num_kv)
        return fail(StatusCode::invalid_argument, "indices: " + std::to_string(i) + " at token " + std::to_string(t) +
                                                      ", slot " + std::to_string(s) + " is outside -1 .. num_kv - 1 = " +
                                                      std::to_string(p.num_kv - 1));
    }
  return ok();
}

}  // namespace

Status forward(const ForwardParams& p, bool validate_indices, void* stream) {
  if (Status s = check_problem(p); !s.ok()) return s;
  if (p.o_dtype != p.in_dtype && p.o_dtype != DType::f32)
    return fail(StatusCode::unsupported, "o dtype must be the input dtype or float32");
  Status s;
  if (!(s = check_rhd(p.q, p.in_dtype, p.q_stride, p.tokens, p.heads, p.d, "q")).ok()) return s;
  if (!(s = check_rhd(p.kv, p.in_dtype, Strides{p.kv_row_stride, p.d}, p.num_kv, 1, p.d, "kv")).ok()) return s;
  if (!(s = check_rhd(p.o, p.o_dtype, p.o_stride, p.tokens, p.heads, p.d, "o")).ok()) return s;
  if (!(s = check_device_pointer(p.lse, p.tokens * p.heads, 4, "lse")).ok()) return s;
  if (p.lse_excl && !(s = check_device_pointer(p.lse_excl, p.tokens * p.heads, 4, "lse_excl")).ok()) return s;
  const auto st = static_cast<cudaStream_t>(stream);
  if (validate_indices && !(s = check_indices_on_host(p, st)).ok()) return s;
  if (p.tokens == 0) return ok();
  const cudaError_t e = cuda::launch_forward(p, st);
  if (e != cudaSuccess) return fail(StatusCode::cuda_error, std::string("launch failed: ") + cudaGetErrorString(e));
  return ok();
}

std::int64_t backward_workspace_bytes(const BackwardParams& p) {
  if (!check_problem(p).ok() || (p.chunk_tokens != 0 && (p.chunk_tokens < 0 || p.chunk_tokens % kBlock != 0))) return -1;
  return cuda::backward_workspace_bytes(p, cuda::effective_chunk(p));
}

Status backward(const BackwardParams& p, bool validate_indices, void* stream) {
  if (Status s = check_problem(p); !s.ok()) return s;
  if (p.o_dtype != p.in_dtype && p.o_dtype != DType::f32)
    return fail(StatusCode::unsupported, "o dtype must be the input dtype or float32");
  if (p.grad_dtype != p.in_dtype && p.grad_dtype != DType::f32)
    return fail(StatusCode::unsupported, "gradient dtype must be the input dtype or float32");
  if (p.chunk_tokens < 0 || p.chunk_tokens % kBlock != 0)
    return fail(StatusCode::invalid_argument, "chunk_tokens " + std::to_string(p.chunk_tokens) +
                                                  " must be 0 (default) or a positive multiple of B = 64");
  Status s;
  if (!(s = check_rhd(p.q, p.in_dtype, p.q_stride, p.tokens, p.heads, p.d, "q")).ok()) return s;
  if (!(s = check_rhd(p.kv, p.in_dtype, Strides{p.kv_row_stride, p.d}, p.num_kv, 1, p.d, "kv")).ok()) return s;
  if (!(s = check_rhd(p.o, p.o_dtype, p.o_stride, p.tokens, p.heads, p.d, "o")).ok()) return s;
  if (!(s = check_rhd(p.dout, p.in_dtype, p.dout_stride, p.tokens, p.heads, p.d, "dout")).ok()) return s;
  if (!(s = check_rhd(p.dq, p.grad_dtype, p.dq_stride, p.tokens, p.heads, p.d, "dq")).ok()) return s;
  if (!(s = check_rhd(p.dkv, p.grad_dtype, Strides{p.dkv_row_stride, p.d}, p.num_kv, 1, p.d, "dkv")).ok()) return s;
  if (!(s = check_device_pointer(p.lse, p.tokens * p.heads, 4, "lse")).ok()) return s;
  if (p.sink && !(s = check_device_pointer(p.dsink, p.heads, 4, "dsink (a sink was given)")).ok()) return s;
  const std::int64_t need = backward_workspace_bytes(p);
  if (p.workspace_bytes < need)
    return fail(StatusCode::invalid_argument, "workspace_bytes " + std::to_string(p.workspace_bytes) + " < " +
                                                  std::to_string(need) + " needed (backward_workspace_bytes)");
  if (!(s = check_device_pointer(p.workspace, need, 256, "workspace")).ok()) return s;
  if (p.tokens * static_cast<std::int64_t>(p.topk) > 0x7fffffff || cuda::effective_chunk(p) * p.topk > 0x7fffffff)
    return fail(StatusCode::unsupported, "tokens * topk above 2^31 - 1");
  const auto st = static_cast<cudaStream_t>(stream);
  if (validate_indices && !(s = check_indices_on_host(p, st)).ok()) return s;
  const cudaError_t e = cuda::launch_backward(p, st);
  if (e != cudaSuccess) return fail(StatusCode::cuda_error, std::string("launch failed: ") + cudaGetErrorString(e));
  return ok();
}

Status check_index_error(const std::int32_t* error_flag, void* stream) {
  if (!error_flag) return fail(StatusCode::invalid_argument, "error_flag is null");
  std::int32_t v = 0;
  const auto st = static_cast<cudaStream_t>(stream);
  cudaError_t e = cudaMemcpyAsync(&v, error_flag, 4, cudaMemcpyDeviceToHost, st);
  if (e == cudaSuccess) e = cudaStreamSynchronize(st);
  if (e != cudaSuccess) return fail(StatusCode::cuda_error, std::string("error_flag copy: ") + cudaGetErrorString(e));
  if (v != 0)
    return fail(StatusCode::invalid_argument,
                "indices: a kernel met an index outside -1 .. num_kv - 1 (its slot was treated as a hole; the outputs "
                "are not the op's; call with validate_indices to find it)");
  return ok();
}

}  // namespace samebits::kernels::sparse_mla
