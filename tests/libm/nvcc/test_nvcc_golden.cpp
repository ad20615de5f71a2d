// The host path of samebits::nvcc reproduces the golden vectors captured on
// the H200 (tests/device/capture_nvcc_golden.cu, run by
// tests/device/run_nvcc_h200.sh; inputs: tests/libm/nvcc/golden_inputs.hpp):
// special values, every binade boundary with its neighbours, and 300,000
// random inputs, for CUDA's own functions compiled with default flags and
// with -ftz=true. Encodings are compared (NaN bits included). A planted
// one-ulp change must be caught.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "golden_file.hpp"
#include "samebits/libm.hpp"

namespace {

using samebits::golden::Golden;

Golden read_golden(const std::string& path) {
  try {
    return samebits::golden::read_golden(path);
  } catch (const std::exception& e) {
    FAIL(e.what());
  }
  return {};
}

using Fn = float (*)(float);

// Mismatched encodings of fn against the golden results; prints the first few.
std::size_t mismatches(const Golden& g, const std::vector<std::uint32_t>& want, Fn fn, const char* label) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    const std::uint32_t got = samebits::fp::to_bits(fn(samebits::fp::from_bits(g.inputs[i])));
    if (got != want[i] && bad++ < 5)
      std::printf("%s: x = 0x%08x: host 0x%08x, H200 0x%08x\n", label, g.inputs[i], got, want[i]);
  }
  return bad;
}

const std::string kDir = SAMEBITS_GOLDEN_DIR;

}  // namespace

TEST_CASE("nvcc host path == H200, default flags") {
  const Golden g = read_golden(kDir + "/nvcc_golden_default.bin");
  const std::pair<const char*, Fn> cases[] = {
      {"expf", samebits::nvcc::expf},         {"exp2f", samebits::nvcc::exp2f},
      {"exp10f", samebits::nvcc::exp10f},     {"logf", samebits::nvcc::logf},
      {"log2f", samebits::nvcc::log2f},       {"log10f", samebits::nvcc::log10f},
      {"__expf", samebits::nvcc::fast::expf}, {"__exp10f", samebits::nvcc::fast::exp10f},
      {"__logf", samebits::nvcc::fast::logf}, {"__log2f", samebits::nvcc::fast::log2f},
  };
  for (const auto& [name, fn] : cases) {
    INFO(name);
    REQUIRE(g.results.count(name) == 1);
    CHECK(mismatches(g, g.results.at(name), fn, name) == 0);
  }
}

TEST_CASE("nvcc host path == H200, -ftz=true") {
  const Golden g = read_golden(kDir + "/nvcc_golden_ftz.bin");
  const std::pair<const char*, Fn> cases[] = {
      {"expf", samebits::nvcc::ftz::expf},     {"exp2f", samebits::nvcc::ftz::exp2f},
      {"exp10f", samebits::nvcc::ftz::exp10f}, {"logf", samebits::nvcc::ftz::logf},
      {"log2f", samebits::nvcc::ftz::log2f},   {"log10f", samebits::nvcc::ftz::log10f},
  };
  for (const auto& [name, fn] : cases) {
    INFO(name);
    REQUIRE(g.results.count(name) == 1);
    CHECK(mismatches(g, g.results.at(name), fn, name) == 0);
  }
}

TEST_CASE("nvcc golden comparison catches a planted one-ulp change") {
  Golden g = read_golden(kDir + "/nvcc_golden_default.bin");
  std::vector<std::uint32_t> planted = g.results.at("expf");
  planted[12345] += 1;
  CHECK(mismatches(g, planted, samebits::nvcc::expf, "planted") == 1);
  // The same through the MUFU lg2 model (__log2f).
  std::vector<std::uint32_t> planted_lg2 = g.results.at("__log2f");
  planted_lg2[54321] += 1;
  CHECK(mismatches(g, planted_lg2, samebits::nvcc::fast::log2f, "planted __log2f") == 1);
}
