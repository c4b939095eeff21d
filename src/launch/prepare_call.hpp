// Internal: preparing a planned call (plan/call_plan.hpp) into what it launches
// (launch/prepared_call.hpp): the programs each launch needs, built or found for the
// Context's device, and the workspace they share; the same builds make a program ahead when
// warming (choice/warm_up.hpp).
#pragma once

#include <functional>
#include <string>

#include "catalog/resolved_options.hpp"
#include "clgemm/gemm.hpp"
#include "clgemm/warm.hpp"
#include "launch/prepared_call.hpp"
#include "plan/aligned_copy.hpp"
#include "plan/call_plan.hpp"
#include "plan/kernel_call.hpp"
#include "plan/split_plan.hpp"
#include "runtime/device_runtime.hpp"

namespace clgemm::detail {

// Builds or finds what `plan` launches (not for CallKind::Nothing), for the call whose
// operands' base alignments are filled in.
PreparedCall prepare_call(const CallPlan& plan, const KernelCall& call, DeviceRuntime& device,
                          ResolvedOptions& options);

// Builds the kernel `settings` names for the general case (no call: no table, no epilogue,
// unsliced), as Context::build() does.
PreparedKernel prepare_kernel(const RunSettings& settings, DeviceRuntime& device,
                              ResolvedOptions& options);

// The build of the kernel `settings` names with the options `build_options_for` gives for its
// resolved parameters (again under a lower work-group limit where the built kernel needs it).
// Warming (`warming` given, its outcome stored there): programs.warm() instead of get(), and a
// program left in the disk cache comes back with `built` null.
PreparedKernel prepare_build(
    const RunSettings& settings,
    const std::function<std::string(const KernelOptions&)>& build_options_for,
    DeviceRuntime& device, ResolvedOptions& options, WarmOutcome* warming = nullptr);

// The element-wise helper kernels (scale_c, copy_padded, splitk_reduce, wgmma_pack): square
// work-groups as large as the device and the built kernel allow, up to 16 x 16 (on a CPU, as
// many work-items four times as wide as high);
// `extra_options` are added to the build's (the epilogue's).
PreparedKernel prepare_helper(const std::string& kernel, const std::string& extra_options,
                              DeviceRuntime& device, WarmOutcome* warming = nullptr);

}  // namespace clgemm::detail
