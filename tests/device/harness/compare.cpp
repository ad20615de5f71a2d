// tests/device/harness/compare.cpp — the host half of the harness (bitwise_sweep.hpp): options,
// the per-chunk evaluation of host sides, digests and comparisons. Plain C++, so that CI tests it
// without a GPU (tests/device/harness_compare_test.cpp).
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bitwise_sweep.hpp"

namespace samebits::device_test {

namespace {

[[noreturn]] void usage_error(const std::string& msg) {
  std::fprintf(stderr,
               "%s\nusage: PROGRAM [--range 0xFIRST:0xLAST] [--threads N] [--chunk-log2 K] [--only SUBSTRING]...\n",
               msg.c_str());
  std::exit(2);
}

std::uint32_t parse_hex(const std::string& s, const std::string& arg) {
  if (s.size() < 3 || s.size() > 10 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') ||
      s.find_first_not_of("0123456789abcdefABCDEF", 2) != std::string::npos)
    usage_error("--range: '" + s + "' in '" + arg + "' is not an encoding 0xHHHHHHHH");
  return static_cast<std::uint32_t>(std::stoul(s.substr(2), nullptr, 16));
}

}  // namespace

void Tally::offer(std::uint32_t x) {
  if (first.size() == kFirstKept && x >= first.back()) return;
  first.insert(std::upper_bound(first.begin(), first.end(), x), x);
  if (first.size() > kFirstKept) first.pop_back();
}

void Tally::merge(const Tally& o) {
  mismatches += o.mismatches;
  for (auto x : o.first) offer(x);
}

ChunkResult compare_chunk(const Check& c, std::uint32_t first, std::uint32_t count,
                          const std::vector<const std::uint32_t*>& device_results, const std::vector<std::size_t>& pairs,
                          unsigned threads) {
  const std::size_t sides = c.sides.size();
  ChunkResult res;
  res.pair.resize(c.pairs.size());
  res.digest.assign(sides, 0);
  std::vector<char> needed(sides, 0);
  for (std::size_t p : pairs) needed[c.pairs[p].tested] = needed[c.pairs[p].reference] = 1;
  // A side that is only ever the tested side of a pair gets its digest from its reference's:
  // the same sum, corrected at the inputs where the two differ (exact mod 2^64). On a clean run
  // that skips a digest pass per device build.
  std::vector<char> is_reference(sides, 0);
  for (std::size_t p : pairs) is_reference[c.pairs[p].reference] = 1;
  std::vector<std::ptrdiff_t> derived_in_pair(sides, -1);
  for (std::size_t p : pairs) {
    const std::size_t a = c.pairs[p].tested;
    if (!is_reference[a] && derived_in_pair[a] < 0) derived_in_pair[a] = static_cast<std::ptrdiff_t>(p);
  }
  constexpr std::uint32_t kPiece = 1u << 16;
  const std::uint32_t pieces = count / kPiece + (count % kPiece != 0);
  std::atomic<std::uint32_t> next{0};
  std::mutex m;
  auto worker = [&] {
    ChunkResult mine;
    mine.pair.resize(c.pairs.size());
    mine.digest.assign(sides, 0);
    std::vector<std::vector<std::uint32_t>> scratch(sides);
    std::vector<const std::uint32_t*> y(sides, nullptr);
    for (std::uint32_t piece; (piece = next.fetch_add(1)) < pieces;) {
      const std::uint32_t off = piece * kPiece;
      const std::uint32_t n = std::min(kPiece, count - off);
      const std::uint32_t x0 = first + off;
      for (std::size_t s = 0; s < sides; ++s) {
        if (!needed[s]) continue;
        if (c.sides[s].host) {
          scratch[s].resize(n);
          c.sides[s].host->evaluate(oracle::EncodingRange{x0, x0 + (n - 1), 1}, n,
                                    reinterpret_cast<float*>(scratch[s].data()));
          y[s] = scratch[s].data();
        } else {
          y[s] = device_results[s] + off;
        }
      }
      for (std::size_t s = 0; s < sides; ++s) {
        if (!needed[s] || derived_in_pair[s] >= 0) continue;
        std::uint64_t d = 0;
        for (std::uint32_t i = 0; i < n; ++i) d += digest_term(x0 + i, y[s][i]);
        mine.digest[s] += d;
      }
      for (std::size_t p : pairs) {
        const std::size_t sa = c.pairs[p].tested, sb = c.pairs[p].reference;
        const std::uint32_t* a = y[sa];
        const std::uint32_t* b = y[sb];
        const bool derive = derived_in_pair[sa] == static_cast<std::ptrdiff_t>(p);
        Tally& t = mine.pair[p];
        std::uint64_t correction = 0;
        for (std::uint32_t i = 0; i < n; ++i)
          if (a[i] != b[i]) {
            ++t.mismatches;
            t.offer(x0 + i);
            correction += digest_term(x0 + i, a[i]) - digest_term(x0 + i, b[i]);
          }
        if (derive) mine.digest[sa] += correction;
      }
    }
    std::lock_guard<std::mutex> g(m);
    for (std::size_t p = 0; p < c.pairs.size(); ++p) res.pair[p].merge(mine.pair[p]);
    for (std::size_t s = 0; s < sides; ++s) res.digest[s] += mine.digest[s];
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  for (std::size_t s = 0; s < sides; ++s)
    if (derived_in_pair[s] >= 0) res.digest[s] += res.digest[c.pairs[static_cast<std::size_t>(derived_in_pair[s])].reference];
  return res;
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--range") {
      const std::string v = value();
      const auto colon = v.find(':');
      if (colon == std::string::npos) usage_error("--range '" + v + "' must be 0xFIRST:0xLAST");
      o.first = parse_hex(v.substr(0, colon), v);
      o.last = parse_hex(v.substr(colon + 1), v);
      if (o.first > o.last) usage_error("--range '" + v + "' has FIRST > LAST");
    } else if (a == "--threads") {
      const std::string v = value();
      const long t = std::strtol(v.c_str(), nullptr, 10);
      if (t < 1 || t > 1024) usage_error("--threads '" + v + "' must be 1..1024");
      o.threads = static_cast<unsigned>(t);
    } else if (a == "--chunk-log2") {
      const std::string v = value();
      const long k = std::strtol(v.c_str(), nullptr, 10);
      if (k < 16 || k > 28) usage_error("--chunk-log2 '" + v + "' must be 16..28");
      o.chunk = 1u << k;
    } else if (a == "--only") {
      o.only.push_back(value());
    } else {
      usage_error("unknown argument '" + a + "'");
    }
  }
  return o;
}

DeviceEval find(const std::vector<DeviceFunction>& table, const std::string& name, const char* table_name) {
  for (const auto& f : table)
    if (name == f.name) return f.eval;
  std::fprintf(stderr, "no device function '%s' in %s\n", name.c_str(), table_name);
  std::exit(2);
}

}  // namespace samebits::device_test
