// Golden GPU outputs replayed against the CPU reference (CI has no GPU).
// tests/data/kernels/attention/*.safetensors were captured on the GPU by
// tests/device/kernels/capture_golden.py: inputs and what the kernels
// returned, with the policy (metadata "policy": fma-chain when absent, or
// sm90-tensor-core: the wgmma kernels, files tc_*) and the libm. The reference
// must give the same encodings for every output element (o, lse, dq, dk, dv);
// a flipped bit in a golden output is one mismatch (negative control).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "samebits/kernels/attention/reference_api.hpp"
#include "samebits/kernels/attention/tensor_core.hpp"
#include "samebits/kernels/dtype.hpp"
#include "samebits/oracle/tensor_io.hpp"

#ifndef SAMEBITS_TEST_DATA
#error "SAMEBITS_TEST_DATA must name tests/data"
#endif

namespace {

namespace ka = samebits::kernels::attention;
namespace kn = samebits::kernels;
namespace so = samebits::oracle;

const so::Tensor& get(const so::TensorFile& f, const std::string& name) {
  for (const auto& t : f.tensors)
    if (t.name == name) return t;
  throw std::runtime_error(f.path + ": no tensor " + name);
}

kn::DType kernel_dtype(so::DType t) {
  switch (t) {
    case so::DType::f32: return kn::DType::f32;
    case so::DType::bf16: return kn::DType::bf16;
    case so::DType::f16: return kn::DType::f16;
    default: throw std::runtime_error("unexpected dtype");
  }
}

std::vector<float> widen(const so::Tensor& t) {
  std::vector<float> x(t.elements);
  const kn::DType k = kernel_dtype(t.dtype);
  for (std::uint64_t i = 0; i < t.elements; ++i) x[i] = kn::load_as_f32(t.data.data(), k, static_cast<std::int64_t>(i));
  return x;
}

std::vector<std::int32_t> ints(const so::Tensor& t) {
  std::vector<std::int32_t> x(t.elements);
  std::memcpy(x.data(), t.data.data(), t.elements * 4);
  return x;
}

// Encodings of the reference's binary32 results rounded as the kernels store
// them, compared with the golden bytes: the number of differing elements.
std::size_t mismatches(const std::vector<float>& ref, const so::Tensor& golden) {
  const kn::DType k = kernel_dtype(golden.dtype);
  const int size = kn::dtype_size(k);
  std::vector<std::uint8_t> mine(ref.size() * size);
  for (std::size_t i = 0; i < ref.size(); ++i) kn::store_from_f32(mine.data(), k, static_cast<std::int64_t>(i), ref[i]);
  std::size_t c = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) c += std::memcmp(&mine[i * size], &golden.data[i * size], size) != 0;
  return c;
}

}  // namespace

TEST_CASE("attention: golden GPU outputs == CPU reference, every element", "[kernels][attention][golden]") {
  const std::filesystem::path dir = std::filesystem::path(SAMEBITS_TEST_DATA) / "kernels" / "attention";
  std::vector<std::filesystem::path> files;
  if (std::filesystem::exists(dir))
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".safetensors") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(!files.empty());  // no golden data is a failure, not a pass
  std::size_t elements = 0, tc_files = 0;
  for (const auto& path : files) {
    const so::TensorFile f = so::read_tensor_file(path.string());
    INFO(path.filename().string());
    ka::DenseProblem p;
    p.cu_q = ints(get(f, "cu_seqlens_q"));
    p.cu_k = ints(get(f, "cu_seqlens_k"));
    p.hq = std::stoi(f.metadata.at("hq"));
    p.hkv = std::stoi(f.metadata.at("hkv"));
    p.d = std::stoi(f.metadata.at("d"));
    p.causal = f.metadata.at("causal") == "1";
    p.scale = ka::default_scale(p.d);
    ka::Libm libm{};
    REQUIRE(ka::libm_from_name(f.metadata.at("libm"), libm));
    const auto pol = f.metadata.find("policy");
    if (pol != f.metadata.end() && pol->second != "fma-chain") {
      REQUIRE(pol->second == "sm90-tensor-core");
      p.policy = ka::Policy::sm90_tensor_core;
      p.in_dtype = kernel_dtype(get(f, "q").dtype);
      p.mma = ka::tc::kHardwareParams;  // what the GPU computes (the kernels take no other)
      ++tc_files;
    }
    const auto q = widen(get(f, "q")), k = widen(get(f, "k")), v = widen(get(f, "v")), dout = widen(get(f, "do"));
    std::vector<float> o(q.size()), lse(static_cast<std::size_t>(p.rows()) * p.hq);
    ka::reference_forward(libm, p, q.data(), k.data(), v.data(), o.data(), lse.data());
    CHECK(mismatches(o, get(f, "o")) == 0);
    CHECK(mismatches(lse, get(f, "lse")) == 0);
    // The backward takes o as stored: the golden o (equal to ours when the line above holds).
    const auto o_stored = widen(get(f, "o"));
    std::vector<float> dq(q.size()), dk(k.size()), dv(v.size());
    ka::reference_backward(libm, p, q.data(), k.data(), v.data(), o_stored.data(), dout.data(), lse.data(), dq.data(),
                           dk.data(), dv.data());
    CHECK(mismatches(dq, get(f, "dq")) == 0);
    CHECK(mismatches(dk, get(f, "dk")) == 0);
    CHECK(mismatches(dv, get(f, "dv")) == 0);
    elements += o.size() + lse.size() + dq.size() + dk.size() + dv.size();

    // Negative control: one flipped bit in the golden dk is exactly one mismatch.
    const so::Tensor& gdk = get(f, "dk");
    std::vector<std::uint8_t> flipped(gdk.data.begin(), gdk.data.end());
    flipped[flipped.size() / 2] ^= 1;
    so::Tensor planted = gdk;
    planted.data = std::span<const std::uint8_t>(flipped.data(), flipped.size());
    CHECK(mismatches(dk, planted) == 1);
  }
  WARN(files.size() << " golden cases (" << tc_files << " sm90-tensor-core), " << elements
                    << " output elements compared");
}
