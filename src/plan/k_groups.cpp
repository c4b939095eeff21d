// The k-groups `auto` gives blocked on a launch of few work-groups (k_groups.hpp).
#include "plan/k_groups.hpp"

#include "catalog/kernel_spec.hpp"
#include "clgemm/errors.hpp"

namespace clgemm::detail {

bool takes_auto_k_groups(const KernelOptions& options, const DeviceLimits& device) {
  const auto given = options.find("K_GROUPS");
  if (device.type != DeviceType::GPU || given == options.end() || given->second != 1) return false;
  KernelOptions split = options;
  split["K_GROUPS"] = kAutoKGroups;
  try {
    validate_options("blocked", split, device);
  } catch (const Error&) {
    return false;
  }
  return true;
}

long auto_k_groups(const KernelOptions& options, std::int64_t work_groups, std::int64_t k_depth,
                   const DeviceLimits& device) {
  if (work_groups <= 0 || work_groups > std::int64_t(device.compute_units)) return 1;
  const std::int64_t tile_k = opt(options, "TILE_K");
  if ((k_depth + tile_k - 1) / tile_k < kAutoKGroups * kMinKGroupSteps) return 1;
  return takes_auto_k_groups(options, device) ? kAutoKGroups : 1;
}

}  // namespace clgemm::detail
