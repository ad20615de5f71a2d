// nvcc_bitwise — samebits::nvcc on the GPU computes what CUDA itself computes, and samebits::nvcc's
// host path computes what its device path computes, for every one of the 2^32 inputs, encoding for
// encoding. Two device builds (tests/device/nvcc_device.cu): default flags, and -ftz=true.
//   default build: nvcc::{expf exp2f exp10f logf log2f log10f} vs CUDA's functions of the same
//     name, nvcc::fast::{expf exp10f logf log2f} vs __expf __exp10f __logf __log2f (kind
//     device_vs_cuda), and each against its host path (host_vs_device);
//   ftz build: nvcc::ftz::{the six} vs CUDA's six under -ftz=true, nvcc::fast::ftz::{expf exp10f
//     logf log2f} vs __expf ... under -ftz=true (-use_fast_math's expf ...), each vs the host path;
//   informative (never a failure): on how many inputs CUDA's expf and __expf differ, and the same
//   for exp10f, logf, log2f (kind info).
// Before the checks a probe verifies that the ftz build flushes and the default build does not
// (exit 2 otherwise). Harness and options: tests/device/harness/bitwise_sweep.hpp.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <samebits/gpu/buffer.hpp>

#include "functions/nvcc.hpp"
#include "harness/device_function.cuh"

std::vector<samebits::device_test::DeviceFunction> nvcc_device_default();
std::vector<samebits::device_test::DeviceFunction> nvcc_device_ftz();

namespace {

namespace dt = samebits::device_test;
namespace sg = samebits::gpu;

namespace dflt {
#define X(T, NAME, OURS, CUDA, CUDA_NAME) SAMEBITS_HOST_DEVICE_FUNCTOR(T, OURS)
SAMEBITS_NVCC_FUNCTIONS(X, samebits::nvcc, "nvcc::")
SAMEBITS_NVCC_FAST_FUNCTIONS(X)
#undef X
}  // namespace dflt
namespace ftz {
#define X(T, NAME, OURS, CUDA, CUDA_NAME) SAMEBITS_HOST_DEVICE_FUNCTOR(T, OURS)
SAMEBITS_NVCC_FUNCTIONS(X, samebits::nvcc::ftz, "nvcc::ftz::")
SAMEBITS_NVCC_FAST_FTZ_FUNCTIONS(X)
#undef X
}  // namespace ftz

// x * 1 for the subnormal 0x00400000 in a build: true when it flushed to 0.
bool flushes(const std::vector<dt::DeviceFunction>& table, const char* name) {
  sg::Stream s;
  sg::DeviceBuffer<std::uint32_t> d;
  sg::PinnedBuffer<std::uint32_t> h;
  sg::check(sg::Stream::create(s));
  sg::check(sg::DeviceBuffer<std::uint32_t>::create(1, d));
  sg::check(sg::PinnedBuffer<std::uint32_t>::create(1, h));
  sg::check(dt::find(table, "probe::x_times_one", name)(0x00400000u, 1, d.data(), s));
  sg::check(sg::copy_async(h.data(), d.data(), 1, s));
  sg::check(s.synchronize());
  std::printf("{\"ftz_probe\": \"%s\", \"x_times_one(0x00400000)\": \"0x%08x\"}\n", name, h[0]);
  return h[0] == 0;
}

}  // namespace

int main(int argc, char** argv) {
  const dt::Options options = dt::parse_options(argc, argv);
  const auto d = nvcc_device_default(), f = nvcc_device_ftz();
  try {
    if (flushes(d, "default") || !flushes(f, "ftz")) {
      std::fprintf(stderr, "build mismatch: the default build must keep subnormals and the ftz build flush them\n");
      return 2;
    }
  } catch (const sg::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  std::vector<std::unique_ptr<samebits::oracle::Subject>> hosts;
  std::vector<dt::Check> checks;
#define X(T, NAME, OURS, CUDA, CUDA_NAME)                                                              \
  hosts.push_back(std::make_unique<dt::HostSubject<NS::T>>());                                         \
  checks.push_back(dt::Check{NAME, BUILD,                                                               \
                             {{"device", dt::find(TABLE, NAME, BUILD), nullptr},                        \
                              {"CUDA " CUDA_NAME, dt::find(TABLE, "cuda::" CUDA_NAME, BUILD), nullptr}, \
                              {"host", nullptr, hosts.back().get()}},                                   \
                             {{0, 1, "device_vs_cuda"}, {2, 0, "host_vs_device"}}});
#define NS dflt
#define BUILD "default"
#define TABLE d
  SAMEBITS_NVCC_FUNCTIONS(X, samebits::nvcc, "nvcc::")
  SAMEBITS_NVCC_FAST_FUNCTIONS(X)
#undef NS
#undef BUILD
#undef TABLE
#define NS ftz
#define BUILD "ftz"
#define TABLE f
  SAMEBITS_NVCC_FUNCTIONS(X, samebits::nvcc::ftz, "nvcc::ftz::")
  SAMEBITS_NVCC_FAST_FTZ_FUNCTIONS(X)
#undef NS
#undef BUILD
#undef TABLE
#undef X
  const char* const info[][2] = {{"expf", "__expf"}, {"exp10f", "__exp10f"}, {"logf", "__logf"}, {"log2f", "__log2f"}};
  for (const auto& pr : info) {
    const std::string a = pr[0], b = pr[1];
    checks.push_back(dt::Check{"CUDA " + a + " vs " + b, "default",
                               {{"CUDA " + a, dt::find(d, "cuda::" + a, "default"), nullptr},
                                {"CUDA " + b, dt::find(d, "cuda::" + b, "default"), nullptr}},
                               {{0, 1, "info", true}}});
  }
  return dt::run("nvcc_bitwise", checks, options);
}
