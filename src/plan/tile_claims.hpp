// Internal: the state a launch of a kernel that claims its tiles (KernelSpec::claims_tiles,
// kernels/tile_claims.clh) works through: its size, and its place in the workspace, one zeroed
// region per launch of a call.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace clgemm::detail {

// The slots of pairs opened per multiprocessor, the kernel's CLAIM_SLOTS (passed to its build).
constexpr std::size_t kClaimSlots = 256;

// The uints of one launch's state (CLAIM_STATE_UINTS of tile_claims.clh) for `layers` products
// or slices of K over a row-major m x n C in tiles of block[0] x block[1]: two counters, the
// slots, one flag per pair of neighbouring tiles along a row.
std::size_t claim_state_uints(std::int64_t m, std::int64_t n,
                              const std::array<std::int64_t, 3>& block, std::int64_t layers);

}  // namespace clgemm::detail
