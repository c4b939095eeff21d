// Internal: a GEMM's split of K for a kernel, its parameters and the device (split_k.hpp
// decides the slices; this adds SPLIT_K, batches and the room the partial products take in the
// workspace), and why.
#pragma once

#include <cstddef>
#include <string>

#include "catalog/kernel_spec.hpp"
#include "clgemm/device.hpp"
#include "plan/kernel_call.hpp"
#include "plan/split_k.hpp"

namespace clgemm::detail {

// A GEMM's split of K and why: 1 slice is a single GEMM launch.
struct SplitPlan {
  KSlices slices;
  std::string reason;  // empty when the kernel does not slice K or nothing was considered
};

// The split of K for the GEMM `call` by `spec` with these (resolved) options: SPLIT_K if
// given, else choose_split(). Error(AllocationTooLarge) when a forced split's partial products
// do not fit workspace_limit() less `workspace_used` bytes; an automatic split is reduced to
// fit.
SplitPlan plan_split(const KernelSpec& spec, const KernelOptions& options, const KernelCall& call,
                     std::size_t workspace_used, const DeviceLimits& limits);

}  // namespace clgemm::detail
