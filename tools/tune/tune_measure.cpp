// clgemm-tune's measurement of one candidate: build, verified warm-up, timed calls on buffers.
#include "tune/tune_measure.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "common/cli_support.hpp"

namespace clgemm::tune {
namespace {

using Clock = std::chrono::steady_clock;

void check(cl_int status, const char* call) {
  if (status != CL_SUCCESS) throw OpenCLError(call, status);
}

// What a failed build or launch means: "unfit" when the candidate only exceeds a limit that
// shows once it is built (CL_KERNEL_WORK_GROUP_SIZE, registers), else "error".
std::string failure_status(const Error& error) {
  if (error.code() == ErrorCode::InvalidOption) return "unfit";
  if (const auto* cl = dynamic_cast<const OpenCLError*>(&error))
    if (cl->status() == CL_OUT_OF_RESOURCES || cl->status() == CL_INVALID_WORK_GROUP_SIZE)
      return "unfit";
  return "error";
}

// The first lines of a long message (a build log can run to pages).
std::string first_lines(const std::string& text, int lines) {
  std::size_t end = 0;
  for (int i = 0; i < lines && end != std::string::npos; ++i) end = text.find('\n', end + 1);
  return end == std::string::npos ? text : text.substr(0, end) + "\n[...]";
}

}  // namespace

RunSettings run_settings(const std::string& kernel, const KernelOptions& overrides,
                         const MeasureSettings& settings) {
  RunSettings run;
  run.kernel = kernel;
  run.overrides = overrides;
  run.precision = settings.precision;
  return run;
}

Bench::Bench(Context& context, const GemmProblem& problem) : context_(context), problem_(problem) {
  check_fits_device(problem, context.device());  // before the host matrices are allocated
  a_ = clgemm::random_matrix(problem.a_elements(), 1);
  b_ = clgemm::random_matrix(problem.b_elements(), 2);
  c_ = clgemm::random_matrix(problem.c_elements(), 3);
  cl_int status = CL_SUCCESS;
  queue_ = clCreateCommandQueue(context.opencl_context(), context.opencl_device(), 0, &status);
  check(status, "clCreateCommandQueue");
  a_mem_ = cli::device_copy(context.opencl_context(), a_);
  b_mem_ = cli::device_copy(context.opencl_context(), b_);
  c_mem_ = cli::device_copy(context.opencl_context(), c_);
}

Bench::~Bench() {
  for (cl_mem m : {a_mem_, b_mem_, c_mem_})
    if (m) clReleaseMemObject(m);
  if (queue_) clReleaseCommandQueue(queue_);
}

double Bench::call(const RunSettings& settings) {
  const auto start = Clock::now();
  context_.sgemm(problem_, a_mem_, b_mem_, c_mem_, queue_, nullptr, settings);
  check(clFinish(queue_), "clFinish");
  return std::chrono::duration<double>(Clock::now() - start).count();
}

Measurement Bench::measure(const std::string& kernel, const KernelOptions& overrides,
                           double best_seconds, const MeasureSettings& settings) {
  Measurement result;
  const RunSettings run = run_settings(kernel, overrides, settings);
  try {
    const auto built = context_.build(kernel, overrides, settings.precision);
    result.options = built.options;
    result.build_seconds = built.build_seconds;
  } catch (const Error& error) {
    result.options = overrides;
    result.status = failure_status(error);
    result.message = first_lines(error.what(), 12);
    return result;
  }
  try {
    // Warm-up (PoCL compiles the work-group loop at the first launch), on the initial C.
    check(clEnqueueWriteBuffer(queue_, c_mem_, CL_TRUE, 0, c_.size() * sizeof(float), c_.data(), 0,
                               nullptr, nullptr),
          "clEnqueueWriteBuffer");
    result.first_call_seconds = call(run);
    std::vector<float> c_after(c_.size());
    check(clEnqueueReadBuffer(queue_, c_mem_, CL_TRUE, 0, c_after.size() * sizeof(float),
                              c_after.data(), 0, nullptr, nullptr),
          "clEnqueueReadBuffer");
    // The policy every tool shares (clgemm/measure.hpp).
    const auto v = verify_result(problem_, a_.data(), b_.data(), c_.data(), c_after.data(),
                                 settings.precision);
    if (!v.passed) {
      result.status = "failed";
      result.message = std::to_string(v.failures) + " of " + std::to_string(v.checked) +
                       (v.sampled ? " sampled" : "") + " elements wrong, first " + v.first_failure;
      return result;
    }
    std::vector<double> times{call(run)};
    const double hopeless = settings.give_up_ratio * best_seconds;
    // A first call this slow ends the measurement; when calls are cheap, two more must agree,
    // so that one call disturbed by another process does not discard a good candidate.
    while (best_seconds > 0 && times.back() > hopeless && times.size() < 3 &&
           times[0] < settings.min_time / 4)
      times.push_back(call(run));
    if (best_seconds > 0 && *std::min_element(times.begin(), times.end()) > hopeless) {
      result.status = "slow";
    } else {
      const int runs = int(std::clamp(std::ceil(settings.min_time / std::max(times[0], 1e-9)), 3.0,
                                      double(std::max(3, settings.max_runs))));
      while (int(times.size()) < runs) times.push_back(call(run));
      result.status = "ok";
    }
    result.median_seconds = statistics(times).median;
    result.runs = int(times.size());
  } catch (const Error& error) {
    result.status = failure_status(error);
    result.message = first_lines(error.what(), 12);
  }
  return result;
}

std::vector<double> Bench::time_calls(const std::string& kernel, const KernelOptions& overrides,
                                      int runs, const MeasureSettings& settings) {
  const RunSettings run = run_settings(kernel, overrides, settings);
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) times.push_back(call(run));
  return times;
}

}  // namespace clgemm::tune
