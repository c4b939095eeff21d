// clgemm-run --warm-cache and --cold (run_modes.hpp).
#include "run/run_modes.hpp"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>

#include "support/files.hpp"

namespace clgemm::run {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string milliseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f ms", seconds * 1e3);
  return text;
}

// Where the disk cache is, as the library finds it ("" when it is off).
std::string cache_directory() {
  if (const auto setting = cache_directory_setting()) return *setting;
  return per_user_directory("XDG_CACHE_HOME", ".cache");
}

// One call of `problem` on fresh copies of the inputs: its wall time, record and result.
struct TimedCall {
  double seconds = 0;
  GemmRecord record;
  std::vector<float> c;
};
TimedCall timed_call(Context& context, const GemmProblem& problem, const std::vector<float>& a,
                     const std::vector<float>& b, const std::vector<float>& c,
                     const RunSettings& settings) {
  TimedCall out;
  out.c = c;
  const auto start = Clock::now();
  out.record = context.sgemm(problem, a.data(), b.data(), out.c.data(), settings);
  out.seconds = seconds_since(start);
  return out;
}

void set_unless_set(const char* variable, const char* value) {
  if (!std::getenv(variable)) setenv(variable, value, 1);
}

}  // namespace

int warm_cache(const cli::DeviceOptions& where, RunSettings settings,
               const std::vector<Precision>& precisions) {
  const std::string directory = cache_directory();
  if (directory.empty())
    throw Error(ErrorCode::InvalidArgument,
                "--warm-cache fills the disk cache, which is off (CLGEMM_CACHE_DIR=off)");
  auto context = cli::open_context(where);
  const auto& device = context.device();
  std::cout << "warming the disk cache " << directory << " for '" << device.name << "' on '"
            << device.platform_name << "', kernel " << settings.kernel << std::endl;
  WarmUpReport total;
  for (Precision precision : precisions) {
    settings.precision = precision;
    const auto report = context.warm_up(settings, [&](const WarmUpProgress& step) {
      std::printf("[%zu/%zu] %s %s %s: %s, %.3f s\n", step.index, step.total,
                  precision_name(precision), step.kernel.c_str(), step.build_options.c_str(),
                  warm_outcome_name(step.outcome), step.seconds);
      if (step.outcome == WarmOutcome::Failed) cli::note("failed: " + step.error);
      std::fflush(stdout);
    });
    std::printf(
        "%s: %zu programs in %.1f s: %zu compiled, %zu already on disk, %zu already "
        "built, %zu failed\n",
        precision_name(precision), report.programs, report.seconds, report.compiled, report.on_disk,
        report.in_memory, report.failed);
    total.programs += report.programs, total.compiled += report.compiled;
    total.on_disk += report.on_disk, total.in_memory += report.in_memory;
    total.failed += report.failed, total.seconds += report.seconds;
    if (total.first_error.empty()) total.first_error = report.first_error;
  }
  std::printf(
      "warmed %zu programs in %.1f s: %zu compiled, %zu already on disk, %zu already "
      "built, %zu failed\n",
      total.programs, total.seconds, total.compiled, total.on_disk, total.in_memory, total.failed);
  if (total.failed == 0) return cli::kSuccess;
  cli::note(std::to_string(total.failed) + " build(s) failed; the first: " + total.first_error);
  return cli::kError;
}

int cold_start(const cli::DeviceOptions& where, const GemmProblem& problem,
               const RunSettings& settings, bool verify) {
  // An empty cache of its own, and the drivers' own caches off, before OpenCL is loaded.
  std::string pattern = (std::filesystem::temp_directory_path() / "clgemm-cold-XXXXXX").string();
  if (!mkdtemp(pattern.data()))
    throw Error(
        ErrorCode::FileError,
        "cannot create a temporary cache directory '" + pattern + "': " + std::strerror(errno),
        Argument::File);
  const std::string directory = pattern;
  struct RemoveAtExit {
    std::string path;
    ~RemoveAtExit() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  } remove{directory};
  setenv("CLGEMM_CACHE_DIR", directory.c_str(), 1);
  set_unless_set("POCL_KERNEL_CACHE", "0");
  set_unless_set("CUDA_CACHE_DISABLE", "1");

  const auto a = random_matrix(problem.a_elements(), 1);
  const auto b = random_matrix(problem.b_elements(), 2);
  const auto c = random_matrix(problem.c_elements(), 3);
  bool passed = true;
  const auto check = [&](const TimedCall& call) {
    if (!verify) return std::string("not verified");
    const auto v =
        verify_result(problem, a.data(), b.data(), c.data(), call.c.data(), settings.precision);
    passed = passed && v.passed;
    return std::string(v.passed ? "verified" : "FAILED VERIFICATION");
  };
  std::cout << "cold start: M=" << problem.m << " N=" << problem.n << " K=" << problem.k
            << ", kernel " << settings.kernel << ", " << precision_name(settings.precision)
            << "; empty cache " << directory
            << ", POCL_KERNEL_CACHE=" << std::getenv("POCL_KERNEL_CACHE")
            << ", CUDA_CACHE_DISABLE=" << std::getenv("CUDA_CACHE_DISABLE") << std::endl;

  auto start = Clock::now();
  auto cold = std::make_unique<Context>(cli::open_context(where));
  const double open_cold = seconds_since(start);
  std::cout << "device:                 " << cold->device().name << "\n"
            << "open context (cold):    " << milliseconds(open_cold) << std::endl;
  const TimedCall first = timed_call(*cold, problem, a, b, c, settings);
  const TimedCall second = timed_call(*cold, problem, a, b, c, settings);
  std::cout << "first call (cold):      " << milliseconds(first.seconds) << " = compile "
            << milliseconds(first.seconds - second.seconds) << " + compute "
            << milliseconds(second.seconds) << " (the second call); " << first.record.kernel << " "
            << program_origin_name(first.record.origin) << " in "
            << milliseconds(first.record.build_seconds) << ", " << check(first) << "\n"
            << "first result (cold):    " << milliseconds(open_cold + first.seconds)
            << " after opening the context" << std::endl;
  cold.reset();

  // What `clgemm-run --warm-cache` does, then a process's first call again.
  start = Clock::now();
  WarmUpReport report;
  {
    Context warming = cli::open_context(where);
    report = warming.warm_up(settings);
  }
  std::printf(
      "--warm-cache:           %.1f s for %zu programs (%zu compiled, %zu already on "
      "disk, %zu failed)\n",
      seconds_since(start), report.programs, report.compiled, report.on_disk, report.failed);
  start = Clock::now();
  Context warm = cli::open_context(where);
  const double open_warm = seconds_since(start);
  const TimedCall after = timed_call(warm, problem, a, b, c, settings);
  const TimedCall again = timed_call(warm, problem, a, b, c, settings);
  std::cout << "open context (warm):    " << milliseconds(open_warm) << "\n"
            << "first call (warm):      " << milliseconds(after.seconds) << " = load "
            << milliseconds(after.seconds - again.seconds) << " + compute "
            << milliseconds(again.seconds) << " (the second call); " << after.record.kernel << " "
            << program_origin_name(after.record.origin) << " in "
            << milliseconds(after.record.build_seconds) << ", " << check(after) << "\n"
            << "first result (warm):    " << milliseconds(open_warm + after.seconds)
            << " after opening the context" << std::endl;
  if (report.failed > 0) {
    cli::note("warming failed for " + std::to_string(report.failed) +
              " program(s); the first: " + report.first_error);
    return cli::kError;
  }
  return passed ? cli::kSuccess : cli::kFailed;
}

}  // namespace clgemm::run
