// clgemm-bench: sweeps GEMM shapes for chosen clgemm kernels and the peers found at build time
// (CLBlast on the same buffers and queue; OpenBLAS on a CPU device), all in one process, and
// writes a table, CSV and JSON, with each kernel's arithmetic intensity and roofline ceiling from
// its traffic model (tools/plot_bench.py draws the JSON as a chart). Each figure is the median of
// repeated calls, each timed from the call to the end of the queue's work, after a warm-up call
// that also verifies the result.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "bench_peers.hpp"
#include "clgemm/clgemm.hpp"
#include "cli_support.hpp"

namespace {

using clgemm::bench::Operands;
using Clock = std::chrono::steady_clock;

struct Result {
  std::string contender;
  clgemm::GemmProblem problem;
  double median_seconds = 0;
  int runs = 0;
  bool verified = false, passed = false;
  // clgemm kernels only (0 otherwise): FLOP per byte of the traffic model for the kernel and
  // parameters that ran, and the roofline min(peak, bandwidth * intensity) where known.
  double intensity = 0, ceiling_gflops = 0;
  double gflops() const { return problem.flops() / median_seconds * 1e-9; }
};

// "MxNxK" (each from 1 to INT32_MAX, nothing else) as a packed problem.
clgemm::GemmProblem parse_shape(const std::string& text) {
  const auto npos = std::string::npos;
  const auto x1 = text.find('x'), x2 = x1 == npos ? npos : text.find('x', x1 + 1);
  if (x2 == npos || text.find('x', x2 + 1) != npos)
    throw clgemm::Error(clgemm::ErrorCode::InvalidArgument,
                        "--shapes: expected MxNxK, e.g. 128x2048x64, got '" + text + "'");
  auto size = [&](std::size_t from, std::size_t to) {
    return clgemm::cli::parse_integer(text.substr(from, to - from), 1, INT32_MAX,
                                      "--shapes '" + text + "'");
  };
  return clgemm::GemmProblem::packed(size(0, x1), size(x1 + 1, x2), size(x2 + 1, text.size()));
}

std::vector<clgemm::GemmProblem> parse_shapes(const std::vector<long>& sizes,
                                              const std::vector<std::string>& shapes) {
  std::vector<clgemm::GemmProblem> out;
  for (long n : sizes) out.push_back(clgemm::GemmProblem::packed(n, n, n));
  for (const auto& text : shapes) out.push_back(parse_shape(text));
  return out;
}

// Calls `run` once to warm up (and verifies what it produced with the shared policy), then
// repeats it (clgemm::repeat_timed) until `min_time` has passed and at least three calls were
// made; returns the median call time (clgemm::statistics).
// `first_call_notice` (when not empty) is printed if the first call, which builds the
// contender's kernels, takes more than a moment.
Result measure(const std::string& name, Operands& o, const std::function<void()>& run,
               const std::function<std::vector<float>()>& result, double min_time,
               const std::string& first_call_notice,
               clgemm::Precision precision = clgemm::Precision::FP32) {
  Result r{name, o.problem};
  {
    std::optional<clgemm::cli::SlowNotice> notice;
    if (!first_call_notice.empty()) notice.emplace(first_call_notice);
    run();
  }
  const auto c = result();
  const auto check =
      clgemm::verify_result(o.problem, o.a.data(), o.b.data(), o.c.data(), c.data(), precision);
  r.verified = true;
  r.passed = check.passed;
  clgemm::RepeatPolicy policy;  // the first call above was the warm-up
  policy.warmup_runs = 0;
  policy.max_runs = 200;
  policy.min_seconds = min_time;
  const auto times = clgemm::statistics(clgemm::repeat_timed(run, policy));
  r.median_seconds = times.median;
  r.runs = int(times.count);
  return r;
}

// min(peak, bandwidth * intensity) with whichever of the two is known; 0 when neither is.
double roofline(double peak_gflops, double bandwidth_gbs, double intensity) {
  double ceiling = bandwidth_gbs > 0 ? bandwidth_gbs * intensity : 0;
  if (peak_gflops > 0) ceiling = ceiling > 0 ? std::min(ceiling, peak_gflops) : peak_gflops;
  return ceiling;
}

// A contender "kernel" or "kernel@precision" (e.g. "auto@tf32"): fp32 when no precision is given.
std::pair<std::string, clgemm::Precision> parse_contender(const std::string& text) {
  const auto at = text.find('@');
  if (at == std::string::npos) return {text, clgemm::Precision::FP32};
  return {text.substr(0, at), clgemm::parse_precision(text.substr(at + 1))};
}

struct Arguments {
  std::vector<std::string> kernels = {"blocked", "vectorized"};
  std::vector<long> sizes;
  std::vector<std::string> shapes;
  std::vector<std::string> peers = {"all"};
  double min_time = 0.3;
  double peak_gflops = 0, bandwidth_gbs = 0;
  std::string csv_path, json_path;
  clgemm::cli::DeviceOptions where;  // --platform, --device
};

void add_options(CLI::App& app, Arguments& args) {
  app.add_option("--kernels", args.kernels,
                 "clgemm kernels to measure, each optionally with a precision: auto@tf32, "
                 "tensorcore@3xtf32 (fp32 when none is given)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--sizes", args.sizes,
                 "square sizes (default: 128 to 8192 on a GPU, to 2048 on a CPU)")
      ->delimiter(',')
      ->check(clgemm::cli::size_range());
  app.add_option("--shapes", args.shapes,
                 "further MxNxK shapes (default: tall, wide and small-K ones)")
      ->delimiter(',');
  app.add_option("--peers", args.peers,
                 "peers to include: all (those this build has), none, or names (clblast, "
                 "openblas)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--min-time", args.min_time, "seconds of repeated calls per measurement")
      ->capture_default_str()
      ->check(clgemm::cli::finite_range(0, 3600));
  app.add_option("--csv", args.csv_path, "write the results as CSV");
  app.add_option("--json", args.json_path,
                 "write the results as JSON (tools/plot_bench.py draws it as PNG or SVG)");
  app.add_option("--peak-gflops", args.peak_gflops,
                 "device peak GFLOP/s for the ceilings (default: unknown, not drawn; "
                 "H200: 64500)")
      ->check(clgemm::cli::finite_range(0, 1e9));
  app.add_option("--bandwidth-gbs", args.bandwidth_gbs,
                 "device memory bandwidth in GB/s for the ceilings (default: unknown, not "
                 "drawn; H200: about 4100)")
      ->check(clgemm::cli::finite_range(0, 1e9));
  clgemm::cli::add_device_flags(app, args.where);
}

// The CSV and JSON of all results (unknown values: empty in CSV, null in JSON). Each JSON row
// also names the platform and the peaks its ceiling comes from, for the chart.
std::pair<std::string, std::string> reports(const clgemm::DeviceLimits& limits,
                                            const std::vector<Result>& results,
                                            double peak_gflops, double bandwidth_gbs) {
  nlohmann::json json = nlohmann::json::array();
  std::ostringstream csv;
  csv << "device,contender,m,n,k,median_seconds,gflops,runs,verified,"
         "intensity_flop_per_byte,ceiling_gflops\n";
  auto known = [](double v) { return v > 0 ? nlohmann::json(v) : nlohmann::json(); };
  auto cell = [](double v) { return v > 0 ? std::to_string(v) : std::string(); };
  for (const auto& r : results) {
    json.push_back({{"device", limits.name},
                    {"platform", limits.platform_name},
                    {"contender", r.contender},
                    {"m", r.problem.m},
                    {"n", r.problem.n},
                    {"k", r.problem.k},
                    {"median_seconds", r.median_seconds},
                    {"gflops", r.gflops()},
                    {"runs", r.runs},
                    {"verified", r.passed},
                    {"intensity_flop_per_byte", known(r.intensity)},
                    {"ceiling_gflops", known(r.ceiling_gflops)},
                    {"peak_gflops", known(peak_gflops)},
                    {"bandwidth_gbs", known(bandwidth_gbs)}});
    csv << '"' << limits.name << "\"," << r.contender << ',' << r.problem.m << ',' << r.problem.n
        << ',' << r.problem.k << ',' << r.median_seconds << ',' << r.gflops() << ',' << r.runs
        << ',' << (r.passed ? "true" : "false") << ',' << cell(r.intensity) << ','
        << cell(r.ceiling_gflops) << '\n';
  }
  return {csv.str(), json.dump(1) + "\n"};
}

int run_benchmark(Arguments& args) {
  // Everything that can be checked without the device fails before any work.
  for (const auto& k : args.kernels)
    if (const auto [name, precision] = parse_contender(k); name != "auto")
      clgemm::find_kernel(name);
  auto problems = parse_shapes(args.sizes, args.shapes);
  for (const auto& [flag, path] : {std::pair{"--csv", &args.csv_path}, {"--json", &args.json_path}})
    if (!path->empty()) clgemm::cli::check_output_path(flag, *path);

  auto context = clgemm::cli::open_context(args.where);
  const auto& limits = context.device();
  const bool cpu = limits.type == clgemm::DeviceType::CPU;
  if (args.sizes.empty() && args.shapes.empty()) {
    for (long n = 128; n <= (cpu ? 2048 : 8192); n *= 2) args.sizes.push_back(n);
    args.shapes = cpu ? std::vector<std::string>{"1023x1023x1023", "1025x1025x1025",
                                                 "2048x2048x128", "128x2048x2048", "2048x64x2048"}
                      : std::vector<std::string>{"4095x4095x4095", "4097x4097x4097",
                                                 "8192x8192x256", "256x8192x8192", "8192x128x8192"};
    problems = parse_shapes(args.sizes, args.shapes);
  }
  auto peers = clgemm::bench::select_peers(args.peers, cpu);
  for (const auto& problem : problems) clgemm::check_fits_device(problem, limits);

  std::cout << "device: " << limits.name << " on '" << limits.platform_name << "', driver "
            << limits.driver_version << "\n";
  std::printf("%-22s %-16s %10s %12s %9s %7s\n", "M x N x K", "contender", "median ms", "GFLOP/s",
              "vs clblast", "verify");
  std::fflush(stdout);
  cl_int status = CL_SUCCESS;
  cl_command_queue queue =
      clCreateCommandQueue(context.opencl_context(), context.opencl_device(), 0, &status);
  if (status != CL_SUCCESS) throw clgemm::OpenCLError("clCreateCommandQueue", status);
  std::vector<Result> results;
  bool all_passed = true;
  for (const auto& problem : problems) {
    Operands o;
    o.problem = problem;
    o.a = clgemm::random_matrix(problem.a_elements(), 1);
    o.b = clgemm::random_matrix(problem.b_elements(), 2);
    o.c = clgemm::random_matrix(problem.c_elements(), 3);
    o.a_mem = clgemm::cli::device_copy(context.opencl_context(), o.a);
    o.b_mem = clgemm::cli::device_copy(context.opencl_context(), o.b);
    o.c_mem = clgemm::cli::device_copy(context.opencl_context(), o.c);
    o.queue = queue;
    auto read_c = [&] {
      std::vector<float> c(o.c.size());
      clEnqueueReadBuffer(queue, o.c_mem, CL_TRUE, 0, c.size() * sizeof(float), c.data(), 0,
                          nullptr, nullptr);
      return c;
    };
    std::vector<Result> row;
    for (const auto& contender : args.kernels) {
      const auto [kernel, precision] = parse_contender(contender);
      clgemm::RunSettings settings;
      settings.kernel = kernel;
      settings.precision = precision;
      clgemm::GemmRecord ran;  // what the library says it ran
      auto run = [&] {
        ran = context.sgemm(problem, o.a_mem, o.b_mem, o.c_mem, queue, nullptr, settings);
        clFinish(queue);
      };
      const std::string notice = clgemm::cli::build_notice(
          clgemm::cli::kernel_that_runs(context, kernel, problem, precision), limits);
      Result r = measure(contender, o, run, read_c, args.min_time, notice, precision);
      r.intensity = clgemm::arithmetic_intensity(ran.kernel, ran.options, problem.m, problem.n,
                                                 problem.k, problem.beta != 0.0f);
      r.ceiling_gflops = roofline(args.peak_gflops, args.bandwidth_gbs, r.intensity);
      row.push_back(r);
    }
    for (auto& peer : peers) {
      std::vector<float> host_c = o.c;
      auto run = [&] { peer.run(o, host_c); };
      auto result = [&] { return peer.on_host ? host_c : read_c(); };
      const std::string notice =
          peer.on_host ? "" : "peer '" + peer.name + "' compiling its kernels on first use ...";
      row.push_back(measure(peer.name, o, run, result, args.min_time, notice));
    }
    double clblast = 0;
    for (const auto& r : row)
      if (r.contender == "clblast") clblast = r.median_seconds;
    char shape[64];
    std::snprintf(shape, sizeof shape, "%ldx%ldx%ld", long(problem.m), long(problem.n),
                  long(problem.k));
    for (const auto& r : row) {
      char ratio[16] = "-";
      if (clblast > 0) std::snprintf(ratio, sizeof ratio, "%.2fx", clblast / r.median_seconds);
      std::printf("%-22s %-16s %10.3f %12.1f %9s %7s\n", shape, r.contender.c_str(),
                  r.median_seconds * 1e3, r.gflops(), ratio, r.passed ? "passed" : "FAILED");
      all_passed = all_passed && r.passed;
      results.push_back(r);
    }
    std::fflush(stdout);
    for (cl_mem m : {o.a_mem, o.b_mem, o.c_mem}) clReleaseMemObject(m);
  }
  clReleaseCommandQueue(queue);

  const auto [csv, json] = reports(limits, results, args.peak_gflops, args.bandwidth_gbs);
  if (!args.csv_path.empty()) clgemm::cli::write_output("--csv", args.csv_path, csv);
  if (!args.json_path.empty()) clgemm::cli::write_output("--json", args.json_path, json);
  return all_passed ? clgemm::cli::kSuccess : clgemm::cli::kFailed;
}

}  // namespace

int main(int argc, char** argv) {
  Arguments args;
  CLI::App app{"Benchmark clgemm kernels against the peers on the same device, in one process.",
               "clgemm-bench"};
  add_options(app, args);
  return clgemm::cli::run_tool(app, argc, argv, [&] { return run_benchmark(args); });
}
