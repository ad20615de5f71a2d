// samebits/gpu/tensor_map.hpp — the tensor maps of Hopper's tensor memory
// accelerator (TMA), host side: a 128-byte object a kernel takes as a
// __grid_constant__ argument and gpu::tma_load_3d (tensor_core.hpp) reads.
// One kind only, the one the tensor-core kernels use: 16-bit elements, rank 3
// ([rows, heads, d] with d contiguous), 128-byte swizzle, zero fill out of
// bounds, a box whose innermost extent is 64 elements (one 128-byte row of a
// swizzle atom: the layout TcSwTile describes).
//
//   TensorMapShape{base, dims, strides, box}   what the map describes
//   tensor_map_refusal(shape)                  why TMA cannot take it (nullptr: it can), the
//                                              driver's documented constraints
//   encode_tensor_map(map, shape)              fills map; false when refused (or, CUDA, when the
//                                              driver's encoder fails): the caller copies by
//                                              cp.async instead — the same bytes land either way
//
// CUDA: the driver's cuTensorMapEncodeTiled, found through the runtime's
// driver entry point (no link to libcuda). Emulator: the map holds the shape
// itself (arch/emulator_sm90.hpp's tma_load_3d reads it).
#pragma once

#include <cstdint>
#include <cstring>

#include "samebits/gpu/backend.hpp"

#if defined(SAMEBITS_GPU_CUDA)
#  include <cuda.h>
#  include <cudaTypedefs.h>
#  include <cuda_runtime_api.h>
#endif

namespace samebits::gpu {

// dims and box in elements, innermost first (d, heads, rows); strides in bytes of dims 1 and 2.
struct TensorMapShape {
  const void* base = nullptr;
  std::uint64_t dims[3] = {};
  std::uint64_t strides[2] = {};
  std::uint32_t box[3] = {};
};

// The CUtensorMap's size and alignment (cuda.h: 128 bytes, 64-aligned).
struct alignas(64) TensorMap {
  unsigned char bytes[128];
};
static_assert(sizeof(TensorMapShape) <= sizeof(TensorMap), "the emulator's map holds its shape");

inline constexpr std::uint32_t kTensorMapElementBytes = 2;
inline constexpr std::uint32_t kTensorMapBoxInner = 64;  // 128 bytes: the 128-byte swizzle's row

inline const char* tensor_map_refusal(const TensorMapShape& s) {
  if (s.base == nullptr) return "tensor map: null base";
  if (reinterpret_cast<std::uintptr_t>(s.base) % 16 != 0) return "tensor map: base not 16-byte aligned";
  for (int i = 0; i < 3; ++i)
    if (s.dims[i] == 0 || s.dims[i] > (std::uint64_t{1} << 32)) return "tensor map: a dimension is 0 or above 2^32";
  for (int i = 0; i < 2; ++i)
    if (s.strides[i] % 16 != 0 || s.strides[i] >= (std::uint64_t{1} << 40))
      return "tensor map: a stride is not a multiple of 16 bytes or is 2^40 or more";
  if (s.box[0] != kTensorMapBoxInner) return "tensor map: the box's inner extent is not 64 elements";
  for (int i = 1; i < 3; ++i)
    if (s.box[i] == 0 || s.box[i] > 256) return "tensor map: a box extent is 0 or above 256";
  if (s.dims[0] % kTensorMapBoxInner != 0) return "tensor map: d is not whole 64-element rows";
  return nullptr;
}

#if defined(SAMEBITS_GPU_CUDA)
namespace detail {
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      f = nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
  }();
  return fn;
}
}  // namespace detail
#endif

inline bool encode_tensor_map(TensorMap& map, const TensorMapShape& s) {
  std::memset(map.bytes, 0, sizeof map.bytes);
  if (tensor_map_refusal(s) != nullptr) return false;
#if defined(SAMEBITS_GPU_CUDA)
  const auto encode = detail::tensor_map_encoder();
  if (encode == nullptr) return false;
  const cuuint64_t dims[3] = {s.dims[0], s.dims[1], s.dims[2]};
  const cuuint64_t strides[2] = {s.strides[0], s.strides[1]};
  const cuuint32_t box[3] = {s.box[0], s.box[1], s.box[2]};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  // UINT16: the copy moves bits; no conversion depends on the type.
  return encode(reinterpret_cast<CUtensorMap*>(map.bytes), CU_TENSOR_MAP_DATA_TYPE_UINT16, 3, const_cast<void*>(s.base),
                dims, strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
#else
  std::memcpy(map.bytes, &s, sizeof s);
  return true;
#endif
}

}  // namespace samebits::gpu
