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
      const std::uint32_t first = static_cast<std::uint32_t>(o.first + ci * chunk);
      const std::uint32_t count = static_cast<std::uint32_t>(std::min<std::uint64_t>(chunk, inputs - ci * chunk));
      std::vector<const std::uint32_t*> results(c.sides.size(), nullptr);
      for (std::size_t s = 0; s < c.sides.size(); ++s)
        if (c.sides[s].device) results[s] = pinned[2 * slot_of[s] + ci % 2].data();
      const ChunkResult r = compare_chunk(c, first, count, results, all_pairs, threads);
      for (std::size_t p = 0; p < c.pairs.size(); ++p) total[p].merge(r.pair[p]);
      for (std::size_t s = 0; s < c.sides.size(); ++s) digest[s] += r.digest[s];

      if (!control_done && !c.pairs.empty()) {
        // Negative control: +1 on one device result's encoding (one ulp for a finite nonzero
        // result) of the first pair must add exactly one mismatch, at that input.
        control_done = true;
        const Pair& p = c.pairs[0];
        const std::size_t side = c.sides[p.tested].device ? p.tested : p.reference;
        std::uint32_t* buf = pinned[2 * slot_of[side] + ci % 2].data();
        const std::uint32_t at = std::min<std::uint32_t>(0x00123457u, count - 1);
        buf[at] += 1;
        const ChunkResult ctl = compare_chunk(c, first, count, results, {0}, threads);
        buf[at] -= 1;
        const std::uint32_t planted = first + at;
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
