// A kernel's parameters resolved for the device, remembered per kernel, overrides and
// work-group limit (resolved_options.hpp).
#include "catalog/resolved_options.hpp"

namespace clgemm::detail {
namespace {

std::string options_key(const std::string& kernel, const KernelOptions& overrides,
                        std::size_t work_group_limit) {
  CacheKey key;
  key.text(kernel).number((long long)work_group_limit).number((long long)overrides.size());
  for (const auto& [name, value] : overrides) key.text(name).number(value);
  return key.take();
}

}  // namespace

KernelOptions ResolvedOptions::get(const std::string& kernel, const DeviceLimits& limits,
                                   const KernelOptions& overrides) {
  std::string key = options_key(kernel, overrides, limits.max_work_group_size);
  if (auto known = cache_.find(key)) return std::move(*known);
  KernelOptions options = resolve_options(kernel, limits, overrides);  // throws when invalid
  cache_.insert(std::move(key), options);
  return options;
}

}  // namespace clgemm::detail
