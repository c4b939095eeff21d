// Internal: the choice `auto` makes for a row-major call (clgemm/tuning.hpp's choose_kernel
// converts its problem to that call once and asks this).
#pragma once

#include "clgemm/tuning.hpp"
#include "plan/kernel_call.hpp"

namespace clgemm::detail {

// choose_kernel() for the row-major call `call` (its m, n, k, batch and transposes).
KernelChoice choose_kernel(const TuningDatabase& database, const DeviceLimits& device,
                           const KernelCall& call, Precision precision, TensorCores cores);

}  // namespace clgemm::detail
