// The `samebits` command end to end: the default job, score's JSON, scoring
// results from a file, and the errors (exit 2, with the reason named).
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "samebits/libm/fp/bits.hpp"

namespace {

struct Run {
  int status;
  std::string out;
};

// Runs samebits with the given arguments; captures stdout and stderr.
Run run_samebits(const std::string& args) {
  const char* exe = std::getenv("SAMEBITS_EXE");
  REQUIRE(exe != nullptr);
  const std::string cmd = std::string(exe) + " " + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int st = ::pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

std::string tmp(const std::string& name) {
  const char* d = std::getenv("TMPDIR");
  return std::string(d ? d : "/tmp") + "/samebits_test_cli_" + name;
}

}  // namespace

TEST_CASE("samebits with no arguments runs the default report", "[cli]") {
  const Run r = run_samebits("");
  CHECK(r.status == 0);
  for (const char* f : {"expf", "exp2f", "exp10f", "logf", "log2f", "log10f"}) CHECK(r.out.find(f) != std::string::npos);
  CHECK(r.out.find("glibc") != std::string::npos);
  // Progress on stderr (not a terminal here: a line per 10% of a run longer than 2 s): each run's
  // lines start at 0% and name what they count (timing rounds, not inputs).
  const std::regex progress(R"(^(.+): +(\d+)% \((\d+) of (\d+) ([a-z ]+), (\d+)s\)$)");
  std::set<std::string> seen;
  std::istringstream lines(r.out);
  for (std::string ln; std::getline(lines, ln);) {
    std::smatch m;
    if (!std::regex_match(ln, m, progress)) continue;
    INFO(ln);
    if (seen.insert(m[1]).second) CHECK(m[2] == "0");
    CHECK(m[5] == (m[1].str().rfind("timing ", 0) == 0 ? "timing rounds" : "inputs"));
  }
  const Run json = run_samebits("report --stride 65521 --json -q");
  REQUIRE(json.status == 0);
  CHECK(nlohmann::json::parse(json.out)["rows"].size() >= 6);  // 6 functions per implementation
  CHECK(run_samebits("--no-such-option").status == 2);
}

TEST_CASE("score --json reports a sweep over a value range", "[cli]") {
  const Run r = run_samebits("score logf --impl glibc --range 1:2 --json -q");
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["function"] == "logf");
  CHECK(j["inputs"] == (1u << 23) + 1);
  CHECK(j["wrong_class"] == 0);
  CHECK(j["correctly_rounded"].get<std::uint64_t>() + j["not_correctly_rounded"].get<std::uint64_t>() ==
        (1u << 23) + 1);
}

TEST_CASE("score --outputs scores results from a file", "[cli]") {
  // Results for [1, 1 + 2^-13]: glibc expf, except one planted one-ulp error.
  const std::uint32_t first = 0x3f800000u, count = 1025;
  const std::string path = tmp("outputs.f32");
  {
    std::ofstream f(path, std::ios::binary);
    for (std::uint32_t i = 0; i < count; ++i) {
      float y = ::expf(samebits::fp::from_bits(first + i));
      if (i == 100) y = samebits::fp::from_bits(samebits::fp::to_bits(y) + 1);
      f.write(reinterpret_cast<const char*>(&y), 4);
    }
  }
  const Run a = run_samebits("score expf --outputs " + path + " --range 0x3f800000:0x3f800400 --json -q");
  REQUIRE(a.status == 0);
  const auto ja = nlohmann::json::parse(a.out);
  const Run b = run_samebits("score expf --impl glibc --range 0x3f800000:0x3f800400 --json -q");
  REQUIRE(b.status == 0);
  const auto jb = nlohmann::json::parse(b.out);
  CHECK(ja["inputs"] == count);
  // The planted error is one more not-correctly-rounded result, or one fewer
  // if glibc happened to be wrong there and +1 ulp made it right.
  const auto na = ja["not_correctly_rounded"].get<std::int64_t>();
  const auto nb = jb["not_correctly_rounded"].get<std::int64_t>();
  CHECK(std::llabs(na - nb) == 1);

  const Run short_file = run_samebits("score expf --outputs " + path + " --range 0x3f800000:0x3f800500 -q");
  CHECK(short_file.status == 2);
  CHECK(short_file.out.find("bytes") != std::string::npos);
  std::remove(path.c_str());
}

TEST_CASE("score fails closed with a named reason", "[cli]") {
  struct Case {
    const char* args;
    const char* says;
  } cases[] = {
      {"score sinf --impl glibc", "unknown function 'sinf'"},
      {"score expf --impl nosuch", "unknown implementation 'nosuch'"},
      {"score expf", "exactly one of --impl"},
      {"score expf --impl glibc --range 2:1", "A > B"},
      {"score expf --impl glibc --range 1:2 --exhaustive", "exclude each other"},
      {"score expf --outputs /nonexistent/file --range 1:2", "cannot open"},
      {"score expf --impl glibc --threads x", "threads"},
  };
  for (const auto& c : cases) {
    INFO(c.args);
    const Run r = run_samebits(std::string(c.args) + " -q");
    CHECK(r.status == 2);
    CHECK(r.out.find(c.says) != std::string::npos);
  }
  const Run list = run_samebits("score --list");
  CHECK(list.status == 0);
  CHECK(list.out.find("glibc") != std::string::npos);
}

TEST_CASE("sparse-mla runs the reference against the oracle, JSON and errors", "[cli][sparse_mla]") {
  const Run r = run_samebits("sparse-mla --tokens 40 --heads 4 --d 128 --topk 96 --window 32 --pool 50 --json");
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["fingerprint"] == "samebits-sparse-mla/1 policy=fma-chain/1 B=64 libm=nvcc");
  CHECK(j["lists"]["fully_masked_tokens"] == 1);
  REQUIRE(j["error_vs_oracle"].size() == 6);  // o (fp32), o (bf16), lse, dq, dkv, d_sink
  for (const auto& e : j["error_vs_oracle"]) {
    INFO(e.dump());
    CHECK(e["max_rel_normwise"].get<double>() < 1e-2);  // bf16 outputs: ~2^-9
    CHECK(e["cosine"].get<double>() > 0.9999);
  }
  CHECK(j["error_vs_oracle"][0]["max_rel_normwise"].get<double>() < 1e-5);  // the binary32 core, before rounding
  const Run bad = run_samebits("sparse-mla --d 64");
  CHECK(bad.status == 2);
  CHECK(bad.out.find("--d 64") != std::string::npos);
  CHECK(run_samebits("sparse-mla --window 200 --topk 100").status == 2);
}
