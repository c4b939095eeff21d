// Internal: a GEMM's split of K for a kernel, its parameters and the device (split_k.hpp
// decides the slices; this adds SPLIT_K, batches and the room the partial products take in the
// workspace), and why; decided once by a call's plan, and whether that decision still holds
// once the operands' copies take their room in the workspace.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "catalog/kernel_spec.hpp"
#include "clgemm/device.hpp"
#include "plan/kernel_call.hpp"
#include "plan/split_k.hpp"
#include "plan/wave_plan.hpp"

namespace clgemm::detail {

// A GEMM's split of K and why: 1 slice is a single GEMM launch.
struct SplitPlan {
  KSlices slices;
  // Where the wave model (WAVE_UNITS) took the last wave's split instead: slices is then 1.
  std::optional<LastWaveSplit> last_wave;
  std::string reason;  // empty when the kernel does not slice K or nothing was considered
  // What it was decided for: the parameters and the call's shape, and the bytes of partial
  // products the split asked for before any fitting to the workspace (0 when the workspace
  // played no part; SIZE_MAX when they overflow a size_t). See holds_for().
  KernelOptions options;
  std::int64_t m = 0, n = 0, k = 0;
  bool batched = false;
  std::size_t requested_bytes = 0;
};

// The split of K for the GEMM `call` by `spec` with these (resolved) options: SPLIT_K if
// given, else the wave model's choice where WAVE_UNITS is given (choose_waves, which may take
// the last wave's split instead), else choose_split(). Error(AllocationTooLarge) when a forced
// split's partial products do not fit workspace_limit() less `workspace_used` bytes; an automatic
// split is reduced to fit.
SplitPlan plan_split(const KernelSpec& spec, const KernelOptions& options, const KernelCall& call,
                     std::size_t workspace_used, const DeviceLimits& limits);

// Whether `split`, planned with no workspace used (a call's plan decides it before the
// operands' copies are known), is what plan_split() gives for these options and call with
// `workspace_used` bytes taken by the copies: the same parameters and shape, and partial
// products, as requested, that fit beside the copies (the workspace then changes nothing).
bool holds_for(const SplitPlan& split, const KernelOptions& options, const KernelCall& call,
               std::size_t workspace_used, const DeviceLimits& limits);

}  // namespace clgemm::detail
