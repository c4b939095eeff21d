// clgemm-accuracy: measures the error of clgemm's precision modes (fp32, tf32, 3xtf32) against a
// double-accumulated host reference on random square-ish problems (M = N, several K), reports
// the relative and the normalised error per K and precision, checks the documented guarantees
// (3xtf32 within 2x of fp32, tf32 above fp32) and can dump the inputs for
// tools/device/cublas_accuracy.py, which measures cuBLAS on the very same matrices. Each case
// runs through clgemm::measure_gemm, so it is also timed and passes the verification every tool
// applies; the error statistics are in accuracy_errors, the inputs in accuracy_inputs.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "accuracy/accuracy_errors.hpp"
#include "accuracy/accuracy_inputs.hpp"
#include "clgemm/clgemm.hpp"
#include "common/cli_support.hpp"
#include "support/delayed_notice.hpp"

namespace {

using namespace clgemm::accuracy;

struct Arguments {
  std::int64_t mn = 256;
  std::vector<std::int64_t> ks = {256, 4096, 16384};
  std::vector<std::string> precisions = {"fp32", "tf32", "3xtf32"};
  std::string kernel = "auto";
  std::string distribution = "uniform";
  unsigned seed = 1;
  double tiny = 1e-3;
  std::string dump_dir;
  clgemm::cli::DeviceOptions where;  // --platform, --device
  bool json = false;
};

struct PrecisionResult {
  std::int64_t k = 0;
  std::string precision, precision_path, kernel;
  ErrorStats errors;
  clgemm::GemmMeasurement measured;  // the call's timing and the shared verification
};

double ratio(double value, double base) {
  return base > 0 ? value / base : 0.0;
}

void print_header(const Arguments& args, const clgemm::DeviceLimits& device) {
  std::printf("device:     %s [%s] on '%s'\n", device.name.c_str(),
              clgemm::device_type_name(device.type), device.platform_name.c_str());
  std::printf("problem:    row-major C = A * B (alpha 1, beta 0), M = N = %lld, kernel %s\n",
              (long long)args.mn, args.kernel.c_str());
  std::printf("inputs:     %s, seeds %u (A) and %u (B); reference accumulated in double\n",
              distribution_text(args.distribution).c_str(), args.seed, args.seed + 1);
  std::printf("rel:        %s (TINY = %g)\n", kRelativeDefinition, args.tiny);
  std::printf("norm:       %s\n", kNormalisedDefinition);
  std::printf("vs fp32:    max normalised error / fp32's at the same K\n");
  std::printf(
      "verify:     the tolerance check of every clgemm tool (clgemm::verify_result); "
      "GFLOP/s from one timed call after the first\n\n");
  std::printf("%6s  %-8s %10s %10s %10s %10s %8s %9s %-7s  %-7s %s\n", "K", "precision", "rel max",
              "rel mean", "norm max", "norm mean", "vs fp32", "GFLOP/s", "verify", "kernel",
              "path");
}

void print_row(const PrecisionResult& r, double fp32_normalised_max) {
  char versus[32] = "-";
  if (fp32_normalised_max > 0)
    std::snprintf(versus, sizeof versus, "%.2fx",
                  ratio(r.errors.normalised_max, fp32_normalised_max));
  std::printf("%6lld  %-8s %10.3e %10.3e %10.3e %10.3e %8s %9.2f %-7s  %-7s %s\n", (long long)r.k,
              r.precision.c_str(), r.errors.relative_max, r.errors.relative_mean,
              r.errors.normalised_max, r.errors.normalised_mean, versus, r.measured.gflops(),
              r.measured.verification.passed ? "passed" : "FAILED", r.kernel.c_str(),
              r.precision_path.c_str());
  std::fflush(stdout);
}

nlohmann::json result_json(const PrecisionResult& r, double fp32_normalised_max) {
  nlohmann::json j = {{"library", "clgemm"},
                      {"k", r.k},
                      {"precision", r.precision},
                      {"precision_path", r.precision_path},
                      {"kernel", r.kernel},
                      {"relative_max", r.errors.relative_max},
                      {"relative_mean", r.errors.relative_mean},
                      {"relative_counted", r.errors.relative_counted},
                      {"relative_excluded", r.errors.relative_excluded},
                      {"normalised_max", r.errors.normalised_max},
                      {"normalised_mean", r.errors.normalised_mean},
                      {"median_seconds", r.measured.wall.median},
                      {"gflops", r.measured.gflops()},
                      {"verification",
                       {{"passed", r.measured.verification.passed},
                        {"sampled", r.measured.verification.sampled},
                        {"checked", r.measured.verification.checked},
                        {"failures", r.measured.verification.failures},
                        {"worst_error_over_tolerance", r.measured.verification.worst_ratio}}}};
  if (fp32_normalised_max > 0)
    j["normalised_max_vs_fp32"] = ratio(r.errors.normalised_max, fp32_normalised_max);
  return j;
}

std::string help_text() {
  return "Error of clgemm's precision modes against a double reference, on random M x K and "
         "K x N inputs (row-major C = A * B, alpha 1, beta 0), per K and precision:\n  " +
         std::string(kRelativeDefinition) + "\n  " + kNormalisedDefinition +
         "\nExits 1 when a documented guarantee fails at some K: 3xtf32's max normalised error "
         "above 2x fp32's, or tf32's not above fp32's; or when a result fails the tolerance "
         "check every clgemm tool applies.";
}

void add_options(CLI::App& app, Arguments& args) {
  const auto size = clgemm::cli::size_range();
  app.add_option("--mn", args.mn, "M = N, rows of A and columns of B")
      ->capture_default_str()
      ->check(size);
  app.add_option("--k", args.ks, "the K values, comma-separated")
      ->delimiter(',')
      ->capture_default_str()
      ->check(size);
  app.add_option("--precisions", args.precisions, "the precisions, comma-separated")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::IsMember({"fp32", "tf32", "3xtf32"}));
  std::string kernel_names = "auto (the tuned choice for each precision)";
  for (const auto& k : clgemm::kernel_catalog()) kernel_names += ", " + k.name;
  app.add_option("--kernel", args.kernel, "kernel to run: " + kernel_names)->capture_default_str();
  app.add_option("--distribution", args.distribution,
                 "inputs: uniform [-1, 1), normal (0, 1) or positive: uniform [0, 1), no "
                 "cancellation")
      ->capture_default_str()
      ->check(CLI::IsMember({"uniform", "normal", "positive"}));
  app.add_option("--seed", args.seed, "seed of A; B uses seed + 1")
      ->capture_default_str()
      ->check(CLI::Range(0u, UINT_MAX - 1));
  app.add_option("--tiny", args.tiny,
                 "relative error skips elements with |ref| below TINY times the rms of ref's row")
      ->capture_default_str()
      ->check(clgemm::cli::finite_range(0, 1));
  app.add_option("--dump", args.dump_dir,
                 "write each K's A and B (raw little-endian float32, row-major) and manifest.json "
                 "into this directory, for tools/device/cublas_accuracy.py");
  clgemm::cli::add_device_flags(app, args.where);
  app.add_flag("--json", args.json, "print one JSON object instead of the table");
}

// Above this many multiply-adds the double reference of one K takes a noticeable while.
constexpr double kLargeMultiplyAdds = 5e8;

int run_accuracy(Arguments& args) {
  if (args.kernel != "auto") args.kernel = clgemm::find_kernel(args.kernel).name;
  const std::filesystem::path dump(args.dump_dir);
  if (!args.dump_dir.empty())
    clgemm::cli::check_output_path("--dump", (dump / "manifest.json").string());
  auto context = clgemm::cli::open_context(args.where);
  const auto& device = context.device();
  for (const std::int64_t k : args.ks)  // before any matrix is allocated
    clgemm::check_fits_device(clgemm::GemmProblem::packed(args.mn, args.mn, k), device);
  if (!args.json) print_header(args, device);

  nlohmann::json manifest = {{"tool", "clgemm-accuracy"},
                             {"distribution", args.distribution},
                             {"seed_a", args.seed},
                             {"seed_b", args.seed + 1},
                             {"dtype", "float32"},
                             {"byte_order", "little"},
                             {"layout", "row-major"},
                             {"tiny", args.tiny},
                             {"cases", nlohmann::json::array()}};

  std::vector<PrecisionResult> results;
  bool all_verified = true;
  nlohmann::json json_results = nlohmann::json::array();
  const std::size_t cases = args.ks.size() * args.precisions.size();
  std::size_t case_number = 0;
  for (const std::int64_t k : args.ks) {
    Inputs in;
    in.m = in.n = args.mn;
    in.k = k;
    in.a = draw_matrix(std::size_t(in.m * k), args.seed, args.distribution);
    in.b = draw_matrix(std::size_t(k * in.n), args.seed + 1, args.distribution);
    if (!args.dump_dir.empty()) {
      manifest["cases"].push_back(dump_inputs(dump, in));
      clgemm::cli::write_output("--dump", (dump / "manifest.json").string(),
                                manifest.dump(2) + "\n");
    }
    const auto problem = clgemm::GemmProblem::packed(in.m, in.n, k);
    if (problem.flops() / 2 >= kLargeMultiplyAdds)
      clgemm::cli::note("K=" + std::to_string(k) + ": computing the double reference");
    const Reference ref = reference_gemm(in);

    double fp32_normalised_max = 0;
    std::vector<PrecisionResult> of_this_k;
    for (const auto& name : args.precisions) {
      clgemm::cli::note("case " + std::to_string(++case_number) + "/" + std::to_string(cases) +
                        ": K=" + std::to_string(k) + ", " + name);
      clgemm::RunSettings settings;
      settings.kernel = args.kernel;
      settings.precision = clgemm::parse_precision(name);
      std::vector<float> c(problem.c_elements());
      // The first call (verified) and one timed call: a figure beside the errors, not a benchmark.
      clgemm::RepeatPolicy once;
      once.warmup_runs = 0;
      once.min_runs = once.max_runs = 1;
      once.min_seconds = 0;
      clgemm::GemmMeasurement measured;
      {
        const clgemm::detail::DelayedNotice notice(
            clgemm::cli::noting(clgemm::cli::build_notice(
                clgemm::cli::kernel_that_runs(context, args.kernel, problem, settings.precision),
                device)),
            1.0, clgemm::cli::compiling);
        measured = clgemm::measure_gemm(context, problem, in.a.data(), in.b.data(), c.data(),
                                        settings, once, /*verify=*/true);
      }
      const clgemm::GemmRecord& timing = measured.record;
      PrecisionResult r;
      r.k = k;
      r.precision = name;
      r.precision_path = timing.precision_path;
      r.kernel = timing.kernel;
      r.errors = measure_errors(c, ref, in.m, in.n, args.tiny);
      r.measured = std::move(measured);
      all_verified = all_verified && r.measured.verification.passed;
      if (name == "fp32") fp32_normalised_max = r.errors.normalised_max;
      of_this_k.push_back(r);
    }
    for (const auto& r : of_this_k) {
      if (args.json)
        json_results.push_back(result_json(r, fp32_normalised_max));
      else
        print_row(r, fp32_normalised_max);
      results.push_back(r);
    }
  }

  std::vector<CaseError> errors;
  for (const auto& r : results) errors.push_back({r.k, r.precision, r.errors.normalised_max});
  const auto violations = check_guarantees(errors);
  if (args.json) {
    nlohmann::json report = {{"tool", "clgemm-accuracy"},
                             {"device", device.name},
                             {"platform", device.platform_name},
                             {"m", args.mn},
                             {"n", args.mn},
                             {"kernel_request", args.kernel},
                             {"distribution", args.distribution},
                             {"seed_a", args.seed},
                             {"seed_b", args.seed + 1},
                             {"tiny", args.tiny},
                             {"relative_error", kRelativeDefinition},
                             {"normalised_error", kNormalisedDefinition},
                             {"results", json_results},
                             {"guarantee_violations", violations},
                             {"verified", all_verified},
                             {"passed", violations.empty() && all_verified}};
    std::cout << report.dump(2) << std::endl;
  } else {
    std::printf("\nguarantees (3xtf32 <= 2x fp32, tf32 > fp32, max normalised error): %s\n",
                violations.empty() ? "hold" : "VIOLATED");
    for (const auto& v : violations) std::printf("  %s\n", v.c_str());
    if (!all_verified) std::printf("verification: FAILED for some case (see the verify column)\n");
    if (!args.dump_dir.empty())
      std::printf("inputs written to %s (manifest.json)\n", args.dump_dir.c_str());
  }
  return violations.empty() && all_verified ? clgemm::cli::kSuccess : clgemm::cli::kFailed;
}

}  // namespace

int main(int argc, char** argv) {
  Arguments args;
  CLI::App app{help_text(), "clgemm-accuracy"};
  add_options(app, args);
  return clgemm::cli::run_tool(app, argc, argv, [&] { return run_accuracy(args); });
}
