// The HIP form of samebits/gpu's device code, compiled for gfx942 and gfx950
// in CI (clang -x hip --cuda-device-only -nogpuinc -nogpulib): the
// reductions of reduce.hpp in kernels, as a kernel author would write them.
// Compiled only: these machines have no AMD GPU (nor a ROCm runtime: runtime/hip.hpp is declared only).
#include <samebits/gpu/buffer.hpp>
#include <samebits/gpu/event.hpp>
#include <samebits/gpu/launch.hpp>
#include <samebits/gpu/reduce.hpp>

namespace sg = samebits::gpu;

SAMEBITS_KERNEL void group_sums(const float* x, float* out) {
  const unsigned i = sg::arch::block_x() * sg::arch::block_dim_x() + sg::arch::thread_x();
  out[i] = sg::group_sum(x[i]);
}

SAMEBITS_KERNEL void block_sums(const float* x, float* out) {
  SAMEBITS_SHARED float scratch[sg::kReduceScratch];
  const unsigned i = sg::arch::block_x() * sg::arch::block_dim_x() + sg::arch::thread_x();
  const float s = sg::block_sum(x[i], scratch);
  const float m = sg::block_max(x[i], scratch);
  if (sg::arch::thread_x() == 0) {
    out[2 * sg::arch::block_x()] = s;
    out[2 * sg::arch::block_x() + 1] = m;
  }
}

SAMEBITS_KERNEL void array_sums(const float* x, unsigned long n, float* out) {
  SAMEBITS_SHARED float scratch[sg::kReduceScratch];
  const float s = sg::block_sum_array(x, n, scratch);
  const float m = sg::block_max_array(x, n, scratch);
  if (sg::arch::thread_x() == 0) {
    out[0] = s;
    out[1] = m;
  }
}

// The host interface parses in the HIP form too (runtime/hip.hpp: declared only, not linked here).
[[maybe_unused]] static samebits::gpu::Status enqueue_group_sums(const float* x, float* out, unsigned n,
                                                                 const samebits::gpu::Stream& s) {
  return samebits::gpu::launch(group_sums, samebits::gpu::Shape{samebits::gpu::blocks_for(n, 256), 256}, s, x, out);
}
