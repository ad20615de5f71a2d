// `samebits compare EXPECTED ACTUAL` — bitwise comparison of tensors in .npy
// or .safetensors files. The work is in oracle/compare.hpp, the JSON in
// samebits/cli/json.hpp; this file binds options and turns outcomes into
// output and an exit status.
#include <exception>
#include <iostream>
#include <memory>
#include <new>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "samebits/cli/json.hpp"
#include "samebits/oracle/compare.hpp"

namespace samebits::cli {

namespace {

struct CompareArgs {
  std::string expected, actual;
  std::string nan_policy = "bits";
  std::string as;
  bool json = false;
  std::size_t max_report = 10;
};

// Paths come from the user and may not be UTF-8; never let that make the JSON
// writer throw.
std::string dump(const nlohmann::ordered_json& j) {
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

int run_compare(const CompareArgs& args) {
  auto fail = [&](const std::string& file, const std::string& reason) {
    std::cerr << "samebits compare: error: " << (file.empty() ? "" : file + ": ") << reason
              << '\n';
    if (args.json) std::cout << dump(compare_error_to_json(file, reason)) << '\n' << std::flush;
    return kExitError;
  };
  try {
    oracle::CompareOptions opts;
    opts.nan_policy =
        args.nan_policy == "class" ? oracle::NanPolicy::nan_class : oracle::NanPolicy::bits;
    opts.max_report = args.max_report;
    opts.as_bf16 = args.as == "bf16";
    const oracle::CompareReport report = oracle::compare_files(args.expected, args.actual, opts);
    if (args.json)
      std::cout << dump(compare_report_to_json(report)) << '\n';
    else
      oracle::print_report(std::cout, report);
    std::cout << std::flush;
    return report.identical() ? kExitOk : kExitFinding;
  } catch (const oracle::TensorError& e) {
    return fail(e.file(), e.reason());
  } catch (const std::bad_alloc&) {
    return fail("", "out of memory");
  } catch (const std::exception& e) {
    return fail("", e.what());
  }
}

}  // namespace

Command add_compare_command(CLI::App& root) {
  // Shared with the run lambda, which outlives this function.
  auto args = std::make_shared<CompareArgs>();
  CLI::App* app = root.add_subcommand(
      "compare", "Compare the tensors of two .npy or .safetensors files bit for bit");
  app->footer(
      "Exit status: 0 identical, 1 mismatches, 2 error. See docs/compare.md.");
  app->add_option("EXPECTED", args->expected, "Reference file (.npy or .safetensors)")
      ->required();
  app->add_option("ACTUAL", args->actual, "File to check against it (the same format)")
      ->required();
  app->add_option("--nan-policy", args->nan_policy,
                  "bits: NaNs must have the same bits; class: any NaN matches any NaN")
      ->check(CLI::IsMember({"bits", "class"}))
      ->capture_default_str();
  app->add_option("--as", args->as,
                  "Read 2-byte integer data (npy '<u2'/'<i2', safetensors U16/I16) as bfloat16")
      ->check(CLI::IsMember({"bf16"}));
  app->add_flag("--json", args->json, "Print one JSON document instead of the table");
  app->add_option("--max-report", args->max_report, "List at most N mismatches")
      ->type_name("N")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  return Command{app, [args] { return run_compare(*args); }};
}

}  // namespace samebits::cli
