// kernels/src/portable/common/rounded_ops.cuh — the contract's rounded operations as the
// fma-chain kernels spell them (attention.md §4, §5, §7): add, sub, mul, div and fma of
// binary32, each one IEEE operation rounded to nearest even, never contracted or flushed
// (samebits/gpu/ieee.hpp: explicit .rn instructions on NVIDIA, the clang builtins on AMD);
// maxNum (§4.2) and its identity; the 16-byte vector types (samebits/gpu/memory.hpp).
//
// Vendor-neutral, as every header of kernels/src/portable/: the kernels compile with nvcc
// (CUDA, sm_90) and with clang -x hip for AMD (kernels/src/hip/attention_kernels.hip); every
// thread index, barrier, lane exchange, vector type, memory-ordering and copy instruction
// comes from samebits/gpu (thread.hpp, memory.hpp, math.hpp: inline PTX in
// gpu/arch/nvptx.hpp, clang builtins in gpu/arch/amdgpu.hpp), the arithmetic from
// gpu/ieee.hpp. No vendor test in any function body.
#pragma once

#include "samebits/gpu/backend.hpp"
#include "samebits/gpu/ieee.hpp"
#include "samebits/gpu/math.hpp"
#include "samebits/gpu/memory.hpp"  // float4, uint4
#include "samebits/libm/fp/bits.hpp"

// The namespace keeps its name (`cuda`) on AMD too: the kernels' symbols, and
// hence the PTX, stay what they were.
namespace samebits::kernels::attention::cuda {

using gpu::add_rn;
using gpu::div_rn;
using gpu::fma_rn;
using gpu::mul_rn;
using gpu::sub_rn;
using gpu::float4;
using gpu::make_float4;
using gpu::max_num;  // IEEE maxNum, never flushed (§4.2): max.f32 without .ftz on NVIDIA
using gpu::uint4;

// The identity of max_num: a quiet NaN (maxNum(NaN, x) = x for every x, and
// the result stays NaN only when every member's score is NaN, as §4.2 says).
SAMEBITS_DEVICE_FUNC float max_identity() { return fp::from_bits(0x7fffffffu); }

}  // namespace samebits::kernels::attention::cuda
