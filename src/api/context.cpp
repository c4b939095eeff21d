// The Context: opening a device (or adopting the caller's OpenCL context) and starting its
// background warming, its queues and capability probes, choose(), build() and warm_up(). A
// call goes down the layers once: api/host_gemm.cpp or api/buffer_gemm.cpp validate it and map
// it to the row-major call, plan/call_plan.cpp plans it (choice/auto_resolution.cpp resolves
// `auto`), launch/prepare_call.cpp builds its programs (launch/prepared_calls.cpp keeps them
// per kind of call) and launch/enqueue_call.cpp enqueues them.
#include <algorithm>

#include "clgemm/errors.hpp"
#include "launch/context_state.hpp"
#include "runtime/launch_order.hpp"
#include "support/error_boundary.hpp"

namespace clgemm {

Context::State::State(detail::SelectedDevice device, cl::Context opencl_context)
    : selected(std::move(device)),
      context(std::move(opencl_context)),
      programs(context, selected.device, selected.limits) {}

const detail::KernelSource& Context::State::source(const std::string& file) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = sources.find(file);
  if (it == sources.end()) it = sources.emplace(file, detail::load_kernel_source(file)).first;
  return it->second;
}

detail::Capability Context::State::tensor_core_support() {
  return detail::probe_tensor_cores(context, selected.device, selected.limits);  // remembered
}

detail::Capability Context::State::wgmma_support() {
  return detail::probe_wgmma(context, selected.device, selected.limits);  // remembered
}

cl::CommandQueue Context::State::acquire_queue() {
  std::lock_guard<std::mutex> lock(mutex);
  if (idle_queues.empty()) return cl::CommandQueue(context, selected.device);
  cl::CommandQueue queue = idle_queues.back();
  idle_queues.pop_back();
  return queue;
}

void Context::State::release_queue(cl::CommandQueue queue) {
  std::lock_guard<std::mutex> lock(mutex);
  idle_queues.push_back(std::move(queue));
}

Context::Context(const DeviceRequest& request) try {
  auto selected = detail::select_device(request);
  cl::Context context(selected.device);
  state_ = std::make_unique<State>(std::move(selected), std::move(context));
  state_->start_background_warming();
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

Context::Context(cl_context context, cl_device_id device) try {
  if (!context || !device)
    throw Error(ErrorCode::InvalidArgument, "the OpenCL context and device must not be null",
                context ? Argument::OpenCLDevice : Argument::OpenCLContext);
  try {
    detail::SelectedDevice selected;
    selected.device = cl::Device(device, /*retainObject=*/true);
    selected.platform = cl::Platform(selected.device.getInfo<CL_DEVICE_PLATFORM>());
    selected.limits = detail::query_limits(selected.platform, selected.device);
    state_ = std::make_unique<State>(std::move(selected), cl::Context(context, true));
  } catch (const cl::Error& error) {
    throw OpenCLError(error.what(), error.err());
  }
  state_->start_background_warming();
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

Context::~Context() = default;
Context::Context(Context&&) noexcept = default;
Context& Context::operator=(Context&&) noexcept = default;

const DeviceLimits& Context::device() const {
  return state_->selected.limits;
}
bool Context::has_tensor_cores() try {
  return state_->tensor_core_support().available;
} catch (...) {
  detail::rethrow_as_clgemm_error();
}
bool Context::has_wgmma() try { return state_->wgmma_support().available; } catch (...) {
  detail::rethrow_as_clgemm_error();
}
cl_context Context::opencl_context() const {
  return state_->context();
}
cl_device_id Context::opencl_device() const {
  return state_->selected.device();
}

KernelChoice Context::choose(const GemmProblem& problem, const RunSettings& settings) try {
  validate_problem(problem);
  const detail::CallPlan plan = state_->plan(settings, problem, detail::row_major_call(problem));
  switch (plan.kind) {
    case detail::CallKind::Nothing:
      return {"none", {}, plan.reason};
    case detail::CallKind::ScaleC:
      return {"scale_c", {}, plan.reason};
    case detail::CallKind::Gemm:
      break;
  }
  return {plan.run.kernel, plan.run.overrides, plan.reason};
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

GemmRecord Context::build(const std::string& kernel, const KernelOptions& overrides,
                          Precision precision) try {
  RunSettings settings;
  settings.kernel = kernel;
  settings.overrides = overrides;
  settings.precision = precision;
  std::string reason;  // `auto` builds what it would run for a large square problem
  const GemmProblem large = representative_problem("large");
  settings = state_->resolve_auto(settings, large, detail::row_major_call(large), reason);
  return record_of_build(state_->prepare(settings, nullptr), reason);
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

WarmUpReport Context::warm_up(const RunSettings& settings, const WarmUpCallback& progress) try {
  return state_->warm_up(state_->warm_set(settings), progress);
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

bool Context::warming_in_background() const {
  return !state_->background.finished();
}

}  // namespace clgemm
