// kernels/src/cuda/pointer_query.hpp — the validators' one question for the
// CUDA runtime (kernels/src/validate/attention_validate.hpp: PointerQuery):
// what kind of memory a pointer is. Shared by the host APIs of this folder.
#pragma once

#include <cuda_runtime.h>

#include "validate/attention_validate.hpp"

namespace samebits::kernels::cuda_runtime {

inline attention::validate::MemoryKind pointer_kind(const void* ptr, void*) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, ptr) != cudaSuccess) {
    cudaGetLastError();
    return attention::validate::MemoryKind::not_cuda;
  }
  if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
    return attention::validate::MemoryKind::host;
  return attention::validate::MemoryKind::device;
}

inline constexpr attention::validate::PointerQuery kPointerQuery{pointer_kind, nullptr};

}  // namespace samebits::kernels::cuda_runtime
