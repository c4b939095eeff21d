// Internal: a Context's device and what it keeps for that device: the OpenCL context, the
// programs built there, the kernel sources read, and the capability probes' answers.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "clgemm/warm.hpp"
#include "runtime/capability_probes.hpp"
#include "runtime/device_selection.hpp"
#include "runtime/kernel_source.hpp"
#include "runtime/program_cache.hpp"
#include "runtime/ptx_rewrite.hpp"

namespace clgemm::detail {

class DeviceRuntime {
 public:
  DeviceRuntime(SelectedDevice device, cl::Context opencl_context);
  DeviceRuntime(const DeviceRuntime&) = delete;
  DeviceRuntime& operator=(const DeviceRuntime&) = delete;

  const SelectedDevice selected;
  const cl::Context context;
  ProgramCache programs;

  const DeviceLimits& limits() const { return selected.limits; }
  // The kernel source in `file`, read once.
  const KernelSource& source(const std::string& file);
  // Probed once per device and process (probe_tensor_cores remembers the answer).
  Capability tensor_core_support();
  // Likewise for Hopper's wgmma (probe_wgmma remembers the answer).
  Capability wgmma_support();
  // The most work-items per group `built`'s entry point runs: CL_KERNEL_WORK_GROUP_SIZE, or its
  // required size (reqd_work_group_size, at most CL_DEVICE_MAX_WORK_GROUP_SIZE) when that is
  // larger and probe_required_group_sizes confirmed that such groups run on this device.
  std::size_t work_group_limit(const BuiltProgram& built);
  // programs.get(), or programs.warm() when `warming` is given (its outcome stored there; the
  // program comes back null when it is left on disk).
  std::shared_ptr<const BuiltProgram> program(const std::string& kernel,
                                              const std::string& entry_point,
                                              const KernelSource& source,
                                              const std::string& build_options, bool& cached,
                                              PtxRewrite rewrite, WarmOutcome* warming = nullptr);

 private:
  std::mutex mutex_;  // guards sources_
  std::map<std::string, KernelSource> sources_;
};

}  // namespace clgemm::detail
