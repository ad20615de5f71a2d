// tests/libm/hardening/digest.cpp — one digest line per libm function over a
// fixed input set; built once per flag set (check_flags.py), run once per
// floating-point mode (check_modes.py), and compared with the plain build.
//
//   hardening_digest [--specials FILE] [--stride N] [--mode M] [--guard] [--plant] [--dump F]
//
// Inputs: the oracle's special inputs (FILE, one hex encoding a line, written
// by specials_list.cpp), every subnormal encoding with a stride, the region
// around each overflow/underflow threshold, and every Nth encoding (4099).
// Each line: the function, its digest, and the digest of the same results
// with one of them one ulp away (the negative control: a comparison with the
// plain build must catch it). --mode sets a run-time floating-point mode
// first (modes.hpp); --guard computes inside samebits::fp::IeeeEnvironment;
// --plant changes one result of every function by one ulp before digesting
// (a whole-pipeline control); --dump F prints F's inputs and outputs.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <samebits/libm/fp/environment.hpp>

#include "functions.hpp"
#include "modes.hpp"

namespace {

std::vector<std::uint32_t> inputs(const char* specials_file, std::uint32_t stride) {
  std::vector<std::uint32_t> v;
  if (specials_file) {
    FILE* f = std::fopen(specials_file, "r");
    if (!f) {
      std::fprintf(stderr, "cannot open %s\n", specials_file);
      std::exit(2);
    }
    unsigned b;
    while (std::fscanf(f, "%x", &b) == 1) v.push_back(b);
    std::fclose(f);
    if (v.empty()) {
      std::fprintf(stderr, "%s: no inputs\n", specials_file);
      std::exit(2);
    }
  }
  for (std::uint32_t s : {0u, 0x80000000u}) {
    for (std::uint32_t b = 0; b < 0x00800000u; b += 1021) v.push_back(s | b);  // subnormals
    for (std::uint32_t b = 0x00800000u - 64; b < 0x00800000u + 64; ++b) v.push_back(s | b);
    // |x| in [32, 256): every threshold of the exponentials (overflow,
    // subnormal results, underflow to zero), every 257th encoding.
    for (std::uint32_t b = 0x42000000u; b < 0x43800000u; b += 257) v.push_back(s | b);
    for (std::uint32_t b = 0x7f800000u - 64; b < 0x7f800000u + 64; ++b) v.push_back(s | b);
    for (std::uint32_t b = 0x7fc00000u - 4; b < 0x7fc00000u + 4; ++b) v.push_back(s | b);
  }
  for (std::uint64_t b = 0; b < (1ull << 32); b += stride) v.push_back(static_cast<std::uint32_t>(b));
  return v;
}

std::uint64_t fnv1a(std::uint64_t h, std::uint32_t word) {
  for (int i = 0; i < 4; ++i) {
    h ^= (word >> (8 * i)) & 0xffu;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::uint64_t digest(const std::vector<std::uint32_t>& xs, const std::vector<std::uint32_t>& out) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::size_t i = 0; i < xs.size(); ++i) h = fnv1a(fnv1a(h, xs[i]), out[i]);
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  const char* specials = nullptr;
  const char* mode = "none";
  const char* dump = nullptr;
  bool guard = false, plant = false;
  std::uint32_t stride = 4099;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--specials" && i + 1 < argc) specials = argv[++i];
    else if (a == "--mode" && i + 1 < argc) mode = argv[++i];
    else if (a == "--dump" && i + 1 < argc) dump = argv[++i];
    else if (a == "--stride" && i + 1 < argc) stride = static_cast<std::uint32_t>(std::stoul(argv[++i]));
    else if (a == "--guard") guard = true;
    else if (a == "--plant") plant = true;
    else {
      std::fprintf(stderr, "unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  const std::vector<std::uint32_t> xs = inputs(specials, stride < 1 ? 1 : stride);
  std::vector<std::uint32_t> out(xs.size());
  // The mode this process started in (crtfastmath.o sets FTZ/DAZ before main).
  std::printf("inputs %zu\nstartup-mode %s\n", xs.size(), samebits::hardening::mode_name());
  if (!samebits::hardening::set_mode(mode)) {
    std::fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
  }
  std::printf("mode %s\n", samebits::hardening::mode_name());
  bool dumped = false;
  for (const auto& f : samebits::hardening::kFunctions) {
    if (dump && std::strcmp(dump, f.name) != 0) continue;
    if (guard) {
      const std::string before = samebits::hardening::mode_name();
      {
        const samebits::fp::IeeeEnvironment ieee;
        for (std::size_t i = 0; i < xs.size(); ++i) out[i] = samebits::fp::to_bits(f.fn(samebits::fp::from_bits(xs[i])));
      }
      if (samebits::hardening::mode_name() != before) {
        std::fprintf(stderr, "IeeeEnvironment did not restore the mode: %s, then %s\n", before.c_str(),
                     samebits::hardening::mode_name());
        return 1;
      }
    } else {
      for (std::size_t i = 0; i < xs.size(); ++i) out[i] = samebits::fp::to_bits(f.fn(samebits::fp::from_bits(xs[i])));
    }
    if (plant) out[xs.size() / 2] ^= 1u;  // one ulp (or one NaN payload bit)
    if (dump) {
      for (std::size_t i = 0; i < xs.size(); ++i) std::printf("%08x %08x\n", xs[i], out[i]);
      dumped = true;
      continue;
    }
    // The digest, and the negative control's: the same results with one of
    // them one ulp away (which a comparison with the plain build must catch).
    const std::uint64_t h = digest(xs, out);
    out[xs.size() / 3] ^= 1u;
    const std::uint64_t planted = digest(xs, out);
    std::printf("%s %016llx %016llx\n", f.name, static_cast<unsigned long long>(h),
                static_cast<unsigned long long>(planted));
  }
  if (dump && !dumped) {
    std::fprintf(stderr, "no function named %s\n", dump);
    return 2;
  }
  return 0;
}
