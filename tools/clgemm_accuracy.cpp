// clgemm-accuracy: measures the error of clgemm's precision modes (fp32, tf32, 3xtf32) against a
// double-accumulated host reference on random square-ish problems (M = N, several K), reports
// the relative and the normalised error per K and precision, checks the documented guarantees
// (3xtf32 within 2x of fp32, tf32 above fp32) and can dump the inputs for
// tools/device/cublas_accuracy.py, which measures cuBLAS on the very same matrices.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "clgemm/clgemm.hpp"
#include "cli_support.hpp"

namespace {

const char* const kRelativeDefinition =
    "relative error   = |c - ref| / |ref|, over the elements with |ref| >= TINY * rms(ref's row)";
const char* const kNormalisedDefinition =
    "normalised error = |c - ref| / sum_k |a_ik| |b_kj|, over every element (robust where ref ~ 0)";

struct Arguments {
  std::int64_t mn = 256;
  std::vector<std::int64_t> ks = {256, 4096, 16384};
  std::vector<std::string> precisions = {"fp32", "tf32", "3xtf32"};
  std::string kernel = "auto";
  std::string distribution = "uniform";
  unsigned seed = 1;
  double tiny = 1e-3;
  std::string dump_dir;
  std::string platform, device;
  bool json = false;
};

// The inputs of one K: A (m x k) and B (k x n), row-major.
struct Inputs {
  std::int64_t m = 0, n = 0, k = 0;
  std::vector<float> a, b;
};

// The double reference of one K and the normaliser sum_k |a_ik| |b_kj| of every element.
struct Reference {
  std::vector<double> c, magnitude;
  std::vector<double> row_rms;  // root mean square of each row of c
};

struct ErrorStats {
  double relative_max = 0, relative_mean = 0;
  std::size_t relative_counted = 0, relative_excluded = 0;
  double normalised_max = 0, normalised_mean = 0;
};

struct PrecisionResult {
  std::int64_t k = 0;
  std::string precision, precision_path, kernel;
  ErrorStats errors;
};

// "uniform": [-1, 1) (clgemm::random_matrix, the inputs of the other tools); "normal": mean 0,
// deviation 1; "positive": [0, 1), where no sum cancels and the relative error is well defined.
std::vector<float> draw_matrix(std::size_t elements, unsigned seed,
                               const std::string& distribution) {
  if (distribution == "uniform") return clgemm::random_matrix(elements, seed);
  std::mt19937 generator(seed);
  std::vector<float> out(elements);
  if (distribution == "normal") {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (auto& x : out) x = normal(generator);
  } else {
    std::uniform_real_distribution<float> positive(0.0f, 1.0f);
    for (auto& x : out) x = positive(generator);
  }
  return out;
}

std::string distribution_text(const std::string& distribution) {
  if (distribution == "uniform") return "uniform [-1, 1)";
  if (distribution == "normal") return "normal (0, 1)";
  return "uniform [0, 1) (positive)";
}

// C = A * B and sum_k |a_ik| |b_kj| in double. B is transposed once so that both operands of
// every dot product are read contiguously; four partial sums break the dependency chain (each
// product of two floats is exact in double, so the split changes nothing measurable).
Reference reference_gemm(const Inputs& in) {
  const std::int64_t m = in.m, n = in.n, k = in.k;
  std::vector<double> a(in.a.begin(), in.a.end());
  std::vector<double> b_transposed(std::size_t(n * k));
  for (std::int64_t p = 0; p < k; ++p)
    for (std::int64_t j = 0; j < n; ++j) b_transposed[j * k + p] = in.b[p * n + j];
  Reference ref;
  ref.c.resize(std::size_t(m * n));
  ref.magnitude.resize(std::size_t(m * n));
  ref.row_rms.resize(std::size_t(m));
  for (std::int64_t i = 0; i < m; ++i) {
    const double* a_row = &a[i * k];
    double row_squares = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      const double* b_column = &b_transposed[j * k];
      double sum[4] = {0, 0, 0, 0}, magnitude[4] = {0, 0, 0, 0};
      std::int64_t p = 0;
      for (; p + 4 <= k; p += 4)
        for (int lane = 0; lane < 4; ++lane) {
          const double product = a_row[p + lane] * b_column[p + lane];
          sum[lane] += product;
          magnitude[lane] += std::fabs(product);
        }
      for (; p < k; ++p) {
        sum[0] += a_row[p] * b_column[p];
        magnitude[0] += std::fabs(a_row[p] * b_column[p]);
      }
      const double c = (sum[0] + sum[1]) + (sum[2] + sum[3]);
      ref.c[i * n + j] = c;
      ref.magnitude[i * n + j] = (magnitude[0] + magnitude[1]) + (magnitude[2] + magnitude[3]);
      row_squares += c * c;
    }
    ref.row_rms[i] = std::sqrt(row_squares / double(n));
  }
  return ref;
}

ErrorStats measure_errors(const std::vector<float>& c, const Reference& ref, std::int64_t m,
                          std::int64_t n, double tiny) {
  ErrorStats stats;
  double relative_sum = 0, normalised_sum = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const std::size_t index = std::size_t(i * n + j);
      const double error = std::fabs(double(c[index]) - ref.c[index]);
      const double normalised = ref.magnitude[index] > 0 ? error / ref.magnitude[index] : error;
      stats.normalised_max = std::max(stats.normalised_max, normalised);
      normalised_sum += normalised;
      if (std::fabs(ref.c[index]) >= tiny * ref.row_rms[i] && ref.c[index] != 0) {
        const double relative = error / std::fabs(ref.c[index]);
        stats.relative_max = std::max(stats.relative_max, relative);
        relative_sum += relative;
        ++stats.relative_counted;
      } else {
        ++stats.relative_excluded;
      }
    }
  stats.normalised_mean = normalised_sum / double(m * n);
  if (stats.relative_counted) stats.relative_mean = relative_sum / double(stats.relative_counted);
  return stats;
}

// Raw little-endian float32, row-major (the host is little-endian: x86-64 or AArch64).
void write_floats(const std::filesystem::path& path, const std::vector<float>& values) {
  clgemm::cli::write_output(
      "--dump", path.string(),
      std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
}

// Writes A and B of one K and returns the manifest entry that names them.
nlohmann::json dump_inputs(const std::filesystem::path& dir, const Inputs& in) {
  const std::string suffix =
      "m" + std::to_string(in.m) + "_n" + std::to_string(in.n) + "_k" + std::to_string(in.k);
  const std::string a_file = "a_" + suffix + ".f32", b_file = "b_" + suffix + ".f32";
  write_floats(dir / a_file, in.a);
  write_floats(dir / b_file, in.b);
  return {{"m", in.m},
          {"n", in.n},
          {"k", in.k},
          {"a_file", a_file},
          {"a_shape", {in.m, in.k}},
          {"b_file", b_file},
          {"b_shape", {in.k, in.n}}};
}

double ratio(double value, double base) {
  return base > 0 ? value / base : 0.0;
}

// The documented guarantees, per K: 3xtf32's max normalised error at most 2x fp32's, tf32's
// above fp32's. Returns one line per violation.
std::vector<std::string> check_guarantees(const std::vector<PrecisionResult>& results) {
  std::map<std::int64_t, std::map<std::string, double>> by_k;
  for (const auto& r : results) by_k[r.k][r.precision] = r.errors.normalised_max;
  std::vector<std::string> violations;
  char line[256];
  for (const auto& [k, errors] : by_k) {
    const auto fp32 = errors.find("fp32");
    if (fp32 == errors.end()) continue;
    const auto tf32x3 = errors.find("3xtf32");
    if (tf32x3 != errors.end() && tf32x3->second > 2.0 * fp32->second) {
      std::snprintf(line, sizeof line,
                    "K=%lld: 3xtf32 max normalised error %.3e exceeds 2x fp32's %.3e", (long long)k,
                    tf32x3->second, fp32->second);
      violations.push_back(line);
    }
    const auto tf32 = errors.find("tf32");
    if (tf32 != errors.end() && !(tf32->second > fp32->second)) {
      std::snprintf(line, sizeof line,
                    "K=%lld: tf32 max normalised error %.3e is not larger than fp32's %.3e "
                    "(were the operands rounded to TF32?)",
                    (long long)k, tf32->second, fp32->second);
      violations.push_back(line);
    }
  }
  return violations;
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
  std::printf("vs fp32:    max normalised error / fp32's at the same K\n\n");
  std::printf("%6s  %-8s %10s %10s %10s %10s %8s  %-7s %s\n", "K", "precision", "rel max",
              "rel mean", "norm max", "norm mean", "vs fp32", "kernel", "path");
}

void print_row(const PrecisionResult& r, double fp32_normalised_max) {
  char versus[32] = "-";
  if (fp32_normalised_max > 0)
    std::snprintf(versus, sizeof versus, "%.2fx",
                  ratio(r.errors.normalised_max, fp32_normalised_max));
  std::printf("%6lld  %-8s %10.3e %10.3e %10.3e %10.3e %8s  %-7s %s\n", (long long)r.k,
              r.precision.c_str(), r.errors.relative_max, r.errors.relative_mean,
              r.errors.normalised_max, r.errors.normalised_mean, versus, r.kernel.c_str(),
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
                      {"normalised_mean", r.errors.normalised_mean}};
  if (fp32_normalised_max > 0)
    j["normalised_max_vs_fp32"] = ratio(r.errors.normalised_max, fp32_normalised_max);
  return j;
}

std::string help_text() {
  return "Error of clgemm's precision modes against a double reference, on random M x K and "
         "K x N inputs (row-major C = A * B, alpha 1, beta 0), per K and precision:\n  " +
         std::string(kRelativeDefinition) + "\n  " + kNormalisedDefinition +
         "\nExits 1 when a documented guarantee fails at some K: 3xtf32's max normalised error "
         "above 2x fp32's, or tf32's not above fp32's.";
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
  app.add_option("--platform", args.platform,
                 "platform index or name substring (default: $CLGEMM_PLATFORM)");
  app.add_option("--device", args.device,
                 "device index or name substring (default: $CLGEMM_DEVICE)");
  app.add_flag("--json", args.json, "print one JSON object instead of the table");
  clgemm::cli::add_common_flags(app);
}

// Above this many multiply-adds the double reference of one K takes a noticeable while.
constexpr double kLargeMultiplyAdds = 5e8;

int run_accuracy(Arguments& args) {
  if (args.kernel != "auto") args.kernel = clgemm::find_kernel(args.kernel).name;
  const std::filesystem::path dump(args.dump_dir);
  if (!args.dump_dir.empty())
    clgemm::cli::check_output_path("--dump", (dump / "manifest.json").string());
  clgemm::Context context(clgemm::DeviceRequest{args.platform, args.device});
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
      clgemm::GemmRecord timing;
      {
        const clgemm::cli::SlowNotice notice(clgemm::cli::build_notice(
            clgemm::cli::kernel_that_runs(context, args.kernel, problem, settings.precision),
            device));
        timing = context.sgemm(problem, in.a.data(), in.b.data(), c.data(), settings);
      }
      PrecisionResult r;
      r.k = k;
      r.precision = name;
      r.precision_path = timing.precision_path;
      r.kernel = timing.kernel;
      r.errors = measure_errors(c, ref, in.m, in.n, args.tiny);
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

  const auto violations = check_guarantees(results);
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
                             {"passed", violations.empty()}};
    std::cout << report.dump(2) << std::endl;
  } else {
    std::printf("\nguarantees (3xtf32 <= 2x fp32, tf32 > fp32, max normalised error): %s\n",
                violations.empty() ? "hold" : "VIOLATED");
    for (const auto& v : violations) std::printf("  %s\n", v.c_str());
    if (!args.dump_dir.empty())
      std::printf("inputs written to %s (manifest.json)\n", args.dump_dir.c_str());
  }
  return violations.empty() ? clgemm::cli::kSuccess : clgemm::cli::kFailed;
}

}  // namespace

int main(int argc, char** argv) {
  Arguments args;
  CLI::App app{help_text(), "clgemm-accuracy"};
  add_options(app, args);
  return clgemm::cli::run(app, argc, argv, [&] { return run_accuracy(args); });
}
