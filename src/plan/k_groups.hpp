// Internal: the k-groups `auto` gives blocked's work-groups (K_GROUPS, kernels/blocked.cl: K
// split inside the work-group) on a launch of few work-groups. A pure function of the launch
// and the device, so the planner and the tests can call it without one.
#pragma once

#include <cstdint>

#include "clgemm/device.hpp"
#include "clgemm/kernels.hpp"

namespace clgemm::detail {

// The k-groups `auto` asks for where a launch leaves each compute unit at most one work-group.
// On the H100, 64 x 128 tiles of 128 work-items in two k-groups ran 1023^3 1.19x, 1024^3
// 1.05-1.09x and 896^3 1.06-1.10x as fast as `auto` without them (one work-group per unit or
// fewer), and 960x1024x4096 and 1024x1024x2048, whose split of K gives more work-groups than
// units, 0.83-0.91x (docs/PERFORMANCE.md, "two k-groups for few tiles").
constexpr long kAutoKGroups = 2;
// Each k-group keeps at least this many slices of K of its work-group's share.
constexpr std::int64_t kMinKGroupSteps = 4;

// K_GROUPS for blocked with `options` (whose own K_GROUPS is 1) on a GPU, for a launch of
// `work_groups` work-groups (tiles, products and slices of K together), each over `k_depth` of
// K: kAutoKGroups where the work-groups are at most the compute units, each k-group keeps
// kMinKGroupSteps slices and the options with them are valid on the device (the sums fit the
// local memory: not for 128 x 256 tiles); else 1.
long auto_k_groups(const KernelOptions& options, std::int64_t work_groups, std::int64_t k_depth,
                   const DeviceLimits& device);

// Whether blocked with `options` (whose own K_GROUPS is 1) may take kAutoKGroups on this
// device at all: a GPU, and the options with them valid there. auto_k_groups() asks this last;
// the warm set (choice/auto_candidates.cpp) adds those options for every such selection that
// single products run.
bool takes_auto_k_groups(const KernelOptions& options, const DeviceLimits& device);

}  // namespace clgemm::detail
