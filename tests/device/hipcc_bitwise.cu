// hipcc_bitwise — samebits::hipcc's NVIDIA path (the same IEEE binary32 operations as the host
// path, in inline PTX, with the correctly rounded model of v_exp_f32 / v_log_f32) equals its host
// path on every one of the 2^32 inputs of each of the 24 functions and modes, encoding for
// encoding, in two device builds (default flags and -use_fast_math). Harness: tests/device/harness/bitwise_sweep.hpp;
// options there (--range, --only, --threads).
#include <memory>
#include <vector>

#include "functions/hipcc.hpp"
#include "harness/device_function.cuh"

std::vector<samebits::device_test::DeviceFunction> hipcc_device_default();
std::vector<samebits::device_test::DeviceFunction> hipcc_device_use_fast_math();

namespace {
#define X(T, NAME, EXPR) SAMEBITS_HOST_DEVICE_FUNCTOR(T, EXPR)
SAMEBITS_HIPCC_FUNCTIONS(X)
#undef X
}  // namespace

int main(int argc, char** argv) {
  namespace dt = samebits::device_test;
  const dt::Options options = dt::parse_options(argc, argv);
  const auto dflt = hipcc_device_default(), fast = hipcc_device_use_fast_math();
  std::vector<std::unique_ptr<samebits::oracle::Subject>> hosts;
  std::vector<dt::Check> checks;
#define X(T, NAME, EXPR)                                                                                   \
  hosts.push_back(std::make_unique<dt::HostSubject<T>>());                                                 \
  checks.push_back(dt::Check{NAME, "default, use_fast_math",                                               \
                             {{"host", nullptr, hosts.back().get()},                                       \
                              {"device (default)", dt::find(dflt, NAME, "hipcc default"), nullptr},          \
                              {"device (use_fast_math)", dt::find(fast, NAME, "hipcc use_fast_math"), nullptr}}, \
                             {{1, 0, "host_vs_device"}, {2, 0, "host_vs_device"}}});
  SAMEBITS_HIPCC_FUNCTIONS(X)
#undef X
  return dt::run("hipcc_bitwise", checks, options);
}
