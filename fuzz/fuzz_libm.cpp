// fuzz_libm — the libm personalities on inputs pushed toward special values.
//
// An input is a sequence of binary32 encodings (4 little-endian bytes each,
// at most 64). For each x:
//   cr:    every function's encoding equals the correctly rounded value from
//          MPFR (oracle::cr_mpfr); NaN results follow cr's rule: a NaN input
//          comes back quieted (sign and payload kept), an invalid operation
//          gives 0x7fc00000.
//   nvcc:  the host path (the bit-exact model of the H200) stays within the
//          maximum error the exhaustive sweeps measured (docs/accuracy.md),
//          is a NaN exactly where the correct result is one, and its -ftz=true
//          form equals the default form wherever no subnormal is involved;
//          where x is one of the inputs of the golden vectors captured on the
//          H200 (tests/data/nvcc), the host path of all ten functions (six
//          and the four intrinsics; six -ftz=true forms) equals the H200's
//          encoding. The golden set holds the special values and every binade
//          boundary with its neighbours, where the mutator steers.
//   hipcc: the documented structure (docs/libm/hipcc.md): exp2f is the v_exp
//          model for x >= -126, log2f the v_log model for normal x > 0, afn
//          leaves exp2f/log2f unchanged, Triton's logf is clang 19's, Triton's
//          expf is v_exp(x log2 e) where no shift is taken, and the daz forms
//          read subnormal inputs as zero.
// A finding aborts with the function, the input and both encodings.
// The custom mutator (special_mutator.hpp) pushes the inputs toward special
// values.
//
// Built with -DSAMEBITS_FUZZ_PLANTED_BUG, cr::expf is replaced by a copy that
// is one ulp off at its last finite input before overflow (0x42b17217): the
// negative control, which the replay of the committed corpus must report.
// With -DSAMEBITS_FUZZ_PLANTED_NVCC_BUG, nvcc::expf(1) and its -ftz form are
// one ulp off: within the measured error bound and consistent with each other,
// so only the golden-vector check can report it.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iterator>
#include <string>
#include <unordered_map>
#include <vector>

#include "samebits/libm.hpp"
#include "samebits/oracle/reference.hpp"
#include "samebits/oracle/specials.hpp"
#include "golden_file.hpp"
#include "special_mutator.hpp"

#if !defined(SAMEBITS_GOLDEN_DIR)
#error "SAMEBITS_GOLDEN_DIR (where the unpacked nvcc golden vectors are) must be defined by the build"
#endif

namespace {

using samebits::fp::from_bits;
using samebits::fp::to_bits;
using samebits::oracle::Func;

[[noreturn]] void finding(const char* what, std::uint32_t x, std::uint32_t got, std::uint32_t want) {
  std::fprintf(stderr, "finding: %s at x = 0x%08x (%a): got 0x%08x, expected 0x%08x\n", what, x,
               static_cast<double>(from_bits(x)), got, want);
  std::abort();
}

bool is_nan(std::uint32_t b) { return (b & 0x7fffffffu) > 0x7f800000u; }
bool is_subnormal(std::uint32_t b) { return (b & 0x7f800000u) == 0 && (b & 0x7fffffu) != 0; }

float cr_expf_under_test(float x) {
#if defined(SAMEBITS_FUZZ_PLANTED_BUG)
  if (to_bits(x) == 0x42b17217u) return from_bits(to_bits(samebits::cr::expf(x)) + 1);  // planted: one ulp off
#endif
  return samebits::cr::expf(x);
}

float nvcc_expf_under_test(float x) {
#if defined(SAMEBITS_FUZZ_PLANTED_NVCC_BUG)
  if (to_bits(x) == 0x3f800000u) return from_bits(to_bits(samebits::nvcc::expf(x)) + 1);  // planted: e one ulp off
#endif
  return samebits::nvcc::expf(x);
}

float nvcc_ftz_expf_under_test(float x) {
#if defined(SAMEBITS_FUZZ_PLANTED_NVCC_BUG)
  if (to_bits(x) == 0x3f800000u) return from_bits(to_bits(samebits::nvcc::ftz::expf(x)) + 1);  // the same plant
#endif
  return samebits::nvcc::ftz::expf(x);
}

struct Cr {
  const char* name;
  Func f;
  float (*fn)(float);
};
const Cr kCr[] = {{"cr::expf", Func::exp, cr_expf_under_test},  {"cr::exp2f", Func::exp2, samebits::cr::exp2f},
                  {"cr::exp10f", Func::exp10, samebits::cr::exp10f}, {"cr::logf", Func::log, samebits::cr::logf},
                  {"cr::log2f", Func::log2, samebits::cr::log2f},    {"cr::log10f", Func::log10, samebits::cr::log10f}};

void check_cr(std::uint32_t x) {
  for (const Cr& c : kCr) {
    const std::uint32_t got = to_bits(c.fn(from_bits(x)));
    const std::uint32_t want = to_bits(samebits::oracle::cr_mpfr(c.f, from_bits(x)));
    if (is_nan(want)) {
      const std::uint32_t nan = is_nan(x) ? (x | 0x00400000u) : 0x7fc00000u;
      if (got != nan) finding(c.name, x, got, nan);
    } else if (got != want) {
      finding(c.name, x, got, want);
    }
  }
}

// Max error over all 2^32 inputs measured by the exhaustive sweeps of the
// host model (docs/accuracy.md), as bounds the model must keep.
struct Nvcc {
  const char* name;
  Func f;
  float (*fn)(float);
  float (*ftz)(float);
  double max_ulp;
};
const Nvcc kNvcc[] = {
    {"nvcc::expf", Func::exp, nvcc_expf_under_test, nvcc_ftz_expf_under_test, 1.930987},
    {"nvcc::exp2f", Func::exp2, samebits::nvcc::exp2f, samebits::nvcc::ftz::exp2f, 2.383437},
    {"nvcc::exp10f", Func::exp10, samebits::nvcc::exp10f, samebits::nvcc::ftz::exp10f, 2.069488},
    {"nvcc::logf", Func::log, samebits::nvcc::logf, samebits::nvcc::ftz::logf, 0.864162},
    {"nvcc::log2f", Func::log2, samebits::nvcc::log2f, samebits::nvcc::ftz::log2f, 0.918743},
    {"nvcc::log10f", Func::log10, samebits::nvcc::log10f, samebits::nvcc::ftz::log10f, 2.085178},
};

void check_nvcc(std::uint32_t x) {
  for (const Nvcc& n : kNvcc) {
    const float xf = from_bits(x);
    const std::uint32_t got = to_bits(n.fn(xf));
    const std::uint32_t want = to_bits(samebits::oracle::cr_mpfr(n.f, xf));
    if (is_nan(want) != is_nan(got)) finding(n.name, x, got, want);
    if (!is_nan(want) && got != want) {
      const double e = samebits::oracle::exact_ulp_error(n.f, xf, from_bits(got));
      if (!(e <= n.max_ulp)) finding(n.name, x, got, want);
    }
    const std::uint32_t g_ftz = to_bits(n.ftz(xf));
    if (!is_subnormal(x) && !is_subnormal(got) && !is_subnormal(want) && (got & 0x7f800000u) != 0 &&
        g_ftz != got && !(is_nan(g_ftz) && is_nan(got)))
      finding(n.name, x, g_ftz, got);  // -ftz=true differs where nothing is subnormal
  }
}

// The golden vectors, loaded once; a missing or damaged file stops the run
// with its name (a fuzzer that silently skipped them would prove less).
struct GoldenCase {
  const char* cuda_name;
  float (*fn)(float);
};
const GoldenCase kGoldenDefault[] = {
    {"expf", nvcc_expf_under_test},         {"exp2f", samebits::nvcc::exp2f},
    {"exp10f", samebits::nvcc::exp10f},     {"logf", samebits::nvcc::logf},
    {"log2f", samebits::nvcc::log2f},       {"log10f", samebits::nvcc::log10f},
    {"__expf", samebits::nvcc::fast::expf}, {"__exp10f", samebits::nvcc::fast::exp10f},
    {"__logf", samebits::nvcc::fast::logf}, {"__log2f", samebits::nvcc::fast::log2f},
};
const GoldenCase kGoldenFtz[] = {
    {"expf", nvcc_ftz_expf_under_test},      {"exp2f", samebits::nvcc::ftz::exp2f},
    {"exp10f", samebits::nvcc::ftz::exp10f}, {"logf", samebits::nvcc::ftz::logf},
    {"log2f", samebits::nvcc::ftz::log2f},   {"log10f", samebits::nvcc::ftz::log10f},
};

// The results of kGoldenDefault / kGoldenFtz, resolved by name once at load.
struct GoldenSet {
  samebits::golden::Golden def, ftz;
  std::vector<const std::vector<std::uint32_t>*> def_results, ftz_results;  // parallel to the case lists
  std::unordered_map<std::uint32_t, std::size_t> index;                     // input encoding -> position
};

std::size_t golden_distinct = 0;  // distinct golden inputs checked, printed at exit
std::vector<bool> golden_seen;

const GoldenSet& golden() {
  static const GoldenSet g = [] {
    const std::string dir = SAMEBITS_GOLDEN_DIR;
    GoldenSet s;
    try {
      s.def = samebits::golden::read_golden(dir + "/nvcc_golden_default.bin");
      s.ftz = samebits::golden::read_golden(dir + "/nvcc_golden_ftz.bin");
      for (const GoldenCase& c : kGoldenDefault) s.def_results.push_back(&s.def.results.at(c.cuda_name));
      for (const GoldenCase& c : kGoldenFtz) s.ftz_results.push_back(&s.ftz.results.at(c.cuda_name));
    } catch (const std::out_of_range&) {
      std::fprintf(stderr, "fuzz_libm: golden vectors in %s lack a function this harness checks\n", dir.c_str());
      std::exit(2);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "fuzz_libm: golden vectors: %s\n", e.what());
      std::exit(2);
    }
    for (std::size_t i = 0; i < s.def.inputs.size(); ++i) s.index.emplace(s.def.inputs[i], i);
    golden_seen.assign(s.def.inputs.size(), false);
    std::atexit([] { std::fprintf(stderr, "fuzz_libm: %zu distinct golden inputs checked\n", golden_distinct); });
    return s;
  }();
  return g;
}

// Under libFuzzer these count as coverage (its "extra counters"), so an input
// that reaches a golden entry not reached before is kept and mutated further:
// the run walks the special values and binade edges of the golden set. In the
// plain replay build the array is ordinary data.
__attribute__((used, section("__libfuzzer_extra_counters"))) std::uint8_t golden_reached[4096];

void golden_finding(const char* form, const char* cuda_name, std::uint32_t x, std::uint32_t got, std::uint32_t want) {
  char what[64];
  std::snprintf(what, sizeof what, "nvcc %s%s == H200 golden", form, cuda_name);
  finding(what, x, got, want);
}

void check_nvcc_golden(std::uint32_t x) {
  const GoldenSet& g = golden();
  const auto it = g.index.find(x);
  if (it == g.index.end()) return;
  const std::size_t i = it->second;
  golden_reached[i % sizeof golden_reached] = 1;
  if (!golden_seen[i]) golden_seen[i] = true, ++golden_distinct;
  for (std::size_t k = 0; k < std::size(kGoldenDefault); ++k) {
    const std::uint32_t got = to_bits(kGoldenDefault[k].fn(from_bits(x))), want = (*g.def_results[k])[i];
    if (got != want) golden_finding("", kGoldenDefault[k].cuda_name, x, got, want);
  }
  for (std::size_t k = 0; k < std::size(kGoldenFtz); ++k) {
    const std::uint32_t got = to_bits(kGoldenFtz[k].fn(from_bits(x))), want = (*g.ftz_results[k])[i];
    if (got != want) golden_finding("-ftz ", kGoldenFtz[k].cuda_name, x, got, want);
  }
}

void check_hipcc(std::uint32_t x) {
  const float xf = from_bits(x);
  if (!is_nan(x) && xf >= -126.0f) {
    const std::uint32_t got = to_bits(samebits::hipcc::exp2f(xf)), want = to_bits(samebits::cr::exp2f(xf));
    if (got != want) finding("hipcc::exp2f == v_exp model", x, got, want);
  }
  if (!is_nan(x) && xf >= 0x1p-126f && std::isfinite(xf)) {
    const std::uint32_t got = to_bits(samebits::hipcc::log2f(xf)), want = to_bits(samebits::cr::log2f(xf));
    if (got != want) finding("hipcc::log2f == v_log model", x, got, want);
  }
  // afn leaves exp2f and log2f as they are (docs/libm/hipcc.md).
  const struct {
    const char* name;
    float (*afn)(float);
    float (*ieee)(float);
  } same[] = {{"hipcc::afn::exp2f == hipcc::exp2f", samebits::hipcc::afn::exp2f, samebits::hipcc::exp2f},
              {"hipcc::afn::log2f == hipcc::log2f", samebits::hipcc::afn::log2f, samebits::hipcc::log2f},
              // tl.log on AMD = clang 19's tail with clang 22's (exact) scaling.
              {"hipcc::triton::logf == hipcc::clang19::logf", samebits::hipcc::triton::logf,
               samebits::hipcc::clang19::logf}};
  for (const auto& p : same) {
    const std::uint32_t got = to_bits(p.afn(xf)), want = to_bits(p.ieee(xf));
    if (got != want) finding(p.name, x, got, want);
  }
  // tl.exp on AMD: v_exp(fma(x, log2 e, 0)) wherever x log2 e >= -126 (no shift).
  if (!is_nan(x)) {
    const float t = std::fma(xf, from_bits(0x3fb8aa3bu), 0.0f);
    if (t >= -126.0f) {
      const std::uint32_t got = to_bits(samebits::hipcc::triton::expf(xf)), want = to_bits(samebits::cr::exp2f(t));
      if (got != want) finding("hipcc::triton::expf == v_exp model(x log2 e)", x, got, want);
    }
  }
  if (is_subnormal(x)) {
    const float zero = from_bits(x & 0x80000000u);
    struct Daz {
      const char* name;
      float (*fn)(float);
    };
    const Daz daz[] = {{"hipcc::daz::logf", samebits::hipcc::daz::logf},
                       {"hipcc::daz::log2f", samebits::hipcc::daz::log2f},
                       {"hipcc::daz::expf", samebits::hipcc::daz::expf}};
    for (const Daz& d : daz) {
      const std::uint32_t got = to_bits(d.fn(xf)), want = to_bits(d.fn(zero));
      if (got != want) finding(d.name, x, got, want);  // a subnormal input reads as a zero
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  for (std::size_t i = 0; i + 4 <= size && i < 4 * 64; i += 4) {
    std::uint32_t x;
    std::memcpy(&x, data + i, 4);
    check_cr(x);
    check_nvcc(x);
    check_nvcc_golden(x);
    check_hipcc(x);
  }
  return 0;
}

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  return samebits::fuzz::mutate_toward_specials(data, size, max_size, seed);
}
