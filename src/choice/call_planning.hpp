// Internal: planning a call (plan/call_plan.hpp's CallPlan): `auto`'s kernel for it, the checks
// every call passes, the kind of call, and C's edges computed apart, each with `auto`'s choice
// for its own shape. Here rather than in plan/ because `auto` decides the kernels.
#pragma once

#include "catalog/resolved_options.hpp"
#include "choice/auto_resolution.hpp"
#include "clgemm/gemm.hpp"
#include "plan/call_plan.hpp"
#include "plan/kernel_call.hpp"
#include "runtime/device_runtime.hpp"

namespace clgemm::detail {

// Checks the caller's kernel, parameters and precision (each an error when invalid, even for a
// call with nothing to compute) and decides what the row-major call `call` of `problem` runs;
// a GEMM's sizes are checked against the kernel's index range (check_index_range), and its
// split of K is decided (plan_split, with no workspace used: a forced split whose partial
// products cannot fit fails here, before any buffer is looked at). With `auto`, it may also
// split off C's thin edges (split_edges); a part itself is planned with `whole = false`.
CallPlan plan_call(const RunSettings& settings, const GemmProblem& problem, const KernelCall& call,
                   DeviceRuntime& device, ResolvedOptions& options, AutoResources& choices,
                   bool whole = true);

}  // namespace clgemm::detail
