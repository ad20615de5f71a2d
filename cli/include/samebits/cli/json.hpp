// samebits/cli/json.hpp — the JSON documents `samebits` prints, built from the
// oracle's plain result structs. The oracle's own headers name no JSON
// library; this adapter is the one place that does (tests and fuzz link it
// to check what the command prints).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "samebits/oracle/compare.hpp"
#include "samebits/oracle/sweep.hpp"

namespace samebits::cli {

// One sweep: counts, max error and where, ulp histogram, special values.
nlohmann::json sweep_to_json(const oracle::SweepResult& r);

// The compare report; docs/compare.md describes the schema. ordered_json so
// that keys print in a reading order (schema first).
nlohmann::ordered_json compare_report_to_json(const oracle::CompareReport& report);

// {"error": "<file>: <reason>", "file": ..., "reason": ..., "exit_status": 2}
nlohmann::ordered_json compare_error_to_json(const std::string& file, const std::string& reason);

}  // namespace samebits::cli
