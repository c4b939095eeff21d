// The workspace a call may plan for (see workspace_limit.hpp).
#include "plan/workspace_limit.hpp"

#include <limits>

namespace clgemm::detail {

std::size_t workspace_limit(const DeviceLimits& limits) {
  return limits.max_allocation_bytes / 4;
}

std::optional<std::size_t> float_bytes(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  constexpr std::uint64_t max = std::numeric_limits<std::size_t>::max();
  std::uint64_t bytes = sizeof(float);
  for (std::uint64_t factor : {a, b, c}) {
    if (factor != 0 && bytes > max / factor) return std::nullopt;
    bytes *= factor;
  }
  return std::size_t(bytes);
}

}  // namespace clgemm::detail
