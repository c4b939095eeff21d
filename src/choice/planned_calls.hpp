// Internal: a Context's plans by call. Planning a call (call_planning.hpp: `auto`'s choice, the
// checks, the split of K, C's edges and their strips, the reason) costs a few microseconds of
// host time, as much as a small product's launch, and gives the same plan every time for the
// same settings and call: so a GEMM's plan is made once per settings and call (buffers and
// scalars aside) and kept with an id by which the prepared launches (launch/prepared_calls.hpp)
// find it without comparing its fields.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "catalog/resolved_options.hpp"
#include "choice/auto_resolution.hpp"
#include "clgemm/gemm.hpp"
#include "plan/call_plan.hpp"
#include "plan/kernel_call.hpp"
#include "runtime/device_runtime.hpp"
#include "support/bounded_cache.hpp"

namespace clgemm::detail {

struct PlannedCall {
  CallPlan plan;
  std::uint64_t id = 0;  // 0: not kept (a call with nothing to compute or only C to scale)
};

class PlannedCalls {
 public:
  // plan_call(settings, problem, call, ...) for the whole call, kept for a GEMM; the same
  // errors, thrown before anything is kept.
  std::shared_ptr<const PlannedCall> plan(const RunSettings& settings, const GemmProblem& problem,
                                          const KernelCall& call, DeviceRuntime& device,
                                          ResolvedOptions& options, AutoResources& choices);

 private:
  BoundedCache<std::shared_ptr<const PlannedCall>> plans_;
  std::atomic<std::uint64_t> next_id_{1};
};

}  // namespace clgemm::detail
