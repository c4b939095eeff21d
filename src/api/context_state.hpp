// Internal: what a Context holds, its resources only, each defined in the lowest layer that
// uses it: the device, its OpenCL context, programs, kernel sources and capability probes
// (runtime/device_runtime.hpp); kernels' resolved parameters (catalog/resolved_options.hpp);
// the tuning database and `auto`'s choices (choice/auto_resolution.hpp), the plans of calls
// (choice/planned_calls.hpp); the prepared calls,
// idle queues, workspace and background warming (launch/); the host engine's sets (host/).
// The steps of a call are free functions of their layers that take the resources they need.
#pragma once

#include "catalog/resolved_options.hpp"
#include "choice/auto_resolution.hpp"
#include "choice/planned_calls.hpp"
#include "clgemm/gemm.hpp"
#include "host/engine_sets.hpp"
#include "host/host_engine.hpp"
#include "launch/background_warming.hpp"
#include "launch/idle_queues.hpp"
#include "launch/prepared_calls.hpp"
#include "launch/workspace.hpp"
#include "runtime/device_runtime.hpp"

namespace clgemm {

// Hidden like everything internal, although Context itself is exported.
struct __attribute__((visibility("hidden"))) Context::State {
  State(detail::SelectedDevice selected, cl::Context opencl_context)
      : device(std::move(selected), std::move(opencl_context)),
        engines(device.context, device.selected.device) {}

  detail::DeviceRuntime device;
  detail::ResolvedOptions options;
  detail::AutoResources choices;
  detail::PlannedCalls plans;
  detail::PreparedCalls prepared;
  detail::IdleQueues queues;
  detail::Workspace workspace;
  detail::EnginePool engines;

  // The plan of the whole call `call` of `problem` (choice/planned_calls.hpp).
  std::shared_ptr<const detail::PlannedCall> plan(const RunSettings& settings,
                                                  const GemmProblem& problem,
                                                  const detail::KernelCall& call) {
    return plans.plan(settings, problem, call, device, options, choices);
  }

  // The host engine's view of these.
  detail::EngineResources engine_resources() {
    return {device, options, choices, prepared, workspace, queues, engines};
  }

  // Last: destroyed first, so the thread is joined while everything it uses still lives.
  detail::BackgroundWarming background;
};

}  // namespace clgemm
