// Internal: a Context's memo of resolve_options() (clgemm/kernels.hpp) by kernel, overrides and
// work-group limit (the other limits are the device's): deriving and validating a kernel's
// parameters costs more than a small launch.
#pragma once

#include <string>

#include "clgemm/device.hpp"
#include "clgemm/kernels.hpp"
#include "support/bounded_cache.hpp"

namespace clgemm::detail {

class ResolvedOptions {
 public:
  // resolve_options(kernel, limits, overrides) for one device's limits (`limits` is them, with
  // at most a lower work-group size); throws as it does.
  KernelOptions get(const std::string& kernel, const DeviceLimits& limits,
                    const KernelOptions& overrides);

 private:
  BoundedCache<KernelOptions> cache_;
};

}  // namespace clgemm::detail
