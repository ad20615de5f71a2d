// cr_bitwise — samebits::cr on the GPU equals samebits::cr on the CPU for every one of the 2^32
// inputs of each function, encoding for encoding, in two device builds (default flags and
// -use_fast_math: the flags change nothing). Harness: tests/device/harness/bitwise_sweep.hpp;
// options there (--range, --only, --threads).
#include <memory>
#include <vector>

#include "functions/cr.hpp"
#include "harness/device_function.cuh"

std::vector<samebits::device_test::DeviceFunction> cr_device_default();
std::vector<samebits::device_test::DeviceFunction> cr_device_use_fast_math();

namespace {
#define X(T, NAME, EXPR) SAMEBITS_HOST_DEVICE_FUNCTOR(T, EXPR)
SAMEBITS_CR_FUNCTIONS(X)
#undef X
}  // namespace

int main(int argc, char** argv) {
  namespace dt = samebits::device_test;
  const dt::Options options = dt::parse_options(argc, argv);
  const auto dflt = cr_device_default(), fast = cr_device_use_fast_math();
  std::vector<std::unique_ptr<samebits::oracle::Subject>> hosts;
  std::vector<dt::Check> checks;
#define X(T, NAME, EXPR)                                                                                   \
  hosts.push_back(std::make_unique<dt::HostSubject<T>>());                                                 \
  checks.push_back(dt::Check{NAME, "default, use_fast_math",                                               \
                             {{"host", nullptr, hosts.back().get()},                                       \
                              {"device (default)", dt::find(dflt, NAME, "cr default"), nullptr},          \
                              {"device (use_fast_math)", dt::find(fast, NAME, "cr use_fast_math"), nullptr}}, \
                             {{1, 0, "host_vs_device"}, {2, 0, "host_vs_device"}}});
  SAMEBITS_CR_FUNCTIONS(X)
#undef X
  return dt::run("cr_bitwise", checks, options);
}
