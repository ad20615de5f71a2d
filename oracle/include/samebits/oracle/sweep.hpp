// samebits/oracle/sweep.hpp — score a float(float) function over a set of
// inputs: a range of encodings, a strided sample, or all 2^32.
//
// Inputs are named by encoding. A sweep splits its inputs into chunks handed
// to worker threads from an atomic counter; every figure it reports is a sum,
// or a maximum with ties broken by the smallest encoding, so the result does
// not depend on the thread count or on scheduling.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "samebits/oracle/functions.hpp"
#include "samebits/oracle/ulp.hpp"

namespace samebits::oracle {

// Inclusive range of encodings [first, last], visited in encoding order,
// every `stride`-th one starting at `first`.
struct EncodingRange {
  std::uint32_t first = 0;
  std::uint32_t last = 0xffffffffu;
  std::uint32_t stride = 1;
  std::uint64_t size() const { return (std::uint64_t{last} - first) / stride + 1; }
  std::uint32_t at(std::uint64_t i) const {
    return static_cast<std::uint32_t>(first + i * stride);
  }
};

// "A:B" with A and B either encodings (0x3f800000, plain hex digits after 0x,
// no '.' or 'p') or float values (1.5, -0x1.8p3, inf, -0). A value range
// covers every float x with A <= x <= B (numeric order; -0 and +0 both lie in
// [-0, +0]), which is one or two encoding ranges. An encoding range is taken
// as written and requires A <= B. Errors are thrown as std::invalid_argument.
std::vector<EncodingRange> parse_range(std::string_view text);

// What produces the results being scored.
class Subject {
 public:
  virtual ~Subject() = default;
  // out[i] = result for input encoding r.at(i), i < n, for a sub-range r.
  virtual void evaluate(const EncodingRange& r, std::uint64_t n, float* out) const = 0;
  virtual bool covers(std::uint32_t /*encoding*/) const { return true; }
};

// A host function.
class FunctionSubject final : public Subject {
 public:
  explicit FunctionSubject(std::function<float(float)> fn) : fn_(std::move(fn)) {}
  void evaluate(const EncodingRange& r, std::uint64_t n, float* out) const override;

 private:
  std::function<float(float)> fn_;
};

// Results computed elsewhere (a GPU, a file): outputs[i] is the result for
// encoding base.at(i). The buffer must outlive the sweep.
class BufferSubject final : public Subject {
 public:
  BufferSubject(EncodingRange base, const float* outputs) : base_(base), out_(outputs) {}
  void evaluate(const EncodingRange& r, std::uint64_t n, float* out) const override;
  bool covers(std::uint32_t encoding) const override;

 private:
  EncodingRange base_;
  const float* out_;
};

struct SweepOptions {
  std::vector<EncodingRange> ranges = std::vector<EncodingRange>(1);  // all 2^32
  unsigned threads = 0;       // 0: std::thread::hardware_concurrency()
  bool use_filter = true;     // false: MPFR for every input ("plain MPFR")
  bool special_table = true;  // also score the special inputs (specials.hpp)
  // Called about 10 times a second from the calling thread while workers run.
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
};

struct SpecialRow {
  std::string label;
  std::uint32_t input = 0;
  std::uint32_t expected = 0;  // correctly rounded (canonical NaN when a NaN is due)
  std::uint32_t got = 0;
  Score score;
};

struct SweepResult {
  Func func = Func::exp;
  std::uint64_t inputs = 0;
  std::uint64_t correctly_rounded = 0;
  std::uint64_t not_correctly_rounded = 0;
  std::uint64_t wrong_class = 0;
  std::uint64_t mpfr_fallbacks = 0;  // inputs the filter sent to MPFR
  // Largest error among results that are not correctly rounded (exact, from
  // MPFR), at the smallest such encoding; absent when every result is CR.
  std::optional<double> max_ulp;
  std::uint32_t max_ulp_input = 0, max_ulp_got = 0, max_ulp_expected = 0;
  std::array<std::uint64_t, kUlpBins> histogram{};  // all non-wrong-class inputs
  std::vector<std::uint32_t> wrong_class_inputs;    // the smallest few encodings
  std::vector<SpecialRow> specials;
  unsigned threads = 0;
  bool filtered = true;
  double seconds = 0.0;
};

// Scores one result. With use_filter the reference comes from the double
// filter when it decides; `ulp` is then within kFastUlpTolerance of exact
// unless exact_ulp is set.
Score score_one(Func f, float x, float r, bool use_filter, bool exact_ulp = true);

// The correctly rounded reference as the sweep obtains it (filter, then MPFR).
float reference_value(Func f, float x, bool use_filter);

SweepResult sweep(Func f, const Subject& subject, const SweepOptions& options);

}  // namespace samebits::oracle
