// Internal: the host-memory engine's entry (host_engine.cpp, in_place_gemm.cpp) and the
// resources of its Context it uses: a validated host-array call whose plan computes something,
// streamed through an engine set, or where the device shares the host's memory, computed in
// place.
#pragma once

#include <optional>

#include "catalog/resolved_options.hpp"
#include "choice/auto_resolution.hpp"
#include "clgemm/gemm.hpp"
#include "host/engine_sets.hpp"
#include "launch/idle_queues.hpp"
#include "launch/prepared_calls.hpp"
#include "launch/workspace.hpp"
#include "plan/call_plan.hpp"
#include "runtime/device_runtime.hpp"

namespace clgemm::detail {

// What the engine uses of its Context: planning and preparing pieces, enqueueing them (the
// workspace, the idle queues) and its engine sets.
struct EngineResources {
  DeviceRuntime& device;
  ResolvedOptions& options;
  AutoResources& choices;
  PreparedCalls& prepared;
  Workspace& workspace;
  IdleQueues& queues;
  EnginePool& engines;
};

// The call computed through the engine: in place where the device shares the host's memory
// (and CLGEMM_HOST_COPY is not set) and every span fits one allocation, else streamed, its
// pieces planned with `settings` unless the whole call is one piece (`whole` then).
GemmRecord sgemm_host(const GemmProblem& problem, const CallPlan& whole,
                      const RunSettings& settings, const float* a, const float* b, float* c,
                      const EngineResources& resources);

// The call computed in place, or nothing when a span is above CL_DEVICE_MAX_MEM_ALLOC_SIZE,
// which only the streaming engine handles.
std::optional<GemmRecord> sgemm_in_place(const GemmProblem& problem, const CallPlan& plan,
                                         const float* a, const float* b, float* c,
                                         const EngineResources& resources);

}  // namespace clgemm::detail
