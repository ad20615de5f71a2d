// golden_file.hpp — reads the nvcc golden vectors captured on the H200
// (tests/device/capture_nvcc_golden.cu; stored as tests/data/nvcc/*.bin.xz and
// unpacked at build time by tests/data/nvcc/meson.build). Shared by the host
// test (test_nvcc_golden.cpp) and the fuzzer (fuzz/fuzz_libm.cpp).
//
// Format: "SBGOLD01", u32 n, u32 nfuncs, then per function a 32-byte
// NUL-padded CUDA name and n u32 result encodings, for the n inputs of
// golden_inputs.hpp in that order.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "golden_inputs.hpp"

namespace samebits::golden {

struct Golden {
  std::vector<std::uint32_t> inputs;
  std::map<std::string, std::vector<std::uint32_t>> results;  // CUDA name -> encodings
};

// Throws std::runtime_error naming the file and what is wrong with it.
inline Golden read_golden(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(path + ": cannot open");
  char magic[8] = {};
  std::uint32_t n = 0, nfuncs = 0;
  f.read(magic, 8);
  f.read(reinterpret_cast<char*>(&n), 4);
  f.read(reinterpret_cast<char*>(&nfuncs), 4);
  if (!f || std::memcmp(magic, "SBGOLD01", 8) != 0) throw std::runtime_error(path + ": not an SBGOLD01 file");
  Golden g;
  g.inputs = inputs();
  if (g.inputs.size() != n)
    throw std::runtime_error(path + ": holds " + std::to_string(n) + " results per function, golden_inputs.hpp has " +
                             std::to_string(g.inputs.size()) + " inputs");
  for (std::uint32_t k = 0; k < nfuncs; ++k) {
    char name[32];
    f.read(name, 32);
    std::vector<std::uint32_t> v(n);
    f.read(reinterpret_cast<char*>(v.data()), std::streamsize(n) * 4);
    if (!f) throw std::runtime_error(path + ": truncated in function " + std::to_string(k));
    g.results[std::string(name, strnlen(name, 32))] = std::move(v);
  }
  if (f.peek() != std::char_traits<char>::eof()) throw std::runtime_error(path + ": trailing data");
  return g;
}

}  // namespace samebits::golden
