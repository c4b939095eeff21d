// clgemm-run: builds one kernel (or the whole ladder), runs it on random matrices (one product or
// a batch, with or without a fused bias and activation), verifies the result against the
// double-accumulated host reference and reports the enqueue + finish time and GFLOP/s. Build,
// upload and download times are reported on lines of their own. --warm-cache and --cold are
// modes of their own (run_modes.hpp).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>

#include "clgemm/clgemm.hpp"
#include "common/cli_support.hpp"
#include "run/run_modes.hpp"
#include "support/delayed_notice.hpp"

namespace {

struct Arguments {
  std::string kernel = "auto";
  std::string precision = "fp32";
  std::int64_t m = 0, n = 1024, k = 0;
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  float alpha = 1.0f, beta = 0.0f;
  int reps = 0;  // 0: as many as fill about a second, between 3 and 50
  int warmup = 1;
  bool verify = true;
  bool json = false;
  clgemm::cli::DeviceOptions where;  // --platform, --device
  std::string layout = "row", trans_a = "n", trans_b = "n";
  std::vector<std::string> defines;
  // A batch: strides in elements (-1: packed, each product right after the previous one).
  std::int64_t batch = 1;
  std::int64_t stride_a = -1, stride_b = -1, stride_c = -1;
  bool table = false;  // a host product table with the strides' placements
  // The fused epilogue.
  std::string bias = "none", activation = "none";
  std::int64_t bias_stride = 0;
  std::vector<double> clamp;  // LO,HI for --act clamp
  bool warm_cache = false;    // --warm-cache
  bool cold = false;          // --cold
};

// The inputs of one run: A, B and C, and the product table and bias vector the problem points
// into (so a copy of the problem must not outlive them).
struct Inputs {
  std::vector<clgemm::BatchProduct> products;
  std::vector<float> bias;
};

// Above this many multiply-adds the random inputs, the runs and the verification each take a
// noticeable while, so clgemm-run says on stderr what it is doing.
constexpr double kLargeMultiplyAdds = 5e8;

bool is_large(const clgemm::GemmProblem& problem) {
  return problem.flops() / 2 >= kLargeMultiplyAdds;
}

std::string milliseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f ms", seconds * 1e3);
  return text;
}

// "batch=8 (strides 64, 64, 64)" or "batch=8 (product table)"; empty for a single product.
std::string batch_text(const clgemm::GemmProblem& problem) {
  if (problem.batch == 1) return "";
  if (problem.products.given())
    return " batch=" + std::to_string(problem.batch) + " (product table)";
  return " batch=" + std::to_string(problem.batch) +
         " stride_a=" + std::to_string(problem.stride_a) +
         " stride_b=" + std::to_string(problem.stride_b) +
         " stride_c=" + std::to_string(problem.stride_c);
}

// "a,b" as {"a", "b"}; "" as {""}.
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    items.push_back(text.substr(start, comma - start));
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

// One kernel's measurement (clgemm/measure.hpp): the first call builds the program and is
// verified, then come the --warmup and the timed runs.
using KernelRun = clgemm::GemmMeasurement;

KernelRun run_kernel(clgemm::Context& context, const std::string& kernel,
                     const clgemm::GemmProblem& problem, const Arguments& args,
                     const clgemm::KernelOptions& overrides, const std::vector<float>& a,
                     const std::vector<float>& b, const std::vector<float>& c_initial) {
  clgemm::RunSettings settings;
  settings.kernel = kernel;
  settings.overrides = overrides;
  settings.precision = clgemm::parse_precision(args.precision);
  // Without --reps: about one second of calls, at least 3 and at most 50.
  clgemm::RepeatPolicy policy;
  policy.warmup_runs = args.warmup;
  if (args.reps > 0) policy.min_runs = policy.max_runs = args.reps, policy.min_seconds = 0;
  if (is_large(problem))
    clgemm::cli::note(
        "timing kernel '" + kernel + "': a first call, " + std::to_string(policy.warmup_runs) +
        " warm-up and " + (args.reps > 0 ? std::to_string(args.reps) : std::string("3 to 50")) +
        " timed runs" +
        (args.verify ? ", the first call verified against the double reference" : ""));
  std::vector<float> c = c_initial;
  const clgemm::detail::DelayedNotice notice(
      clgemm::cli::noting(clgemm::cli::build_notice(
          clgemm::cli::kernel_that_runs(context, kernel, problem, settings.precision),
          context.device())),
      1.0, clgemm::cli::compiling);
  return clgemm::measure_gemm(context, problem, a.data(), b.data(), c.data(), settings, policy,
                              args.verify);
}

std::string build_origin(const clgemm::GemmRecord& r) {
  switch (r.origin) {
    case clgemm::ProgramOrigin::Memory:
      return "already built in this process";
    case clgemm::ProgramOrigin::DiskCache:
      return "warm: loaded from the disk cache";
    case clgemm::ProgramOrigin::Compiled:
      return "cold: compiled";
    case clgemm::ProgramOrigin::None:
      break;
  }
  return "nothing to build";
}

nlohmann::json to_json(const clgemm::DeviceLimits& device, const clgemm::GemmProblem& problem,
                       const KernelRun& run) {
  const double gflops = run.gflops();
  nlohmann::json j = {
      {"device", device.name},
      {"platform", device.platform_name},
      {"kernel", run.record.kernel},
      {"kernel_choice", run.record.kernel_choice},
      {"precision", clgemm::precision_name(run.record.precision)},
      {"precision_path", run.record.precision_path},
      {"options", run.record.options},
      {"build_options", run.record.build_options},
      {"m", problem.m},
      {"n", problem.n},
      {"k", problem.k},
      {"layout", problem.layout == clgemm::Layout::RowMajor ? "row" : "col"},
      {"transa", clgemm::is_transposed(problem.trans_a) ? "t" : "n"},
      {"transb", clgemm::is_transposed(problem.trans_b) ? "t" : "n"},
      {"lda", problem.lda},
      {"ldb", problem.ldb},
      {"ldc", problem.ldc},
      {"alpha", problem.alpha},
      {"beta", problem.beta},
      {"batch", problem.batch},
      {"product_table", problem.products.given()},
      {"epilogue", run.record.epilogue},
      {"bias", clgemm::bias_name(problem.epilogue.bias)},
      {"bias_stride", problem.epilogue.bias_stride},
      {"activation", clgemm::activation_name(problem.epilogue.activation)},
      {"build_seconds", run.record.build_seconds},
      {"build_origin", build_origin(run.record)},
      {"upload_seconds", run.upload_seconds},
      {"download_seconds", run.download_seconds},
      {"run_seconds", run.wall_seconds},
      {"device_seconds", run.device_seconds},
      {"min_seconds", run.wall.min},
      {"median_seconds", run.wall.median},
      {"mean_seconds", run.wall.mean},
      {"device_median_seconds", run.device.median},
      {"gflops", gflops},
  };
  if (!problem.products.given()) {
    j["stride_a"] = problem.stride_a;
    j["stride_b"] = problem.stride_b;
    j["stride_c"] = problem.stride_c;
  }
  if (problem.epilogue.activation == clgemm::Activation::Clamp) {
    j["clamp_low"] = problem.epilogue.clamp_low;
    j["clamp_high"] = problem.epilogue.clamp_high;
  }
  if (run.verified)
    j["verification"] = {{"passed", run.verification.passed},
                         {"sampled", run.verification.sampled},
                         {"checked", run.verification.checked},
                         {"failures", run.verification.failures},
                         {"worst_error_over_tolerance", run.verification.worst_ratio}};
  return j;
}

std::string verification_text(const KernelRun& run) {
  if (!run.verified) return "not checked (--no-verify)";
  const auto& v = run.verification;
  std::ostringstream out;
  out.precision(3);
  out << (v.passed ? "passed" : "FAILED") << " (" << v.checked << " elements"
      << (v.sampled ? " in sampled rows and columns; the full reference would take too long" : "")
      << ", worst error " << v.worst_ratio << " of tolerance)";
  if (!v.passed) out << ": " << v.failures << " failures, first " << v.first_failure;
  return out.str();
}

void print_single(const KernelRun& run) {
  const auto& t = run.record;
  std::cout << "kernel:    " << t.kernel << "\n";
  if (!t.kernel_choice.empty()) std::cout << "choice:    " << t.kernel_choice << "\n";
  // The path only when it says more than the precision's name (tf32: tensor cores or portable).
  const std::string precision = clgemm::precision_name(t.precision);
  std::cout << "precision: " << precision
            << (t.precision_path.empty() || t.precision_path == precision ? ""
                                                                          : ", " + t.precision_path)
            << "\n";
  if (t.batch != 1)
    std::cout << "batch:     " << t.batch
              << (t.product_table ? " products, placed by a product table" : " strided products")
              << "\n";
  std::cout << "options:   " << t.build_options << "\n"
            << "build:     " << milliseconds(t.build_seconds) << " (" << build_origin(t) << ")\n"
            << "upload:    " << milliseconds(run.upload_seconds) << "\n"
            << "download:  " << milliseconds(run.download_seconds) << "\n"
            << "time:      min " << milliseconds(run.wall.min) << ", median "
            << milliseconds(run.wall.median) << ", mean " << milliseconds(run.wall.mean) << " ("
            << run.wall.count << " runs of enqueue + finish, after warm-up)\n"
            << "device:    median " << milliseconds(run.device.median)
            << " (the kernel alone, from profiling events)\n";
  std::printf("speed:     %.2f GFLOP/s (from the median)\n", run.gflops());
  std::cout << "verify:    " << verification_text(run) << "\n";
}

void print_table(const std::vector<KernelRun>& runs) {
  std::printf("\n%-11s %12s %12s %10s  %-8s %s\n", "kernel", "median ms", "GFLOP/s", "vs base",
              "verify", "options");
  double base = 0;
  for (const auto& run : runs)
    if (run.record.kernel == "base") base = run.wall.median;
  for (const auto& run : runs) {
    const double gflops = run.gflops();
    char speedup[32] = "-";
    if (base > 0) std::snprintf(speedup, sizeof speedup, "%.1fx", base / run.wall.median);
    const char* verdict = !run.verified ? "skipped" : run.verification.passed ? "passed" : "FAILED";
    std::printf("%-11s %12.3f %12.2f %10s  %-8s %s\n", run.record.kernel.c_str(),
                run.wall.median * 1e3, gflops, speedup, verdict, run.record.build_options.c_str());
  }
}

// --precision: one precision name, or (for --warm-cache) several separated by commas.
CLI::Validator precision_list() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        for (const auto& name : split_list(text))
          if (name != "fp32" && name != "tf32" && name != "3xtf32")
            return "'" + name + "' is not one of fp32, tf32, 3xtf32";
        return {};
      },
      "fp32|tf32|3xtf32[,...]", "PRECISION");
}

void add_options(CLI::App& app, Arguments& args) {
  std::string kernel_names = "auto (the tuned choice), all (the whole ladder)";
  for (const auto& k : clgemm::kernel_catalog()) kernel_names += ", " + k.name;
  app.add_option("--kernel", args.kernel, "kernel to run: " + kernel_names)->capture_default_str();
  const auto size = clgemm::cli::size_range();
  app.add_option("--m", args.m, "rows of A and C (default: N)")->check(size);
  app.add_option("--n", args.n, "columns of B and C")->capture_default_str()->check(size);
  app.add_option("--k", args.k, "columns of A, rows of B (default: N)")->check(size);
  app.add_option("--layout", args.layout, "storage order of A, B and C: row or col")
      ->check(CLI::IsMember({"row", "col"}))
      ->capture_default_str();
  app.add_option("--transa", args.trans_a, "n: op(A) = A, t: op(A) = A^T")
      ->check(CLI::IsMember({"n", "t"}))
      ->capture_default_str();
  app.add_option("--transb", args.trans_b, "n: op(B) = B, t: op(B) = B^T")
      ->check(CLI::IsMember({"n", "t"}))
      ->capture_default_str();
  app.add_option("--lda", args.lda, "leading dimension of A (default: the smallest valid)")
      ->check(size);
  app.add_option("--ldb", args.ldb, "leading dimension of B (default: the smallest valid)")
      ->check(size);
  app.add_option("--ldc", args.ldc, "leading dimension of C (default: the smallest valid)")
      ->check(size);
  const auto scale = clgemm::cli::finite_range(-FLT_MAX, FLT_MAX);
  app.add_option("--alpha", args.alpha, "scale of A * B")->capture_default_str()->check(scale);
  app.add_option("--beta", args.beta, "scale of C")->capture_default_str()->check(scale);
  app.add_option("--reps", args.reps, "timed runs (default: enough for about one second, 3 to 50)")
      ->check(CLI::Range(1, clgemm::cli::kMaxRuns));
  app.add_option("--warmup", args.warmup,
                 "untimed runs before the timed ones (after the first "
                 "call, which builds the kernel and runs it once)")
      ->capture_default_str()
      ->check(CLI::Range(0, clgemm::cli::kMaxRuns));
  app.add_option("--batch", args.batch, "products of the same shape computed in one call")
      ->capture_default_str()
      ->check(size);
  const auto stride = CLI::Range(std::int64_t(0), std::int64_t(INT64_MAX));
  app.add_option("--stride-a", args.stride_a,
                 "elements between the starts of consecutive products' A (default: packed, "
                 "one A's extent; 0 broadcasts one A)")
      ->check(stride);
  app.add_option("--stride-b", args.stride_b,
                 "elements between consecutive products' B (default: packed; 0 broadcasts one B)")
      ->check(stride);
  app.add_option("--stride-c", args.stride_c,
                 "elements between consecutive products' C (default: packed; at least one C's "
                 "extent)")
      ->check(stride);
  app.add_flag("--table", args.table,
               "give the batch as a host product table (CLBlast's GemmBatched form) with the "
               "placements the strides describe, instead of the strides");
  app.add_option("--bias", args.bias,
                 "add a bias vector before the activation: none, row (M values, one per row of "
                 "C) or col (N values, one per column)")
      ->check(CLI::IsMember({"none", "row", "col"}))
      ->capture_default_str();
  app.add_option("--bias-stride", args.bias_stride,
                 "elements between consecutive products' bias vectors (default 0: one vector "
                 "for the whole batch)")
      ->check(stride);
  app.add_option("--act", args.activation,
                 "activation applied last: none, relu, gelu (the tanh form) or clamp (needs "
                 "--clamp)")
      ->check(CLI::IsMember({"none", "relu", "gelu", "clamp"}))
      ->capture_default_str();
  app.add_option("--clamp", args.clamp, "the bounds LO,HI of --act clamp (LO <= HI)")
      ->delimiter(',')
      ->expected(2)
      ->type_name("LO,HI")
      ->check(clgemm::cli::finite_range(-FLT_MAX, FLT_MAX));
  app.add_option("-D,--define", args.defines, "override a kernel parameter, e.g. -D TILE=8");
  app.add_option("--precision", args.precision,
                 "fp32, tf32 (operands rounded to TF32) or 3xtf32 (three TF32 products, FP32 "
                 "accuracy); tensor cores where the device has them. With --warm-cache, a "
                 "comma-separated list")
      ->capture_default_str()
      ->check(precision_list());
  app.add_flag("--warm-cache", args.warm_cache,
               "build every program a call of --kernel (default auto) may need on this device "
               "into the disk cache, for each --precision, printing each; then exit");
  app.add_flag("--cold", args.cold,
               "measure the time to the first result with an empty cache: the first call of the "
               "problem (compile + compute), then again after warming the cache");
  clgemm::cli::add_device_flags(app, args.where);
  app.add_flag("--json", args.json, "print one JSON object per kernel run instead of text");
  app.add_flag("!--no-verify", args.verify, "skip the comparison with the host reference");
}

// The batch and the epilogue of `args` on `problem`, whose shape is set; the product table and
// the bias vector it points to are kept in `inputs`.
void add_batch_and_epilogue(const Arguments& args, clgemm::GemmProblem& problem, Inputs& inputs) {
  problem.batch = args.batch;
  problem.stride_a = args.stride_a >= 0 ? args.stride_a : std::int64_t(problem.a_extent());
  problem.stride_b = args.stride_b >= 0 ? args.stride_b : std::int64_t(problem.b_extent());
  problem.stride_c = args.stride_c >= 0 ? args.stride_c : std::int64_t(problem.c_extent());
  if (args.table) {
    clgemm::validate_problem(problem);  // the strides' own checks name the flags' values
    for (std::int64_t p = 0; p < problem.batch; ++p)
      inputs.products.push_back({cl_ulong(p * problem.stride_a), cl_ulong(p * problem.stride_b),
                                 cl_ulong(p * problem.stride_c), problem.alpha, problem.beta});
    problem.stride_a = problem.stride_b = problem.stride_c = 0;
    problem.products.host = inputs.products.data();
  }
  auto& e = problem.epilogue;
  e.bias = args.bias == "row"   ? clgemm::Bias::PerRow
           : args.bias == "col" ? clgemm::Bias::PerColumn
                                : clgemm::Bias::None;
  if (args.bias_stride != 0 && e.bias == clgemm::Bias::None)
    throw clgemm::Error(clgemm::ErrorCode::InvalidArgument,
                        "--bias-stride is given, but --bias is none: say row or col",
                        clgemm::Argument::Bias);
  e.bias_stride = args.bias_stride;
  e.activation = args.activation == "relu"    ? clgemm::Activation::ReLU
                 : args.activation == "gelu"  ? clgemm::Activation::GELU
                 : args.activation == "clamp" ? clgemm::Activation::Clamp
                                              : clgemm::Activation::None;
  if (e.activation == clgemm::Activation::Clamp && args.clamp.empty())
    throw clgemm::Error(clgemm::ErrorCode::InvalidArgument,
                        "--act clamp needs its bounds: --clamp LO,HI",
                        clgemm::Argument::Activation);
  if (e.activation != clgemm::Activation::Clamp && !args.clamp.empty())
    throw clgemm::Error(
        clgemm::ErrorCode::InvalidArgument,
        "--clamp is given, but the activation is " + args.activation + ": say --act clamp",
        clgemm::Argument::Activation);
  if (!args.clamp.empty() && args.clamp[0] > args.clamp[1]) {
    std::ostringstream text;
    text << "--clamp " << args.clamp[0] << "," << args.clamp[1] << ": LO must not be above HI";
    throw clgemm::Error(clgemm::ErrorCode::InvalidArgument, text.str(),
                        clgemm::Argument::Activation);
  }
  if (!args.clamp.empty()) e.clamp_low = float(args.clamp[0]), e.clamp_high = float(args.clamp[1]);
}

clgemm::GemmProblem make_problem(const Arguments& args, Inputs& inputs) {
  clgemm::GemmProblem problem;
  problem.n = args.n;
  problem.m = args.m ? args.m : args.n;
  problem.k = args.k ? args.k : args.n;
  problem.layout = args.layout == "row" ? clgemm::Layout::RowMajor : clgemm::Layout::ColumnMajor;
  problem.trans_a = args.trans_a == "n" ? clgemm::Transpose::NoTrans : clgemm::Transpose::Trans;
  problem.trans_b = args.trans_b == "n" ? clgemm::Transpose::NoTrans : clgemm::Transpose::Trans;
  problem.lda = args.lda ? args.lda : problem.min_lda();
  problem.ldb = args.ldb ? args.ldb : problem.min_ldb();
  problem.ldc = args.ldc ? args.ldc : problem.min_ldc();
  problem.alpha = args.alpha;
  problem.beta = args.beta;
  add_batch_and_epilogue(args, problem, inputs);
  clgemm::validate_problem(problem);
  return problem;
}

// --warm-cache: the kernel (auto, or a name with -D overrides) in each precision listed.
int run_warm_cache(const Arguments& args) {
  if (args.kernel == "all")
    throw clgemm::Error(clgemm::ErrorCode::InvalidArgument,
                        "--warm-cache builds auto's programs or one kernel's, not --kernel all");
  clgemm::RunSettings settings;
  settings.kernel = args.kernel == "auto" ? "auto" : clgemm::find_kernel(args.kernel).name;
  settings.overrides = clgemm::cli::parse_defines(args.defines);
  std::vector<clgemm::Precision> precisions;
  for (const auto& name : split_list(args.precision))
    precisions.push_back(clgemm::parse_precision(name));
  return clgemm::run::warm_cache(args.where, settings, precisions);
}

int run_gemm(const Arguments& args) {
  if (args.warm_cache && args.cold)
    throw clgemm::Error(clgemm::ErrorCode::InvalidArgument,
                        "--warm-cache and --cold are two modes: give one");
  if (args.warm_cache) return run_warm_cache(args);
  if (args.precision.find(',') != std::string::npos)
    throw clgemm::Error(clgemm::ErrorCode::InvalidArgument,
                        "--precision takes one precision, except with --warm-cache");
  Inputs inputs;
  clgemm::GemmProblem problem = make_problem(args, inputs);
  const clgemm::KernelOptions overrides = clgemm::cli::parse_defines(args.defines);
  if (args.kernel == "all" && !overrides.empty())
    throw clgemm::Error(clgemm::ErrorCode::InvalidArgument,
                        "--define applies to one kernel; it cannot be used with --kernel all");
  const auto precision = clgemm::parse_precision(args.precision);
  const std::string kernel =  // unknown names fail before a device is opened
      args.kernel == "all" || args.kernel == "auto" ? args.kernel
                                                    : clgemm::find_kernel(args.kernel).name;
  if (args.cold) {
    if (kernel == "all")
      throw clgemm::Error(clgemm::ErrorCode::InvalidArgument,
                          "--cold measures one kernel (auto by default), not --kernel all");
    clgemm::RunSettings settings;
    settings.kernel = kernel;
    settings.overrides = overrides;
    settings.precision = precision;
    if (!inputs.bias.empty() || problem.epilogue.bias != clgemm::Bias::None)
      throw clgemm::Error(clgemm::ErrorCode::InvalidArgument,
                          "--cold measures a problem without a bias");
    return clgemm::run::cold_start(args.where, problem, settings, args.verify);
  }

  auto context = clgemm::cli::open_context(args.where);
  const auto& device = context.device();
  clgemm::check_fits_device(problem, device);  // before the host matrices are allocated
  std::vector<std::string> kernels;
  if (args.kernel == "all") {
    // Every kernel that computes the precision on this device.
    for (const auto& k : clgemm::kernel_catalog())
      if (k.runs(precision, context.has_tensor_cores(), k.needs_wgmma && context.has_wgmma()))
        kernels.push_back(k.name);
  } else {
    kernels.push_back(kernel);
  }

  if (!args.json) {
    std::cout << "device:    " << device.name << " [" << clgemm::device_type_name(device.type)
              << "] on '" << device.platform_name << "', " << device.compute_units
              << " compute units, max work-group " << device.max_work_group_size << "\n"
              << "problem:   " << (args.layout == "row" ? "row-major" : "column-major")
              << " C = alpha * " << (args.trans_a == "t" ? "A^T" : "A") << " * "
              << (args.trans_b == "t" ? "B^T" : "B") << " + beta * C, M=" << problem.m
              << " N=" << problem.n << " K=" << problem.k << " lda=" << problem.lda
              << " ldb=" << problem.ldb << " ldc=" << problem.ldc << " alpha=" << problem.alpha
              << " beta=" << problem.beta << batch_text(problem) << "\n";
    if (!problem.epilogue.is_identity())
      std::cout << "epilogue:  C = act(alpha * A * B + beta * C + bias): "
                << clgemm::describe_epilogue(problem.epilogue) << "\n";
    std::cout << std::flush;
  }

  if (is_large(problem)) {
    const double bytes =
        double(problem.a_elements() + problem.b_elements() + problem.c_elements()) * 4;
    clgemm::cli::note("filling A, B and C with random values (" +
                      std::to_string(std::llround(bytes / (1 << 20))) + " MiB)");
  }
  const auto a = clgemm::random_matrix(problem.a_elements(), 1);
  const auto b = clgemm::random_matrix(problem.b_elements(), 2);
  const auto c = clgemm::random_matrix(problem.c_elements(), 3);
  inputs.bias = clgemm::random_matrix(problem.bias_elements(), 4);
  if (!inputs.bias.empty()) problem.epilogue.bias_data = inputs.bias.data();
  std::vector<KernelRun> runs;
  bool all_passed = true;
  for (const auto& kernel : kernels) {
    runs.push_back(run_kernel(context, kernel, problem, args, overrides, a, b, c));
    all_passed = all_passed && (!runs.back().verified || runs.back().verification.passed);
    if (args.json) {
      std::cout << to_json(device, problem, runs.back()).dump() << std::endl;
    } else if (kernels.size() == 1) {
      print_single(runs.back());
    } else {
      std::cout << "ran:       " << kernel << " " << milliseconds(runs.back().wall.median)
                << " median, verify " << verification_text(runs.back()) << std::endl;
    }
  }
  if (!args.json && kernels.size() > 1) print_table(runs);
  return all_passed ? clgemm::cli::kSuccess : clgemm::cli::kFailed;
}

}  // namespace

int main(int argc, char** argv) {
  Arguments args;
  CLI::App app{
      "Run, time and verify clgemm kernels: C = act(alpha * A * B + beta * C + bias), "
      "one product or a batch.",
      "clgemm-run"};
  add_options(app, args);
  return clgemm::cli::run_tool(app, argc, argv, [&] { return run_gemm(args); });
}
