// A Context's device and what it keeps for it (device_runtime.hpp): kernel sources read once,
// the capability probes, programs built or warmed.
#include "runtime/device_runtime.hpp"

namespace clgemm::detail {

DeviceRuntime::DeviceRuntime(SelectedDevice device, cl::Context opencl_context)
    : selected(std::move(device)),
      context(std::move(opencl_context)),
      programs(context, selected.device, selected.limits) {}

const KernelSource& DeviceRuntime::source(const std::string& file) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = sources_.find(file);
  if (it == sources_.end()) it = sources_.emplace(file, load_kernel_source(file)).first;
  return it->second;
}

Capability DeviceRuntime::tensor_core_support() {
  return probe_tensor_cores(context, selected.device, selected.limits);  // remembered
}

Capability DeviceRuntime::wgmma_support() {
  return probe_wgmma(context, selected.device, selected.limits);  // remembered
}

std::size_t DeviceRuntime::work_group_limit(const BuiltProgram& built) {
  const std::size_t required =
      built.compile_work_group[0] * built.compile_work_group[1] * built.compile_work_group[2];
  if (required <= built.kernel_work_group_size || required > selected.limits.max_work_group_size)
    return built.kernel_work_group_size;
  return probe_required_group_sizes(context, selected.device, selected.limits).available
             ? required
             : built.kernel_work_group_size;
}

std::shared_ptr<const BuiltProgram> DeviceRuntime::program(
    const std::string& kernel, const std::string& entry_point, const KernelSource& source,
    const std::string& build_options, bool& cached, PtxRewrite rewrite, WarmOutcome* warming) {
  if (!warming)
    return programs.get(kernel, entry_point, source.text, source.hash, build_options, cached,
                        rewrite);
  auto warmed =
      programs.warm(kernel, entry_point, source.text, source.hash, build_options, rewrite);
  *warming = warmed.outcome;
  cached = warmed.outcome != WarmOutcome::Compiled;
  return warmed.built;
}

}  // namespace clgemm::detail
