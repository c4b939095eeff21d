// Internal: how much of the device one launch keeps busy, the measure `auto` weighs tuned
// entries by (kernel_choice.cpp) and decides edge-aware tiling by (edge_split.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "clgemm/device.hpp"
#include "clgemm/kernels.hpp"

namespace clgemm::detail {

// The fraction of the device a launch of `kernel` with `options` keeps busy on `batch`
// products of the row-major m x n x k call: the share of its tiles' area inside C, times the
// share of the device its waves of work-groups keep busy. Where blocked's WAVE_UNITS gives the
// work-groups the device runs at once, that share is the wave model's (wave_plan.hpp) for the
// split the planner takes there: its groups' work over the model's time, fixed costs and the
// reduction included. Otherwise a wave is one work-group per compute unit, counted with the
// work-groups of every K slice where the kernel splits K (SPLIT_K, automatic by default:
// choose_split) or of every product of a batch (whose products are not split). Counting
// several resident groups per unit would call a launch of two groups per unit half idle, which
// it is not: what each group gets from its unit is in a tuned entry's measured speed.
double device_fill(const std::string& kernel, const KernelOptions& options, std::int64_t m,
                   std::int64_t n, std::int64_t k, std::int64_t batch, const DeviceLimits& device);

}  // namespace clgemm::detail
