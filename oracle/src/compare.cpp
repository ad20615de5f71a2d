// Bitwise tensor comparison; see compare.hpp.
#include "samebits/oracle/compare.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <ostream>
#include <set>

#include "samebits/libm/fp/bits.hpp"

namespace samebits::oracle {

// Elements are read with memcpy from little-endian buffers.
static_assert(std::endian::native == std::endian::little,
              "samebits compare assumes a little-endian host");

std::string_view nan_policy_name(NanPolicy p) noexcept {
  return p == NanPolicy::bits ? "bits" : "class";
}

std::string_view kind_label(MismatchKind k) noexcept {
  switch (k) {
    case MismatchKind::sign_of_zero: return "sign of zero";
    case MismatchKind::nan_payload: return "NaN payload";
    case MismatchKind::value_class: return "class";
    case MismatchKind::ulp: return "ulp";
  }
  return "?";
}

std::string_view kind_key(MismatchKind k) noexcept {
  switch (k) {
    case MismatchKind::sign_of_zero: return "sign_of_zero";
    case MismatchKind::nan_payload: return "nan_payload";
    case MismatchKind::value_class: return "class";
    case MismatchKind::ulp: return "ulp";
  }
  return "?";
}

// ---- histogram -------------------------------------------------------------------

int MismatchHistogram::bin_of(std::uint64_t d) noexcept {
  return d <= 1 ? 0 : static_cast<int>(std::bit_width(d - 1));
}
std::uint64_t MismatchHistogram::bin_min(int k) noexcept {
  return k == 0 ? 1 : (std::uint64_t{1} << (k - 1)) + 1;
}
std::uint64_t MismatchHistogram::bin_max(int k) noexcept {
  // Bin 64 would end at 2^64; no distance reaches it.
  return k >= 64 ? std::numeric_limits<std::uint64_t>::max() : std::uint64_t{1} << k;
}
std::string MismatchHistogram::bin_label(int k) {
  std::uint64_t lo = bin_min(k), hi = bin_max(k);
  return lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
}
void MismatchHistogram::add(const MismatchHistogram& o) noexcept {
  sign_of_zero += o.sign_of_zero;
  nan_payload += o.nan_payload;
  value_class += o.value_class;
  for (int k = 0; k < kBins; ++k) ulp[k] += o.ulp[k];
}
std::uint64_t MismatchHistogram::total() const noexcept {
  std::uint64_t t = sign_of_zero + nan_payload + value_class;
  for (auto c : ulp) t += c;
  return t;
}

// ---- encodings ---------------------------------------------------------------------

namespace {

// IEEE-style binary formats by field widths.
struct Format {
  int exp_bits, mant_bits;
  constexpr std::uint64_t sign() const { return std::uint64_t{1} << (exp_bits + mant_bits); }
  constexpr std::uint64_t inf() const {
    return ((std::uint64_t{1} << exp_bits) - 1) << mant_bits;
  }
};
constexpr Format kF64{11, 52}, kF32{8, 23}, kF16{5, 10}, kBF16{8, 7};

constexpr Format format_of(DType t) {
  switch (t) {
    case DType::f64: return kF64;
    case DType::f32: return kF32;
    case DType::f16: return kF16;
    default: return kBF16;
  }
}

// Monotone position of a non-NaN encoding, -0 one below +0 (as fp::ordinal).
constexpr std::int64_t ordinal(Format f, std::uint64_t b) {
  const std::uint64_t mag = b & (f.sign() - 1);
  return (b & f.sign()) ? -static_cast<std::int64_t>(mag) - 1 : static_cast<std::int64_t>(mag);
}
static_assert(ordinal(kF32, 0x80000000u) == samebits::fp::ordinal(0x80000000u));
static_assert(ordinal(kF32, 0xbf800000u) == samebits::fp::ordinal(0xbf800000u));

double f16_to_double(std::uint64_t b) {
  const int e = static_cast<int>((b >> 10) & 31);
  const double m = static_cast<double>(b & 1023);
  double v;
  if (e == 31) v = (b & 1023) ? std::numeric_limits<double>::quiet_NaN()
                              : std::numeric_limits<double>::infinity();
  else if (e == 0) v = std::ldexp(m, -24);
  else v = std::ldexp(m + 1024, e - 25);
  return (b & 0x8000) ? -v : v;
}

double to_double(DType t, std::uint64_t b) {
  switch (t) {
    case DType::f64: return std::bit_cast<double>(b);
    case DType::f32: return std::bit_cast<float>(static_cast<std::uint32_t>(b));
    case DType::f16: return f16_to_double(b);
    case DType::bf16: return std::bit_cast<float>(static_cast<std::uint32_t>(b << 16));
    case DType::i32: return static_cast<std::int32_t>(static_cast<std::uint32_t>(b));
  }
  return 0;
}

std::uint16_t round_narrow(double x, Format f) noexcept {
  const std::uint64_t sign = std::signbit(x) ? f.sign() : 0;
  if (std::isnan(x)) return static_cast<std::uint16_t>(sign | f.inf() | (std::uint64_t{1} << (f.mant_bits - 1)));
  const double ax = std::fabs(x);
  if (std::isinf(ax)) return static_cast<std::uint16_t>(sign | f.inf());
  if (ax == 0) return static_cast<std::uint16_t>(sign);
  const int bias = (1 << (f.exp_bits - 1)) - 1;
  const int emin = 1 - bias, emax = bias;
  int e;
  std::frexp(ax, &e);
  e -= 1;  // ax in [2^e, 2^(e+1))
  if (e > emax) return static_cast<std::uint16_t>(sign | f.inf());
  if (e < emin) e = emin;  // subnormal: fixed scale
  // Scaling by a power of two is exact; nearbyint rounds to nearest-even.
  auto q = static_cast<std::uint64_t>(std::nearbyint(std::ldexp(ax, f.mant_bits - e)));
  const std::uint64_t implicit = std::uint64_t{1} << f.mant_bits;
  if (q == 2 * implicit) {
    q = implicit;
    if (++e > emax) return static_cast<std::uint16_t>(sign | f.inf());
  }
  if (q < implicit) return static_cast<std::uint16_t>(sign | q);  // subnormal
  return static_cast<std::uint16_t>(sign | (static_cast<std::uint64_t>(e + bias) << f.mant_bits) |
                                    (q - implicit));
}

template <class T>
std::string shortest(T v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string hex_bits(std::uint64_t b, std::size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*llx", static_cast<int>(2 * bytes),
                static_cast<unsigned long long>(b));
  return buf;
}

}  // namespace

std::uint16_t round_to_f16(double x) noexcept { return round_narrow(x, kF16); }
std::uint16_t round_to_bf16(double x) noexcept { return round_narrow(x, kBF16); }

ElementValue describe_element(DType t, std::uint64_t bits) {
  ElementValue v;
  v.bits = bits;
  v.hex = hex_bits(bits, dtype_size(t));
  const double d = to_double(t, bits);
  if (t == DType::i32) {
    v.decimal = std::to_string(static_cast<std::int32_t>(static_cast<std::uint32_t>(bits)));
  } else if (std::isnan(d)) {
    v.decimal = std::signbit(d) ? "-nan" : "nan";
  } else if (t == DType::f64) {
    v.decimal = shortest(d);
  } else if (t == DType::f32) {
    v.decimal = shortest(static_cast<float>(d));
  } else {
    // Shortest %g that rounds back to the same 16-bit encoding.
    const Format f = format_of(t);
    char buf[64];
    for (int p = 1; p <= 17; ++p) {
      std::snprintf(buf, sizeof buf, "%.*g", p, d);
      if (round_narrow(std::strtod(buf, nullptr), f) == bits) break;
    }
    v.decimal = buf;
  }
  return v;
}

// ---- comparison ----------------------------------------------------------------------

namespace {

struct Collector {
  CompareReport& report;
  const TensorReport& tensor;
  void add(std::uint64_t flat, DType t, std::uint64_t eb, std::uint64_t ab, MismatchKind kind,
           std::uint64_t dist) {
    if (report.first_mismatches.size() >= report.max_report) return;
    Mismatch m;
    m.tensor = tensor.name;
    m.flat_index = flat;
    m.index.assign(tensor.shape.size(), 0);
    for (std::size_t k = tensor.shape.size(); k-- > 0;) {
      m.index[k] = flat % tensor.shape[k];
      flat /= tensor.shape[k];
    }
    m.expected = describe_element(t, eb);
    m.actual = describe_element(t, ab);
    m.kind = kind;
    m.ulp_distance = dist;
    report.first_mismatches.push_back(std::move(m));
  }
};

void note_error(TensorReport& r, double expected, double actual) {
  const double abs = std::fabs(actual - expected);
  const double rel = expected == 0 ? std::numeric_limits<double>::infinity()
                                   : abs / std::fabs(expected);
  r.max_abs_error = std::max(r.max_abs_error.value_or(0.0), abs);
  r.max_rel_error = std::max(r.max_rel_error.value_or(0.0), rel);
}

template <class U>
U load(const std::uint8_t* p) {
  U v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <class U>
void compare_elements(const Tensor& e, const Tensor& a, NanPolicy policy, TensorReport& r,
                      Collector& c) {
  const DType t = e.dtype;
  const Format f = format_of(t);
  const std::uint64_t sign = f.sign(), inf = f.inf();
  for (std::uint64_t i = 0; i < e.elements; ++i) {
    const std::uint64_t eb = load<U>(e.data.data() + i * sizeof(U));
    const std::uint64_t ab = load<U>(a.data.data() + i * sizeof(U));
    if (eb == ab) continue;
    MismatchKind kind;
    std::uint64_t dist = 0;
    if (t == DType::i32) {
      const auto x = static_cast<std::int32_t>(static_cast<std::uint32_t>(eb));
      const auto y = static_cast<std::int32_t>(static_cast<std::uint32_t>(ab));
      dist = static_cast<std::uint64_t>(x > y ? std::int64_t{x} - y : std::int64_t{y} - x);
      kind = MismatchKind::ulp;
      note_error(r, x, y);
    } else {
      const std::uint64_t em = eb & (sign - 1), am = ab & (sign - 1);
      const bool enan = em > inf, anan = am > inf;
      if (enan && anan) {
        if (policy == NanPolicy::nan_class) continue;
        kind = MismatchKind::nan_payload;
      } else if (enan || anan) {
        kind = MismatchKind::value_class;
      } else if (em == 0 && am == 0) {
        kind = MismatchKind::sign_of_zero;
      } else if (em == inf || am == inf) {
        kind = MismatchKind::value_class;
      } else {
        kind = MismatchKind::ulp;
        const std::int64_t oe = t == DType::f32
                                    ? samebits::fp::ordinal(static_cast<std::uint32_t>(eb))
                                    : ordinal(f, eb);
        const std::int64_t oa = t == DType::f32
                                    ? samebits::fp::ordinal(static_cast<std::uint32_t>(ab))
                                    : ordinal(f, ab);
        // The difference of two ordinals fits in 64 unsigned bits.
        dist = oe > oa ? static_cast<std::uint64_t>(oe) - static_cast<std::uint64_t>(oa)
                       : static_cast<std::uint64_t>(oa) - static_cast<std::uint64_t>(oe);
        note_error(r, to_double(t, eb), to_double(t, ab));
      }
    }
    ++r.mismatches;
    switch (kind) {
      case MismatchKind::sign_of_zero: ++r.histogram.sign_of_zero; break;
      case MismatchKind::nan_payload: ++r.histogram.nan_payload; break;
      case MismatchKind::value_class: ++r.histogram.value_class; break;
      case MismatchKind::ulp: ++r.histogram.ulp[MismatchHistogram::bin_of(dist)]; break;
    }
    c.add(i, t, eb, ab, kind, dist);
  }
}

std::string shape_text(const std::vector<std::uint64_t>& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

std::string tensor_label(const std::string& name) {
  return name.empty() ? "(array)" : quote_for_message(name);
}

// A name for a table cell: control characters escaped, no quotes.
std::string table_name(const std::string& name) {
  if (name.empty()) return "(array)";
  const std::string q = quote_for_message(name, std::string::npos);
  return q.substr(1, q.size() - 2);
}

// The same dtype and shape, or a TensorError naming the actual file.
void check_pair(const Tensor& e, const Tensor& a, const TensorFile& ef, const TensorFile& af) {
  const std::string what = ef.format == TensorFormat::npy ? "" : "tensor " + quote_for_message(e.name) + ": ";
  if (e.dtype != a.dtype)
    throw TensorError(af.path, what + "dtype mismatch: " + std::string(dtype_name(a.dtype)) +
                                   " (" + quote_for_message(a.source_dtype) + ") here but " +
                                   std::string(dtype_name(e.dtype)) + " (" +
                                   quote_for_message(e.source_dtype) + ") in " + ef.path);
  if (e.shape != a.shape)
    throw TensorError(af.path, what + "shape mismatch: " + shape_text(a.shape) + " here but " +
                                   shape_text(e.shape) + " in " + ef.path);
}

}  // namespace

CompareReport compare_tensor_files(const TensorFile& expected, const TensorFile& actual,
                                   const CompareOptions& opts) {
  if (expected.format != actual.format)
    throw TensorError(actual.path, "format mismatch: this is a ." +
                                       std::string(format_name(actual.format)) + " file but " +
                                       expected.path + " is a ." +
                                       std::string(format_name(expected.format)) +
                                       " file; both must be the same format");

  // Pair by name (npy: the single array), and refuse before comparing anything.
  std::vector<std::pair<const Tensor*, const Tensor*>> pairs;
  for (const Tensor& e : expected.tensors) {
    auto it = std::find_if(actual.tensors.begin(), actual.tensors.end(),
                           [&](const Tensor& a) { return a.name == e.name; });
    if (it == actual.tensors.end())
      throw TensorError(actual.path, "tensor " + quote_for_message(e.name) + " is missing (it is in " +
                                         expected.path + ")");
    pairs.emplace_back(&e, &*it);
  }
  for (const Tensor& a : actual.tensors) {
    auto it = std::find_if(expected.tensors.begin(), expected.tensors.end(),
                           [&](const Tensor& e) { return e.name == a.name; });
    if (it == expected.tensors.end())
      throw TensorError(expected.path, "tensor " + quote_for_message(a.name) + " is missing (it is in " +
                                           actual.path + ")");
  }
  for (auto [e, a] : pairs) check_pair(*e, *a, expected, actual);

  CompareReport report;
  report.expected_path = expected.path;
  report.actual_path = actual.path;
  report.format = expected.format;
  report.nan_policy = opts.nan_policy;
  report.max_report = opts.max_report;
  for (auto [e, a] : pairs) {
    TensorReport r;
    r.name = e->name;
    r.dtype = e->dtype;
    r.shape = e->shape;
    r.elements = e->elements;
    r.expected_dtype = e->source_dtype;
    r.actual_dtype = a->source_dtype;
    if (!e->note.empty()) r.notes.push_back("expected: " + e->note);
    if (!a->note.empty()) r.notes.push_back("actual: " + a->note);
    Collector c{report, r};
    // Equal bytes are equal encodings under either NaN policy.
    const bool same_bytes =
        e->data.size() == a->data.size() &&
        (e->data.empty() || std::memcmp(e->data.data(), a->data.data(), e->data.size()) == 0);
    if (!same_bytes) {
      switch (dtype_size(e->dtype)) {
        case 8: compare_elements<std::uint64_t>(*e, *a, opts.nan_policy, r, c); break;
        case 4: compare_elements<std::uint32_t>(*e, *a, opts.nan_policy, r, c); break;
        default: compare_elements<std::uint16_t>(*e, *a, opts.nan_policy, r, c); break;
      }
    }
    report.total_elements += r.elements;
    report.total_mismatches += r.mismatches;
    report.tensors_with_mismatches += r.mismatches != 0;
    report.histogram.add(r.histogram);
    if (r.max_abs_error)
      report.max_abs_error = std::max(report.max_abs_error.value_or(0.0), *r.max_abs_error);
    if (r.max_rel_error)
      report.max_rel_error = std::max(report.max_rel_error.value_or(0.0), *r.max_rel_error);
    report.tensors.push_back(std::move(r));
  }
  return report;
}

CompareReport compare_files(const std::string& expected_path, const std::string& actual_path,
                            const CompareOptions& opts) {
  ReadOptions ro;
  ro.as_bf16 = opts.as_bf16;
  TensorFile e = read_tensor_file(expected_path, ro);
  TensorFile a = read_tensor_file(actual_path, ro);
  return compare_tensor_files(e, a, opts);
}

// ---- output ----------------------------------------------------------------------------

namespace {

std::string error_text(const std::optional<double>& v) {
  if (!v) return "-";
  if (std::isinf(*v)) return "inf";
  return shortest(*v);
}

// Left-aligned columns separated by two spaces.
void print_table(std::ostream& out, const std::vector<std::vector<std::string>>& rows,
                 const std::string& indent = "") {
  std::vector<std::size_t> width;
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (width.size() <= i) width.push_back(0);
      width[i] = std::max(width[i], row[i].size());
    }
  for (const auto& row : rows) {
    std::string line = indent;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 2, ' ');
    }
    out << line << '\n';
  }
}

std::string count_of(std::uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::vector<std::vector<std::string>> histogram_rows(const MismatchHistogram& h) {
  std::vector<std::vector<std::string>> rows;
  if (h.sign_of_zero) rows.push_back({"sign of zero", std::to_string(h.sign_of_zero)});
  if (h.nan_payload) rows.push_back({"NaN payload", std::to_string(h.nan_payload)});
  if (h.value_class) rows.push_back({"class", std::to_string(h.value_class)});
  for (int k = 0; k < MismatchHistogram::kBins; ++k)
    if (h.ulp[k])
      rows.push_back({MismatchHistogram::bin_label(k) + " ulp",
                      std::to_string(h.ulp[k])});
  return rows;
}

}  // namespace

void print_report(std::ostream& out, const CompareReport& r) {
  out << "expected: " << r.expected_path << '\n'
      << "actual:   " << r.actual_path << '\n'
      << "format: " << format_name(r.format) << ", NaN policy: " << nan_policy_name(r.nan_policy)
      << '\n';
  for (const auto& t : r.tensors)
    for (const auto& n : t.notes)
      out << "note: " << (t.name.empty() ? "" : tensor_label(t.name) + ": ") << n << '\n';
  out << '\n';

  std::vector<std::vector<std::string>> rows{
      {"tensor", "dtype", "shape", "elements", "mismatches", "max abs err", "max rel err"}};
  for (const auto& t : r.tensors)
    rows.push_back({table_name(t.name), std::string(dtype_name(t.dtype)),
                    shape_text(t.shape), std::to_string(t.elements), std::to_string(t.mismatches),
                    error_text(t.max_abs_error), error_text(t.max_rel_error)});
  if (r.tensors.size() > 1)
    rows.push_back({"total", "", "", std::to_string(r.total_elements),
                    std::to_string(r.total_mismatches), error_text(r.max_abs_error),
                    error_text(r.max_rel_error)});
  print_table(out, rows);

  if (!r.first_mismatches.empty()) {
    out << "\nfirst " << r.first_mismatches.size() << " of " << count_of(r.total_mismatches, "mismatch", "mismatches")
        << ":\n";
    std::vector<std::vector<std::string>> mrows{
        {"tensor", "index", "expected", "actual", "kind", "distance"}};
    for (const auto& m : r.first_mismatches)
      mrows.push_back({table_name(m.tensor), shape_text(m.index),
                       m.expected.decimal + " (" + m.expected.hex + ")",
                       m.actual.decimal + " (" + m.actual.hex + ")", std::string(kind_label(m.kind)),
                       m.kind == MismatchKind::ulp ? std::to_string(m.ulp_distance) : "-"});
    print_table(out, mrows, "  ");
  } else if (r.total_mismatches) {
    out << "\n(" << count_of(r.total_mismatches, "mismatch", "mismatches")
        << ", none listed: --max-report 0)\n";
  }

  if (r.total_mismatches) {
    const bool any_int = std::any_of(r.tensors.begin(), r.tensors.end(),
                                     [](const TensorReport& t) { return t.dtype == DType::i32; });
    out << "\nmismatches by kind and distance" << (any_int ? " (ulps; for i32 |a-b|)" : "")
        << (r.tensors.size() > 1 ? ", all tensors" : "") << ":\n";
    print_table(out, histogram_rows(r.histogram), "  ");
    if (r.tensors.size() > 1) {
      out << "per tensor:\n";
      for (const auto& t : r.tensors) {
        if (!t.mismatches) continue;
        std::string line = "  " + table_name(t.name) + ":";
        const char* sep = " ";
        for (const auto& row : histogram_rows(t.histogram)) {
          line += sep + row[0] + ": " + row[1];
          sep = ", ";
        }
        out << line << '\n';
      }
    }
  }

  out << '\n';
  if (r.identical()) {
    out << "IDENTICAL: " << count_of(r.total_elements, "element", "elements") << " in "
        << count_of(r.tensors.size(), "tensor", "tensors") << ", 0 mismatches\n";
  } else {
    out << "DIFFERENT: " << count_of(r.total_mismatches, "mismatch", "mismatches")
        << " in " << count_of(r.total_elements, "element", "elements") << "; "
        << r.tensors_with_mismatches << " of " << count_of(r.tensors.size(), "tensor", "tensors")
        << " with mismatches\n";
  }
}

}  // namespace samebits::oracle
