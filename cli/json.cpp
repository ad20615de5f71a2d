// The JSON documents of `samebits score`, `report` and `compare`; see json.hpp.
#include "samebits/cli/json.hpp"

#include <cmath>
#include <cstdio>

#include "samebits/libm/fp/bits.hpp"

namespace samebits::cli {

using namespace samebits::oracle;

namespace {

// --- sweeps

std::string hex32(std::uint32_t b) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", b);
  return buf;
}

nlohmann::json float_json(std::uint32_t b) {
  const float v = fp::from_bits(b);
  char buf[64];
  if (std::isnan(v)) std::snprintf(buf, sizeof buf, "%snan", fp::sign_bit(b) ? "-" : "");
  else std::snprintf(buf, sizeof buf, "%a", static_cast<double>(v));
  return {{"bits", hex32(b)}, {"hexfloat", buf}, {"value", std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(buf)}};
}

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::correctly_rounded: return "correctly_rounded";
    case Outcome::not_correctly_rounded: return "not_correctly_rounded";
    case Outcome::wrong_class: return "wrong_class";
  }
  return "?";
}

// --- compare

nlohmann::ordered_json error_json(const std::optional<double>& v) {
  if (!v) return nullptr;
  if (std::isinf(*v)) return "inf";  // JSON has no infinity
  return *v;
}

nlohmann::ordered_json histogram_json(const MismatchHistogram& h) {
  nlohmann::ordered_json bins = nlohmann::ordered_json::array();
  for (int k = 0; k < MismatchHistogram::kBins; ++k)
    if (h.ulp[k])
      bins.push_back({{"min", MismatchHistogram::bin_min(k)},
                      {"max", MismatchHistogram::bin_max(k)},
                      {"count", h.ulp[k]}});
  return {{"sign_of_zero", h.sign_of_zero},
          {"nan_payload", h.nan_payload},
          {"class", h.value_class},
          {"ulp", bins}};
}

nlohmann::ordered_json name_json(const std::string& name) {
  if (name.empty()) return nullptr;
  return name;
}

}  // namespace

nlohmann::json sweep_to_json(const SweepResult& r) {
  nlohmann::json j;
  j["function"] = std::string(name(r.func));
  j["inputs"] = r.inputs;
  j["correctly_rounded"] = r.correctly_rounded;
  j["not_correctly_rounded"] = r.not_correctly_rounded;
  j["wrong_class"] = r.wrong_class;
  j["reference"] = r.filtered ? "double filter (2^-36 window) with MPFR fallback" : "MPFR on every input";
  j["mpfr_fallbacks"] = r.mpfr_fallbacks;
  if (r.max_ulp) {
    j["max_ulp"] = *r.max_ulp;
    j["max_ulp_at"] = {{"input", float_json(r.max_ulp_input)},
                       {"got", float_json(r.max_ulp_got)},
                       {"expected", float_json(r.max_ulp_expected)}};
  } else {
    j["max_ulp"] = nullptr;
  }
  nlohmann::json hist = nlohmann::json::array();
  for (int k = 0; k < kUlpBins; ++k) {
    if (!r.histogram[k]) continue;
    const double hi = ulp_bin_upper(k);
    const double lo = k == 0 ? 0.0 : ulp_bin_upper(k - 1);
    hist.push_back({{"lower_exclusive", lo},
                    {"upper_inclusive", std::isinf(hi) ? nlohmann::json(nullptr) : nlohmann::json(hi)},
                    {"count", r.histogram[k]}});
  }
  j["ulp_histogram"] = hist;
  nlohmann::json wrong = nlohmann::json::array();
  for (auto e : r.wrong_class_inputs) wrong.push_back(float_json(e));
  j["wrong_class_examples"] = wrong;
  nlohmann::json sp = nlohmann::json::array();
  for (const auto& s : r.specials) {
    nlohmann::json row{{"label", s.label},
                       {"input", float_json(s.input)},
                       {"expected", float_json(s.expected)},
                       {"got", float_json(s.got)},
                       {"outcome", outcome_name(s.score.outcome)}};
    if (s.score.outcome == Outcome::not_correctly_rounded) row["ulp"] = s.score.ulp;
    sp.push_back(row);
  }
  j["special_values"] = sp;
  j["threads"] = r.threads;
  j["seconds"] = r.seconds;
  return j;
}


nlohmann::ordered_json compare_report_to_json(const CompareReport& r) {
  using json = nlohmann::ordered_json;
  json tensors = json::array();
  for (const auto& t : r.tensors) {
    tensors.push_back({{"name", name_json(t.name)},
                       {"dtype", dtype_name(t.dtype)},
                       {"shape", t.shape},
                       {"expected_dtype", t.expected_dtype},
                       {"actual_dtype", t.actual_dtype},
                       {"notes", t.notes},
                       {"elements", t.elements},
                       {"mismatches", t.mismatches},
                       {"max_abs_error", error_json(t.max_abs_error)},
                       {"max_rel_error", error_json(t.max_rel_error)},
                       {"histogram", histogram_json(t.histogram)}});
  }
  json mismatches = json::array();
  for (const auto& m : r.first_mismatches) {
    mismatches.push_back(
        {{"tensor", name_json(m.tensor)},
         {"index", m.index},
         {"flat_index", m.flat_index},
         {"expected", {{"value", m.expected.decimal}, {"bits", m.expected.hex}}},
         {"actual", {{"value", m.actual.decimal}, {"bits", m.actual.hex}}},
         {"kind", kind_key(m.kind)},
         {"ulp_distance", m.kind == MismatchKind::ulp ? json(m.ulp_distance) : json(nullptr)}});
  }
  return {{"schema", "samebits-compare/1"},
          {"expected", r.expected_path},
          {"actual", r.actual_path},
          {"format", format_name(r.format)},
          {"nan_policy", nan_policy_name(r.nan_policy)},
          {"max_report", r.max_report},
          {"identical", r.identical()},
          {"exit_status", r.exit_status()},
          {"tensors", tensors},
          {"first_mismatches", mismatches},
          {"mismatches_not_shown", r.total_mismatches - r.first_mismatches.size()},
          {"totals",
           {{"tensors", r.tensors.size()},
            {"tensors_with_mismatches", r.tensors_with_mismatches},
            {"elements", r.total_elements},
            {"mismatches", r.total_mismatches},
            {"max_abs_error", error_json(r.max_abs_error)},
            {"max_rel_error", error_json(r.max_rel_error)},
            {"histogram", histogram_json(r.histogram)}}}};
}

nlohmann::ordered_json compare_error_to_json(const std::string& file, const std::string& reason) {
  return {{"error", file.empty() ? reason : file + ": " + reason},
          {"file", file},
          {"reason", reason},
          {"exit_status", 2}};
}


}  // namespace samebits::cli
