// Tests of `samebits compare`: the readers, the comparison engine, and the
// command end to end (exit status, stderr, --json). Fixtures are in
// tests/data/compare, written by tests/data/make_compare_fixtures.py; a few
// malformed inputs are built here at run time from those fixtures' bytes.
//
// Every "identical" check is paired with a negative control: the same check
// on inputs with a planted change must see exactly that change.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <bit>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "samebits/cli/json.hpp"
#include "samebits/oracle/compare.hpp"
#include "samebits/oracle/tensor_io.hpp"

namespace so = samebits::oracle;
namespace fs = std::filesystem;
using nlohmann::json;
using Bytes = std::vector<std::uint8_t>;
using Shape = std::vector<std::uint64_t>;

namespace {

std::string data_dir() {
  if (const char* d = std::getenv("SAMEBITS_TEST_DATA")) return d;
  return SAMEBITS_TEST_DATA;
}

std::string fixture(const std::string& name) { return data_dir() + "/compare/" + name; }

Bytes fixture_bytes(const std::string& name) { return so::read_file_bytes(fixture(name)); }

// A scratch directory removed at exit.
const fs::path& scratch() {
  struct Dir {
    fs::path p;
    Dir() {
      std::string t = (fs::temp_directory_path() / "samebits_compare_XXXXXX").string();
      if (!::mkdtemp(t.data())) throw std::runtime_error("mkdtemp failed");
      p = t;
    }
    ~Dir() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  };
  static Dir d;
  return d.p;
}

std::string write_scratch(const std::string& name, const Bytes& b) {
  fs::path p = scratch() / name;
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()),
                                           static_cast<std::streamsize>(b.size()));
  return p.string();
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

struct CliResult {
  int status = -1;
  std::string out, err;
};

// Runs `$SAMEBITS_EXE compare ARGS...`.
CliResult run_compare(const std::vector<std::string>& args) {
  const char* exe = std::getenv("SAMEBITS_EXE");
  if (!exe) FAIL("SAMEBITS_EXE is not set: run `meson test -C build compare`");
  std::string cmd = shell_quote(exe) + " compare";
  // Appended piecewise: GCC 12 warns (-Wrestrict, falsely) on "literal" + string&&.
  for (const auto& a : args) {
    cmd += ' ';
    cmd += shell_quote(a);
  }
  const fs::path out = scratch() / "stdout", err = scratch() / "stderr";
  cmd += " >";
  cmd += shell_quote(out.string());
  cmd += " 2>";
  cmd += shell_quote(err.string());
  const int rc = std::system(cmd.c_str());
  REQUIRE(rc != -1);
  REQUIRE(WIFEXITED(rc));
  return {WEXITSTATUS(rc), slurp(out), slurp(err)};
}

so::CompareReport compare(const std::string& e, const std::string& a, so::CompareOptions o = {}) {
  return so::compare_files(fixture(e), fixture(a), o);
}

// The reason of the TensorError that reading/comparing throws, and its file.
struct Failure {
  std::string file, reason;
};
template <class F>
Failure failure_of(F&& f) {
  try {
    f();
  } catch (const so::TensorError& e) {
    return {e.file(), e.reason()};
  }
  FAIL("expected a TensorError");
  return {};
}

// An .npy file around `data` with this header dict text, padded the way
// numpy pads. Only for malformed or unusual headers: well-formed fixtures
// come from numpy itself.
Bytes npy_with_header(const std::string& dict, const Bytes& data, int version = 1) {
  const std::size_t pre = version == 1 ? 10 : 12;
  std::string text = dict;
  while ((pre + text.size() + 1) % 64) text += ' ';
  text += '\n';
  Bytes b = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<std::uint8_t>(version), 0};
  for (std::size_t i = 0; i < pre - 8; ++i) b.push_back(static_cast<std::uint8_t>(text.size() >> (8 * i)));
  b.insert(b.end(), text.begin(), text.end());
  b.insert(b.end(), data.begin(), data.end());
  return b;
}

// The 48 data bytes of f32.npy (a 3x4 float32 array).
Bytes f32_data() {
  Bytes b = fixture_bytes("f32.npy");
  return Bytes(b.end() - 48, b.end());
}

// A .safetensors file from a header text and a byte buffer.
Bytes st_bytes(const std::string& header, const Bytes& buffer) {
  Bytes b;
  for (int i = 0; i < 8; ++i) b.push_back(static_cast<std::uint8_t>(header.size() >> (8 * i)));
  b.insert(b.end(), header.begin(), header.end());
  b.insert(b.end(), buffer.begin(), buffer.end());
  return b;
}

so::TensorFile parse_npy(const Bytes& b, so::ReadOptions o = {}) {
  return so::parse_npy(std::make_shared<Bytes>(b), "mem.npy", o);
}
so::TensorFile parse_st(const Bytes& b, so::ReadOptions o = {}) {
  return so::parse_safetensors(std::make_shared<Bytes>(b), "mem.safetensors", o);
}
std::string npy_reason(const Bytes& b, so::ReadOptions o = {}) {
  return failure_of([&] { parse_npy(b, o); }).reason;
}
std::string st_reason(const Bytes& b, so::ReadOptions o = {}) {
  return failure_of([&] { parse_st(b, o); }).reason;
}

// A one-tensor in-memory "npy" file holding these encodings.
so::TensorFile mem_file(so::DType t, const std::vector<std::uint64_t>& bits, Shape shape = {}) {
  if (shape.empty()) shape = {bits.size()};
  auto storage = std::make_shared<Bytes>();
  const std::size_t w = so::dtype_size(t);
  for (std::uint64_t v : bits)
    for (std::size_t i = 0; i < w; ++i) storage->push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  so::Tensor tensor;
  tensor.dtype = t;
  tensor.source_dtype = std::string(so::dtype_name(t));
  tensor.shape = shape;
  tensor.elements = bits.size();
  tensor.data = std::span<const std::uint8_t>(storage->data(), storage->size());
  so::TensorFile f;
  f.path = "mem";
  f.format = so::TensorFormat::npy;
  f.tensors.push_back(tensor);
  f.storage = storage;
  return f;
}

so::CompareReport compare_bits(so::DType t, const std::vector<std::uint64_t>& e,
                               const std::vector<std::uint64_t>& a,
                               so::NanPolicy p = so::NanPolicy::bits) {
  so::CompareOptions o;
  o.nan_policy = p;
  return so::compare_tensor_files(mem_file(t, e), mem_file(t, a), o);
}

bool contains(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }

}  // namespace

// ---- identical files and planted changes, .npy --------------------------------------

TEST_CASE("npy: identical files of every dtype compare equal; a planted change is caught",
          "[compare][npy]") {
  // {identical pair, planted file, dtype}
  struct Case {
    std::string a, same, planted;
    so::DType dtype;
  };
  auto c = GENERATE(Case{"f64.npy", "f64_copy.npy", "f64_planted.npy", so::DType::f64},
                    Case{"f32.npy", "f32_copy.npy", "f32_planted.npy", so::DType::f32},
                    Case{"f16.npy", "f16_copy.npy", "f16_planted.npy", so::DType::f16},
                    Case{"i32.npy", "i32_copy.npy", "i32_planted.npy", so::DType::i32},
                    Case{"bf16.npy", "bf16_lv2.npy", "bf16_planted.npy", so::DType::bf16},
                    Case{"bf16.npy", "bf16_descr.npy", "bf16_planted.npy", so::DType::bf16});
  CAPTURE(c.a, c.same, c.planted);

  auto same = compare(c.a, c.same);
  CHECK(same.identical());
  CHECK(same.total_mismatches == 0);
  CHECK(same.total_elements == 12);
  REQUIRE(same.tensors.size() == 1);
  CHECK(same.tensors[0].dtype == c.dtype);
  CHECK(same.tensors[0].shape == Shape{3, 4});
  CHECK(run_compare({fixture(c.a), fixture(c.same)}).status == 0);

  // Negative control: exactly the planted element, one step away.
  auto diff = compare(c.a, c.planted);
  CHECK_FALSE(diff.identical());
  CHECK(diff.total_mismatches == 1);
  REQUIRE(diff.first_mismatches.size() == 1);
  CHECK(diff.first_mismatches[0].index == Shape{1, 2});
  CHECK(diff.first_mismatches[0].flat_index == 6);
  CHECK(diff.first_mismatches[0].kind == so::MismatchKind::ulp);
  CHECK(diff.first_mismatches[0].ulp_distance == 1);
  CHECK(diff.histogram.ulp[0] == 1);
  CHECK(diff.histogram.total() == 1);
  CHECK(run_compare({fixture(c.a), fixture(c.planted)}).status == 1);
}

TEST_CASE("npy: the planted one-ulp f32 change is reported with its index and values",
          "[compare][npy]") {
  auto r = compare("f32.npy", "f32_planted.npy");
  REQUIRE(r.first_mismatches.size() == 1);
  const auto& m = r.first_mismatches[0];
  CHECK(m.expected.hex == "0x3dcccccd");
  CHECK(m.actual.hex == "0x3dccccce");
  CHECK(m.expected.decimal == "0.1");
  CHECK(m.actual.decimal == "0.10000001");
  REQUIRE(r.max_abs_error.has_value());
  CHECK(*r.max_abs_error == std::fabs(double(0.1f) - double(std::nextafter(0.1f, 1.0f))));

  auto cli = run_compare({fixture("f32.npy"), fixture("f32_planted.npy")});
  CHECK(cli.status == 1);
  CHECK(cli.err.empty());
  CHECK(contains(cli.out, "[1, 2]"));
  CHECK(contains(cli.out, "0.1 (0x3dcccccd)"));
  CHECK(contains(cli.out, "0.10000001 (0x3dccccce)"));
  CHECK(contains(cli.out, "DIFFERENT: 1 mismatch in 12 elements"));

  auto js = run_compare({"--json", fixture("f32.npy"), fixture("f32_planted.npy")});
  CHECK(js.status == 1);
  json j = json::parse(js.out);
  CHECK(j["identical"] == false);
  CHECK(j["exit_status"] == 1);
  CHECK(j["totals"]["mismatches"] == 1);
  CHECK(j["first_mismatches"].size() == 1);
  CHECK(j["first_mismatches"][0]["index"] == json::array({1, 2}));
  CHECK(j["first_mismatches"][0]["expected"]["bits"] == "0x3dcccccd");
  CHECK(j["first_mismatches"][0]["actual"]["bits"] == "0x3dccccce");
  CHECK(j["first_mismatches"][0]["kind"] == "ulp");
  CHECK(j["first_mismatches"][0]["ulp_distance"] == 1);

  // The identical pair, in both output modes.
  auto same = run_compare({fixture("f32.npy"), fixture("f32_copy.npy")});
  CHECK(same.status == 0);
  CHECK(contains(same.out, "IDENTICAL: 12 elements in 1 tensor, 0 mismatches"));
  auto same_js = run_compare({"--json", fixture("f32.npy"), fixture("f32_copy.npy")});
  CHECK(same_js.status == 0);
  json sj = json::parse(same_js.out);
  CHECK(sj["identical"] == true);
  CHECK(sj["exit_status"] == 0);
  CHECK(sj["totals"]["mismatches"] == 0);
  CHECK(sj["first_mismatches"].empty());
}

TEST_CASE("npy: big-endian files are byte-swapped", "[compare][npy]") {
  auto name = GENERATE(std::string("f64"), std::string("f32"), std::string("f16"),
                       std::string("i32"));
  CAPTURE(name);
  auto be = so::read_tensor_file(fixture(name + "_be.npy"));
  CHECK(be.tensors[0].source_dtype[0] == '>');
  CHECK(contains(be.tensors[0].note, "big-endian"));

  CHECK(compare(name + ".npy", name + "_be.npy").identical());
  CHECK(run_compare({fixture(name + "_be.npy"), fixture(name + ".npy")}).status == 0);
  // Negative control: a wrong swap would turn every element into a mismatch;
  // a right one sees only the planted change.
  auto r = compare(name + "_be.npy", name + "_planted.npy");
  CHECK(r.total_mismatches == 1);
  REQUIRE(r.first_mismatches.size() == 1);
  CHECK(r.first_mismatches[0].index == Shape{1, 2});
}

TEST_CASE("npy: format versions 2.0 and 3.0", "[compare][npy]") {
  auto v = GENERATE(2, 3);
  const std::string name = "f32_v" + std::to_string(v) + ".npy";
  CAPTURE(name);
  Bytes b = fixture_bytes(name);
  REQUIRE(b.size() > 8);
  CHECK(b[6] == v);  // the fixture really is that version
  CHECK(compare("f32.npy", name).identical());
  CHECK(run_compare({fixture(name), fixture("f32.npy")}).status == 0);
  auto r = compare(name, "f32_planted.npy");
  CHECK(r.total_mismatches == 1);
  CHECK(run_compare({fixture(name), fixture("f32_planted.npy")}).status == 1);
}

TEST_CASE("npy: scalar, vector and empty shapes", "[compare][npy]") {
  auto s = compare("scalar.npy", "scalar.npy");
  CHECK(s.identical());
  CHECK(s.tensors[0].shape.empty());
  CHECK(s.total_elements == 1);
  auto sp = compare("scalar.npy", "scalar_planted.npy");
  CHECK(sp.total_mismatches == 1);
  REQUIRE(sp.first_mismatches.size() == 1);
  CHECK(sp.first_mismatches[0].index.empty());

  auto v = so::read_tensor_file(fixture("vec.npy"));
  CHECK(v.tensors[0].shape == Shape{5});
  CHECK(v.tensors[0].dtype == so::DType::f64);

  auto e = compare("empty.npy", "empty.npy");
  CHECK(e.identical());
  CHECK(e.tensors[0].shape == Shape{0, 3});
  CHECK(e.total_elements == 0);
  // An empty array is not the same as a non-empty one.
  CHECK(contains(failure_of([] { compare("empty.npy", "f32.npy"); }).reason, "shape mismatch"));
}

// ---- signed zeros and NaNs ------------------------------------------------------------

TEST_CASE("+0 and -0 differ: category sign of zero", "[compare][zero]") {
  auto same = compare("zero_pos.npy", "zero_pos.npy");
  CHECK(same.identical());  // control

  for (auto policy : {so::NanPolicy::bits, so::NanPolicy::nan_class}) {
    so::CompareOptions o;
    o.nan_policy = policy;
    auto r = compare("zero_pos.npy", "zero_neg.npy", o);
    CHECK(r.total_mismatches == 1);
    CHECK(r.histogram.sign_of_zero == 1);
    CHECK(r.histogram.total() == 1);
    REQUIRE(r.first_mismatches.size() == 1);
    CHECK(r.first_mismatches[0].kind == so::MismatchKind::sign_of_zero);
    CHECK(r.first_mismatches[0].index == Shape{0});
    CHECK(r.first_mismatches[0].actual.decimal == "-0");
    CHECK(r.first_mismatches[0].actual.hex == "0x80000000");
    // Numerically equal, so no error statistics.
    CHECK_FALSE(r.max_abs_error.has_value());
  }
  auto cli = run_compare({fixture("zero_pos.npy"), fixture("zero_neg.npy")});
  CHECK(cli.status == 1);
  CHECK(contains(cli.out, "sign of zero"));
  auto js = json::parse(run_compare({"--json", fixture("zero_pos.npy"), fixture("zero_neg.npy")}).out);
  CHECK(js["totals"]["histogram"]["sign_of_zero"] == 1);
  CHECK(js["first_mismatches"][0]["kind"] == "sign_of_zero");
  CHECK(js["first_mismatches"][0]["ulp_distance"].is_null());
  CHECK(js["totals"]["max_abs_error"].is_null());
}

TEST_CASE("NaN payloads: a mismatch under bits, not under class", "[compare][nan]") {
  auto bits = compare("nan_a.npy", "nan_b.npy");
  CHECK(bits.total_mismatches == 1);
  CHECK(bits.histogram.nan_payload == 1);
  REQUIRE(bits.first_mismatches.size() == 1);
  CHECK(bits.first_mismatches[0].kind == so::MismatchKind::nan_payload);
  CHECK(bits.first_mismatches[0].expected.hex == "0x7fc00000");
  CHECK(bits.first_mismatches[0].actual.hex == "0x7fc00001");

  so::CompareOptions cls;
  cls.nan_policy = so::NanPolicy::nan_class;
  auto c = compare("nan_a.npy", "nan_b.npy", cls);
  CHECK(c.identical());
  // Negative control under class: a NaN against a number is still a mismatch.
  auto n = compare("nan_a.npy", "nan_num.npy", cls);
  CHECK(n.total_mismatches == 1);
  CHECK(n.histogram.value_class == 1);
  CHECK(n.histogram.nan_payload == 0);

  CHECK(run_compare({fixture("nan_a.npy"), fixture("nan_b.npy")}).status == 1);
  CHECK(run_compare({"--nan-policy", "bits", fixture("nan_a.npy"), fixture("nan_b.npy")}).status == 1);
  CHECK(run_compare({"--nan-policy", "class", fixture("nan_a.npy"), fixture("nan_b.npy")}).status == 0);
  CHECK(run_compare({"--nan-policy", "class", fixture("nan_a.npy"), fixture("nan_num.npy")}).status == 1);
  auto js = json::parse(
      run_compare({"--json", "--nan-policy", "class", fixture("nan_a.npy"), fixture("nan_b.npy")}).out);
  CHECK(js["nan_policy"] == "class");
  CHECK(js["identical"] == true);
}

TEST_CASE("classification of mismatches in every float format", "[compare][kinds]") {
  using so::DType;
  using so::MismatchKind;
  struct Fmt {
    DType t;
    std::uint64_t one, neg_zero, inf, qnan, min_sub;
  };
  auto f = GENERATE(Fmt{DType::f64, 0x3ff0000000000000, 0x8000000000000000, 0x7ff0000000000000,
                        0x7ff8000000000000, 1},
                    Fmt{DType::f32, 0x3f800000, 0x80000000, 0x7f800000, 0x7fc00000, 1},
                    Fmt{DType::f16, 0x3c00, 0x8000, 0x7c00, 0x7e00, 1},
                    Fmt{DType::bf16, 0x3f80, 0x8000, 0x7f80, 0x7fc0, 1});
  CAPTURE(so::dtype_name(f.t));
  auto kind_of = [&](std::uint64_t e, std::uint64_t a, so::NanPolicy p = so::NanPolicy::bits) {
    auto r = compare_bits(f.t, {e}, {a}, p);
    REQUIRE(r.total_mismatches == 1);
    return r.first_mismatches.at(0).kind;
  };
  auto equal = [&](std::uint64_t e, std::uint64_t a, so::NanPolicy p = so::NanPolicy::bits) {
    return compare_bits(f.t, {e}, {a}, p).identical();
  };
  const std::uint64_t sign = f.neg_zero;
  CHECK(equal(f.one, f.one));
  CHECK(equal(f.qnan, f.qnan));
  CHECK(kind_of(0, f.neg_zero) == MismatchKind::sign_of_zero);
  CHECK(kind_of(f.qnan, f.qnan + 1) == MismatchKind::nan_payload);
  CHECK(kind_of(f.qnan, f.qnan | sign) == MismatchKind::nan_payload);  // sign of a NaN
  CHECK(equal(f.qnan, f.qnan + 1, so::NanPolicy::nan_class));
  CHECK(equal(f.qnan, f.qnan | sign, so::NanPolicy::nan_class));
  CHECK(kind_of(f.qnan, f.one) == MismatchKind::value_class);
  CHECK(kind_of(f.qnan, f.one, so::NanPolicy::nan_class) == MismatchKind::value_class);
  CHECK(kind_of(f.inf, f.one) == MismatchKind::value_class);
  CHECK(kind_of(f.inf, f.inf | sign) == MismatchKind::value_class);
  CHECK(kind_of(f.inf, f.qnan) == MismatchKind::value_class);
  CHECK(kind_of(f.one, f.one + 1) == MismatchKind::ulp);
  // Across zero, -0 sits one step below +0.
  auto r = compare_bits(f.t, {f.min_sub}, {f.min_sub | sign});
  CHECK(r.first_mismatches.at(0).ulp_distance == 3);
  r = compare_bits(f.t, {0}, {f.min_sub});
  CHECK(r.first_mismatches.at(0).ulp_distance == 1);
}

// ---- ulp histogram and error statistics ---------------------------------------------------

TEST_CASE("ulp histogram bins are 1, 2, 3-4, 5-8, ...", "[compare][histogram]") {
  using H = so::MismatchHistogram;
  CHECK(H::bin_of(1) == 0);
  CHECK(H::bin_of(2) == 1);
  CHECK(H::bin_of(3) == 2);
  CHECK(H::bin_of(4) == 2);
  CHECK(H::bin_of(5) == 3);
  CHECK(H::bin_of(8) == 3);
  CHECK(H::bin_of(9) == 4);
  CHECK(H::bin_of(std::numeric_limits<std::uint64_t>::max()) == 64);
  CHECK(H::bin_label(0) == "1");
  CHECK(H::bin_label(1) == "2");
  CHECK(H::bin_label(2) == "3-4");
  CHECK(H::bin_label(3) == "5-8");
  for (int k = 0; k < H::kBins; ++k) {
    CAPTURE(k);
    CHECK(H::bin_of(H::bin_min(k)) == k);
    CHECK(H::bin_of(H::bin_max(k)) == k);
    if (k > 0) CHECK(H::bin_min(k) == H::bin_max(k - 1) + 1);
  }

  // f32 encodings 1, 2, 3, 4, 5, 8, 9 steps above 1.0f.
  const std::uint64_t one = 0x3f800000;
  std::vector<std::uint64_t> e(7, one), a;
  for (std::uint64_t d : {1, 2, 3, 4, 5, 8, 9}) a.push_back(one + d);
  auto r = compare_bits(so::DType::f32, e, a);
  CHECK(r.total_mismatches == 7);
  CHECK(r.histogram.ulp[0] == 1);
  CHECK(r.histogram.ulp[1] == 1);
  CHECK(r.histogram.ulp[2] == 2);
  CHECK(r.histogram.ulp[3] == 2);
  CHECK(r.histogram.ulp[4] == 1);
  CHECK(r.histogram.total() == 7);
  auto j = samebits::cli::compare_report_to_json(r);
  auto bins = j["totals"]["histogram"]["ulp"];
  REQUIRE(bins.size() == 5);
  CHECK(bins[2] == nlohmann::ordered_json({{"min", 3}, {"max", 4}, {"count", 2}}));

  // i32: the distance is |a - b|, up to 2^32 - 1.
  auto i = compare_bits(so::DType::i32, {0x7fffffff, 5}, {0x80000000, 0xfffffffd});  // -3
  CHECK(i.total_mismatches == 2);
  CHECK(i.first_mismatches[0].ulp_distance == 0xffffffffu);
  CHECK(i.first_mismatches[1].ulp_distance == 8);
  CHECK(i.histogram.ulp[32] == 1);
  CHECK(i.histogram.ulp[3] == 1);

  // f64: the widest distance does not overflow, and |a-b| overflowing is inf.
  auto w = compare_bits(so::DType::f64, {0x7fefffffffffffff}, {0xffefffffffffffff});
  CHECK(w.first_mismatches.at(0).ulp_distance == 0xffdfffffffffffffull);
  CHECK(w.histogram.ulp[64] == 1);
  REQUIRE(w.max_abs_error.has_value());
  CHECK(std::isinf(*w.max_abs_error));
  CHECK(samebits::cli::compare_report_to_json(w)["totals"]["max_abs_error"] == "inf");
}

TEST_CASE("max abs and rel errors are over finite, unequal pairs", "[compare][errors-stats]") {
  auto bits = [](float x) { return std::uint64_t{std::bit_cast<std::uint32_t>(x)}; };
  auto r = compare_bits(so::DType::f32, {bits(1.0f), bits(2.0f), bits(4.0f), bits(0.0f)},
                        {bits(1.0f), bits(2.5f), bits(3.0f), bits(-0.0f)});
  CHECK(r.total_mismatches == 3);
  REQUIRE(r.max_abs_error.has_value());
  CHECK(*r.max_abs_error == 1.0);
  CHECK(*r.max_rel_error == 0.25);
  // NaN and inf pairs do not enter the statistics.
  auto n = compare_bits(so::DType::f32, {0x7fc00000, 0x7f800000}, {bits(1.0f), bits(1.0f)});
  CHECK(n.total_mismatches == 2);
  CHECK_FALSE(n.max_abs_error.has_value());
  CHECK_FALSE(n.max_rel_error.has_value());
  CHECK(samebits::cli::compare_report_to_json(n)["totals"]["max_rel_error"].is_null());
  // Relative to an expected zero: infinite.
  auto z = compare_bits(so::DType::f32, {0}, {1});
  CHECK(std::isinf(z.max_rel_error.value()));
  CHECK(samebits::cli::compare_report_to_json(z)["totals"]["max_rel_error"] == "inf");
}

TEST_CASE("--max-report bounds the listed mismatches, in order", "[compare][report]") {
  std::vector<std::uint64_t> e(24, 0x3f800000), a(24, 0x3f800000);
  for (int i = 0; i < 24; i += 2) a[i] += 1;  // 12 mismatches
  auto ef = mem_file(so::DType::f32, e, {2, 3, 4});
  auto af = mem_file(so::DType::f32, a, {2, 3, 4});
  so::CompareOptions o;
  o.max_report = 3;
  auto r = so::compare_tensor_files(ef, af, o);
  CHECK(r.total_mismatches == 12);
  REQUIRE(r.first_mismatches.size() == 3);
  CHECK(r.first_mismatches[0].index == Shape{0, 0, 0});
  CHECK(r.first_mismatches[1].index == Shape{0, 0, 2});
  CHECK(r.first_mismatches[2].index == Shape{0, 1, 0});
  CHECK(samebits::cli::compare_report_to_json(r)["mismatches_not_shown"] == 9);
  o.max_report = 0;
  r = so::compare_tensor_files(ef, af, o);
  CHECK(r.first_mismatches.empty());
  CHECK(r.total_mismatches == 12);
  o.max_report = 100;
  r = so::compare_tensor_files(ef, af, o);
  CHECK(r.first_mismatches.size() == 12);
  CHECK(r.first_mismatches.back().index == Shape{1, 2, 2});

  auto cli = run_compare({"--json", "--max-report", "2", fixture("model.safetensors"),
                          fixture("model_planted_all.safetensors")});
  CHECK(cli.status == 1);
  json j = json::parse(cli.out);
  CHECK(j["max_report"] == 2);
  CHECK(j["first_mismatches"].size() == 2);
  CHECK(j["mismatches_not_shown"] == 4);
  auto none = run_compare({"--max-report", "0", fixture("f32.npy"), fixture("f32_planted.npy")});
  CHECK(none.status == 1);
  CHECK(contains(none.out, "none listed"));
}

TEST_CASE("element rendering: shortest decimal and hex bits", "[compare][render]") {
  using so::DType;
  CHECK(so::describe_element(DType::f16, 0x3c00).decimal == "1");
  CHECK(so::describe_element(DType::f16, 0x3c00).hex == "0x3c00");
  CHECK(so::describe_element(DType::f16, 0x0001).decimal == "6e-08");
  CHECK(so::describe_element(DType::f16, 0x7bff).decimal == "6.55e+04");
  CHECK(so::describe_element(DType::f16, 0xfc00).decimal == "-inf");
  CHECK(so::describe_element(DType::bf16, 0x3dcd).decimal == "0.1");
  CHECK(so::describe_element(DType::bf16, 0xffc1).decimal == "-nan");
  CHECK(so::describe_element(DType::f32, 0x7fc00001).decimal == "nan");
  CHECK(so::describe_element(DType::f64, 0x3fb999999999999a).decimal == "0.1");
  CHECK(so::describe_element(DType::f64, 0x3fb999999999999a).hex == "0x3fb999999999999a");
  CHECK(so::describe_element(DType::i32, 0xffffffff).decimal == "-1");
  CHECK(so::describe_element(DType::i32, 0xffffffff).hex == "0xffffffff");
  // Every finite 16-bit encoding reads back from its decimal.
  for (std::uint64_t b = 0; b < 0x10000; ++b) {
    const bool f16_finite = (b & 0x7c00) != 0x7c00, bf16_finite = (b & 0x7f80) != 0x7f80;
    if (f16_finite) {
      auto d = so::describe_element(DType::f16, b).decimal;
      if (so::round_to_f16(std::strtod(d.c_str(), nullptr)) != b) FAIL("f16 " << b << " " << d);
    }
    if (bf16_finite) {
      auto d = so::describe_element(DType::bf16, b).decimal;
      if (so::round_to_bf16(std::strtod(d.c_str(), nullptr)) != b) FAIL("bf16 " << b << " " << d);
    }
  }
}

TEST_CASE("rounding to f16 and bf16 is to nearest, ties to even", "[compare][render]") {
  CHECK(so::round_to_f16(1.0) == 0x3c00);
  CHECK(so::round_to_f16(1.0 + std::ldexp(1.0, -11)) == 0x3c00);      // tie -> even
  CHECK(so::round_to_f16(1.0 + 3 * std::ldexp(1.0, -11)) == 0x3c02);  // tie -> even
  CHECK(so::round_to_f16(65504.0) == 0x7bff);
  CHECK(so::round_to_f16(65519.99) == 0x7bff);
  CHECK(so::round_to_f16(65520.0) == 0x7c00);
  CHECK(so::round_to_f16(std::ldexp(1.0, -25)) == 0x0000);                  // tie -> even (0)
  CHECK(so::round_to_f16(std::ldexp(1.0, -25) * 1.0000001) == 0x0001);
  CHECK(so::round_to_f16(std::ldexp(1023.5, -24)) == 0x0400);  // up into the normals
  CHECK(so::round_to_f16(-0.0) == 0x8000);
  CHECK(so::round_to_bf16(1.0 + std::ldexp(1.0, -8)) == 0x3f80);
  CHECK(so::round_to_bf16(1.0 + 3 * std::ldexp(1.0, -8)) == 0x3f82);
  CHECK(so::round_to_bf16(3.4e38) == 0x7f80);  // above bf16's max finite (~3.39e38) after rounding
}

// ---- bf16 ------------------------------------------------------------------------------

TEST_CASE("bf16: 2-byte void ('|V2', '<V2', as np.save writes ml_dtypes bfloat16) and descr 'bfloat16'", "[compare][bf16]") {
  for (const char* name : {"bf16.npy", "bf16_lv2.npy", "bf16_descr.npy"}) {
    CAPTURE(name);
    auto f = so::read_tensor_file(fixture(name));
    CHECK(f.tensors[0].dtype == so::DType::bf16);
    CHECK(f.tensors[0].shape == Shape{3, 4});
  }
  auto v2 = so::read_tensor_file(fixture("bf16.npy"));
  CHECK(v2.tensors[0].source_dtype == "|V2");
  CHECK(contains(v2.tensors[0].note, "bfloat16"));
  CHECK(contains(v2.tensors[0].note, "ml_dtypes"));
  CHECK(so::read_tensor_file(fixture("bf16_lv2.npy")).tensors[0].source_dtype == "<V2");

  // The report says how '|V2' was read.
  auto cli = run_compare({fixture("bf16.npy"), fixture("bf16_planted.npy")});
  CHECK(cli.status == 1);
  CHECK(contains(cli.out, "'|V2' (2-byte void) read as bfloat16"));
  CHECK(contains(cli.out, "0.1 (0x3dcd)"));
  json j = json::parse(run_compare({"--json", fixture("bf16.npy"), fixture("bf16_lv2.npy")}).out);
  CHECK(j["identical"] == true);
  CHECK(j["tensors"][0]["dtype"] == "bf16");
  CHECK(j["tensors"][0]["expected_dtype"] == "|V2");
  CHECK(j["tensors"][0]["actual_dtype"] == "<V2");
  CHECK(j["tensors"][0]["notes"].size() == 2);
}

TEST_CASE("bf16: '<u2' needs --as bf16", "[compare][bf16]") {
  auto no = run_compare({fixture("bf16.npy"), fixture("bf16_u2.npy")});
  CHECK(no.status == 2);
  CHECK(contains(no.err, "samebits compare: error: " + fixture("bf16_u2.npy") +
                             ": unsupported dtype '<u2' (if it holds bfloat16 bits, pass --as bf16)"));

  so::CompareOptions as;
  as.as_bf16 = true;
  auto r = compare("bf16.npy", "bf16_u2.npy", as);
  CHECK(r.identical());
  CHECK(r.tensors[0].dtype == so::DType::bf16);
  REQUIRE(r.tensors[0].notes.size() == 2);  // expected: '|V2'; actual: '<u2' with --as bf16
  CHECK(contains(r.tensors[0].notes[1], "actual: descr '<u2' read as bfloat16 bits (--as bf16)"));
  CHECK(compare("bf16_u2_be.npy", "bf16.npy", as).identical());
  CHECK(compare("bf16_u2.npy", "bf16_planted.npy", as).total_mismatches == 1);  // control

  CHECK(run_compare({"--as", "bf16", fixture("bf16.npy"), fixture("bf16_u2.npy")}).status == 0);
  CHECK(run_compare({"--as", "bf16", fixture("bf16_u2_be.npy"), fixture("bf16.npy")}).status == 0);
  CHECK(run_compare({"--as", "bf16", fixture("bf16_u2.npy"), fixture("bf16_planted.npy")}).status == 1);
  // --as bf16 does not touch real float types.
  CHECK(run_compare({"--as", "bf16", fixture("f32.npy"), fixture("f32_copy.npy")}).status == 0);
}

// ---- safetensors -----------------------------------------------------------------------

TEST_CASE("safetensors: identical tensors of every dtype, matched by name", "[compare][st]") {
  auto r = compare("model.safetensors", "model_reordered.safetensors");
  CHECK(r.identical());
  CHECK(r.format == so::TensorFormat::safetensors);
  REQUIRE(r.tensors.size() == 6);
  std::set<so::DType> dtypes;
  for (const auto& t : r.tensors) dtypes.insert(t.dtype);
  CHECK(dtypes == std::set<so::DType>{so::DType::f64, so::DType::f32, so::DType::f16,
                                       so::DType::bf16, so::DType::i32});
  CHECK(r.total_elements == 32);
  CHECK(run_compare({fixture("model.safetensors"), fixture("model_reordered.safetensors")}).status == 0);

  auto meta = so::read_tensor_file(fixture("model.safetensors")).metadata;
  CHECK(meta == std::map<std::string, std::string>{{"format", "pt"}});

  // Negative control: one change in every tensor, each found, each 1 ulp.
  auto all = compare("model.safetensors", "model_planted_all.safetensors");
  CHECK(all.total_mismatches == 6);
  CHECK(all.tensors_with_mismatches == 6);
  for (const auto& t : all.tensors) {
    CAPTURE(t.name);
    CHECK(t.mismatches == 1);
    CHECK(t.histogram.ulp[0] == 1);
  }
  CHECK(run_compare({fixture("model_reordered.safetensors"),
                     fixture("model_planted_all.safetensors")}).status == 1);
}

TEST_CASE("safetensors: a planted one-ulp change in one tensor", "[compare][st]") {
  auto r = compare("model.safetensors", "model_planted.safetensors");
  CHECK(r.total_mismatches == 1);
  CHECK(r.tensors_with_mismatches == 1);
  REQUIRE(r.first_mismatches.size() == 1);
  CHECK(r.first_mismatches[0].tensor == "layer.0.weight_f32");
  CHECK(r.first_mismatches[0].index == Shape{1, 2});
  CHECK(r.first_mismatches[0].ulp_distance == 1);
  for (const auto& t : r.tensors) CHECK(t.mismatches == (t.name == "layer.0.weight_f32" ? 1u : 0u));

  auto cli = run_compare({fixture("model.safetensors"), fixture("model_planted.safetensors")});
  CHECK(cli.status == 1);
  CHECK(contains(cli.out, "layer.0.weight_f32"));
  CHECK(contains(cli.out, "1 of 6 tensors with mismatches"));
  json j = json::parse(run_compare({"--json", fixture("model.safetensors"),
                                    fixture("model_planted.safetensors")}).out);
  CHECK(j["format"] == "safetensors");
  CHECK(j["tensors"].size() == 6);
  CHECK(j["totals"]["tensors_with_mismatches"] == 1);
  CHECK(j["first_mismatches"][0]["tensor"] == "layer.0.weight_f32");
  CHECK(j["first_mismatches"][0]["index"] == json::array({1, 2}));
  for (const auto& t : j["tensors"])
    CHECK(t["mismatches"] == (t["name"] == "layer.0.weight_f32" ? 1 : 0));
}

TEST_CASE("safetensors: U16 holding bf16 needs --as bf16", "[compare][st][bf16]") {
  auto e = failure_of([] { compare("model.safetensors", "model_u16.safetensors"); });
  CHECK(contains(e.reason, "tensor 'layer.1.weight_bf16': unsupported dtype 'U16' (if it holds "
                           "bfloat16 bits, pass --as bf16)"));
  so::CompareOptions as;
  as.as_bf16 = true;
  CHECK(compare("model.safetensors", "model_u16.safetensors", as).identical());
  CHECK(compare("model_u16.safetensors", "model_planted_all.safetensors", as).total_mismatches == 6);
  CHECK(run_compare({"--as", "bf16", fixture("model.safetensors"), fixture("model_u16.safetensors")})
            .status == 0);
}

TEST_CASE("safetensors: unusual but valid layouts", "[compare][st]") {
  const Bytes four(4, 0);
  // Empty header: no tensors, empty buffer.
  auto empty = parse_st(st_bytes("{}", {}));
  CHECK(empty.tensors.empty());
  // Zero-size tensors share an offset with their neighbours.
  auto z = parse_st(st_bytes(R"({"z":{"dtype":"F32","shape":[0,2],"data_offsets":[0,0]},)"
                             R"("a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                             four));
  CHECK(z.tensors.size() == 2);
  // Trailing spaces after the JSON; metadata.
  auto m = parse_st(st_bytes(R"({"__metadata__":{"k":"v"},"a":{"dtype":"I32","shape":[],"data_offsets":[0,4]}}      )",
                             four));
  CHECK(m.metadata.at("k") == "v");
  CHECK(m.tensors.at(0).shape.empty());
  CHECK(m.tensors.at(0).elements == 1);
}

// ---- errors ----------------------------------------------------------------------------

TEST_CASE("every error: exit 2, the file named, the reason given", "[compare][errors]") {
  struct Case {
    std::string expected, actual;  // fixture names
    std::string named;             // the file the message names
    std::string reason;            // a part of the reason
    std::vector<std::string> flags = {};
  };
  const std::string f32 = "f32.npy", st = "st_small.safetensors", model = "model.safetensors";
  auto c = GENERATE_COPY(
      Case{f32, "bad_magic.npy", "bad_magic.npy", "bad magic"},
      Case{f32, "bad_version.npy", "bad_version.npy", "unsupported .npy version 4.0"},
      Case{f32, "header_too_long.npy", "header_too_long.npy", "header longer than the file"},
      Case{f32, "bad_header.npy", "bad_header.npy", "unparsable header: unexpected key 'extra'"},
      Case{f32, "bad_header_syntax.npy", "bad_header_syntax.npy", "unparsable header"},
      Case{f32, "i64.npy", "i64.npy", "unsupported dtype '<i8'"},
      Case{f32, "bf16_u2.npy", "bf16_u2.npy",
           "unsupported dtype '<u2' (if it holds bfloat16 bits, pass --as bf16)"},
      Case{f32, "fortran.npy", "fortran.npy", "Fortran-order arrays are not supported"},
      Case{f32, "shape_overflow_count.npy", "shape_overflow_count.npy",
           "element count overflows 64 bits"},
      Case{f32, "shape_overflow_bytes.npy", "shape_overflow_bytes.npy",
           "byte size overflows 64 bits"},
      Case{f32, "data_short.npy", "data_short.npy", "data shorter than the shape says"},
      Case{f32, "data_long.npy", "data_long.npy", "data longer than the shape says"},
      Case{f32, "f64.npy", "f64.npy", "dtype mismatch: f64 ('<f8') here but f32 ('<f4')"},
      Case{f32, "scalar.npy", "scalar.npy", "shape mismatch: [] here but [3, 4]"},
      Case{f32, model, model, "format mismatch"},
      Case{model, f32, f32, "format mismatch"},
      Case{f32, "does_not_exist.npy", "does_not_exist.npy", "cannot open: No such file"},
      Case{"does_not_exist.npy", f32, "does_not_exist.npy", "cannot open: No such file"},
      Case{f32, ".", ".", "is a directory"},
      Case{st, "st_bad_json.safetensors", "st_bad_json.safetensors", "header is not valid JSON"},
      Case{st, "st_not_object.safetensors", "st_not_object.safetensors",
           "header is not a JSON object"},
      Case{st, "st_missing_field.safetensors", "st_missing_field.safetensors",
           "tensor 'a': missing field 'shape'"},
      Case{st, "st_bad_field_type.safetensors", "st_bad_field_type.safetensors",
           "tensor 'a': field 'shape' is not an array"},
      Case{st, "st_negative_offset.safetensors", "st_negative_offset.safetensors",
           "negative data offset"},
      Case{st, "st_float_offset.safetensors", "st_float_offset.safetensors",
           "data offset is not an integer"},
      Case{st, "st_begin_after_end.safetensors", "st_begin_after_end.safetensors",
           "begin > end"},
      Case{st, "st_outside.safetensors", "st_outside.safetensors", "outside the byte buffer"},
      Case{st, "st_overlap.safetensors", "st_overlap.safetensors", "overlap"},
      Case{st, "st_hole.safetensors", "st_hole.safetensors", "hole in the byte buffer"},
      Case{st, "st_size_mismatch.safetensors", "st_size_mismatch.safetensors",
           "span 8 bytes but shape [3] of F32 needs 12"},
      Case{st, "st_unsupported_dtype.safetensors", "st_unsupported_dtype.safetensors",
           "tensor 'b': unsupported dtype 'I64'"},
      Case{st, "st_duplicate_key.safetensors", "st_duplicate_key.safetensors",
           "key 'a' more than once"},
      Case{st, "st_header_too_long.safetensors", "st_header_too_long.safetensors",
           "header longer than the file"},
      Case{st, "st_header_huge.safetensors", "st_header_huge.safetensors",
           "exceeds the limit of 100000000 bytes"},
      Case{st, "st_truncated.safetensors", "st_truncated.safetensors", "too short"},
      Case{model, "model_extra_tensor.safetensors", model,
           "tensor 'extra.tensor' is missing (it is in "},
      Case{model, "model_missing_tensor.safetensors", "model_missing_tensor.safetensors",
           "tensor 'step_i32' is missing"},
      Case{model, "model_dtype_mismatch.safetensors", "model_dtype_mismatch.safetensors",
           "tensor 'layer.0.weight_f32': dtype mismatch"},
      Case{model, "model_shape_mismatch.safetensors", "model_shape_mismatch.safetensors",
           "tensor 'layer.0.weight_f32': shape mismatch: [4, 3] here but [3, 4]"},
      Case{model, "model_u16.safetensors", "model_u16.safetensors", "unsupported dtype 'U16'"});
  CAPTURE(c.expected, c.actual, c.reason);

  // The library throws a TensorError naming the file.
  auto f = failure_of([&] { compare(c.expected, c.actual); });
  CHECK(f.file == fixture(c.named));
  CHECK(contains(f.reason, c.reason));

  // The command: exit 2, message on stderr, nothing on stdout.
  auto r = run_compare({fixture(c.expected), fixture(c.actual)});
  CHECK(r.status == 2);
  CHECK(contains(r.err, "samebits compare: error: " + fixture(c.named) + ": "));
  CHECK(contains(r.err, c.reason));
  CHECK(r.out.empty());

  // --json: the error as a JSON document on stdout too.
  auto j = run_compare({"--json", fixture(c.expected), fixture(c.actual)});
  CHECK(j.status == 2);
  CHECK(contains(j.err, c.reason));
  json doc = json::parse(j.out);
  CHECK(contains(doc["error"].get<std::string>(), c.reason));
  CHECK(doc["file"] == fixture(c.named));
  CHECK(doc["exit_status"] == 2);
}

TEST_CASE("errors: unreadable and unrecognizable files", "[compare][errors]") {
  // A file we may not read (root reads anything, so only as another user).
  if (::geteuid() != 0) {
    const std::string p = write_scratch("unreadable.npy", fixture_bytes("f32.npy"));
    REQUIRE(::chmod(p.c_str(), 0) == 0);
    auto r = run_compare({fixture("f32.npy"), p});
    CHECK(r.status == 2);
    CHECK(contains(r.err, p + ": cannot open: Permission denied"));
  }
  // Neither the npy magic nor a telling extension nor a safetensors prefix.
  const std::string junk = write_scratch("junk.bin", Bytes{'h', 'e', 'l', 'l', 'o', '\n'});
  auto r = run_compare({junk, junk});
  CHECK(r.status == 2);
  CHECK(contains(r.err, junk + ": unrecognized format"));
  // Content decides over a misleading extension: a safetensors file named .bin.
  const std::string st = write_scratch("model.bin", fixture_bytes("model.safetensors"));
  CHECK(run_compare({fixture("model.safetensors"), st}).status == 0);
  const std::string npy = write_scratch("array.safetensors", fixture_bytes("f32.npy"));
  CHECK(run_compare({fixture("f32.npy"), npy}).status == 0);
  CHECK(run_compare({fixture("f32_planted.npy"), npy}).status == 1);  // control
}

TEST_CASE("command-line usage errors exit 2", "[compare][errors][cli]") {
  const std::string a = fixture("f32.npy"), b = fixture("f32_copy.npy");
  CHECK(run_compare({a, b}).status == 0);  // control: the same files, good options
  CHECK(run_compare({"--nan-policy", "class", "--max-report", "5", a, b}).status == 0);
  CHECK(run_compare({"--nan-policy", "payload", a, b}).status == 2);
  CHECK(run_compare({"--as", "f16", a, b}).status == 2);
  CHECK(run_compare({"--max-report", "-1", a, b}).status == 2);
  CHECK(run_compare({"--max-report", "many", a, b}).status == 2);
  CHECK(run_compare({a}).status == 2);
  CHECK(run_compare({a, b, a}).status == 2);
}

TEST_CASE("npy header parser: exactly the dict numpy writes", "[compare][npy][parser]") {
  using so::parse_npy_header_dict;
  auto ok = parse_npy_header_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }      \n");
  CHECK(ok.descr == "<f4");
  CHECK_FALSE(ok.fortran_order);
  CHECK(ok.shape == Shape{3, 4});
  CHECK(parse_npy_header_dict("{'shape': (), 'descr': \"<f8\", 'fortran_order': True}").shape.empty());
  CHECK(parse_npy_header_dict("{'descr':'<f8','fortran_order':True,'shape':(5,)}").shape == Shape{5});
  CHECK(parse_npy_header_dict("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3, 4,), }")
            .shape == Shape{2, 3, 4});
  CHECK(parse_npy_header_dict("{'descr': '<f8',\n 'fortran_order': False,\n 'shape': ( 0 , 7 )}")
            .shape == Shape{0, 7});
  CHECK(parse_npy_header_dict("{'descr': '<f8', 'fortran_order': False, 'shape': (18446744073709551615,)}")
            .shape == Shape{18446744073709551615ull});

  const char* bad[] = {
      "",
      "{",
      "{}",
      "'descr': '<f4', 'fortran_order': False, 'shape': (3,)",
      "{'descr': '<f4', 'fortran_order': False}",
      "{'descr': '<f4', 'shape': (3,)}",
      "{'fortran_order': False, 'shape': (3,)}",
      "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (3,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'x': 1}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (3)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (-3,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (3,,4)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (3 4)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (03,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (3.0,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': [3]}",
      "{'descr': '<f4', 'fortran_order': false, 'shape': (3,)}",
      "{'descr': '<f4', 'fortran_order': 0, 'shape': (3,)}",
      "{'descr': <f4, 'fortran_order': False, 'shape': (3,)}",
      "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,)}",
      "{'descr': '<f4, 'fortran_order': False, 'shape': (3,)}",
      "{'descr': '<f\\x34', 'fortran_order': False, 'shape': (3,)}",
      "{'descr': '<f4' 'fortran_order': False, 'shape': (3,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (3,)} x",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (3,)}}",
      "{descr: '<f4', 'fortran_order': False, 'shape': (3,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (3,),,}",
  };
  for (const char* text : bad) {
    CAPTURE(text);
    CHECK_THROWS_AS(parse_npy_header_dict(text), std::invalid_argument);
  }
  CHECK_THROWS_AS(parse_npy_header_dict(
                      "{'descr': '<f4', 'fortran_order': False, 'shape': (18446744073709551616,)}"),
                  std::overflow_error);
}

TEST_CASE("npy reader: runtime variants of f32.npy", "[compare][npy][parser]") {
  const Bytes data = f32_data();
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }";
  // The helper builds what numpy builds (control for the variants below).
  CHECK(npy_with_header(dict, data) == fixture_bytes("f32.npy"));
  auto good = parse_npy(npy_with_header(dict, data));
  CHECK(good.tensors[0].elements == 12);

  // '=' is read as little-endian; '|' is meaningless for f4.
  auto eq = parse_npy(npy_with_header("{'descr': '=f4', 'fortran_order': False, 'shape': (3, 4), }", data));
  CHECK(std::equal(eq.tensors[0].data.begin(), eq.tensors[0].data.end(), data.begin()));
  CHECK(contains(npy_reason(npy_with_header("{'descr': '|f4', 'fortran_order': False, 'shape': (3, 4), }", data)),
                 "unsupported dtype '|f4'"));
  CHECK(contains(npy_reason(npy_with_header("{'descr': '<i2', 'fortran_order': False, 'shape': (24,), }", data)),
                 "pass --as bf16"));
  so::ReadOptions as;
  as.as_bf16 = true;
  CHECK(parse_npy(npy_with_header("{'descr': '<i2', 'fortran_order': False, 'shape': (24,), }", data), as)
            .tensors[0].dtype == so::DType::bf16);
  CHECK(contains(npy_reason(Bytes{}), "bad magic"));
  // Version 2.0 with a 4-byte header length, built here and by numpy, agree.
  CHECK(npy_with_header(dict, data, 2) == fixture_bytes("f32_v2.npy"));
  // Versions other than 1.0, 2.0, 3.0.
  for (auto [major, minor] : {std::pair{0, 0}, {1, 1}, {2, 1}, {4, 0}, {255, 0}}) {
    Bytes b = fixture_bytes("f32.npy");
    b[6] = static_cast<std::uint8_t>(major);
    b[7] = static_cast<std::uint8_t>(minor);
    CHECK(contains(npy_reason(b), "unsupported .npy version"));
  }
  // A shape with a zero dimension has no data, whatever the others are.
  auto zero = parse_npy(npy_with_header(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 18446744073709551615), }", {}));
  CHECK(zero.tensors[0].elements == 0);
  CHECK(contains(npy_reason(npy_with_header(
                     "{'descr': '<f4', 'fortran_order': False, 'shape': (18446744073709551616,), }", data)),
                 "overflows 64 bits"));
  CHECK(contains(npy_reason(npy_with_header(
                     "{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,), }", data)),
                 "byte size overflows 64 bits"));
}

TEST_CASE("readers never read past the end: every truncation is an error", "[compare][robust]") {
  for (const char* name : {"f32.npy", "f32_v3.npy", "bf16.npy", "scalar.npy"}) {
    const Bytes full = fixture_bytes(name);
    CAPTURE(name);
    CHECK_NOTHROW(parse_npy(full));
    for (std::size_t n = 0; n < full.size(); ++n) {
      Bytes cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
      CHECK_THROWS_AS(parse_npy(cut), so::TensorError);
    }
  }
  const Bytes st = fixture_bytes("model.safetensors");
  CHECK_NOTHROW(parse_st(st));
  for (std::size_t n = 0; n < st.size(); ++n) {
    Bytes cut(st.begin(), st.begin() + static_cast<std::ptrdiff_t>(n));
    CHECK_THROWS_AS(parse_st(cut), so::TensorError);
  }
  // Every single-byte change of the headers is either still valid or an error.
  for (const char* name : {"f32.npy", "model.safetensors"}) {
    const Bytes full = fixture_bytes(name);
    const bool is_npy = std::string(name).ends_with(".npy");
    const std::size_t header_end = is_npy ? 128 : 8 + full[0] + 256u * full[1];
    for (std::size_t i = 0; i < header_end && i < full.size(); ++i)
      for (std::uint8_t x : {0x01, 0x20, 0x80, 0xff}) {
        Bytes b = full;
        b[i] ^= x;
        try {
          if (is_npy)
            parse_npy(b);
          else
            parse_st(b);
        } catch (const so::TensorError&) {
        }
      }
  }
}

TEST_CASE("safetensors reader: runtime variants", "[compare][st][parser]") {
  const Bytes eight(8, 0);
  auto entry = [](const std::string& body) { return "{\"a\":" + body + "}"; };
  // control
  CHECK_NOTHROW(parse_st(st_bytes(entry(R"({"dtype":"F32","shape":[2],"data_offsets":[0,8]})"), eight)));

  struct Case {
    std::string header;
    Bytes buffer;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {" {}", {}, "must begin with '{'"},
      {"", {}, "header is not valid JSON"},
      {"\"a\"", {}, "not a JSON object"},
      {"{\"a\":1}", {}, "tensor 'a': entry is not a JSON object"},
      {"{\"__metadata__\":[1]}", {}, "__metadata__ is not a JSON object"},
      {"{\"__metadata__\":{\"k\":1}}", {}, "__metadata__ value for 'k' is not a string"},
      {entry(R"({"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":1})"), eight, "unexpected field 'x'"},
      {entry(R"({"dtype":32,"shape":[2],"data_offsets":[0,8]})"), eight, "field 'dtype' is not a string"},
      {entry(R"({"shape":[2],"data_offsets":[0,8]})"), eight, "missing field 'dtype'"},
      {entry(R"({"dtype":"F32","shape":[2]})"), eight, "missing field 'data_offsets'"},
      {entry(R"({"dtype":"F32","shape":[2],"data_offsets":[0]})"), eight, "array of two integers"},
      {entry(R"({"dtype":"F32","shape":[2],"data_offsets":[0,8,8]})"), eight, "array of two integers"},
      {entry(R"({"dtype":"F32","shape":[2],"data_offsets":{"b":0}})"), eight, "array of two integers"},
      {entry(R"({"dtype":"F32","shape":[-2],"data_offsets":[0,8]})"), eight, "negative shape dimension"},
      {entry(R"({"dtype":"F32","shape":[2.5],"data_offsets":[0,8]})"), eight, "shape dimension is not an integer"},
      {entry(R"({"dtype":"F32","shape":["2"],"data_offsets":[0,8]})"), eight, "shape dimension is not a number"},
      {entry(R"({"dtype":"F32","shape":[2],"data_offsets":[0,"8"]})"), eight, "data offset is not a number"},
      {entry(R"({"dtype":"F32","shape":[2],"data_offsets":[0,1e1]})"), eight, "data offset is not an integer"},
      {entry(R"({"dtype":"F32","shape":[2],"data_offsets":[0,18446744073709551616]})"), eight, "not an integer"},
      {entry(R"({"dtype":"F32","shape":[2],"data_offsets":[0,18446744073709551615]})"), eight, "outside the byte buffer"},
      {entry(R"({"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]})"), eight, "element count overflows 64 bits"},
      {entry(R"({"dtype":"F64","shape":[2305843009213693952],"data_offsets":[0,8]})"), eight, "byte size overflows 64 bits"},
      {entry(R"({"dtype":"f32","shape":[2],"data_offsets":[0,8]})"), eight, "unsupported dtype 'f32'"},
      {entry(R"({"dtype":"F8_E4M3","shape":[8],"data_offsets":[0,8]})"), eight, "tensor 'a': unsupported dtype 'F8_E4M3'"},
      {entry(R"({"dtype":"F32","shape":[1],"data_offsets":[4,8]})"), eight, "hole in the byte buffer: bytes [0, 4)"},
      {entry(R"({"dtype":"F32","shape":[1],"data_offsets":[0,4]})"), eight, "hole in the byte buffer: bytes [4, 8) at its end"},
      {"{}", eight, "hole in the byte buffer"},
      {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[0],"data_offsets":[4,4]}})",
       eight, "overlap"},
      {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
       eight, "overlap"},
      {"{\"a\":{\"x\":" + std::string(40, '[') + std::string(40, ']') + "}}", {}, "nested deeper"},
      {"{\"a\xff\":1}", {}, "header is not valid JSON"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.header, c.reason);
    CHECK(contains(st_reason(st_bytes(c.header, c.buffer)), c.reason));
  }
  // The header limit is an option.
  so::ReadOptions small;
  small.max_header_bytes = 10;
  CHECK(contains(st_reason(fixture_bytes("model.safetensors"), small), "exceeds the limit of 10 bytes"));
}

TEST_CASE("messages escape control characters from files", "[compare][errors]") {
  auto r = st_reason(st_bytes(R"({"a\u001b[31m":{"dtype":"X","shape":[],"data_offsets":[0,0]}})", {}));
  CHECK(contains(r, "'a\\x1b[31m'"));
  CHECK_FALSE(contains(r, "\x1b"));
  // ... and so does the table.
  const Bytes four(4, 0);
  auto f = parse_st(st_bytes(R"({"a\u001b[31m":{"dtype":"F32","shape":[],"data_offsets":[0,4]}})", four));
  Bytes other(four);
  other[0] = 1;
  auto g = parse_st(st_bytes(R"({"a\u001b[31m":{"dtype":"F32","shape":[],"data_offsets":[0,4]}})", other));
  std::ostringstream table;
  so::print_report(table, so::compare_tensor_files(f, g));
  CHECK(contains(table.str(), "a\\x1b[31m"));
  CHECK_FALSE(contains(table.str(), "\x1b"));
}

TEST_CASE("JSON report carries every field", "[compare][json]") {
  auto r = compare("model.safetensors", "model_planted_all.safetensors");
  json j = samebits::cli::compare_report_to_json(r);
  for (const char* k : {"schema", "expected", "actual", "format", "nan_policy", "max_report",
                        "identical", "exit_status", "tensors", "first_mismatches",
                        "mismatches_not_shown", "totals"})
    CHECK(j.contains(k));
  CHECK(j["schema"] == "samebits-compare/1");
  for (const char* k : {"tensors", "tensors_with_mismatches", "elements", "mismatches",
                        "max_abs_error", "max_rel_error", "histogram"})
    CHECK(j["totals"].contains(k));
  for (const char* k : {"sign_of_zero", "nan_payload", "class", "ulp"})
    CHECK(j["totals"]["histogram"].contains(k));
  for (const auto& t : j["tensors"])
    for (const char* k : {"name", "dtype", "shape", "expected_dtype", "actual_dtype", "notes",
                          "elements", "mismatches", "max_abs_error", "max_rel_error", "histogram"})
      CHECK(t.contains(k));
  for (const auto& m : j["first_mismatches"])
    for (const char* k : {"tensor", "index", "flat_index", "expected", "actual", "kind", "ulp_distance"})
      CHECK(m.contains(k));
  CHECK(j["totals"]["elements"] == 32);
  CHECK(j["totals"]["mismatches"] == 6);
  // npy: the tensor has no name.
  json n = samebits::cli::compare_report_to_json(compare("f32.npy", "f32.npy"));
  CHECK(n["tensors"][0]["name"].is_null());
  CHECK(n["format"] == "npy");
  CHECK(n["totals"]["histogram"]["ulp"].empty());
}

TEST_CASE("raw float32 results: read bit for bit; a wrong size or a missing file is named", "[tensor_io][raw]") {
  // -0, a NaN with a payload, a subnormal, 1.0: the values come back as encodings.
  const std::uint32_t enc[] = {0x80000000u, 0x7fa00001u, 0x00000001u, 0x3f800000u};
  Bytes b(sizeof enc);
  std::memcpy(b.data(), enc, sizeof enc);
  const std::string path = write_scratch("results.f32", b);
  {
    const so::RawF32File f(path, 4);
    REQUIRE(f.values().size() == 4);
    for (std::size_t i = 0; i < 4; ++i) CHECK(std::bit_cast<std::uint32_t>(f.values()[i]) == enc[i]);
  }
  for (std::uint64_t wrong : {3u, 5u}) {
    try {
      so::RawF32File f(path, wrong);
      FAIL("a file of 4 results read as " << wrong);
    } catch (const so::TensorError& e) {
      CHECK(e.file() == path);
      CHECK(e.reason().find("holds 16 bytes") != std::string::npos);
    }
  }
  CHECK_THROWS_WITH(so::RawF32File(path + ".missing", 4), Catch::Contains("cannot open"));
  CHECK_THROWS_WITH(so::RawF32File(scratch().string(), 4), Catch::Contains("is a directory"));
}
