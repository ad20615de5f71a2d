// The host half of the device harness (harness/compare.cpp), tested without a GPU: device
// results are stood in for by arrays. Equal sides give no mismatch and equal digests whatever the
// thread count; a planted one-ulp change, a NaN payload and a zero's sign are each reported at
// their input; of many mismatches the five smallest inputs are kept; every side's digest is the
// documented sum (also a tested side's, which is derived from its reference's). Exit 0 on success, 1 with a message on the first failure.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <samebits/libm/cr.hpp>

#include "harness/bitwise_sweep.hpp"

namespace {

namespace dt = samebits::device_test;
namespace fp = samebits::fp;

struct CrExpf {
  float operator()(float x) const { return samebits::cr::expf(x); }
};

int failures = 0;
void expect(bool ok, const char* what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what);
    ++failures;
  }
}

}  // namespace

int main() {
  const std::uint32_t first = 0x3effff00u, count = (1u << 18) + 77;  // pieces of 2^16 and a partial one
  const dt::HostSubject<CrExpf> host;
  std::vector<std::uint32_t> dev(count);
  host.evaluate(samebits::oracle::EncodingRange{first, first + count - 1, 1}, count,
                reinterpret_cast<float*>(dev.data()));
  std::uint64_t want_digest = 0;
  for (std::uint32_t i = 0; i < count; ++i) want_digest += dt::digest_term(first + i, dev[i]);

  const dt::Check check{"cr::expf", "test",
                        {{"host", nullptr, &host}, {"device stand-in", reinterpret_cast<dt::DeviceEval>(1), nullptr},
                         {"host again", nullptr, &host}},
                        {{1, 0, "host_vs_device"}, {2, 0, "host_vs_host"}}};
  const std::vector<const std::uint32_t*> results = {nullptr, dev.data(), nullptr};

  // Equal: no mismatch, the documented digest, for 1, 2 and 7 threads.
  for (unsigned threads : {1u, 2u, 7u}) {
    const dt::ChunkResult r = dt::compare_chunk(check, first, count, results, {0, 1}, threads);
    expect(r.pair[0].mismatches == 0 && r.pair[1].mismatches == 0, "equal sides give no mismatch");
    expect(r.digest[0] == want_digest && r.digest[1] == want_digest && r.digest[2] == want_digest,
           "digest = sum of splitmix64((x << 32) | y) over the inputs, on every side, any thread count");
  }

  // Planted changes, each reported at its input: one ulp, a NaN payload, the sign of a zero.
  struct Plant {
    std::uint32_t at, bits;
    const char* what;
  };
  const Plant plants[] = {{0x123, dev[0x123] + 1, "one-ulp change reported once, at its input"},
                          {count - 1, 0x7fc00001u, "NaN payload change reported"},
                          {0x10000, 0x80000000u, "a -0 where a number was due reported"}};
  for (const Plant& p : plants) {
    std::vector<std::uint32_t> changed = dev;
    changed[p.at] = p.bits;
    const std::uint64_t expected = dev[p.at] != p.bits;
    const dt::ChunkResult r =
        dt::compare_chunk(check, first, count, {nullptr, changed.data(), nullptr}, {0}, 3);
    expect(r.pair[0].mismatches == expected && !r.pair[0].first.empty() &&
               r.pair[0].first.back() == first + p.at,
           p.what);
    std::uint64_t changed_digest = 0;
    for (std::uint32_t i = 0; i < count; ++i) changed_digest += dt::digest_term(first + i, changed[i]);
    expect(r.digest[1] == changed_digest && r.digest[0] == want_digest,
           "a tested side's digest (derived from its reference's, corrected at mismatches) is its own sum");
  }
  {  // A +0 that should be -0: a different encoding, a mismatch.
    std::vector<std::uint32_t> a(count, 0x80000000u), b(count, 0x80000000u);
    b[5] = 0;
    const dt::Check two{"zeros", "test",
                        {{"a", reinterpret_cast<dt::DeviceEval>(1), nullptr}, {"b", reinterpret_cast<dt::DeviceEval>(1), nullptr}},
                        {{0, 1, "t"}}};
    const dt::ChunkResult r = dt::compare_chunk(two, first, count, {a.data(), b.data()}, {0}, 2);
    expect(r.pair[0].mismatches == 1 && r.pair[0].first.size() == 1 && r.pair[0].first[0] == first + 5,
           "+0 vs -0 is a mismatch");
  }
  {  // Many mismatches: the count, and the five smallest inputs, whatever the thread count.
    std::vector<std::uint32_t> changed = dev;
    std::uint64_t planted = 0;
    for (std::uint32_t i = 999; i < count; i += 1000, ++planted) changed[i] ^= 1u;
    for (unsigned threads : {1u, 4u}) {
      const dt::ChunkResult r = dt::compare_chunk(check, first, count, {nullptr, changed.data(), nullptr}, {0}, threads);
      expect(r.pair[0].mismatches == planted, "every planted change counted");
      std::uint64_t changed_digest = 0;
      for (std::uint32_t i = 0; i < count; ++i) changed_digest += dt::digest_term(first + i, changed[i]);
      expect(r.digest[1] == changed_digest, "derived digest with many mismatches");
      expect(r.pair[0].first == std::vector<std::uint32_t>{first + 999, first + 1999, first + 2999, first + 3999,
                                                           first + 4999},
             "the five smallest mismatching inputs, ascending");
    }
  }
  std::printf("%s (%d failures)\n", failures ? "FAILED" : "ok", failures);
  return failures ? 1 : 0;
}
