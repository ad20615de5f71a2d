// tests/device/harness/bitwise_sweep.cu — the engine of bitwise_sweep.hpp.
#include "bitwise_sweep.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <samebits/gpu/buffer.hpp>
#include <samebits/gpu/event.hpp>
#include <samebits/gpu/runtime.hpp>

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

std::string hex32(std::uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}
std::string hex64(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
  return b;
}
std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o + "\"";
}
std::string hex_list(const std::vector<std::uint32_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", \"" : "\"") + hex32(v[i]) + "\"";
  return s + "]";
}

void fail_runtime(const gpu::Status& s) {
  std::fprintf(stderr, "GPU runtime: %s: %s: %s\n", s.where, gpu::errc_name(s.code), s.message);
  std::exit(2);
}
void ok(const gpu::Status& s) {
  if (!s) fail_runtime(s);
}

constexpr std::size_t kFirstKept = 5;

struct Tally {
  std::uint64_t mismatches = 0;
  std::vector<std::uint32_t> first;  // the smallest mismatching inputs, ascending
  void offer(std::uint32_t x) {
    if (first.size() == kFirstKept && x >= first.back()) return;
    first.insert(std::upper_bound(first.begin(), first.end(), x), x);
    if (first.size() > kFirstKept) first.pop_back();
  }
  void merge(const Tally& o) {
    mismatches += o.mismatches;
    for (auto x : o.first) offer(x);
  }
};

// Per chunk: the device sides' results in pinned memory (one array per
// device side), compared with the host sides evaluated here.
struct ChunkWork {
  const Check* check;
  std::uint32_t first;
  std::uint32_t count;
  std::vector<const std::uint32_t*> device_results;  // by side index; null for host sides
  std::vector<std::size_t> pairs;                    // which pairs to compare
};

struct ChunkResult {
  std::vector<Tally> pair;          // by pair index
  std::vector<std::uint64_t> digest;  // by side index
};

ChunkResult compare_chunk(const ChunkWork& w, unsigned threads) {
  const Check& c = *w.check;
  const std::size_t sides = c.sides.size();
  ChunkResult res;
  res.pair.resize(c.pairs.size());
  res.digest.assign(sides, 0);
  // Which sides this comparison needs.
  std::vector<char> needed(sides, 0);
  for (std::size_t p : w.pairs) needed[c.pairs[p].tested] = needed[c.pairs[p].reference] = 1;
  constexpr std::uint32_t kPiece = 1u << 16;
  const std::uint32_t pieces = (w.count + kPiece - 1) / kPiece;
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
      const std::uint32_t n = std::min(kPiece, w.count - off);
      const std::uint32_t x0 = w.first + off;
      for (std::size_t s = 0; s < sides; ++s) {
        if (!needed[s]) continue;
        if (c.sides[s].host) {
          scratch[s].resize(n);
          c.sides[s].host->evaluate(oracle::EncodingRange{x0, x0 + (n - 1), 1}, n,
                                    reinterpret_cast<float*>(scratch[s].data()));
          y[s] = scratch[s].data();
        } else {
          y[s] = w.device_results[s] + off;
        }
        std::uint64_t d = 0;
        for (std::uint32_t i = 0; i < n; ++i) d += digest_term(x0 + i, y[s][i]);
        mine.digest[s] += d;
      }
      for (std::size_t p : w.pairs) {
        const std::uint32_t* a = y[c.pairs[p].tested];
        const std::uint32_t* b = y[c.pairs[p].reference];
        Tally& t = mine.pair[p];
        for (std::uint32_t i = 0; i < n; ++i)
          if (a[i] != b[i]) {
            ++t.mismatches;
            t.offer(x0 + i);
          }
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
  return res;
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

bool selected(const Check& c, const Options& o) {
  if (o.only.empty()) return true;
  for (const auto& s : o.only)
    if (c.name.find(s) != std::string::npos) return true;
  return false;
}

}  // namespace

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

int run(const std::string& program, const std::vector<Check>& checks, const Options& o) {
  // The host side is built with -mfma (tests/device/meson.build): hardware fma, same bits as the
  // software fma of a plain build, ten times faster. Refuse a host without it, naming it.
  if (!__builtin_cpu_supports("fma")) {
    std::fprintf(stderr, "%s: this host CPU has no FMA instructions; the harness's host side is built with -mfma\n",
                 program.c_str());
    return 2;
  }
  const unsigned threads = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  gpu::native::DeviceInfo info{};
  ok(gpu::native::device_info(&info));
  const std::uint64_t inputs = std::uint64_t{o.last} - o.first + 1;
  std::printf("{\"harness\": %s, \"device\": %s, \"sm\": \"%d%d\", \"host_threads\": %u, \"range\": [\"%s\", \"%s\"], "
              "\"chunk\": %u, \"digest\": \"sum over inputs x of splitmix64((x << 32) | y(x)) mod 2^64\"}\n",
              json_str(program).c_str(), json_str(info.name).c_str(), info.major, info.minor, threads,
              hex32(o.first).c_str(), hex32(o.last).c_str(), o.chunk);
  std::fflush(stdout);

  std::size_t max_device_sides = 0;
  for (const auto& c : checks) {
    std::size_t d = 0;
    for (const auto& s : c.sides) {
      if ((s.device == nullptr) == (s.host == nullptr)) {
        std::fprintf(stderr, "check %s: side '%s' must be exactly one of device or host\n", c.name.c_str(),
                     s.label.c_str());
        return 2;
      }
      d += s.device != nullptr;
    }
    for (const auto& p : c.pairs)
      if (p.tested >= c.sides.size() || p.reference >= c.sides.size()) {
        std::fprintf(stderr, "check %s: pair names a side that does not exist\n", c.name.c_str());
        return 2;
      }
    if (d == 0) {
      std::fprintf(stderr, "check %s has no device side\n", c.name.c_str());
      return 2;
    }
    max_device_sides = std::max(max_device_sides, d);
  }
  const std::uint32_t chunk = static_cast<std::uint32_t>(std::min<std::uint64_t>(o.chunk, inputs));
  gpu::Stream stream;
  ok(gpu::Stream::create(stream));
  std::vector<gpu::DeviceBuffer<std::uint32_t>> dev(2 * max_device_sides);
  std::vector<gpu::PinnedBuffer<std::uint32_t>> pinned(2 * max_device_sides);
  for (auto& b : dev) ok(gpu::DeviceBuffer<std::uint32_t>::create(chunk, b));
  for (auto& b : pinned) ok(gpu::PinnedBuffer<std::uint32_t>::create(chunk, b));
  gpu::Event ready[2];
  for (auto& e : ready) ok(gpu::Event::create(e));

  int failures = 0;
  bool control_done = false;
  const std::uint64_t chunks = (inputs + chunk - 1) / chunk;
  for (const Check& c : checks) {
    if (!selected(c, o)) continue;
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::size_t> slot_of(c.sides.size(), 0);  // device side -> buffer index
    {
      std::size_t k = 0;
      for (std::size_t s = 0; s < c.sides.size(); ++s)
        if (c.sides[s].device) slot_of[s] = k++;
    }
    auto enqueue = [&](std::uint64_t ci) {
      const std::uint32_t first = static_cast<std::uint32_t>(o.first + ci * chunk);
      const std::uint32_t n = static_cast<std::uint32_t>(std::min<std::uint64_t>(chunk, inputs - ci * chunk));
      for (std::size_t s = 0; s < c.sides.size(); ++s) {
        if (!c.sides[s].device) continue;
        const std::size_t b = 2 * slot_of[s] + ci % 2;
        ok(c.sides[s].device(first, n, dev[b].data(), stream));
        ok(gpu::copy_async(pinned[b].data(), dev[b].data(), n, stream));
      }
      ok(ready[ci % 2].record(stream));
    };
    std::vector<Tally> total(c.pairs.size());
    std::vector<std::uint64_t> digest(c.sides.size(), 0);
    std::vector<std::size_t> all_pairs(c.pairs.size());
    for (std::size_t p = 0; p < c.pairs.size(); ++p) all_pairs[p] = p;
    enqueue(0);
    for (std::uint64_t ci = 0; ci < chunks; ++ci) {
      if (ci + 1 < chunks) enqueue(ci + 1);  // the GPU computes the next chunk while the host compares this one
      ok(ready[ci % 2].synchronize());
      ChunkWork w{&c, static_cast<std::uint32_t>(o.first + ci * chunk),
                  static_cast<std::uint32_t>(std::min<std::uint64_t>(chunk, inputs - ci * chunk)),
                  std::vector<const std::uint32_t*>(c.sides.size(), nullptr), all_pairs};
      for (std::size_t s = 0; s < c.sides.size(); ++s)
        if (c.sides[s].device) w.device_results[s] = pinned[2 * slot_of[s] + ci % 2].data();
      const ChunkResult r = compare_chunk(w, threads);
      for (std::size_t p = 0; p < c.pairs.size(); ++p) total[p].merge(r.pair[p]);
      for (std::size_t s = 0; s < c.sides.size(); ++s) digest[s] += r.digest[s];

      if (!control_done && !c.pairs.empty()) {
        // Negative control: +1 on one device result's encoding (one ulp for a finite nonzero
        // result) of the first pair must add exactly one mismatch, at that input.
        control_done = true;
        const Pair& p = c.pairs[0];
        const std::size_t side = c.sides[p.tested].device ? p.tested : p.reference;
        std::uint32_t* buf = pinned[2 * slot_of[side] + ci % 2].data();
        const std::uint32_t at = std::min<std::uint32_t>(0x00123457u, w.count - 1);
        buf[at] += 1;
        w.pairs = {0};
        const ChunkResult ctl = compare_chunk(w, threads);
        buf[at] -= 1;
        const std::uint32_t planted = w.first + at;
        const Tally& t = ctl.pair[0];
        const bool listed = std::find(t.first.begin(), t.first.end(), planted) != t.first.end() ||
                            (t.first.size() == kFirstKept && t.first.back() < planted);
        const bool caught = t.mismatches == r.pair[0].mismatches + 1 && listed;
        std::printf("{\"negative_control\": \"one planted one-ulp change\", \"check\": %s, \"pair\": %s, "
                    "\"planted_input\": \"%s\", \"mismatches_without\": %llu, \"mismatches_with\": %llu, "
                    "\"first\": %s, \"caught\": %s}\n",
                    json_str(c.name).c_str(), json_str(c.sides[p.tested].label + " vs " + c.sides[p.reference].label).c_str(),
                    hex32(planted).c_str(), static_cast<unsigned long long>(r.pair[0].mismatches),
                    static_cast<unsigned long long>(t.mismatches), hex_list(t.first).c_str(),
                    caught ? "true" : "false");
        std::fflush(stdout);
        if (!caught) ++failures;
      }
    }
    const double secs = since(t0);
    for (std::size_t pi = 0; pi < c.pairs.size(); ++pi) {
      const Pair& p = c.pairs[pi];
      std::printf("{\"check\": %s, \"build\": %s, \"pair\": %s, \"kind\": %s, \"inputs\": %llu, \"mismatches\": %llu, "
                  "\"first\": %s, \"digest\": \"%s\", \"digest_reference\": \"%s\", \"informative\": %s, "
                  "\"seconds\": %.2f}\n",
                  json_str(c.name).c_str(), json_str(c.build).c_str(),
                  json_str(c.sides[p.tested].label + " vs " + c.sides[p.reference].label).c_str(),
                  json_str(p.kind).c_str(), static_cast<unsigned long long>(inputs),
                  static_cast<unsigned long long>(total[pi].mismatches), hex_list(total[pi].first).c_str(),
                  hex64(digest[p.tested]).c_str(), hex64(digest[p.reference]).c_str(),
                  p.informative ? "true" : "false", secs);
      if (total[pi].mismatches && !p.informative) ++failures;
    }
    std::fflush(stdout);
  }
  if (!control_done) {
    std::fprintf(stderr, "%s: no check ran, so no negative control either\n", program.c_str());
    return 2;
  }
  return failures ? 1 : 0;
}

}  // namespace samebits::device_test
