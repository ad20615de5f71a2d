// golden_inputs.hpp — the inputs of the nvcc golden vectors, generated the
// same way by the capture program (tests/device/capture_nvcc_golden.cu) and
// by the host test that reads its output, so the file holds results only.
#pragma once

#include <cstdint>
#include <vector>

namespace samebits::golden {

inline std::vector<std::uint32_t> inputs() {
  std::vector<std::uint32_t> v = {
      0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u,
      0x7fa00000u, 0x7fc12345u, 0x7f800001u, 0xff812345u, 0x00000001u, 0x80000001u,
      0x007fffffu, 0x807fffffu, 0x00800000u, 0x80800000u, 0x7f7fffffu, 0xff7fffffu,
  };
  for (std::uint32_t sign : {0u, 0x80000000u})
    for (std::uint32_t e = 0; e < 256; ++e)
      for (std::uint32_t d : {0xffffffffu, 0u, 1u}) v.push_back(sign | ((e << 23) + d));
  std::uint64_t s = 0x5a3eb1756c0ffee1ull;
  auto next = [&] {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>(s >> 32);
  };
  for (int i = 0; i < 150000; ++i) v.push_back(next());
  // Half in the working range: |x| < 128 for the exponentials, and positive
  // normal x for the logarithms, mixed.
  for (int i = 0; i < 150000; ++i) {
    const std::uint32_t r = next();
    v.push_back((i & 1) ? (0x00800000u + r % 0x7e800000u) : ((r & 0x80000000u) | (r % 0x43000000u)));
  }
  return v;
}

}  // namespace samebits::golden
