// The sm90-tensor-core forward kernel's own source
// (kernels/src/cuda/attention_tc_fwd_kernel.cuh) run on the CPU by the fiber
// emulator, its wgmma instructions executed by the tensor-core model
// (gpu/arch/emulator_sm90.hpp), against the CPU reference of the policy
// (reference_tc.hpp through reference_forward), bit for bit: o (in the input
// dtype or f32) and lse, for causal and non-causal attention, packed varlen
// sequences whose first row is not at a multiple of 128 positions, chunked
// prefill, Lq > Lk (empty lists), decode, D 64 and 128, bf16 and f16, both
// libms, threads in forward, reverse and shuffled order.
//
// What this checks: that the kernel forms the policy's products, k16 groups,
// orders, scale-d flags, fragments, row sums and conversions
// (attention-tc.md §3-§4, §11) given the PTX ISA's layouts as
// emulator_sm90.hpp reads them. What it cannot: the hardware (its descriptor
// reading and its arithmetic): tests/device/kernels/attention_tc_check.cu.
// Controls: a one-bit change is one mismatch; the emulated tensor cores with
// other model parameters (F = 24) give other bits (the model is on the path).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "samebits/gpu/emulator.hpp"
#include "samebits/kernels/attention/reference_api.hpp"
#include "attention_tc_fwd_kernel.cuh"

namespace samebits::kernels::attention::cuda {
alignas(16) gpu::float4 smem4[227 * 1024 / 16];  // the kernel's extern shared array
}

namespace {

namespace sk = samebits::kernels;
namespace sa = samebits::kernels::attention;
namespace ac = samebits::kernels::attention::cuda;
namespace emu = samebits::gpu::emulator;
namespace sm90 = samebits::mma::sm90;
namespace emu_sm90 = samebits::gpu::arch::sm90::emu_state;
using sk::DType;
using sa::Libm;

struct Shape {
  std::vector<std::int32_t> lq, lk;
  bool causal;
  int hq, hkv;
  const char* tag;
};

struct Case {
  sa::DenseProblem p;
  DType in;
  std::vector<std::uint16_t> q, k, v;  // operand encodings
  std::vector<float> qf, kf, vf;       // their exact widening
};

Case make_case(const Shape& s, int d, DType in, std::uint32_t seed) {
  Case c;
  c.in = in;
  for (std::size_t i = 0; i < s.lq.size(); ++i) {
    c.p.cu_q.push_back(c.p.cu_q.back() + s.lq[i]);
    c.p.cu_k.push_back(c.p.cu_k.back() + s.lk[i]);
  }
  c.p.hq = s.hq;
  c.p.hkv = s.hkv;
  c.p.d = d;
  c.p.causal = s.causal;
  c.p.scale = sa::default_scale(d);
  c.p.policy = sa::Policy::sm90_tensor_core;
  c.p.in_dtype = in;
  c.p.mma = sa::tc::kHardwareParams;
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  auto fill = [&](std::int64_t n, std::vector<std::uint16_t>& h, std::vector<float>& f) {
    h.resize(static_cast<std::size_t>(n));
    f.resize(h.size());
    for (std::size_t i = 0; i < h.size(); ++i) {
      h[i] = in == DType::bf16 ? sk::f32_to_bf16(nd(rng)) : sk::f32_to_f16(nd(rng));
      f[i] = in == DType::bf16 ? sk::bf16_to_f32(h[i]) : sk::f16_to_f32(h[i]);
    }
  };
  fill(c.p.rows() * s.hq * d, c.q, c.qf);
  fill(c.p.kv_rows() * s.hkv * d, c.k, c.kf);
  fill(c.p.kv_rows() * s.hkv * d, c.v, c.vf);
  return c;
}

int max_len(const std::vector<std::int32_t>& cu) {
  int m = 0;
  for (std::size_t s = 0; s + 1 < cu.size(); ++s) m = std::max(m, cu[s + 1] - cu[s]);
  return m;
}

struct Out {
  std::vector<std::uint32_t> o, lse;  // encodings
};

// attention_tc_launch_fwd.cu's grid, run by the emulator.
template <int D, class L, DType In, DType OutT>
Out run_kernel(const Case& c, emu::Order order) {
  const std::size_t nq = c.q.size(), nl = static_cast<std::size_t>(c.p.rows() * c.p.hq);
  std::vector<unsigned char> o(nq * sk::dtype_size(OutT), 0xff);
  std::vector<float> lse(nl, samebits::fp::from_bits(0x7fbadbadu));
  sa::ForwardParams p;
  p.cu_seqlens_q = c.p.cu_q.data();
  p.cu_seqlens_k = c.p.cu_k.data();
  p.num_seqs = static_cast<int>(c.p.cu_q.size()) - 1;
  p.max_seqlen_q = max_len(c.p.cu_q);
  p.max_seqlen_k = max_len(c.p.cu_k);
  p.total_q = c.p.rows();
  p.total_k = c.p.kv_rows();
  p.hq = c.p.hq;
  p.hkv = c.p.hkv;
  p.d = D;
  p.causal = c.p.causal;
  p.scale = c.p.scale;
  p.in_dtype = In;
  p.libm = L::kLibm;
  p.policy = sa::Policy::sm90_tensor_core;
  p.q = c.q.data();
  p.k = c.k.data();
  p.v = c.v.data();
  p.o = o.data();
  p.lse = lse.data();
  p.q_stride = p.o_stride = {static_cast<std::int64_t>(c.p.hq) * D, D};
  p.k_stride = p.v_stride = {static_cast<std::int64_t>(c.p.hkv) * D, D};
  p.o_dtype = OutT;
  emu_sm90::shared_base = ac::smem4;
  const emu::Dim3 grid{static_cast<unsigned>((p.max_seqlen_q + ac::kTcRows - 1) / ac::kTcRows + 1),
                       static_cast<unsigned>(p.hq), static_cast<unsigned>(p.num_seqs)};
  emu::launch(grid, ac::kTcThreads, [&] { ac::attention_tc_forward_kernel<D, L, In, OutT>(p); },
              {{ac::smem4, static_cast<std::size_t>(ac::TcLayout<D>::kBytes)}}, order);
  Out r;
  r.o.resize(nq);
  for (std::size_t i = 0; i < nq; ++i) {
    if (OutT == DType::f32) std::memcpy(&r.o[i], o.data() + 4 * i, 4);
    else {
      std::uint16_t h;
      std::memcpy(&h, o.data() + 2 * i, 2);
      r.o[i] = h;
    }
  }
  r.lse.resize(nl);
  for (std::size_t i = 0; i < nl; ++i) r.lse[i] = samebits::fp::to_bits(lse[i]);
  return r;
}

Out reference(const Case& c, Libm libm, DType out_t) {
  std::vector<float> o(c.qf.size()), lse(static_cast<std::size_t>(c.p.rows() * c.p.hq));
  sa::reference_forward(libm, c.p, c.qf.data(), c.kf.data(), c.vf.data(), o.data(), lse.data(), 2);
  Out r;
  r.o.resize(o.size());
  for (std::size_t i = 0; i < o.size(); ++i)
    r.o[i] = out_t == DType::f32    ? samebits::fp::to_bits(sk::canonical(o[i]))
             : out_t == DType::bf16 ? sk::f32_to_bf16(o[i])
                                    : sk::f32_to_f16(o[i]);
  r.lse.resize(lse.size());
  for (std::size_t i = 0; i < lse.size(); ++i) r.lse[i] = samebits::fp::to_bits(lse[i]);
  return r;
}

std::int64_t mismatches(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  std::int64_t n = a.size() != b.size();
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) n += a[i] != b[i];
  return n;
}

template <int D, class L, DType In, DType OutT>
void check(const Shape& s, std::uint32_t seed, emu::Order order) {
  const Case c = make_case(s, D, In, seed);
  const Out want = reference(c, L::kLibm, OutT);
  const Out got = run_kernel<D, L, In, OutT>(c, order);
  INFO(s.tag << " D=" << D << " in=" << sk::dtype_name(In) << " out=" << sk::dtype_name(OutT)
             << " libm=" << sa::libm_name(L::kLibm));
  CHECK(mismatches(got.o, want.o) == 0);
  CHECK(mismatches(got.lse, want.lse) == 0);
  // Control: one flipped bit is one mismatch.
  Out planted = got;
  planted.o[planted.o.size() / 2] ^= 1u;
  CHECK(mismatches(planted.o, want.o) == mismatches(got.o, want.o) + 1);
}

const Shape kCausal130{{130}, {130}, true, 2, 1, "causal S=130"};
const Shape kVarlen{{37, 1, 130}, {200, 1, 130}, false, 2, 1, "not causal varlen 37/200, 1/1, 130/130"};
const Shape kChunks{{300, 5, 1}, {1, 140, 260}, true, 4, 2, "causal 300/1 (empty lists), 5/140, 1/260 (decode)"};
const Shape kOffset{{200}, {333}, true, 2, 2, "causal chunked prefill 200/333 (rows start at position 133)"};

}  // namespace

TEST_CASE("tc forward emulated == reference: bf16, D = 64 and 128, causal and varlen", "[tc][emulated]") {
  emu_sm90::params = sa::tc::kHardwareParams;
  emu_sm90::to_bf16 = sk::f32_to_bf16;
  emu_sm90::to_f16 = sk::f32_to_f16;
  check<64, ac::NvccExpLog, DType::bf16, DType::bf16>(kCausal130, 1, emu::Order::forward);
  check<128, ac::NvccExpLog, DType::bf16, DType::bf16>(kVarlen, 2, emu::Order::reverse);
  check<128, ac::NvccExpLog, DType::bf16, DType::bf16>(kChunks, 3, emu::Order::shuffled);
  check<64, ac::NvccExpLog, DType::bf16, DType::bf16>(kOffset, 4, emu::Order::forward);
}

TEST_CASE("tc forward emulated == reference: f16, cr libm, f32 outputs", "[tc][emulated]") {
  emu_sm90::params = sa::tc::kHardwareParams;
  emu_sm90::to_bf16 = sk::f32_to_bf16;
  emu_sm90::to_f16 = sk::f32_to_f16;
  check<128, ac::CrExpLog, DType::f16, DType::f16>(kCausal130, 5, emu::Order::reverse);
  check<64, ac::CrExpLog, DType::f16, DType::f32>(kVarlen, 6, emu::Order::shuffled);
  check<128, ac::NvccExpLog, DType::bf16, DType::f32>(kOffset, 7, emu::Order::reverse);
  check<64, ac::CrExpLog, DType::bf16, DType::bf16>(kChunks, 8, emu::Order::forward);
}

TEST_CASE("tc forward emulated: the model is on the path (other parameters, other bits)", "[tc][emulated]") {
  emu_sm90::to_bf16 = sk::f32_to_bf16;
  emu_sm90::to_f16 = sk::f32_to_f16;
  const Case c = make_case(kCausal130, 64, DType::bf16, 9);
  const Out want = reference(c, Libm::nvcc, DType::bf16);
  emu_sm90::params = sa::tc::kHardwareParams;
  emu_sm90::params.frac_bits = 24;
  const Out other = run_kernel<64, ac::NvccExpLog, DType::bf16, DType::bf16>(c, emu::Order::forward);
  emu_sm90::params = sa::tc::kHardwareParams;
  CHECK(mismatches(other.o, want.o) + mismatches(other.lse, want.lse) > 0);
}
