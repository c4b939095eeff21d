// clgemm-run's modes besides running one problem: --warm-cache builds every program a call may
// need on the device into the disk cache, and --cold measures the time to the first result on
// an empty cache, then again after warming.
#pragma once

#include <vector>

#include "clgemm/clgemm.hpp"
#include "common/cli_support.hpp"

namespace clgemm::run {

// Context::warm_up() for `settings` in each of `precisions`, printing a line per program
// ("[n/N] kernel options: outcome, seconds") and a summary. kSuccess, or kError when a build
// failed (the first failure on stderr) or the disk cache is off.
int warm_cache(const cli::DeviceOptions& where, RunSettings settings,
               const std::vector<Precision>& precisions);

// With an empty cache directory of its own (CLGEMM_CACHE_DIR, and the drivers' caches off:
// POCL_KERNEL_CACHE=0, CUDA_CACHE_DISABLE=1 unless they are set): opens a Context and times the
// first call of `problem` (compile and compute) and a second one (compute); then warms the
// cache (Context::warm_up with `settings`), opens a new Context and times its first call
// (loading and compute) and a second one. Verifies both first results when `verify`. Must run
// before anything else of the process touches OpenCL. kSuccess, kFailed when a verification
// failed.
int cold_start(const cli::DeviceOptions& where, const GemmProblem& problem,
               const RunSettings& settings, bool verify);

}  // namespace clgemm::run
