// The Context: opening a device (or adopting the caller's OpenCL context) and starting its
// background warming, its capability probes, choose(), build() and warm_up(). A call goes down
// the layers once: api/host_gemm.cpp or api/buffer_gemm.cpp validate it and map it to the
// row-major call, choice/call_planning.cpp plans it once per settings and call (choice/
// planned_calls.cpp keeps the plan; choice/auto_resolution.cpp resolves
// `auto`), launch/prepare_call.cpp builds its programs (launch/prepared_calls.cpp keeps them
// per kind of call) and launch/enqueue_call.cpp enqueues them.
#include <algorithm>

#include "api/context_state.hpp"
#include "choice/auto_resolution.hpp"
#include "choice/warm_up.hpp"
#include "clgemm/errors.hpp"
#include "launch/prepare_call.hpp"
#include "runtime/launch_order.hpp"
#include "support/error_boundary.hpp"

namespace clgemm {

Context::Context(const DeviceRequest& request) try {
  auto selected = detail::select_device(request);
  cl::Context context(selected.device);
  state_ = std::make_unique<State>(std::move(selected), std::move(context));
  detail::start_background_warming(state_->background, state_->device, state_->options,
                                   state_->choices);
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
  detail::start_background_warming(state_->background, state_->device, state_->options,
                                   state_->choices);
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

Context::~Context() = default;
Context::Context(Context&&) noexcept = default;
Context& Context::operator=(Context&&) noexcept = default;

const DeviceLimits& Context::device() const {
  return state_->device.limits();
}
bool Context::has_tensor_cores() try {
  return state_->device.tensor_core_support().available;
} catch (...) {
  detail::rethrow_as_clgemm_error();
}
bool Context::has_wgmma() try { return state_->device.wgmma_support().available; } catch (...) {
  detail::rethrow_as_clgemm_error();
}
cl_context Context::opencl_context() const {
  return state_->device.context();
}
cl_device_id Context::opencl_device() const {
  return state_->device.selected.device();
}

KernelChoice Context::choose(const GemmProblem& problem, const RunSettings& settings) try {
  validate_problem(problem);
  const auto planned = state_->plan(settings, problem, detail::row_major_call(problem));
  const detail::CallPlan& plan = planned->plan;
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
  settings = detail::resolve_auto(settings, detail::row_major_call(large), reason, state_->device,
                                  state_->options, state_->choices);
  return detail::record_of_build(detail::prepare_kernel(settings, state_->device, state_->options),
                                 reason);
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

WarmUpReport Context::warm_up(const RunSettings& settings, const WarmUpCallback& progress) try {
  return detail::warm_up(
      detail::warm_set(settings, state_->device, state_->options, state_->choices), progress,
      state_->device, state_->options);
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

bool Context::warming_in_background() const {
  return !state_->background.finished();
}

}  // namespace clgemm
