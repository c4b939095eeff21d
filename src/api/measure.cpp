// Repetition, statistics and the shared verification policy (see clgemm/measure.hpp), built on
// the public buffer path alone.
#include "clgemm/measure.hpp"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <string>
#include <tuple>

#include "clgemm/errors.hpp"
#include "support/error_boundary.hpp"
#include "support/opencl.hpp"

namespace clgemm {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

constexpr int kMaxRuns = 1000000;

// The kernel's execution on the device, from its profiling event; negative when the
// implementation has no profiling information for it (NVIDIA's driver answered
// CL_PROFILING_INFO_NOT_AVAILABLE for some events of a context used from several threads).
// A call of several launches returns the last one's event; its execution is then measured
// from the end of a marker enqueued just before the call (`before`) on the in-order queue, so
// it also counts the host's enqueueing of the launches.
double device_seconds(const cl::Event& event, const cl::Event& before = cl::Event()) {
  cl_ulong start = 0, end = 0;
  if (before() && clGetEventProfilingInfo(before(), CL_PROFILING_COMMAND_END, sizeof start, &start,
                                          nullptr) != CL_SUCCESS)
    return -1.0;
  if ((!before() && clGetEventProfilingInfo(event(), CL_PROFILING_COMMAND_START, sizeof start,
                                            &start, nullptr) != CL_SUCCESS) ||
      clGetEventProfilingInfo(event(), CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr) !=
          CL_SUCCESS)
    return -1.0;
  return end > start ? double(end - start) * 1e-9 : 0.0;
}

}  // namespace

Statistics statistics(std::vector<double> seconds) try {
  Statistics s;
  s.count = seconds.size();
  if (seconds.empty()) return s;
  std::sort(seconds.begin(), seconds.end());
  const std::size_t n = seconds.size();
  s.min = seconds.front();
  s.median = n % 2 ? seconds[n / 2] : 0.5 * (seconds[n / 2 - 1] + seconds[n / 2]);
  s.mean = std::accumulate(seconds.begin(), seconds.end(), 0.0) / double(n);
  return s;
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

void check_repeat_policy(const RepeatPolicy& p) {
  for (auto [name, value, minimum] :
       {std::tuple{"warmup_runs", p.warmup_runs, 0}, std::tuple{"min_runs", p.min_runs, 1},
        std::tuple{"max_runs", p.max_runs, 1}})
    if (value < minimum || value > kMaxRuns)
      throw Error(ErrorCode::InvalidArgument,
                  std::string(name) + " = " + std::to_string(value) + " is outside " +
                      std::to_string(minimum) + ".." + std::to_string(kMaxRuns),
                  Argument::Settings);
  if (p.min_runs > p.max_runs)
    throw Error(ErrorCode::InvalidArgument,
                "min_runs = " + std::to_string(p.min_runs) +
                    " is above max_runs = " + std::to_string(p.max_runs),
                Argument::Settings);
  if (!(p.min_seconds >= 0) || p.min_seconds > 86400)
    throw Error(ErrorCode::InvalidArgument,
                "min_seconds = " + std::to_string(p.min_seconds) + " is outside 0..86400",
                Argument::Settings);
}

std::vector<double> repeat_timed(const std::function<void()>& call, const RepeatPolicy& policy) {
  check_repeat_policy(policy);
  for (int run = 0; run < policy.warmup_runs; ++run) call();
  std::vector<double> times;
  const auto start = Clock::now();
  while (int(times.size()) < policy.max_runs &&
         (int(times.size()) < policy.min_runs || seconds_since(start) < policy.min_seconds)) {
    const auto t0 = Clock::now();
    call();
    times.push_back(seconds_since(t0));
  }
  return times;
}

Verification verify_result(const GemmProblem& problem, const float* a, const float* b,
                           const float* c_before, const float* c_after, Precision precision) {
  return verify_gemm(problem, a, b, c_before, c_after, kFullCheckLimit, kSampledLines, precision);
}

GemmMeasurement measure_gemm(Context& context, const GemmProblem& problem, const float* a,
                             const float* b, float* c, const RunSettings& settings,
                             const RepeatPolicy& policy, bool verify) try {
  check_repeat_policy(policy);
  check_fits_device(problem, context.device());
  GemmMeasurement m;
  m.problem_flops = problem.flops();
  // An empty problem (M, N or the batch 0) is a quick return that touches none of the arrays,
  // which may be null, as in Context::sgemm; there is nothing to time or verify.
  if (problem.is_empty()) {
    m.record = context.sgemm(problem, a, b, c, settings);
    m.verified = verify;
    return m;
  }
  const cl::Context cl_context(context.opencl_context(), /*retainObject=*/true);
  const cl::Device device(context.opencl_device(), /*retainObject=*/true);
  // The timed calls run as a caller's would, on a plain queue and without an event (on
  // NVIDIA's driver a profiling queue, an event and a marker each add to a small call's time);
  // the kernels' execution is measured by as many calls again on a profiling queue.
  const cl::CommandQueue queue(cl_context, device);
  const cl::CommandQueue profiling(cl_context, device, CL_QUEUE_PROFILING_ENABLE);
  // Whole arrays from index 0, so the problem's offsets apply on the device as on the host.
  auto buffer = [&](const float* data, std::size_t elements, cl_mem_flags flags) {
    const std::size_t bytes = std::max<std::size_t>(elements, 1) * sizeof(float);
    cl::Buffer out(cl_context, flags, bytes);
    if (data && elements)
      queue.enqueueWriteBuffer(out, CL_FALSE, 0, elements * sizeof(float), data);
    return out;
  };
  const bool operands = problem.reads_operands();
  auto start = Clock::now();
  const cl::Buffer a_mem =
      buffer(operands ? a : nullptr, operands ? problem.a_elements() : 0, CL_MEM_READ_ONLY);
  const cl::Buffer b_mem =
      buffer(operands ? b : nullptr, operands ? problem.b_elements() : 0, CL_MEM_READ_ONLY);
  const std::size_t c_elements = problem.c_elements();
  const cl::Buffer c_mem = buffer(c, c_elements, CL_MEM_READ_WRITE);
  const bool restore = problem.beta != 0.0f && c_elements > 0;  // beta = 0 never reads C
  const cl::Buffer c_original = restore ? buffer(c, c_elements, CL_MEM_READ_ONLY) : cl::Buffer();
  // The bias goes to the device like A and B; the calls name its buffer, the verification
  // reads the host array the problem gives.
  GemmProblem on_device = problem;
  cl::Buffer bias_mem;
  if (problem.epilogue.bias_data) {
    bias_mem = buffer(problem.epilogue.bias_data, problem.bias_elements(), CL_MEM_READ_ONLY);
    on_device.epilogue.bias_data = nullptr;
    on_device.epilogue.bias_buffer = bias_mem();
  }
  queue.finish();
  m.upload_seconds = seconds_since(start);

  auto call = [&](const cl::CommandQueue& on, cl::Event* event) {
    cl_event raw = nullptr;
    const GemmRecord record =
        context.sgemm(on_device, a_mem(), b_mem(), c_mem(), on(), event ? &raw : nullptr, settings);
    on.finish();
    if (event && raw) *event = cl::Event(raw);  // takes over the reference
    return record;
  };
  m.record = call(queue, nullptr);
  const std::vector<float> c_before(c, c + c_elements);
  std::vector<float> result(c_elements);
  start = Clock::now();
  if (c_elements)
    queue.enqueueReadBuffer(c_mem, CL_TRUE, 0, c_elements * sizeof(float), result.data());
  m.download_seconds = seconds_since(start);
  if (verify) {
    m.verification =
        verify_result(problem, a, b, c_before.data(), result.data(), settings.precision);
    m.verified = true;
  }
  if (m.record.origin != ProgramOrigin::None) {
    auto restore_c = [&](const cl::CommandQueue& on) {
      if (!restore) return;
      on.enqueueCopyBuffer(c_original, c_mem, 0, 0, c_elements * sizeof(float));
      on.finish();
    };
    auto timed = [&] {
      restore_c(queue);
      const auto t0 = Clock::now();
      call(queue, nullptr);
      m.wall_seconds.push_back(seconds_since(t0));
    };
    RepeatPolicy counted = policy;
    for (int run = 0; run < policy.warmup_runs; ++run) timed();
    m.wall_seconds.clear();
    counted.warmup_runs = 0;
    repeat_timed(timed, counted);
    for (std::size_t run = 0; run < m.wall_seconds.size(); ++run) {
      restore_c(profiling);
      cl::Event event, before;
      if (m.record.launches > 1) profiling.enqueueMarkerWithWaitList(nullptr, &before);
      call(profiling, &event);
      if (const double device = device_seconds(event, before); device >= 0)
        m.device_seconds.push_back(device);
    }
  }
  m.wall = statistics(m.wall_seconds);
  m.device = statistics(m.device_seconds);
  std::copy(result.begin(), result.end(), c);
  return m;
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

}  // namespace clgemm
