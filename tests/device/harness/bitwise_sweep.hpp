// tests/device/harness/bitwise_sweep.hpp — the one device-vs-reference
// harness: functions evaluated on the GPU, over ranges of binary32 encodings
// in chunks, compared encoding for encoding (NaN bits included, +0 != -0)
// with a reference: the host build of the same function (an oracle::Subject,
// the oracle's interface for "what produces results") or another device
// function (CUDA's own, the hardware instruction).
//
// A Check names its sides (each a device function or a host Subject) and the
// pairs of sides it compares. Per chunk (2^26 inputs by default) the GPU
// computes every device side of chunk c+1 and copies it to pinned host memory
// while all host cores evaluate the host sides of chunk c and compare; a host
// side is evaluated once per chunk however many device builds it is compared
// with.
//
// Output, one JSON object per line on stdout:
//   {"harness": ...}                      the run: device, host threads, digest definition
//   {"check", "build", "pair", "kind", "inputs", "mismatches", "first", "digest", "digest_reference",
//    "informative", "seconds"}           one per pair
//   {"negative_control", ..., "caught"}   once per run: a one-ulp change planted in one device
//                                          result must be reported, with the right input
// digest (one definition for every device result of the project):
//   sum over the inputs x of splitmix64((x << 32) | y(x)) mod 2^64, y the result encoding; it does
//   not depend on how the work is split, and equals the digest of nvcc_bitwise's earlier runs.
// Exit status: 0 every non-informative pair equal and the control caught; 1 a mismatch or a missed
// control; 2 an error (GPU runtime, bad option, host without FMA).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <samebits/gpu/status.hpp>
#include <samebits/libm/fp/bits.hpp>
#include <samebits/oracle/sweep.hpp>

namespace samebits::gpu {
class Stream;
}

namespace samebits::device_test {

// Writes out[i] = encoding of f(encoding first + i), i < count, on stream s
// (asynchronously).
using DeviceEval = gpu::Status (*)(std::uint32_t first, std::uint32_t count, std::uint32_t* out,
                                   const gpu::Stream& s);

struct DeviceFunction {
  const char* name;
  DeviceEval eval;
};

// One side: exactly one of device / host is set.
struct Side {
  std::string label;
  DeviceEval device = nullptr;
  const oracle::Subject* host = nullptr;
};

struct Pair {
  std::size_t tested, reference;  // indices into Check::sides
  std::string kind;               // "host_vs_device", "device_vs_cuda", "model_vs_instruction", ...
  bool informative = false;       // reported, never a failure
};

struct Check {
  std::string name;   // the function, e.g. "cr::expf"
  std::string build;  // the device build(s) involved, e.g. "default"
  std::vector<Side> sides;
  std::vector<Pair> pairs;
};

struct Options {
  std::uint32_t first = 0, last = 0xffffffffu;  // inclusive encoding range
  unsigned threads = 0;                         // 0: every host core
  std::uint32_t chunk = 1u << 26;
  std::vector<std::string> only;                // run the checks whose name contains one of these
};

// --range 0xA:0xB (encodings), --threads N, --chunk-log2 K (16..28), --only SUBSTRING (repeatable).
// Exits with status 2 and a message naming the argument on anything else.
Options parse_options(int argc, char** argv);

int run(const std::string& program, const std::vector<Check>& checks, const Options& options);

// The digest term of one input and its result (see above).
constexpr std::uint64_t digest_term(std::uint32_t x, std::uint32_t y) noexcept {
  std::uint64_t z = (std::uint64_t{x} << 32) | y;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// A host function as an oracle::Subject, inlined into the evaluation loop
// (F: a default-constructible functor float(float)).
template <class F>
class HostSubject final : public oracle::Subject {
 public:
  void evaluate(const oracle::EncodingRange& r, std::uint64_t n, float* out) const override {
    const F f{};
    for (std::uint64_t i = 0; i < n; ++i) out[i] = f(fp::from_bits(r.at(i)));
  }
};

// Lookup in a table of device functions; exits with status 2 naming it when absent.
DeviceEval find(const std::vector<DeviceFunction>& table, const std::string& name, const char* table_name);

// ---- the host half (harness/compare.cpp: plain C++, tested in CI without a GPU) ----

inline constexpr std::size_t kFirstKept = 5;

struct Tally {
  std::uint64_t mismatches = 0;
  std::vector<std::uint32_t> first;  // the smallest mismatching inputs, ascending, at most kFirstKept
  void offer(std::uint32_t x);
  void merge(const Tally& o);
};

struct ChunkResult {
  std::vector<Tally> pair;            // by pair index (only the pairs compared are filled)
  std::vector<std::uint64_t> digest;  // by side index (only the sides the pairs need)
};

// Inputs first .. first + count - 1 of check c: host sides are evaluated here (pieces of 2^16
// inputs handed to `threads` threads from an atomic counter), device sides are read from
// device_results[side] (count results each, null for host sides); every needed side is digested
// and every pair in `pairs` compared encoding for encoding. The result does not depend on
// `threads`.
ChunkResult compare_chunk(const Check& c, std::uint32_t first, std::uint32_t count,
                          const std::vector<const std::uint32_t*>& device_results, const std::vector<std::size_t>& pairs,
                          unsigned threads);

}  // namespace samebits::device_test
