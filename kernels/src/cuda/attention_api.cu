// kernels/src/cuda/attention_api.cu — the host API (attention/api.hpp): every
// argument checked on the host by the shared validator
// (kernels/src/validate/attention_validate.cpp, also behind the C ABI), then
// the launchers. Fail closed: anything not understood is refused by name, and
// nothing is launched. What only the CUDA runtime knows, whether a pointer is
// device memory, is answered by pointer_query.hpp.
#include <cuda_runtime.h>

#include <string>

#include "validate/attention_validate.hpp"
#include "validate/rules.hpp"
#include "cuda/attention_launch.hpp"
#include "cuda/pointer_query.hpp"
#include "samebits/kernels/attention/api.hpp"

namespace samebits::kernels::attention {
namespace {

constexpr validate::PointerQuery kCuda = cuda_runtime::kPointerQuery;

Status check_launch(cudaError_t e) {
  if (e == cudaSuccess) return Status{};
  return Status{StatusCode::cuda_error, std::string("samebits attention: launch failed: ") + cudaGetErrorString(e)};
}

// The sm90-tensor-core kernels exist in this build and this device runs them
// (compute capability 9.0: H100, H200).
Status check_tc_device() {
  if (!cuda::tc_kernels_built())
    return Status{StatusCode::unsupported,
                  "samebits attention: policy sm90-tensor-core: this library was built without its sm_90a kernels"};
  int dev = 0, major = 0, minor = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess)
    return check_launch(cudaGetLastError());
  if (major != 9 || minor != 0)
    return Status{StatusCode::unsupported, "samebits attention: policy sm90-tensor-core needs compute capability 9.0 "
                                           "(its arithmetic is the H100/H200 tensor cores'); this device is " +
                                               std::to_string(major) + "." + std::to_string(minor)};
  return Status{};
}

}  // namespace

Status forward(const ForwardParams& checked, HostSeqlens host, void* stream) {
  if (Status s = validate::check_forward(checked, host, kCuda); !s.ok()) return s;
  ForwardParams p = checked;
  p.scale = rules::resolved_scale(p.scale, p.d);  // NaN: the default (the kernels read a number)
  if (p.policy == Policy::sm90_tensor_core) {
    if (Status s = check_tc_device(); !s.ok()) return s;
    if (p.total_q == 0) return Status{};
    return check_launch(cuda::launch_tc_forward(p, static_cast<cudaStream_t>(stream)));
  }
  if (p.total_q == 0) return Status{};
  return check_launch(cuda::launch_forward(p, static_cast<cudaStream_t>(stream)));
}

Status backward(const BackwardParams& checked, HostSeqlens host, void* stream) {
  if (Status s = validate::check_backward(checked, host, kCuda); !s.ok()) return s;
  BackwardParams p = checked;
  p.scale = rules::resolved_scale(p.scale, p.d);  // NaN: the default (the kernels read a number)
  if (p.policy == Policy::sm90_tensor_core) {
    if (Status s = check_tc_device(); !s.ok()) return s;
    if (p.total_q == 0 && p.total_k == 0) return Status{};
    return check_launch(cuda::launch_tc_backward(p, static_cast<cudaStream_t>(stream)));
  }
  if (p.total_q == 0 && p.total_k == 0) return Status{};
  return check_launch(cuda::launch_backward(p, static_cast<cudaStream_t>(stream)));
}

}  // namespace samebits::kernels::attention
