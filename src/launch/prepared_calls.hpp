// Internal: a Context's prepared calls (prepare_call.hpp), kept per kind of call: planning
// copies and split-K, formatting build options and finding the programs cost more than a small
// product's enqueue, and programs repeat their calls.
#pragma once

#include <cstdint>
#include <memory>

#include "catalog/resolved_options.hpp"
#include "clgemm/gemm.hpp"
#include "launch/prepared_call.hpp"
#include "plan/call_plan.hpp"
#include "plan/kernel_call.hpp"
#include "runtime/device_runtime.hpp"
#include "support/bounded_cache.hpp"

namespace clgemm::detail {

// What prepare_call() made of a plan and call, with its record.
struct PreparedEntry {
  PreparedCall call;
  GemmRecord record;  // record_of(call)
};

class PreparedCalls {
 public:
  // prepare_call() and record_of() once per plan and call, buffers and scalars aside (the key
  // holds every other field either reads); later calls get the same launches, their programs
  // reported as found in memory. A plan that a Context keeps (choice/planned_calls.hpp) is
  // known by its `plan_id` (never 0, never reused) instead of its fields.
  std::shared_ptr<const PreparedEntry> get(const CallPlan& plan, const KernelCall& call,
                                           DeviceRuntime& device, ResolvedOptions& options,
                                           std::uint64_t plan_id = 0);

 private:
  BoundedCache<std::shared_ptr<const PreparedEntry>> entries_;
};

}  // namespace clgemm::detail
