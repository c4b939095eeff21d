// clgemm-bench: measures GEMM shapes (a named suite from tools/bench/bench_suites.json, with
// batches and fused epilogues, square sizes, MxNxK shapes) for chosen clgemm kernels and the peers
// found at build time (CLBlast on the same buffers and queue; OpenBLAS on a CPU device;
// clgemm-unfused for epilogues), all in one process, and writes a table, CSV and JSON, with each
// kernel's arithmetic intensity and roofline ceiling from its traffic model
// (tools/bench/plot_bench.py draws the JSON as a chart). Each contender is timed two ways after a
// warm-up call that also verifies the result: per call (the median of calls each enqueued and
// finished on its own) and back to back (batches of calls with one finish, per call), and gets a
// geometric mean of GFLOP/s over the shapes (bench_report).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bench/bench_link.hpp"
#include "bench/bench_peers.hpp"
#include "bench/bench_report.hpp"
#include "bench/bench_suites.hpp"
#include "clgemm/clgemm.hpp"
#include "common/cli_support.hpp"
#include "support/delayed_notice.hpp"

namespace {

using clgemm::bench::Operands;
using Clock = std::chrono::steady_clock;

using clgemm::bench::Result;
using clgemm::bench::Shape;

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

// The packed problem of the same shape with op(A) = A^T and op(B) = B^T as asked.
void transpose_operands(clgemm::GemmProblem& problem, bool trans_a, bool trans_b) {
  auto shape = clgemm::bench::shape_of(problem);
  shape.trans_a = trans_a, shape.trans_b = trans_b;
  problem = clgemm::bench::problem_of(shape);
}

// The suite's shapes, then the squares of --sizes, then --shapes, each with the transposes of
// --transa and --transb.
std::vector<clgemm::GemmProblem> gather_shapes(const std::string& suite,
                                               const std::vector<long>& sizes,
                                               const std::vector<std::string>& shapes, bool trans_a,
                                               bool trans_b) {
  std::vector<clgemm::GemmProblem> out;
  if (!suite.empty())
    for (const auto& s : clgemm::bench::suite_shapes(suite))
      out.push_back(clgemm::bench::problem_of(s));
  for (long n : sizes) out.push_back(clgemm::GemmProblem::packed(n, n, n));
  for (const auto& text : shapes) out.push_back(parse_shape(text));
  for (auto& problem : out) transpose_operands(problem, trans_a, trans_b);
  return out;
}

// Whether `problem` is above --max-size S, which caps its multiply-adds, batch * M * N * K, at
// S^3 (0: no cap).
bool above_cap(const clgemm::GemmProblem& problem, std::int64_t max_size) {
  const double cap = double(max_size) * double(max_size) * double(max_size);
  return max_size > 0 && clgemm::bench::shape_of(problem).multiply_adds() > cap;
}

// Enqueues the contender's call once and waits for it to finish (the warm-up, which builds its
// kernels and is verified with the shared policy), then times it per call
// (clgemm::repeat_timed until `min_time` has passed and at least three calls were made, the
// median) and back to back (batches of `batch` calls with one `finish`, until `min_time` has
// passed again, two to five batches; `batch` 0: enough calls for half of `min_time`, 2 to 1000).
// `first_call_notice` (when not empty) is printed if the first call takes more than a moment
// (and, for clgemm's own calls, only while one of its programs compiles: `notice_only_while`).
Result measure(const std::string& name, Operands& o, const std::function<void()>& enqueue,
               const std::function<void()>& finish,
               const std::function<std::vector<float>()>& result, double min_time, int batch,
               const std::string& first_call_notice,
               clgemm::Precision precision = clgemm::Precision::FP32,
               const std::function<bool()>& notice_only_while = {}) {
  Result r;
  r.contender = r.kernel = name;
  r.problem = o.problem;
  {
    const clgemm::detail::DelayedNotice notice(clgemm::cli::noting(first_call_notice), 1.0,
                                               notice_only_while);
    enqueue();
    finish();
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
  const auto times = clgemm::statistics(clgemm::repeat_timed(
      [&] {
        enqueue();
        finish();
      },
      policy));
  r.median_seconds = times.median;
  r.runs = int(times.count);

  r.batch =
      batch > 0
          ? batch
          : int(std::clamp(std::ceil(0.5 * min_time / std::max(times.median, 1e-9)), 2.0, 1000.0));
  clgemm::RepeatPolicy batches;
  batches.warmup_runs = 0;
  batches.min_runs = 2;
  batches.max_runs = 5;
  batches.min_seconds = min_time;
  const auto batch_times = clgemm::statistics(clgemm::repeat_timed(
      [&] {
        for (int call = 0; call < r.batch; ++call) enqueue();
        finish();
      },
      batches));
  r.back_to_back_seconds = batch_times.median / r.batch;
  r.batches = int(batch_times.count);
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
  std::vector<std::string> kernels = {"auto", "blocked", "vectorized"};
  std::string suite, list_suite;
  std::int64_t max_size = 0;
  int batch = 0;
  std::vector<long> sizes;
  std::vector<std::string> shapes;
  std::vector<std::string> peers = {"all"};
  std::string trans_a = "n", trans_b = "n";  // --transa, --transb
  double min_time = 0.3;
  double peak_gflops = 0, bandwidth_gbs = 0;
  std::string csv_path, json_path;
  clgemm::cli::DeviceOptions where;  // --platform, --device
  bool host = false;                 // --host
  clgemm::bench::LinkOptions link;   // --link, --link-sizes, --repeat, --column-major
};

void add_options(CLI::App& app, Arguments& args) {
  app.add_option("--kernels", args.kernels,
                 "clgemm kernels to measure, each optionally with a precision: auto@tf32, "
                 "tensorcore@3xtf32 (fp32 when none is given)")
      ->delimiter(',')
      ->capture_default_str();
  std::string suites;
  for (const auto& name : clgemm::bench::suite_names())
    suites += (suites.empty() ? "" : ", ") + name;
  app.add_option("--suite", args.suite,
                 "a named suite of shapes from tools/bench/bench_suites.json: " + suites +
                     " (--sizes and --shapes add to it)");
  app.add_option("--list-suite", args.list_suite,
                 "print a suite's shapes (MxNxK, one a line, within --max-size) and exit");
  app.add_option("--max-size", args.max_size,
                 "skip the shapes whose batch*M*N*K is above S^3, for slow devices (e.g. 2048)")
      ->type_name("S")
      ->check(clgemm::cli::size_range());
  app.add_option("--batch", args.batch,
                 "calls per back-to-back batch (default: enough for half of --min-time, 2 to "
                 "1000)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--sizes", args.sizes,
                 "square sizes (without a suite, sizes or shapes: the suite default-gpu, or "
                 "default-cpu on a CPU)")
      ->delimiter(',')
      ->check(clgemm::cli::size_range());
  app.add_option("--shapes", args.shapes, "further MxNxK shapes")->delimiter(',');
  app.add_option("--transa", args.trans_a,
                 "n: op(A) = A, t: op(A) = A^T, for every shape (row-major, A stored K x M)")
      ->check(CLI::IsMember({"n", "t"}))
      ->capture_default_str();
  app.add_option("--transb", args.trans_b,
                 "n: op(B) = B, t: op(B) = B^T, for every shape (row-major, B stored N x K, as "
                 "a language model's weights usually are)")
      ->check(CLI::IsMember({"n", "t"}))
      ->capture_default_str();
  app.add_option("--peers", args.peers,
                 "peers to include: all (those this build has), none, or names (clblast: Gemm, "
                 "and GemmStridedBatched and GemmBatched for batches; openblas; clgemm-unfused: "
                 "clgemm's product then a separate bias and activation pass, for epilogues)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--min-time", args.min_time, "seconds of repeated calls per measurement")
      ->capture_default_str()
      ->check(clgemm::cli::finite_range(0, 3600));
  app.add_option("--csv", args.csv_path,
                 "write the results as CSV (rewritten after every shape, so a run cut short "
                 "keeps the shapes it finished)");
  app.add_option(
      "--json", args.json_path,
      "write the results as JSON, rewritten after every shape (tools/bench/plot_bench.py "
      "draws it as PNG or SVG)");
  app.add_option("--peak-gflops", args.peak_gflops,
                 "device peak GFLOP/s for the ceilings (default: unknown, not drawn; "
                 "H200: 64500)")
      ->check(clgemm::cli::finite_range(0, 1e9));
  app.add_option("--bandwidth-gbs", args.bandwidth_gbs,
                 "device memory bandwidth in GB/s for the ceilings (default: unknown, not "
                 "drawn; H200: about 4100)")
      ->check(clgemm::cli::finite_range(0, 1e9));
  app.add_flag("--link", args.link.measure_link,
               "measure the host<->device link (pageable and pinned copies at --link-sizes), "
               "then time the host-array call of each shape (--sizes, --shapes) beside the "
               "device-resident call and the link's bound");
  app.add_flag("--host", args.host,
               "time the host-array call (Context::sgemm on host arrays, wall time, best of "
               "--repeat) of each shape beside the device-resident call, instead of the kernel "
               "comparison");
  app.add_option("--link-sizes", args.link.mebibytes, "copy sizes for --link, in MiB")
      ->delimiter(',')
      ->check(CLI::Range(1, 65536))
      ->capture_default_str();
  app.add_option("--repeat", args.link.repeat, "--link and --host: best of this many calls")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_flag("--column-major", args.link.column_major,
               "--link and --host: the shapes as column-major products (as BLAS calls them)");
  clgemm::cli::add_device_flags(app, args.where);
}

int list_suite(const Arguments& args) {
  for (const auto& shape : clgemm::bench::suite_shapes(args.list_suite))
    if (!above_cap(clgemm::bench::problem_of(shape), args.max_size))
      std::cout << clgemm::bench::shape_text(shape) << "\n";
  return clgemm::cli::kSuccess;
}

int run_benchmark(Arguments& args) {
  if (!args.list_suite.empty()) return list_suite(args);
  // Everything that can be checked without the device fails before any work.
  for (const auto& k : args.kernels)
    if (const auto [name, precision] = parse_contender(k); name != "auto")
      clgemm::find_kernel(name);
  const bool trans_a = args.trans_a == "t", trans_b = args.trans_b == "t";
  auto problems = gather_shapes(args.suite, args.sizes, args.shapes, trans_a, trans_b);
  for (const auto& [flag, path] : {std::pair{"--csv", &args.csv_path}, {"--json", &args.json_path}})
    if (!path->empty()) clgemm::cli::check_output_path(flag, *path);

  auto context = clgemm::cli::open_context(args.where);
  const auto& limits = context.device();
  if (args.link.measure_link || args.host) {
    std::cout << "device: " << limits.name << " on '" << limits.platform_name << "', driver "
              << limits.driver_version << "\n";
    return clgemm::bench::run_link_benchmark(context, problems, args.link) ? clgemm::cli::kSuccess
                                                                           : clgemm::cli::kFailed;
  }
  const bool cpu = limits.type == clgemm::DeviceType::CPU;
  if (problems.empty())
    problems = gather_shapes(cpu ? "default-cpu" : "default-gpu", {}, {}, trans_a, trans_b);
  clgemm::bench::RunInfo info;
  info.suite = args.suite;
  info.max_size = args.max_size;
  info.peak_gflops = args.peak_gflops;
  info.bandwidth_gbs = args.bandwidth_gbs;
  std::vector<clgemm::GemmProblem> kept;
  for (const auto& problem : problems)
    if (above_cap(problem, args.max_size))
      info.skipped.push_back(clgemm::bench::shape_of(problem));
    else
      kept.push_back(problem);
  problems = kept;
  auto peers = clgemm::bench::select_peers(args.peers, cpu);
  for (const auto& problem : problems) clgemm::check_fits_device(problem, limits);

  std::cout << "device: " << limits.name << " on '" << limits.platform_name << "', driver "
            << limits.driver_version << "\n";
  if (!args.suite.empty())
    std::cout << "suite:  " << args.suite << " (tools/bench/bench_suites.json)\n";
  if (!info.skipped.empty()) {
    std::cout << "skipped " << info.skipped.size() << " shape(s) with M*N*K above --max-size "
              << args.max_size << " (" << args.max_size << "^3):";
    for (const auto& s : info.skipped) std::cout << " " << clgemm::bench::shape_text(s);
    std::cout << "\n";
  }
  clgemm::bench::print_header();
  cl_int status = CL_SUCCESS;
  cl_command_queue queue =
      clCreateCommandQueue(context.opencl_context(), context.opencl_device(), 0, &status);
  if (status != CL_SUCCESS) throw clgemm::OpenCLError("clCreateCommandQueue", status);
  const auto write_reports = [&](const std::vector<Result>& so_far) {
    if (args.csv_path.empty() && args.json_path.empty()) return;
    const auto [csv, json] = clgemm::bench::reports(limits, info, so_far);
    if (!args.csv_path.empty()) clgemm::cli::write_output("--csv", args.csv_path, csv);
    if (!args.json_path.empty()) clgemm::cli::write_output("--json", args.json_path, json);
  };
  std::vector<Result> results;
  bool all_passed = true;
  for (const auto& shape_problem : problems) {
    Operands o;
    o.a = clgemm::random_matrix(shape_problem.a_elements(), 1);
    o.b = clgemm::random_matrix(shape_problem.b_elements(), 2);
    o.c = clgemm::random_matrix(shape_problem.c_elements(), 3);
    o.bias = clgemm::random_matrix(shape_problem.bias_elements(), 4);
    o.a_mem = clgemm::cli::device_copy(context.opencl_context(), o.a);
    o.b_mem = clgemm::cli::device_copy(context.opencl_context(), o.b);
    o.c_mem = clgemm::cli::device_copy(context.opencl_context(), o.c);
    if (!o.bias.empty()) o.bias_mem = clgemm::cli::device_copy(context.opencl_context(), o.bias);
    o.queue = queue;
    o.context = &context;
    // The host view (verified against) reads the bias from o.bias, the calls from o.bias_mem.
    o.problem = shape_problem;
    clgemm::GemmProblem problem = shape_problem;
    if (o.bias_mem) {
      o.problem.epilogue.bias_data = o.bias.data();
      problem.epilogue.bias_buffer = o.bias_mem;
    }
    auto read_c = [&] {
      std::vector<float> c(o.c.size());
      clEnqueueReadBuffer(queue, o.c_mem, CL_TRUE, 0, c.size() * sizeof(float), c.data(), 0,
                          nullptr, nullptr);
      return c;
    };
    auto finish_queue = [&] { clFinish(queue); };
    std::vector<Result> row;
    for (const auto& contender : args.kernels) {
      const auto [kernel, precision] = parse_contender(contender);
      clgemm::RunSettings settings;
      settings.kernel = kernel;
      settings.precision = precision;
      clgemm::GemmRecord ran;  // what the library says it ran
      auto enqueue = [&] {
        ran = context.sgemm(problem, o.a_mem, o.b_mem, o.c_mem, queue, nullptr, settings);
      };
      const std::string notice = clgemm::cli::build_notice(
          clgemm::cli::kernel_that_runs(context, kernel, problem, precision), limits);
      Result r = measure(contender, o, enqueue, finish_queue, read_c, args.min_time, args.batch,
                         notice, precision, clgemm::cli::compiling);
      r.kernel = ran.kernel;
      r.intensity = clgemm::arithmetic_intensity(ran.kernel, ran.options, problem.m, problem.n,
                                                 problem.k, problem.beta != 0.0f);
      r.ceiling_gflops = roofline(args.peak_gflops, args.bandwidth_gbs, r.intensity);
      row.push_back(r);
    }
    for (auto& peer : peers) {
      if (!peer.applies(problem)) continue;
      std::vector<float> host_c = o.c;
      auto enqueue = [&] { peer.enqueue(o, host_c); };
      auto finish = [&] {
        if (!peer.on_host) clFinish(queue);
      };
      auto result = [&] { return peer.on_host ? host_c : read_c(); };
      const std::string notice =
          peer.on_host ? "" : "peer '" + peer.name + "' compiling its kernels on first use ...";
      row.push_back(
          measure(peer.name, o, enqueue, finish, result, args.min_time, args.batch, notice));
    }
    clgemm::bench::print_rows(row);
    for (const auto& r : row) {
      all_passed = all_passed && r.passed;
      results.push_back(r);
    }
    // The reports so far, rewritten after every shape: a run cut short (a time limit, a crash of
    // the driver) keeps what it measured.
    write_reports(results);
    for (cl_mem m : {o.a_mem, o.b_mem, o.c_mem, o.bias_mem})
      if (m) clReleaseMemObject(m);
  }
  clReleaseCommandQueue(queue);
  clgemm::bench::print_geometric_means(clgemm::bench::geometric_means(results));

  write_reports(results);
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
