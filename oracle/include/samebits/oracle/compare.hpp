// samebits/oracle/compare.hpp — bitwise comparison of tensor files.
//
// Two elements match when their encodings are equal: +0 and -0 differ, and
// (under NanPolicy::bits) so do NaNs with different payloads. Everything the
// `samebits compare` command prints comes from a CompareReport, either as a
// table (print_report) or, through the CLI's JSON adapter (samebits/cli/json.hpp), as one
// JSON document.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "samebits/oracle/tensor_io.hpp"

namespace samebits::oracle {

enum class NanPolicy {
  bits,       // a NaN matches only the NaN with the same bits (sign and payload)
  nan_class,  // any NaN matches any NaN
};
std::string_view nan_policy_name(NanPolicy p) noexcept;  // "bits", "class"

struct CompareOptions {
  NanPolicy nan_policy = NanPolicy::bits;
  std::uint64_t max_report = 10;  // how many mismatches to list, over all tensors
  bool as_bf16 = false;           // see ReadOptions::as_bf16
};

// Why two encodings differ.
enum class MismatchKind {
  sign_of_zero,  // +0 vs -0
  nan_payload,   // both NaN, different bits (only under NanPolicy::bits)
  value_class,   // NaN vs number, inf vs finite, +inf vs -inf
  ulp,           // both finite and different: binned by ulp distance
};
std::string_view kind_label(MismatchKind k) noexcept;  // "sign of zero", "NaN payload", ...
std::string_view kind_key(MismatchKind k) noexcept;    // "sign_of_zero", "nan_payload", ...

// Counts of mismatches by kind; finite pairs by ulp distance d =
// |ordinal(a) - ordinal(b)| (|a - b| for i32) in bins 1, 2, 3-4, 5-8, ...:
// bin k holds 2^(k-1) < d <= 2^k, bin 0 holds d == 1.
struct MismatchHistogram {
  static constexpr int kBins = 65;
  std::uint64_t sign_of_zero = 0;
  std::uint64_t nan_payload = 0;
  std::uint64_t value_class = 0;
  std::array<std::uint64_t, kBins> ulp{};

  static int bin_of(std::uint64_t distance) noexcept;  // distance >= 1
  static std::uint64_t bin_min(int k) noexcept;
  static std::uint64_t bin_max(int k) noexcept;
  static std::string bin_label(int k);  // "1", "2", "3-4", ...
  void add(const MismatchHistogram& o) noexcept;
  std::uint64_t total() const noexcept;
};

struct ElementValue {
  std::uint64_t bits = 0;
  std::string decimal;  // shortest decimal that reads back to the same encoding
  std::string hex;      // the bits, zero-padded to the element width: 0x3fc00000
};

struct Mismatch {
  std::string tensor;                 // empty for .npy
  std::uint64_t flat_index = 0;       // C order
  std::vector<std::uint64_t> index;   // one entry per dimension
  ElementValue expected, actual;
  MismatchKind kind = MismatchKind::ulp;
  std::uint64_t ulp_distance = 0;     // kind == ulp only
};

struct TensorReport {
  std::string name;  // empty for .npy
  DType dtype = DType::f32;
  std::vector<std::uint64_t> shape;
  std::string expected_dtype, actual_dtype;  // as each file spells it
  std::vector<std::string> notes;            // how dtypes were interpreted
  std::uint64_t elements = 0;
  std::uint64_t mismatches = 0;
  // Over pairs where both values are finite and numerically different;
  // absent when there is no such pair. May be +inf (f64 overflow, or a
  // nonzero value where zero was expected for the relative error).
  std::optional<double> max_abs_error, max_rel_error;
  MismatchHistogram histogram;
};

struct CompareReport {
  std::string expected_path, actual_path;
  TensorFormat format = TensorFormat::npy;
  NanPolicy nan_policy = NanPolicy::bits;
  std::uint64_t max_report = 10;
  std::vector<TensorReport> tensors;       // npy: one; safetensors: by name
  std::vector<Mismatch> first_mismatches;  // at most max_report, tensor then index order
  std::uint64_t total_elements = 0;
  std::uint64_t total_mismatches = 0;
  std::uint64_t tensors_with_mismatches = 0;
  std::optional<double> max_abs_error, max_rel_error;
  MismatchHistogram histogram;

  bool identical() const noexcept { return total_mismatches == 0; }
  int exit_status() const noexcept { return identical() ? 0 : 1; }
};

// Pair the tensors of two files and compare them. Throws TensorError when the
// files cannot be compared: different formats, a tensor name in only one
// file, a dtype or shape that differs.
CompareReport compare_tensor_files(const TensorFile& expected, const TensorFile& actual,
                                   const CompareOptions& opts = {});

// Read both files (see read_tensor_file) and compare them.
CompareReport compare_files(const std::string& expected_path, const std::string& actual_path,
                            const CompareOptions& opts = {});

// The human-readable report.
void print_report(std::ostream& out, const CompareReport& report);

// Decimal and hex renderings of one element (exposed for tests).
ElementValue describe_element(DType t, std::uint64_t bits);

// Round a double to binary16 / bfloat16 bits, to nearest-even (exposed for tests).
std::uint16_t round_to_f16(double x) noexcept;
std::uint16_t round_to_bf16(double x) noexcept;

}  // namespace samebits::oracle
