// tests/device/kernels/attention_tc_check.cu — the sm90-tensor-core forward
// (kernels/src/sm90/attention_tc/fwd_kernel.cuh) against its CPU reference
// (reference_tc.hpp through reference_forward with DenseProblem::policy =
// sm90_tensor_core), bit for bit; the wgmma building blocks alone; the
// invariances; the refusals; and its speed beside the fma-chain kernel.
//
//   attention_tc_check [--quick] [--sections layout,grid,invariance,errors,bench]
//                      [--filter SUBSTR] [--out DIR] [--threads N] [--bench-reps N]
//                      [--bench-seqlens LIST] [--bench-libms LIST|both|all]
//
// layout      one warpgroup runs the kernel's own copy loop, descriptors and
//             wgmma wrappers on small integers (every product and sum exact):
//             S = Q K^T (A, B from shared memory, K-major), O = P V (A from
//             registers through pack2, V N-major, the kernel's reading of the
//             N-major descriptor's byte offsets); mismatches against integer
//             arithmetic. Tells a layout error from an arithmetic one.
// grid        o and lse, then dq, dk, dv (the backward from the reference's
//             stored o and lse), GPU vs the CPU reference under
//             tc::kHardwareParams, every point with flipped-bit controls; the
//             backward twice: its dq pass recomputing dS, and reading the D^S
//             the dK/dV pass stored (ds_workspace, attention-tc.md §21); where a point mismatches,
//             the reference is also run with the other zero_exponent rules and
//             their mismatch counts are reported (which rule the hardware
//             follows, measured through the kernel).
// invariance  GPU vs GPU: batch (packed varlen vs each sequence alone),
//             prefill vs chunked prefill vs decode (the last rows), head split
//             (tensor parallelism: the heads of kv groups launched apart), the
//             context-parallel backward (two parts, dK/dV accumulators handed
//             on) vs one launch, 100 repeats (digests).
// errors      the refusals: fp32 inputs, misaligned strides, other Params,
//             tile_rows, a hand-over whose rows start off a 16-row group, a
//             stored-D^S workspace one byte short or under fma-chain.
// bench       Qwen3-8B shapes (hq 32, hkv 8, D 128, causal, bf16, one
//             sequence) S = 512 .. 16384: ms (CUDA events, median of N after
//             warm-up), TFLOP/s (forward 4 S^2 D hq / 2, backward 2.5 x that),
//             forward and backward (both dq passes), beside the fma-chain forward on the same
//             inputs (nvcc and cr); nvcc, nvcc-fast and cr libm (--bench-seqlens,
//             --bench-libms: a subset, for A/B runs of kernel variants).
// One JSON line per point (stdout and DIR/attention_tc_check.jsonl). Exit 1
// when a check fails (the bench never fails), 2 on a CUDA error.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "samebits/kernels/attention/api.hpp"
#include "samebits/kernels/attention/reference_api.hpp"
#include "samebits/kernels/attention/tensor_core.hpp"
#include "samebits/kernels/dtype.hpp"

#include "../../../kernels/src/sm90/attention_tc/fwd_kernel.cuh"
#include "check_common.cuh"

namespace sk = samebits::kernels;
namespace sa = samebits::kernels::attention;
namespace sm90 = samebits::mma::sm90;
using check::compare;
using check::Compare;
using check::control;
using check::DeviceBuffer;
using check::hex;
using check::HostTensor;
using check::random_tensor;
using check::rounded;

namespace {

struct Options {
  bool quick = false;
  std::string sections = "layout,grid,invariance,errors,bench", filter, out_dir;
  unsigned threads = 0;
  int bench_reps = 20;
  std::vector<int> bench_seqlens{512, 1024, 2048, 4096, 8192, 16384};
  std::vector<sa::Libm> bench_libms{sa::Libm::nvcc, sa::Libm::nvcc_fast, sa::Libm::cr};
  bool has(const char* s) const { return ("," + sections + ",").find(std::string(",") + s + ",") != std::string::npos; }
};

FILE* g_jsonl = nullptr;
void emit(const std::string& line) {
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
  if (g_jsonl) {
    std::fprintf(g_jsonl, "%s\n", line.c_str());
    std::fflush(g_jsonl);
  }
}

// ---- layout: the building blocks on exact integers --------------------------

// One warpgroup: S = Q K^T (64 x 128, d = D) and O = P V (64 x D, keys = 128)
// with P = S rounded to the operand format (exact: |S| <= D for entries in
// {-1, 0, 1}), V read through the N-major descriptor (lead, stride).
template <int D, sm90::Format F>
__global__ void __launch_bounds__(128) layout_kernel(const std::uint16_t* q, const std::uint16_t* k,
                                                     const std::uint16_t* v, float* s_out, float* o_out,
                                                     std::uint32_t v_lead, std::uint32_t v_stride) {
  namespace sc = samebits::kernels::attention::cuda;
  using Tile = sc::TcSwTile<D, 128>;  // the forward's tiles, staged by its own copy loop
  extern __shared__ float4 smem4[];
  char* smem = sc::align_shared_1024(reinterpret_cast<char*>(smem4));
  char* sQ = smem;
  char* sK = smem + Tile::kBytes;
  char* sV = smem + 2 * Tile::kBytes;
  const samebits::kernels::attention::Strides st{D, D};
  sc::tc_stage_tile_sw<D, 128, 128>(sQ, q, st, 0, 0, 64, 0);
  sc::tc_stage_tile_sw<D, 128, 128>(sK, k, st, 0, 0, 128, 0);
  sc::tc_stage_tile_sw<D, 128, 128>(sV, v, st, 0, 0, 128, 0);
  samebits::gpu::copy_async_commit();
  samebits::gpu::copy_async_wait<0>();
  samebits::gpu::fence_proxy_async_shared();
  __syncthreads();
  float s[64];
  for (int i = 0; i < 64; ++i) s[i] = 0.0f;
  const std::uint64_t dq = samebits::gpu::smem_descriptor_sw128(sQ, Tile::kPanelBytes, Tile::kAtomBytes);
  const std::uint64_t dk = samebits::gpu::smem_descriptor_sw128(sK, Tile::kPanelBytes, Tile::kAtomBytes);
  const std::uint64_t dv = samebits::gpu::smem_descriptor_sw128(sV, v_lead, v_stride);
  for (int i = 0; i < 64; ++i) samebits::gpu::fence_operand(s[i]);
  samebits::gpu::wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) samebits::gpu::wgmma_ss<F, 128>(s, dq + Tile::k_step(kk), dk + Tile::k_step(kk), kk > 0);
  samebits::gpu::wgmma_commit();
  samebits::gpu::wgmma_wait<0>();
  for (int i = 0; i < 64; ++i) samebits::gpu::fence_operand(s[i]);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, quad = lane % 4;
  for (int i = 0; i < 64; ++i) {
    const int row = 16 * warp + lane / 4 + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * quad + i % 2;
    s_out[row * 128 + col] = s[i];
  }
  std::uint32_t pa[8][4];
#pragma unroll
  for (int kk = 0; kk < 8; ++kk)
#pragma unroll
    for (int j = 0; j < 4; ++j) pa[kk][j] = samebits::gpu::pack2<F>(s[8 * kk + 2 * j], s[8 * kk + 2 * j + 1]);
  float o[D / 2];
  for (int i = 0; i < D / 2; ++i) o[i] = 0.0f;
  for (int i = 0; i < D / 2; ++i) samebits::gpu::fence_operand(o[i]);
  samebits::gpu::wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < 8; ++kk)
    samebits::gpu::wgmma_rs<F, D, 1>(o, pa[kk], dv + kk * Tile::kKeyStep, kk > 0);
  samebits::gpu::wgmma_commit();
  samebits::gpu::wgmma_wait<0>();
  for (int i = 0; i < D / 2; ++i) samebits::gpu::fence_operand(o[i]);
  for (int i = 0; i < D / 2; ++i) {
    const int row = 16 * warp + lane / 4 + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * quad + i % 2;
    o_out[row * D + col] = o[i];
  }
}

// The kernel's reading of the N-major V descriptor's byte offsets (leading = the panel, stride =
// the 8-row atom: fwd_kernel.cuh's kVLead / kVStride): readings[0] below.
constexpr int kKernelVReading = 0;

template <int D, sm90::Format F>
bool layout_case(const char* fmt_name) {
  std::mt19937_64 rng(7 + D);
  auto enc = [](int x) -> std::uint16_t {  // -1, 0, 1 in bf16 / fp16
    if (x == 0) return 0;
    const std::uint16_t one = F == sm90::Format::bf16 ? 0x3f80 : 0x3c00;
    return x > 0 ? one : static_cast<std::uint16_t>(one | 0x8000);
  };
  std::vector<int> qi(64 * D), ki(128 * D), vi(128 * D);
  for (int& x : qi) x = static_cast<int>(rng() % 3) - 1;
  for (int& x : ki) x = static_cast<int>(rng() % 3) - 1;
  for (int& x : vi) x = static_cast<int>(rng() % 3) - 1;
  std::vector<std::uint16_t> q16(128 * D, 0), k16(128 * D), v16(128 * D);
  for (int i = 0; i < 64 * D; ++i) q16[i] = enc(qi[i]);
  for (int i = 0; i < 128 * D; ++i) k16[i] = enc(ki[i]), v16[i] = enc(vi[i]);
  std::vector<long> s_want(64 * 128), o_want(64 * D, 0);
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 128; ++c) {
      long a = 0;
      for (int e = 0; e < D; ++e) a += long{qi[r * D + e]} * ki[c * D + e];
      s_want[r * 128 + c] = a;
    }
  for (int r = 0; r < 64; ++r)
    for (int e = 0; e < D; ++e) {
      long a = 0;
      for (int x = 0; x < 128; ++x) a += s_want[r * 128 + x] * vi[x * D + e];
      o_want[r * D + e] = a;
    }
  DeviceBuffer dq(q16.size() * 2), dk(k16.size() * 2), dv(v16.size() * 2), ds(64 * 128 * 4), dout(64 * D * 4);
  dq.upload(q16.data());
  dk.upload(k16.data());
  dv.upload(v16.data());
  using Tile = samebits::kernels::attention::cuda::TcSwTile<D, 128>;
  const int bytes = 3 * Tile::kBytes + 1024;  // three tiles from a 1024-aligned base
  CHECK_CUDA(cudaFuncSetAttribute(layout_kernel<D, F>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  bool pass = true;
  const std::uint32_t readings[2][2] = {{Tile::kPanelBytes, Tile::kAtomBytes}, {Tile::kAtomBytes, Tile::kPanelBytes}};
  // Only the kernel's reading runs here: the other one's byte offsets reach past the tile (an
  // illegal access on the H100, 2026-12-06); the emulated test shows that the kernel's source
  // would notice the other reading (tests/kernels/test_attention_tc_emulated.cpp).
  for (int rd = kKernelVReading; rd == kKernelVReading; ++rd) {
    ds.poison();
    dout.poison();
    layout_kernel<D, F><<<1, 128, bytes>>>(dq.as<std::uint16_t>(), dk.as<std::uint16_t>(), dv.as<std::uint16_t>(),
                                          ds.as<float>(), dout.as<float>(), readings[rd][0], readings[rd][1]);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<float> s(64 * 128), o(64 * D);
    CHECK_CUDA(cudaMemcpy(s.data(), ds.ptr, s.size() * 4, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(o.data(), dout.ptr, o.size() * 4, cudaMemcpyDeviceToHost));
    long s_bad = 0, o_bad = 0;
    for (std::size_t i = 0; i < s.size(); ++i) s_bad += s[i] != static_cast<float>(s_want[i]);
    for (std::size_t i = 0; i < o.size(); ++i) o_bad += o[i] != static_cast<float>(o_want[i]);
    const bool kernel_reading = rd == kKernelVReading;
    if (kernel_reading) pass = pass && s_bad == 0 && o_bad == 0;
    char line[512];
    std::snprintf(line, sizeof line,
                  "{\"section\":\"layout\",\"format\":\"%s\",\"D\":%d,\"v_lead\":%u,\"v_stride\":%u,"
                  "\"kernel_reading\":%s,\"s_mismatch\":%ld,\"o_mismatch\":%ld}",
                  fmt_name, D, readings[rd][0], readings[rd][1], kernel_reading ? "true" : "false", s_bad, o_bad);
    emit(line);
  }
  return pass;
}

// ---- grid: GPU vs the CPU reference -------------------------------------------

struct Point {
  sa::Libm libm = sa::Libm::nvcc;
  bool causal = true;
  int d = 128, hq = 4, hkv = 2;
  sk::DType dtype = sk::DType::bf16, o_dtype = sk::DType::bf16;
  std::vector<std::int32_t> cu_q{0}, cu_k{0};
  std::string tag;
  std::uint64_t seed = 1;
  std::string name() const {
    return std::string("libm=") + sa::libm_name(libm) + " causal=" + (causal ? "1" : "0") + " D=" + std::to_string(d) +
           " " + tag + " hq=" + std::to_string(hq) + " hkv=" + std::to_string(hkv) + " dtype=" + sk::dtype_name(dtype) +
           " o=" + sk::dtype_name(o_dtype);
  }
  std::int64_t rows() const { return cu_q.back(); }
  std::int64_t kv_rows() const { return cu_k.back(); }
  int num_seqs() const { return static_cast<int>(cu_q.size()) - 1; }
};

int max_len(const std::vector<std::int32_t>& cu) {
  int m = 0;
  for (std::size_t s = 0; s + 1 < cu.size(); ++s) m = std::max(m, cu[s + 1] - cu[s]);
  return m;
}
sa::Strides dense_strides(int heads, int d) { return sa::Strides{static_cast<std::int64_t>(heads) * d, d}; }

// Device copies of a point's inputs and its forward outputs.
struct Run {
  const Point& pt;
  DeviceBuffer cu_q, cu_k, q, k, v, o, lse;
  // The backward's inputs (dO; o and lse as stored) and outputs, its workspace.
  DeviceBuffer dout, o_in, lse_in, dq, dk, dv, delta, acc_k, acc_v, dq_acc, dq_flags;
  // The stored-D^S workspace (attention-tc.md §21), allocated on first use: O(hq Lq Lk) bytes.
  std::unique_ptr<DeviceBuffer> ds_ws;
  DeviceBuffer& ds_workspace() {
    if (!ds_ws)
      ds_ws = std::make_unique<DeviceBuffer>(static_cast<std::size_t>(
          sa::backward_ds_workspace_bytes(pt.num_seqs(), max_len(pt.cu_q), max_len(pt.cu_k), pt.hq)));
    return *ds_ws;
  }
  // The backward's arguments with the dq pass reading the stored D^S.
  sa::BackwardParams bwd_params_stored_ds() {
    sa::BackwardParams b = bwd_params();
    b.ds_workspace = ds_workspace().ptr;
    b.ds_workspace_bytes = static_cast<std::int64_t>(ds_workspace().bytes);
    return b;
  }
  Run(const Point& p)
      : pt(p),
        cu_q(p.cu_q.size() * 4),
        cu_k(p.cu_k.size() * 4),
        q(p.rows() * p.hq * p.d * sk::dtype_size(p.dtype)),
        k(p.kv_rows() * p.hkv * p.d * sk::dtype_size(p.dtype)),
        v(p.kv_rows() * p.hkv * p.d * sk::dtype_size(p.dtype)),
        o(p.rows() * p.hq * p.d * sk::dtype_size(p.o_dtype)),
        lse(p.rows() * p.hq * 4),
        dout(p.rows() * p.hq * p.d * sk::dtype_size(p.dtype)),
        o_in(p.rows() * p.hq * p.d * sk::dtype_size(p.o_dtype)),
        lse_in(p.rows() * p.hq * 4),
        dq(p.rows() * p.hq * p.d * sk::dtype_size(p.dtype)),
        dk(p.kv_rows() * p.hkv * p.d * sk::dtype_size(p.dtype)),
        dv(p.kv_rows() * p.hkv * p.d * sk::dtype_size(p.dtype)),
        delta(p.rows() * p.hq * 4),
        acc_k(p.kv_rows() * p.hq * p.d * 4),
        acc_v(p.kv_rows() * p.hq * p.d * 4),
        dq_acc(p.rows() * p.hq * p.d * 4),
        dq_flags((p.rows() * p.hq + 1) * 4) {
    cu_q.upload(p.cu_q.data());
    cu_k.upload(p.cu_k.data());
  }
  sa::BackwardParams bwd_params(sa::Policy policy = sa::Policy::sm90_tensor_core) const {
    sa::BackwardParams b;
    const sa::ForwardParams f = params(policy);
    static_cast<sa::ProblemParams&>(b) = static_cast<const sa::ProblemParams&>(f);
    b.q = q.ptr;
    b.k = k.ptr;
    b.v = v.ptr;
    b.o = o_in.ptr;
    b.dout = dout.ptr;
    b.lse = lse_in.as<float>();
    b.dq = dq.ptr;
    b.dk = dk.ptr;
    b.dv = dv.ptr;
    b.q_stride = b.o_stride = b.dout_stride = b.dq_stride = dense_strides(pt.hq, pt.d);
    b.k_stride = b.v_stride = b.dk_stride = b.dv_stride = dense_strides(pt.hkv, pt.d);
    b.o_dtype = pt.o_dtype;
    b.grad_dtype = pt.dtype;
    b.delta = delta.as<float>();
    b.accum_k = acc_k.as<float>();
    b.accum_v = acc_v.as<float>();
    b.dq_accum = dq_acc.as<float>();
    b.dq_flags = dq_flags.as<std::int32_t>();
    return b;
  }
  sa::ForwardParams params(sa::Policy policy = sa::Policy::sm90_tensor_core) const {
    sa::ForwardParams f;
    f.cu_seqlens_q = cu_q.as<std::int32_t>();
    f.cu_seqlens_k = cu_k.as<std::int32_t>();
    f.num_seqs = pt.num_seqs();
    f.max_seqlen_q = max_len(pt.cu_q);
    f.max_seqlen_k = max_len(pt.cu_k);
    f.total_q = pt.rows();
    f.total_k = pt.kv_rows();
    f.hq = pt.hq;
    f.hkv = pt.hkv;
    f.d = pt.d;
    f.causal = pt.causal;
    f.scale = sa::default_scale(pt.d);
    f.in_dtype = pt.dtype;
    f.libm = pt.libm;
    f.policy = policy;
    f.mma = sa::tc::kHardwareParams;
    f.q = q.ptr;
    f.k = k.ptr;
    f.v = v.ptr;
    f.o = o.ptr;
    f.lse = lse.as<float>();
    f.q_stride = f.o_stride = dense_strides(pt.hq, pt.d);
    f.k_stride = f.v_stride = dense_strides(pt.hkv, pt.d);
    f.o_dtype = pt.o_dtype;
    return f;
  }
  sa::HostSeqlens host() const { return sa::HostSeqlens{pt.cu_q.data(), pt.cu_k.data()}; }
};

struct Inputs {
  HostTensor q, k, v, dout;
};
Inputs make_inputs(const Point& pt) {
  std::mt19937_64 rng(pt.seed);
  Inputs in;
  in.q = random_tensor(pt.dtype, pt.rows() * pt.hq * pt.d, rng);
  in.k = random_tensor(pt.dtype, pt.kv_rows() * pt.hkv * pt.d, rng);
  in.v = random_tensor(pt.dtype, pt.kv_rows() * pt.hkv * pt.d, rng);
  in.dout = random_tensor(pt.dtype, pt.rows() * pt.hq * pt.d, rng);
  return in;
}

sa::DenseProblem dense_problem(const Point& pt, const sm90::Params& mma) {
  sa::DenseProblem dp;
  dp.cu_q = pt.cu_q;
  dp.cu_k = pt.cu_k;
  dp.hq = pt.hq;
  dp.hkv = pt.hkv;
  dp.d = pt.d;
  dp.causal = pt.causal;
  dp.scale = sa::default_scale(pt.d);
  dp.policy = sa::Policy::sm90_tensor_core;
  dp.in_dtype = pt.dtype;
  dp.mma = mma;
  return dp;
}

// The CPU reference's o (rounded to the point's o dtype) and lse.
void reference(const Point& pt, const Inputs& in, const sm90::Params& mma, unsigned threads, HostTensor& o,
               HostTensor& lse) {
  const auto qf = in.q.widened(), kf = in.k.widened(), vf = in.v.widened();
  std::vector<float> o_ref(qf.size()), lse_ref(static_cast<std::size_t>(pt.rows() * pt.hq));
  sa::reference_forward(pt.libm, dense_problem(pt, mma), qf.data(), kf.data(), vf.data(), o_ref.data(),
                        lse_ref.data(), threads);
  o = rounded(pt.o_dtype, o_ref);
  lse = rounded(sk::DType::f32, lse_ref);
}

void gpu_forward(Run& r, const Inputs& in) {
  r.q.upload(in.q.bytes.data());
  r.k.upload(in.k.bytes.data());
  r.v.upload(in.v.bytes.data());
  r.o.poison();
  r.lse.poison();
  CHECK_STATUS(sa::forward(r.params(), r.host()));
  CHECK_CUDA(cudaDeviceSynchronize());
}

bool check_point(const Point& pt, const Options& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  const Inputs in = make_inputs(pt);
  HostTensor o_want, lse_want;
  reference(pt, in, sa::tc::kHardwareParams, opt.threads, o_want, lse_want);
  const double ref_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Run r(pt);
  gpu_forward(r, in);
  const Compare co = compare(r.o, o_want), cl = compare(r.lse, lse_want);
  std::mt19937_64 pick(pt.seed ^ 0x5eedull);
  const bool ctl_o = control(r.o, o_want, o_want.n ? static_cast<std::int64_t>(pick() % o_want.n) : 0, co.mismatches);
  const bool ctl_l =
      control(r.lse, lse_want, lse_want.n ? static_cast<std::int64_t>(pick() % lse_want.n) : 0, cl.mismatches);
  // The backward from the reference's stored o and lse (a forward mismatch cannot hide in it).
  HostTensor dq_want, dk_want, dv_want;
  {
    const auto qf = in.q.widened(), kf = in.k.widened(), vf = in.v.widened(), dof = in.dout.widened();
    const auto of = o_want.widened(), lf = lse_want.widened();
    std::vector<float> dq(qf.size()), dk(kf.size()), dv(kf.size());
    sa::reference_backward(pt.libm, dense_problem(pt, sa::tc::kHardwareParams), qf.data(), kf.data(), vf.data(),
                           of.data(), dof.data(), lf.data(), dq.data(), dk.data(), dv.data(), opt.threads);
    dq_want = rounded(pt.dtype, dq);
    dk_want = rounded(pt.dtype, dk);
    dv_want = rounded(pt.dtype, dv);
  }
  r.dout.upload(in.dout.bytes.data());
  r.o_in.upload(o_want.bytes.data());
  r.lse_in.upload(lse_want.bytes.data());
  for (DeviceBuffer* b : {&r.dq, &r.dk, &r.dv, &r.delta, &r.acc_k, &r.acc_v, &r.dq_acc, &r.dq_flags}) b->poison();
  CHECK_STATUS(sa::backward(r.bwd_params(), r.host()));
  CHECK_CUDA(cudaDeviceSynchronize());
  const Compare cdq = compare(r.dq, dq_want), cdk = compare(r.dk, dk_want), cdv = compare(r.dv, dv_want);
  // One control per output: dq comes from its own pass (the dq kernel), dk and dv from the other.
  const bool ctl_dq = control(r.dq, dq_want, dq_want.n ? static_cast<std::int64_t>(pick() % dq_want.n) : 0, cdq.mismatches);
  const bool ctl_dk = control(r.dk, dk_want, dk_want.n ? static_cast<std::int64_t>(pick() % dk_want.n) : 0, cdk.mismatches);
  const bool ctl_dv = control(r.dv, dv_want, dv_want.n ? static_cast<std::int64_t>(pick() % dv_want.n) : 0, cdv.mismatches);
  // The same backward with the dq pass reading the D^S the dK/dV pass stored (§21): dq, dk, dv
  // again, from poisoned outputs and a poisoned workspace (0xff: NaN D^S where a tile is read
  // that was not written).
  for (DeviceBuffer* b : {&r.dq, &r.dk, &r.dv, &r.delta, &r.acc_k, &r.acc_v, &r.dq_acc, &r.dq_flags}) b->poison();
  r.ds_workspace().poison();
  CHECK_STATUS(sa::backward(r.bwd_params_stored_ds(), r.host()));
  CHECK_CUDA(cudaDeviceSynchronize());
  const Compare sdq = compare(r.dq, dq_want), sdk = compare(r.dk, dk_want), sdv = compare(r.dv, dv_want);
  const bool ctl_sdq = control(r.dq, dq_want, dq_want.n ? static_cast<std::int64_t>(pick() % dq_want.n) : 0, sdq.mismatches);
  const bool pass = co.mismatches == 0 && cl.mismatches == 0 && ctl_o && ctl_l && cdq.mismatches == 0 &&
                    cdk.mismatches == 0 && cdv.mismatches == 0 && ctl_dq && ctl_dk && ctl_dv && sdq.mismatches == 0 &&
                    sdk.mismatches == 0 && sdv.mismatches == 0 && ctl_sdq;
  // Where the point mismatches: the other zero rules, to say which one the kernel's bits follow.
  std::string others;
  if (!pass) {
    const sm90::ZeroExponent rules[] = {sm90::ZeroExponent::format_min, sm90::ZeroExponent::ignored,
                                        sm90::ZeroExponent::fixed_m126};
    const char* names[] = {"fmin", "ignored", "m126"};
    for (int i = 0; i < 3; ++i) {
      sm90::Params m = sa::tc::kHardwareParams;
      if (m.zero_exponent == rules[i]) continue;
      m.zero_exponent = rules[i];
      HostTensor o2, l2;
      reference(pt, in, m, opt.threads, o2, l2);
      others += std::string(others.empty() ? "" : ",") + "\"Z=" + names[i] + "\":" +
                std::to_string(compare(r.o, o2).mismatches + compare(r.lse, l2).mismatches);
    }
  }
  char first[200] = "";
  if (co.first >= 0)
    std::snprintf(first, sizeof first, ",\"first_mismatch\":{\"tensor\":\"o\",\"index\":%lld,\"got\":\"0x%x\",\"want\":\"0x%x\"}",
                  static_cast<long long>(co.first), co.got, co.want);
  else if (cl.first >= 0)
    std::snprintf(first, sizeof first, ",\"first_mismatch\":{\"tensor\":\"lse\",\"index\":%lld,\"got\":\"0x%x\",\"want\":\"0x%x\"}",
                  static_cast<long long>(cl.first), cl.got, cl.want);
  char line[2048];
  std::snprintf(line, sizeof line,
                "{\"section\":\"grid\",\"point\":\"%s\",\"fingerprint\":\"%s\",\"mismatch\":{\"o\":%lld,\"lse\":%lld,"
                "\"dq\":%lld,\"dk\":%lld,\"dv\":%lld,\"stored_ds\":{\"dq\":%lld,\"dk\":%lld,\"dv\":%lld,"
                "\"control_dq\":%s}},"
                "\"digest\":{\"o\":\"%s\",\"lse\":\"%s\",\"dq\":\"%s\",\"dk\":\"%s\",\"dv\":\"%s\"},"
                "\"control\":{\"o\":%s,\"lse\":%s,\"dq\":%s,\"dk\":%s,\"dv\":%s}%s%s%s%s,\"ref_s\":%.2f,"
                "\"pass\":%s}",
                pt.name().c_str(), sa::tc::fingerprint(pt.libm, sa::tc::kHardwareParams).c_str(),
                static_cast<long long>(co.mismatches), static_cast<long long>(cl.mismatches),
                static_cast<long long>(cdq.mismatches), static_cast<long long>(cdk.mismatches),
                static_cast<long long>(cdv.mismatches), static_cast<long long>(sdq.mismatches),
                static_cast<long long>(sdk.mismatches), static_cast<long long>(sdv.mismatches), ctl_sdq ? "true" : "false",
                hex(co.digest).c_str(), hex(cl.digest).c_str(),
                hex(cdq.digest).c_str(), hex(cdk.digest).c_str(), hex(cdv.digest).c_str(), ctl_o ? "true" : "false",
                ctl_l ? "true" : "false", ctl_dq ? "true" : "false", ctl_dk ? "true" : "false", ctl_dv ? "true" : "false", first,
                others.empty() ? "" : ",\"mismatch_under_other_zero_rules\":{", others.c_str(), others.empty() ? "" : "}",
                ref_s, pass ? "true" : "false");
  emit(line);
  return pass;
}

Point make_point(sa::Libm libm, bool causal, int d, std::vector<std::int32_t> lq, std::vector<std::int32_t> lk, int hq,
                 int hkv, sk::DType t, std::string tag, std::uint64_t seed) {
  Point p;
  p.libm = libm;
  p.causal = causal;
  p.d = d;
  p.hq = hq;
  p.hkv = hkv;
  p.dtype = p.o_dtype = t;
  for (std::size_t s = 0; s < lq.size(); ++s) {
    p.cu_q.push_back(p.cu_q.back() + lq[s]);
    p.cu_k.push_back(p.cu_k.back() + lk[s]);
  }
  p.tag = std::move(tag);
  p.seed = seed;
  return p;
}

std::vector<Point> grid(const Options& opt) {
  std::vector<Point> pts;
  std::uint64_t seed = 100;
  struct Shape {
    std::vector<std::int32_t> lq, lk;
    const char* tag;
  };
  std::vector<Shape> shapes = {{{1}, {1}, "S=1"},
                               {{100}, {100}, "S=100"},
                               {{37, 130, 1, 300}, {200, 130, 300, 1}, "varlen=37/200,130/130,1/300,300/1"}};
  if (!opt.quick) shapes.push_back({{1000}, {1000}, "S=1000"});
  for (sa::Libm l : {sa::Libm::nvcc, sa::Libm::cr, sa::Libm::nvcc_fast})
    for (sk::DType t : {sk::DType::bf16, sk::DType::f16})
      for (int d : {64, 128})
        for (int causal = 0; causal < 2; ++causal)
          for (const Shape& s : shapes) {
            if (l != sa::Libm::nvcc && opt.quick && d == 64) continue;
            pts.push_back(make_point(l, causal != 0, d, s.lq, s.lk, 4, 2, t, s.tag, ++seed));
          }
  // f32 outputs, GQA 32/8, and one long sequence.
  Point p = make_point(sa::Libm::nvcc, true, 128, {300}, {300}, 8, 2, sk::DType::bf16, "S=300", ++seed);
  p.o_dtype = sk::DType::f32;
  pts.push_back(p);
  pts.push_back(make_point(sa::Libm::nvcc, true, 128, {512}, {512}, 32, 8, sk::DType::bf16, "S=512", ++seed));
  if (!opt.quick) pts.push_back(make_point(sa::Libm::cr, true, 128, {2048}, {2048}, 2, 1, sk::DType::bf16, "S=2048", ++seed));
  return pts;
}

// ---- invariance: GPU vs GPU -----------------------------------------------------

struct Bits {
  HostTensor o, lse;
};
Bits fetch(const Run& r) {
  Bits b;
  b.o.resize(r.pt.o_dtype, r.pt.rows() * r.pt.hq * r.pt.d);
  b.lse.resize(sk::DType::f32, r.pt.rows() * r.pt.hq);
  CHECK_CUDA(cudaMemcpy(b.o.bytes.data(), r.o.ptr, b.o.bytes.size(), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(b.lse.bytes.data(), r.lse.ptr, b.lse.bytes.size(), cudaMemcpyDeviceToHost));
  return b;
}
// Rows [r0, r0 + n) of a [rows, heads, d] tensor, heads [h0, h0 + nh).
HostTensor slice(const HostTensor& t, int heads, int d, std::int64_t r0, std::int64_t n, int h0 = 0, int nh = -1) {
  if (nh < 0) nh = heads;
  HostTensor s;
  s.resize(t.t, n * nh * d);
  const int es = sk::dtype_size(t.t);
  for (std::int64_t r = 0; r < n; ++r)
    for (int h = 0; h < nh; ++h)
      std::memcpy(s.bytes.data() + ((r * nh + h) * d) * es, t.bytes.data() + (((r0 + r) * heads + h0 + h) * d) * es,
                  static_cast<std::size_t>(d) * es);
  return s;
}
std::int64_t diff(const HostTensor& a, const HostTensor& b) {
  std::int64_t n = 0;
  for (std::int64_t i = 0; i < a.n; ++i) n += a.encoding(i) != b.encoding(i);
  return n + (a.n != b.n ? 1 : 0);
}
// A one-bit change must be seen (the comparison's negative control).
bool diff_control(const HostTensor& a) {
  if (a.n == 0) return true;
  HostTensor b = a;
  b.bytes[0] ^= 1u;
  return diff(a, b) == 1;
}

void emit_invariance(const char* what, const std::string& point, std::int64_t o, std::int64_t lse, bool ctl, bool pass) {
  char line[768];
  std::snprintf(line, sizeof line,
                "{\"section\":\"invariance\",\"check\":\"%s\",\"point\":\"%s\",\"mismatch\":{\"o\":%lld,\"lse\":%lld},"
                "\"control\":%s,\"pass\":%s}",
                what, point.c_str(), static_cast<long long>(o), static_cast<long long>(lse), ctl ? "true" : "false",
                pass ? "true" : "false");
  emit(line);
}

bool invariance(const Options& opt) {
  bool all = true;
  for (sk::DType t : {sk::DType::bf16, sk::DType::f16})
    for (int causal = 0; causal < 2; ++causal) {
      // Batch: packed sequences vs each alone.
      const std::vector<std::int32_t> lq = {300, 1, 77, 129}, lk = {300, 200, 77, 400};
      Point packed = make_point(sa::Libm::nvcc, causal != 0, 128, lq, lk, 8, 2, t, "varlen", 900 + causal);
      const Inputs in = make_inputs(packed);
      Run rp(packed);
      gpu_forward(rp, in);
      const Bits bp = fetch(rp);
      std::int64_t mo = 0, ml = 0;
      for (std::size_t s = 0; s < lq.size(); ++s) {
        Point one = make_point(sa::Libm::nvcc, causal != 0, 128, {lq[s]}, {lk[s]}, 8, 2, t, "alone", 0);
        Inputs i1;
        i1.q = slice(in.q, 8, 128, packed.cu_q[s], lq[s]);
        i1.k = slice(in.k, 2, 128, packed.cu_k[s], lk[s]);
        i1.v = slice(in.v, 2, 128, packed.cu_k[s], lk[s]);
        Run r1(one);
        gpu_forward(r1, i1);
        const Bits b1 = fetch(r1);
        mo += diff(b1.o, slice(bp.o, 8, 128, packed.cu_q[s], lq[s]));
        ml += diff(b1.lse, slice(bp.lse, 8, 1, packed.cu_q[s], lq[s]));
      }
      bool ctl = diff_control(bp.o);
      bool pass = mo == 0 && ml == 0 && ctl;
      emit_invariance("batch", packed.name(), mo, ml, ctl, pass);
      all = all && pass;

      // Tensor parallelism: the kv groups' heads launched apart (hq 8 / hkv 2 -> two launches of 4 / 1).
      mo = ml = 0;
      for (int grp = 0; grp < 2; ++grp) {
        Point part = packed;
        part.hq = 4;
        part.hkv = 1;
        Inputs ip;
        ip.q = slice(in.q, 8, 128, 0, packed.rows(), 4 * grp, 4);
        ip.k = slice(in.k, 2, 128, 0, packed.kv_rows(), grp, 1);
        ip.v = slice(in.v, 2, 128, 0, packed.kv_rows(), grp, 1);
        Run rr(part);
        gpu_forward(rr, ip);
        const Bits b = fetch(rr);
        mo += diff(b.o, slice(bp.o, 8, 128, 0, packed.rows(), 4 * grp, 4));
        HostTensor l = slice(bp.lse, 8, 1, 0, packed.rows(), 4 * grp, 4);
        ml += diff(b.lse, l);
      }
      pass = mo == 0 && ml == 0;
      emit_invariance("head_split", packed.name(), mo, ml, ctl, pass);
      all = all && pass;
      if (!causal) continue;

      // Prefill vs chunked prefill vs decode: one sequence of 700; chunks of 256 + 200 + 243 rows
      // (each with all keys before it) and the last 3 rows as decode steps.
      Point full = make_point(sa::Libm::nvcc, true, 128, {700}, {700}, 8, 2, t, "S=700", 1234);
      const Inputs fin = make_inputs(full);
      Run rf(full);
      gpu_forward(rf, fin);
      const Bits bf = fetch(rf);
      std::int64_t co = 0, cl = 0, dco = 0, dcl = 0;
      const int chunks[][2] = {{0, 256}, {256, 200}, {456, 244}};
      for (const auto& c : chunks) {
        Point ch = make_point(sa::Libm::nvcc, true, 128, {c[1]}, {c[0] + c[1]}, 8, 2, t, "chunk", 0);
        Inputs ic;
        ic.q = slice(fin.q, 8, 128, c[0], c[1]);
        ic.k = slice(fin.k, 2, 128, 0, c[0] + c[1]);
        ic.v = slice(fin.v, 2, 128, 0, c[0] + c[1]);
        Run rc(ch);
        gpu_forward(rc, ic);
        const Bits b = fetch(rc);
        co += diff(b.o, slice(bf.o, 8, 128, c[0], c[1]));
        cl += diff(b.lse, slice(bf.lse, 8, 1, c[0], c[1]));
      }
      for (int row = 697; row < 700; ++row) {
        Point dc = make_point(sa::Libm::nvcc, true, 128, {1}, {row + 1}, 8, 2, t, "decode", 0);
        Inputs id;
        id.q = slice(fin.q, 8, 128, row, 1);
        id.k = slice(fin.k, 2, 128, 0, row + 1);
        id.v = slice(fin.v, 2, 128, 0, row + 1);
        Run rd(dc);
        gpu_forward(rd, id);
        const Bits b = fetch(rd);
        dco += diff(b.o, slice(bf.o, 8, 128, row, 1));
        dcl += diff(b.lse, slice(bf.lse, 8, 1, row, 1));
      }
      // Under format_min zero products (attention-tc.md §7-8) these may differ: reported, the
      // condition written in the doc; every other invariance must hold.
      emit_invariance("chunked_prefill", full.name(), co, cl, diff_control(bf.o), co == 0 && cl == 0);
      emit_invariance("decode", full.name(), dco, dcl, diff_control(bf.o), dco == 0 && dcl == 0);
      if (sa::tc::zero_products_neutral(sa::tc::kHardwareParams)) all = all && co == 0 && cl == 0 && dco == 0 && dcl == 0;

      // Context parallelism, backward: the 700 rows split at row 256 (a multiple of 128); part 1
      // (rows 0..255, keys 0..255) hands its dK/dV accumulators on, part 2 (rows 256..699, all
      // keys) continues them (keys 256.. from +0). dk, dv (§6: any Params) and dq (a split at a
      // multiple of Bk: every row sees the same blocks and positions) must equal one launch's.
      {
        const int r = 256;
        auto fetch_grad = [](const DeviceBuffer& b, sk::DType t, std::int64_t n) {
          HostTensor h;
          h.resize(t, n);
          CHECK_CUDA(cudaMemcpy(h.bytes.data(), b.ptr, h.bytes.size(), cudaMemcpyDeviceToHost));
          return h;
        };
        Inputs dfin = fin;
        // the one launch: its o and lse as the backward's inputs
        CHECK_CUDA(cudaMemcpy(rf.o_in.ptr, rf.o.ptr, rf.o.bytes, cudaMemcpyDeviceToDevice));
        CHECK_CUDA(cudaMemcpy(rf.lse_in.ptr, rf.lse.ptr, rf.lse.bytes, cudaMemcpyDeviceToDevice));
        rf.dout.upload(fin.dout.bytes.data());
        CHECK_STATUS(sa::backward(rf.bwd_params(), rf.host()));
        CHECK_CUDA(cudaDeviceSynchronize());
        const HostTensor dq1 = fetch_grad(rf.dq, t, 700LL * 8 * 128), dk1 = fetch_grad(rf.dk, t, 700LL * 2 * 128),
                         dv1 = fetch_grad(rf.dv, t, 700LL * 2 * 128);
        const HostTensor o_all = fetch_grad(rf.o, t, 700LL * 8 * 128), l_all = fetch_grad(rf.lse, sk::DType::f32, 700LL * 8);
        // part 1
        Point p1 = make_point(sa::Libm::nvcc, true, 128, {r}, {r}, 8, 2, t, "cp part 1", 0);
        Run r1(p1);
        r1.q.upload(slice(fin.q, 8, 128, 0, r).bytes.data());
        r1.k.upload(slice(fin.k, 2, 128, 0, r).bytes.data());
        r1.v.upload(slice(fin.v, 2, 128, 0, r).bytes.data());
        r1.dout.upload(slice(fin.dout, 8, 128, 0, r).bytes.data());
        r1.o_in.upload(slice(o_all, 8, 128, 0, r).bytes.data());
        r1.lse_in.upload(slice(l_all, 8, 1, 0, r).bytes.data());
        CHECK_STATUS(sa::backward(r1.bwd_params(), r1.host()));
        CHECK_CUDA(cudaDeviceSynchronize());
        // part 2, continuing part 1's accumulators (keys r.. from +0)
        Point p2 = make_point(sa::Libm::nvcc, true, 128, {700 - r}, {700}, 8, 2, t, "cp part 2", 0);
        Run r2(p2);
        r2.q.upload(slice(fin.q, 8, 128, r, 700 - r).bytes.data());
        r2.k.upload(fin.k.bytes.data());
        r2.v.upload(fin.v.bytes.data());
        r2.dout.upload(slice(fin.dout, 8, 128, r, 700 - r).bytes.data());
        r2.o_in.upload(slice(o_all, 8, 128, r, 700 - r).bytes.data());
        r2.lse_in.upload(slice(l_all, 8, 1, r, 700 - r).bytes.data());
        DeviceBuffer ak(700LL * 8 * 128 * 4), av(700LL * 8 * 128 * 4);
        CHECK_CUDA(cudaMemset(ak.ptr, 0, ak.bytes));
        CHECK_CUDA(cudaMemset(av.ptr, 0, av.bytes));
        CHECK_CUDA(cudaMemcpy(ak.ptr, r1.acc_k.ptr, static_cast<std::size_t>(r) * 8 * 128 * 4, cudaMemcpyDeviceToDevice));
        CHECK_CUDA(cudaMemcpy(av.ptr, r1.acc_v.ptr, static_cast<std::size_t>(r) * 8 * 128 * 4, cudaMemcpyDeviceToDevice));
        sa::BackwardParams b2 = r2.bwd_params();
        b2.accum_k_in = ak.as<float>();
        b2.accum_v_in = av.as<float>();
        CHECK_STATUS(sa::backward(b2, r2.host()));
        CHECK_CUDA(cudaDeviceSynchronize());
        const HostTensor dq_p1 = fetch_grad(r1.dq, t, static_cast<std::int64_t>(r) * 8 * 128),
                         dq_p2 = fetch_grad(r2.dq, t, (700LL - r) * 8 * 128), dk2 = fetch_grad(r2.dk, t, 700LL * 2 * 128),
                         dv2 = fetch_grad(r2.dv, t, 700LL * 2 * 128);
        const std::int64_t mdq = diff(dq_p1, slice(dq1, 8, 128, 0, r)) + diff(dq_p2, slice(dq1, 8, 128, r, 700 - r));
        const std::int64_t mdkv = diff(dk2, dk1) + diff(dv2, dv1);
        char line[512];
        std::snprintf(line, sizeof line,
                      "{\"section\":\"invariance\",\"check\":\"cp_backward_handover\",\"dtype\":\"%s\",\"split_row\":%d,"
                      "\"mismatch\":{\"dq\":%lld,\"dk_dv\":%lld},\"control\":%s,\"pass\":%s}",
                      sk::dtype_name(t), r, static_cast<long long>(mdq), static_cast<long long>(mdkv),
                      diff_control(dk1) ? "true" : "false", mdq == 0 && mdkv == 0 ? "true" : "false");
        emit(line);
        all = all && mdq == 0 && mdkv == 0;
        (void)dfin;
      }

      // Repeats: 100 launches into fresh allocations, one digest.
      if (t == sk::DType::bf16) {
        std::uint64_t d0 = 0;
        int differ = 0;
        for (int rep = 0; rep < 100; ++rep) {
          Run rr(full);
          gpu_forward(rr, fin);
          const Bits b = fetch(rr);
          const std::uint64_t d = check::fnv1a(b.o.bytes.data(), b.o.bytes.size()) ^
                                  check::fnv1a(b.lse.bytes.data(), b.lse.bytes.size());
          if (rep == 0) d0 = d;
          differ += d != d0;
        }
        char line[256];
        std::snprintf(line, sizeof line, "{\"section\":\"invariance\",\"check\":\"repeats\",\"runs\":100,\"differ\":%d,\"pass\":%s}",
                      differ, differ == 0 ? "true" : "false");
        emit(line);
        all = all && differ == 0;
      }
    }
  (void)opt;
  return all;
}

// ---- errors: the refusals ---------------------------------------------------------

bool errors() {
  bool all = true;
  Point p = make_point(sa::Libm::nvcc, true, 128, {64}, {64}, 4, 2, sk::DType::bf16, "S=64", 5);
  Run r(p);
  auto expect = [&](const char* what, sa::ForwardParams f, const char* needle) {
    r.o.poison();
    const sa::Status s = sa::forward(f, r.host());
    CHECK_CUDA(cudaDeviceSynchronize());
    HostTensor o;
    o.resize(p.o_dtype, p.rows() * p.hq * p.d);
    CHECK_CUDA(cudaMemcpy(o.bytes.data(), r.o.ptr, o.bytes.size(), cudaMemcpyDeviceToHost));
    bool untouched = true;
    for (unsigned char b : o.bytes) untouched = untouched && b == 0xff;
    const bool ok = !s.ok() && s.message.find(needle) != std::string::npos && untouched;
    char line[768];
    std::snprintf(line, sizeof line, "{\"section\":\"errors\",\"case\":\"%s\",\"refused\":%s,\"output_untouched\":%s,\"message\":\"%s\",\"pass\":%s}",
                  what, s.ok() ? "false" : "true", untouched ? "true" : "false", s.message.c_str(), ok ? "true" : "false");
    emit(line);
    all = all && ok;
  };
  sa::ForwardParams f = r.params();
  f.in_dtype = sk::DType::f32;
  f.o_dtype = sk::DType::f32;
  expect("fp32 inputs", f, "float32");
  f = r.params();
  f.q_stride.row = 4 * 128 + 4;
  expect("q row stride not a multiple of 8", f, "16-byte");
  f = r.params();
  f.mma.zero_exponent = sm90::ZeroExponent::ignored == sa::tc::kHardwareParams.zero_exponent
                            ? sm90::ZeroExponent::format_min
                            : sm90::ZeroExponent::ignored;
  expect("other model parameters", f, "other arithmetic");
  f = r.params();
  f.tile_rows = 64;
  expect("tile_rows", f, "tile_rows");
  // A backward part continuing handed-on accumulators whose rows start off a 16-row group.
  Point part = make_point(sa::Libm::nvcc, true, 128, {40}, {64}, 4, 2, sk::DType::bf16, "40/64", 6);
  Run rp(part);
  sa::BackwardParams b = rp.bwd_params();
  b.accum_k_in = rp.acc_k.as<float>();
  b.accum_v_in = rp.acc_v.as<float>();
  const sa::Status s = sa::backward(b, rp.host());
  const bool ok = !s.ok() && s.message.find("16-row group") != std::string::npos;
  char line[768];
  std::snprintf(line, sizeof line,
                "{\"section\":\"errors\",\"case\":\"hand-over at Lk - Lq = 24\",\"refused\":%s,\"message\":\"%s\",\"pass\":%s}",
                s.ok() ? "false" : "true", s.message.c_str(), ok ? "true" : "false");
  emit(line);
  // The stored-D^S workspace (§21): refused under fma-chain, and when smaller than it must be.
  auto expect_bwd = [&](const char* what, const sa::BackwardParams& bp, const char* needle) {
    const sa::Status st = sa::backward(bp, rp.host());
    const bool good = !st.ok() && st.message.find(needle) != std::string::npos;
    std::snprintf(line, sizeof line, "{\"section\":\"errors\",\"case\":\"%s\",\"refused\":%s,\"message\":\"%s\",\"pass\":%s}",
                  what, st.ok() ? "false" : "true", st.message.c_str(), good ? "true" : "false");
    emit(line);
    return good;
  };
  sa::BackwardParams bs = rp.bwd_params_stored_ds();
  bs.ds_workspace_bytes -= 1;
  const bool ok_small = expect_bwd("ds_workspace one byte short", bs, "backward_ds_workspace_bytes() needs");
  bs = rp.bwd_params_stored_ds();
  const sa::BackwardParams fma = rp.bwd_params(sa::Policy::fma_chain);
  static_cast<sa::ProblemParams&>(bs) = static_cast<const sa::ProblemParams&>(fma);
  const bool ok_policy = expect_bwd("ds_workspace under fma-chain", bs, "sm90-tensor-core only");
  return all && ok && ok_small && ok_policy;
}

// ---- bench ---------------------------------------------------------------------------

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void bench(const Options& opt) {
  for (int s : opt.bench_seqlens)
    for (sa::Libm l : opt.bench_libms) {
      Point p = make_point(l, true, 128, {s}, {s}, 32, 8, sk::DType::bf16, "S=" + std::to_string(s), 77);
      const Inputs in = make_inputs(p);
      Run r(p);
      r.q.upload(in.q.bytes.data());
      r.k.upload(in.k.bytes.data());
      r.v.upload(in.v.bytes.data());
      cudaEvent_t e0, e1;
      CHECK_CUDA(cudaEventCreate(&e0));
      CHECK_CUDA(cudaEventCreate(&e1));
      // Median of `reps` timed calls of run() (CUDA events) after `warmup` untimed ones.
      auto time_ms = [&](auto run, int warmup, int reps) {
        for (int w = 0; w < warmup; ++w) run();
        std::vector<float> ms;
        for (int i = 0; i < reps; ++i) {
          CHECK_CUDA(cudaEventRecord(e0));
          run();
          CHECK_CUDA(cudaEventRecord(e1));
          CHECK_CUDA(cudaEventSynchronize(e1));
          float t = 0;
          CHECK_CUDA(cudaEventElapsedTime(&t, e0, e1));
          ms.push_back(t);
        }
        return median(ms);
      };
      auto time = [&](sa::Policy pol, int reps) {
        const sa::ForwardParams f = r.params(pol);
        return time_ms([&] { CHECK_STATUS(sa::forward(f, r.host())); }, 3, reps);
      };
      const float tc_ms = time(sa::Policy::sm90_tensor_core, opt.bench_reps);
      // (fma-chain takes nvcc and cr only: no peer for nvcc-fast)
      const float fma_ms = s <= 8192 && l != sa::Libm::nvcc_fast
                               ? time(sa::Policy::fma_chain, std::max(3, opt.bench_reps / 4)) : -1.0f;
      // The backward from this forward's o and lse (copied to the backward's inputs).
      {
        sa::ForwardParams f = r.params();
        CHECK_STATUS(sa::forward(f, r.host()));
        CHECK_CUDA(cudaMemcpy(r.o_in.ptr, r.o.ptr, r.o.bytes, cudaMemcpyDeviceToDevice));
        CHECK_CUDA(cudaMemcpy(r.lse_in.ptr, r.lse.ptr, r.lse.bytes, cudaMemcpyDeviceToDevice));
        r.dout.upload(in.dout.bytes.data());
      }
      auto time_bwd = [&](const sa::BackwardParams& b, int reps) {
        return time_ms([&] { CHECK_STATUS(sa::backward(b, r.host())); }, 2, reps);
      };
      const float tc_bwd_ms = time_bwd(r.bwd_params(), std::max(3, opt.bench_reps / 2));
      // The dq pass from the stored D^S (§21), where its workspace fits the card (half of what is free).
      std::size_t free_b = 0, total_b = 0;
      CHECK_CUDA(cudaMemGetInfo(&free_b, &total_b));
      const std::int64_t ds_bytes = sa::backward_ds_workspace_bytes(1, s, s, 32);
      float tc_bwd_stored_ms = -1.0f;
      if (ds_bytes > 0 && static_cast<std::size_t>(ds_bytes) < free_b / 2) {
        tc_bwd_stored_ms = time_bwd(r.bwd_params_stored_ds(), std::max(3, opt.bench_reps / 2));
        r.ds_ws.reset();
      }
      const double flops = 4.0 * s * s * 128.0 * 32 / 2;
      char line[768];
      std::snprintf(line, sizeof line,
                    "{\"section\":\"bench\",\"shape\":\"Qwen3-8B hq=32 hkv=8 D=128 causal bf16\",\"S\":%d,\"libm\":\"%s\","
                    "\"tc_fwd_ms\":%.4f,\"tc_fwd_tflops\":%.1f,\"tc_bwd_ms\":%.4f,\"tc_fwd_bwd_ms\":%.4f,"
                    "\"tc_bwd_tflops_2_5x\":%.1f,\"tc_bwd_stored_ds_ms\":%.4f,\"ds_workspace_bytes\":%lld,"
                    "\"fma_chain_fwd_ms\":%.4f,\"fma_over_tc\":%.2f}",
                    s, sa::libm_name(l), tc_ms, flops / tc_ms / 1e9, tc_bwd_ms, tc_ms + tc_bwd_ms,
                    2.5 * flops / tc_bwd_ms / 1e9, tc_bwd_stored_ms, static_cast<long long>(ds_bytes), fma_ms,
                    fma_ms > 0 ? fma_ms / tc_ms : -1.0);
      emit(line);
      cudaEventDestroy(e0);
      cudaEventDestroy(e1);
    }
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--quick") opt.quick = true;
    else if (a == "--sections") opt.sections = next();
    else if (a == "--filter") opt.filter = next();
    else if (a == "--out") opt.out_dir = next();
    else if (a == "--threads") opt.threads = static_cast<unsigned>(std::stoul(next()));
    else if (a == "--bench-reps") opt.bench_reps = std::stoi(next());
    else if (a == "--bench-seqlens") {
      opt.bench_seqlens.clear();
      const std::string list = next();
      for (std::size_t at = 0; at <= list.size();) {
        const std::size_t end = std::min(list.find(',', at), list.size());
        const std::string item = list.substr(at, end - at);
        const int v = item.empty() || item.find_first_not_of("0123456789") != std::string::npos ? 0 : std::stoi(item);
        if (v <= 0 || v > 65536) {
          std::fprintf(stderr, "--bench-seqlens: \"%s\" is not a sequence length in 1 .. 65536\n", item.c_str());
          return 2;
        }
        opt.bench_seqlens.push_back(v);
        at = end + 1;
      }
    } else if (a == "--bench-libms") {
      const std::string v = next();
      opt.bench_libms.clear();
      if (v == "both") opt.bench_libms = {sa::Libm::nvcc, sa::Libm::cr};
      else if (v == "all") opt.bench_libms = {sa::Libm::nvcc, sa::Libm::nvcc_fast, sa::Libm::cr};
      else  // a comma list: every item
        for (std::size_t at = 0; at <= v.size();) {
          const std::size_t end = std::min(v.find(',', at), v.size());
          sa::Libm l{};
          if (!sa::libm_from_name(v.substr(at, end - at), l)) {
            std::fprintf(stderr, "--bench-libms: \"%s\" is none of nvcc, cr, nvcc-fast (or a comma list of them), both, all\n",
                         v.substr(at, end - at).c_str());
            return 2;
          }
          opt.bench_libms.push_back(l);
          at = end + 1;
        }
    } else if (a == "--help" || a == "-h") {
      std::printf("usage: attention_tc_check [--quick] [--sections layout,grid,invariance,errors,bench] [--filter S]\n"
                  "                          [--out DIR] [--threads N] [--bench-reps N]\n"
                  "                          [--bench-seqlens 512,...,16384] [--bench-libms LIST|both|all]\n"
                  "--bench-libms: a comma list of nvcc, nvcc-fast, cr (default all three); both = nvcc,cr.\n"
                  "The sm90-tensor-core attention forward vs its CPU reference, bit for bit (see the header comment).\n"
                  "--out DIR is created when missing.\n");
      return 0;
    } else {
      std::fprintf(stderr, "unknown argument %s (--help)\n", a.c_str());
      return 2;
    }
  }
  if (!opt.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(opt.out_dir, ec);  // a failure shows in the open below
    const std::string f = opt.out_dir + "/attention_tc_check.jsonl";
    g_jsonl = std::fopen(f.c_str(), "w");
    if (!g_jsonl) {
      std::fprintf(stderr, "cannot write %s\n", f.c_str());
      return 2;
    }
  }
  std::printf("{\"fingerprint_nvcc\":\"%s\",\"kernel_v_reading\":%d}\n",
              sa::tc::fingerprint(sa::Libm::nvcc, sa::tc::kHardwareParams).c_str(), kKernelVReading);
  bool pass = true;
  int failed = 0, total = 0;
  if (opt.has("layout")) {
    for (bool ok : {layout_case<64, sm90::Format::bf16>("bf16"), layout_case<128, sm90::Format::bf16>("bf16"),
                    layout_case<64, sm90::Format::f16>("f16"), layout_case<128, sm90::Format::f16>("f16")}) {
      ++total;
      failed += !ok;
      pass = pass && ok;
    }
  }
  if (opt.has("grid")) {
    int matched = 0;
    for (const Point& p : grid(opt)) {
      if (!opt.filter.empty() && p.name().find(opt.filter) == std::string::npos) continue;
      ++matched;
      const bool ok = check_point(p, opt);
      ++total;
      failed += !ok;
      pass = pass && ok;
    }
    if (matched == 0) {  // a filter that selects nothing checks nothing: a failure, not a pass
      std::fprintf(stderr, "--filter \"%s\": no grid point matches (--quick drops some)\n", opt.filter.c_str());
      ++total;
      ++failed;
      pass = false;
    }
  }
  if (opt.has("invariance")) {
    const bool ok = invariance(opt);
    ++total;
    failed += !ok;
    pass = pass && ok;
  }
  if (opt.has("errors")) {
    const bool ok = errors();
    ++total;
    failed += !ok;
    pass = pass && ok;
  }
  if (opt.has("bench")) bench(opt);
  std::printf("{\"summary\":{\"checks\":%d,\"failed\":%d,\"pass\":%s}}\n", total, failed, pass ? "true" : "false");
  if (g_jsonl) std::fclose(g_jsonl);
  return pass ? 0 : 1;
}
