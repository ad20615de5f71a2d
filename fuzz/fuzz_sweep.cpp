// fuzz_sweep — the sweep engine on random ranges, strides, functions and
// thread counts: its result (counts, maximum and where, histogram, specials)
// must not depend on the number of threads, with or without the filter.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "samebits/cli/json.hpp"
#include "samebits/oracle/sweep.hpp"
#include "samebits/registry/implementations.hpp"

namespace {

using namespace samebits::oracle;
using samebits::registry::find_implementation;

nlohmann::json run(Func f, const EncodingRange& r, unsigned threads, bool filter) {
  SweepOptions opt;
  opt.ranges = {r};
  opt.threads = threads;
  opt.use_filter = filter;
  opt.special_table = false;
  FunctionSubject subject(find_implementation("glibc")->get(f));
  auto j = samebits::cli::sweep_to_json(sweep(f, subject, opt));
  j.erase("seconds");
  j.erase("threads");
  return j;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 8) return 0;
  std::uint32_t first, span;
  std::memcpy(&first, data, 4);
  std::memcpy(&span, data + 4, 4);
  const std::uint8_t extra = size > 8 ? data[8] : 0;
  EncodingRange r;
  r.first = first;
  r.stride = 1 + (extra & 15);
  const std::uint64_t count = span % 4096;                       // a few thousand inputs at most
  const std::uint64_t last = std::uint64_t{first} + count * r.stride;
  r.last = last > 0xffffffffu ? 0xffffffffu : static_cast<std::uint32_t>(last);
  const Func f = kAllFuncs[(extra >> 4) % kAllFuncs.size()];
  const unsigned threads = 2 + (size > 9 ? data[9] % 7 : 0);    // 2..8
  const bool filter = size > 10 ? (data[10] & 1) == 0 : true;
  const auto one = run(f, r, 1, filter), many = run(f, r, threads, filter);
  if (one != many) {
    std::fprintf(stderr, "finding: sweep of %s over 0x%08x..0x%08x stride %u differs with %u threads:\n%s\n%s\n",
                 std::string(name(f)).c_str(), r.first, r.last, r.stride, threads, one.dump().c_str(),
                 many.dump().c_str());
    std::abort();
  }
  return 0;
}
