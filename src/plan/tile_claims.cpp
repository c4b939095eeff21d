// The state of a launch whose work-groups claim their tiles (tile_claims.hpp).
#include "plan/tile_claims.hpp"

namespace clgemm::detail {

std::size_t claim_state_uints(std::int64_t m, std::int64_t n,
                              const std::array<std::int64_t, 3>& block, std::int64_t layers) {
  const std::int64_t rows = (m + block[0] - 1) / block[0];
  const std::int64_t columns = (n + block[1] - 1) / block[1];
  const std::int64_t pairs = layers * rows * ((columns + 1) / 2);
  return 2 + kClaimSlots + std::size_t(pairs);
}

}  // namespace clgemm::detail
