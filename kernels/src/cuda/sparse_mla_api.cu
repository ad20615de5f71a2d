// kernels/src/cuda/sparse_mla_api.cu — the sparse MLA host API
// (sparse_mla/api.hpp): every argument checked on the host by the shared
// validator (kernels/src/validate/sparse_mla_validate.cpp, also behind the C
// ABI), then the launchers. Fail closed: anything not understood is refused
// by name, and nothing is launched.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "validate/rules.hpp"
#include "validate/sparse_mla_validate.hpp"
#include "cuda/pointer_query.hpp"
#include "samebits/kernels/sparse_mla/api.hpp"
#include "cuda/sparse_mla_launch.hpp"

namespace samebits::kernels::sparse_mla {
namespace {

constexpr validate::PointerQuery kCuda = cuda_runtime::kPointerQuery;

Status fail(StatusCode c, const std::string& m) { return Status{c, "samebits sparse-mla: " + m}; }

Status cuda_status(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return Status{};
  return fail(StatusCode::cuda_error, std::string(what) + ": " + cudaGetErrorString(e));
}

// The validating mode: the indices copied to the host and checked there.
Status check_indices_on_host(const ProblemParams& p, cudaStream_t stream) {
  if (p.tokens == 0) return Status{};
  std::vector<std::int32_t> h(static_cast<std::size_t>(p.tokens) * p.topk);
  cudaError_t e = cudaMemcpy2DAsync(h.data(), p.topk * 4, p.indices, p.indices_row_stride * 4, p.topk * 4,
                                    static_cast<std::size_t>(p.tokens), cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  if (Status s = cuda_status(e, "indices copy"); !s.ok()) return s;
  return validate::check_indices(p, h.data());
}

}  // namespace

Status forward(const ForwardParams& checked, bool validate_indices, void* stream) {
  if (Status s = validate::check_forward(checked, kCuda); !s.ok()) return s;
  ForwardParams p = checked;
  p.scale = rules::resolved_scale(p.scale, p.d);  // NaN: the default (the kernels read a number)
  const auto st = static_cast<cudaStream_t>(stream);
  if (validate_indices)
    if (Status s = check_indices_on_host(p, st); !s.ok()) return s;
  if (p.tokens == 0) return Status{};
  return cuda_status(cuda::launch_forward(p, st), "launch failed");
}

std::int64_t backward_workspace_bytes(const BackwardParams& p) {
  if (!validate::check_sizes(p).ok() || !validate::check_chunk(p).ok()) return -1;
  return cuda::backward_workspace_bytes(p, cuda::effective_chunk(p));
}

Status backward(const BackwardParams& checked, bool validate_indices, void* stream) {
  const std::int64_t need = backward_workspace_bytes(checked);  // -1: refused below, by name
  if (Status s = validate::check_backward(checked, need, kCuda); !s.ok()) return s;
  BackwardParams p = checked;
  p.scale = rules::resolved_scale(p.scale, p.d);  // NaN: the default (the kernels read a number)
  const auto st = static_cast<cudaStream_t>(stream);
  if (validate_indices)
    if (Status s = check_indices_on_host(p, st); !s.ok()) return s;
  return cuda_status(cuda::launch_backward(p, st), "launch failed");
}

Status check_index_error(const std::int32_t* error_flag, void* stream) {
  if (!error_flag) return fail(StatusCode::invalid_argument, "error_flag is null");
  std::int32_t v = 0;
  const auto st = static_cast<cudaStream_t>(stream);
  cudaError_t e = cudaMemcpyAsync(&v, error_flag, 4, cudaMemcpyDeviceToHost, st);
  if (e == cudaSuccess) e = cudaStreamSynchronize(st);
  if (Status s = cuda_status(e, "error_flag copy"); !s.ok()) return s;
  if (v != 0)
    return fail(StatusCode::invalid_argument,
                "indices: a kernel met an index outside -1 .. num_kv - 1 (its slot was treated as a hole; the outputs "
                "are not the op's; call with validate_indices to find it)");
  return Status{};
}

}  // namespace samebits::kernels::sparse_mla
