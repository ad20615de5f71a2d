// kernels/src/cuda/sparse_mla_launch_bwd.cu — the sparse MLA backward
// launcher (sparse_mla_bwd_kernel.cuh): the workspace carved, delta and
// d_sink over all tokens, then per chunk of query rows the token, contrib,
// pairs, sort, offsets and dkv-accumulate kernels, and dkv's rounding last.
// The dkv accumulators continue from chunk to chunk (§5). The sort is CUB's
// radix sort (stable and deterministic: within a kv row the (t, slot) order
// of the pairs is kept).
#include <cstdint>

#include <cub/device/device_radix_sort.cuh>

#include "portable/sparse_mla/bwd_kernel.cuh"
#include "portable/sparse_mla/bwd_streamed_kernel.cuh"
#include "cuda/sparse_mla_launch.hpp"

namespace samebits::kernels::sparse_mla::cuda {
namespace {

std::int64_t round256(std::int64_t b) { return (b + 255) / 256 * 256; }
unsigned blocks_for(std::int64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }
int key_bits(std::int64_t num_kv) {
  int b = 1;
  while ((std::int64_t{1} << b) <= num_kv) ++b;  // keys 0 .. num_kv
  return b;
}

// The workspace's parts, in bytes from its start.
struct Layout {
  std::int64_t delta, accum, p, ds, c, keys, values, sorted_keys, sorted_values, offsets, sort_tmp, sort_tmp_bytes, total;
};

Layout layout(const ProblemParams& p, std::int64_t chunk) {
  Layout l{};
  const std::int64_t pairs = chunk * p.topk;
  std::int64_t at = 0;
  auto take = [&](std::int64_t bytes) {
    const std::int64_t here = at;
    at += round256(bytes);
    return here;
  };
  l.delta = take(p.tokens * p.heads * 4);
  l.accum = take(p.num_kv * p.d * 4);
  l.p = take(chunk * p.heads * p.topk * 4);
  l.ds = take(chunk * p.heads * p.topk * 4);
  l.c = take(pairs * p.d * 4);
  l.keys = take(pairs * 4);
  l.values = take(pairs * 4);
  l.sorted_keys = take(pairs * 4);
  l.sorted_values = take(pairs * 4);
  l.offsets = take((p.num_kv + 1) * 4);
  std::size_t tmp = 0;
  cub::DeviceRadixSort::SortPairs(nullptr, tmp, static_cast<const std::uint32_t*>(nullptr),
                                  static_cast<std::uint32_t*>(nullptr), static_cast<const std::int32_t*>(nullptr),
                                  static_cast<std::int32_t*>(nullptr), static_cast<int>(pairs), 0, key_bits(p.num_kv));
  l.sort_tmp_bytes = static_cast<std::int64_t>(tmp);
  l.sort_tmp = take(l.sort_tmp_bytes);
  l.total = at;
  return l;
}

// The streamed token kernel's condition (as the forward's): 16-bit elements,
// kv's base and row stride in whole 16-byte words.
bool streamable(const BackwardParams& p) {
  return p.in_dtype != DType::f32 &&
         reinterpret_cast<std::uintptr_t>(p.kv) % 16 == 0 && p.kv_row_stride % 8 == 0;
}

// One chunk's token kernel: the streamed one where it applies.
template <int D, class L, DType In, DType Grad>
cudaError_t launch_token(const BackwardParams& p, const ChunkWorkspace& w, cudaStream_t stream) {
  if constexpr (In != DType::f32) {
    if (streamable(p)) {
      auto k = sparse_mla_bwd_token_streamed_kernel<D, L, In, Grad>;
      constexpr int kBytes = StreamedTokenSmem<D>::kBytes;
      cudaError_t e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes);
      if (e != cudaSuccess) return e;
      k<<<dim3(w.tokens, (p.heads + kStreamBwdHeads - 1) / kStreamBwdHeads), kThreads, kBytes, stream>>>(p, w);
      return cudaGetLastError();
    }
  }
  auto k = sparse_mla_bwd_token_kernel<D, L, In, Grad>;
  cudaError_t e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, TokenSmem<D>::kBytes);
  if (e != cudaSuccess) return e;
  k<<<dim3(w.tokens, (p.heads + kBwdHeads - 1) / kBwdHeads), kThreads, TokenSmem<D>::kBytes, stream>>>(p, w);
  return cudaGetLastError();
}

template <int D, class L, DType In, DType OutO, DType Grad>
cudaError_t launch(const BackwardParams& p, std::int64_t chunk, cudaStream_t stream) {
  const Layout l = layout(p, chunk);
  char* w0 = static_cast<char*>(p.workspace);
  ChunkWorkspace w;
  w.delta = reinterpret_cast<float*>(w0 + l.delta);
  w.accum = reinterpret_cast<float*>(w0 + l.accum);
  w.p = reinterpret_cast<float*>(w0 + l.p);
  w.ds = reinterpret_cast<float*>(w0 + l.ds);
  w.c = reinterpret_cast<float*>(w0 + l.c);
  w.keys = reinterpret_cast<std::int32_t*>(w0 + l.keys);
  w.values = reinterpret_cast<std::int32_t*>(w0 + l.values);
  w.sorted_keys = reinterpret_cast<std::int32_t*>(w0 + l.sorted_keys);
  w.sorted_values = reinterpret_cast<std::int32_t*>(w0 + l.sorted_values);
  w.offsets = reinterpret_cast<std::int32_t*>(w0 + l.offsets);
  cudaError_t e;
  if ((e = cudaMemsetAsync(w.accum, 0, static_cast<std::size_t>(p.num_kv) * D * 4, stream)) != cudaSuccess) return e;
  if (p.tokens > 0) {
    sparse_mla_bwd_delta_kernel<D, In, OutO><<<blocks_for(p.tokens * p.heads), kThreads, 0, stream>>>(p, w.delta);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
    if (p.sink) {
      sparse_mla_bwd_dsink_kernel<L><<<blocks_for(p.heads), kThreads, 0, stream>>>(p, w.delta);
      if ((e = cudaGetLastError()) != cudaSuccess) return e;
    }
  }
  auto contrib = sparse_mla_bwd_contrib_kernel<D, In>;
  if ((e = cudaFuncSetAttribute(contrib, cudaFuncAttributeMaxDynamicSharedMemorySize, ContribSmem<D>::kBytes)) !=
      cudaSuccess)
    return e;
  for (std::int64_t t0 = 0; t0 < p.tokens; t0 += chunk) {
    w.t0 = t0;
    w.tokens = static_cast<int>(std::min(chunk, p.tokens - t0));
    const std::int64_t pairs = static_cast<std::int64_t>(w.tokens) * p.topk;
    if ((e = launch_token<D, L, In, Grad>(p, w, stream)) != cudaSuccess) return e;
    const std::int64_t contrib_blocks =
        static_cast<std::int64_t>(w.tokens) * ((p.topk + kTileKeys - 1) / kTileKeys) * (D / kContribCols);
    if (contrib_blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
    contrib<<<static_cast<unsigned>(contrib_blocks), kThreads, ContribSmem<D>::kBytes, stream>>>(p, w);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
    sparse_mla_bwd_pairs_kernel<<<blocks_for(pairs), kThreads, 0, stream>>>(p, w);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
    std::size_t tmp = static_cast<std::size_t>(l.sort_tmp_bytes);
    if ((e = cub::DeviceRadixSort::SortPairs(w0 + l.sort_tmp, tmp, reinterpret_cast<const std::uint32_t*>(w.keys),
                                             reinterpret_cast<std::uint32_t*>(w.sorted_keys), w.values,
                                             w.sorted_values, static_cast<int>(pairs), 0, key_bits(p.num_kv),
                                             stream)) != cudaSuccess)
      return e;
    sparse_mla_bwd_offsets_kernel<<<blocks_for(p.num_kv + 1), kThreads, 0, stream>>>(p, w);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
    sparse_mla_bwd_dkv_accum_kernel<D><<<blocks_for(p.num_kv * (D / 4)), kThreads, 0, stream>>>(p, w);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
  }
  if (p.num_kv > 0) {
    sparse_mla_bwd_dkv_finish_kernel<D, Grad><<<blocks_for(p.num_kv * D), kThreads, 0, stream>>>(p, w.accum);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
  }
  return cudaSuccess;
}

}  // namespace

std::int64_t effective_chunk(const BackwardParams& p) {
  const std::int64_t c = p.chunk_tokens > 0 ? p.chunk_tokens : kDefaultChunkTokens;
  return std::max<std::int64_t>(1, std::min(c, p.tokens));
}

std::int64_t backward_workspace_bytes(const ProblemParams& p, std::int64_t chunk_tokens) {
  return layout(p, std::max<std::int64_t>(1, chunk_tokens)).total;
}

cudaError_t launch_backward(const BackwardParams& p, cudaStream_t stream) {
  const std::int64_t chunk = effective_chunk(p);
  return dispatch::head_dim_and_libm<SparseMlaKernels>(p, [&]<int D, class L>() {
    return dispatch::backward_dtypes<SparseMlaKernels>(
        p, [&]<DType In, DType OutO, DType Grad>() { return launch<D, L, In, OutO, Grad>(p, chunk, stream); });
  });
}

}  // namespace samebits::kernels::sparse_mla::cuda
