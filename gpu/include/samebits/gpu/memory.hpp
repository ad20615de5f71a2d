// samebits/gpu/memory.hpp — 16-byte vectors and the global-memory operations
// kernels need beyond plain loads and stores, the same names on NVIDIA and
// AMD (arch/nvptx.hpp: inline PTX and CUDA builtins; arch/amdgpu.hpp: clang
// builtins, no ROCm header). Device code only.
//
//   float4, uint4, make_float4    16-byte aligned vectors (CUDA's own on NVIDIA)
//   load_readonly(const uint4*)   data no thread writes during the kernel (__ldg)
//   load_acquire_agent / store_release_agent(int*)
//                                 integer flags between blocks, device scope
//   load_coherent / store_coherent(float*, float4)
//                                 16 bytes that other blocks wrote / will read:
//                                 past the non-coherent per-SM / per-CU L1
//   fetch_add_agent(int*, int)    integer atomic add, relaxed, device scope
//   fence_agent()                 __threadfence
//   copy_async_16, copy_async_commit, copy_async_wait_all
//                                 16 bytes global -> shared: cp.async on
//                                 NVIDIA; a synchronous load + LDS store on AMD
//
// No floating-point atomic arithmetic is offered, on purpose.
#pragma once

#include "samebits/gpu/arch.hpp"

namespace samebits::gpu {

#if defined(SAMEBITS_GPU_ARCH)
using arch::copy_async_16;
using arch::copy_async_commit;
using arch::copy_async_wait_all;
using arch::fence_agent;
using arch::fetch_add_agent;
using arch::float4;
using arch::load_acquire_agent;
using arch::load_coherent;
using arch::load_readonly;
using arch::make_float4;
using arch::store_coherent;
using arch::store_release_agent;
using arch::uint4;
#endif

}  // namespace samebits::gpu
