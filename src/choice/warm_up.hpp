// Internal: warming a Context: the set of programs a call may build on its device, derived from
// what `auto` chooses, and building it ahead, on the caller's thread (Context::warm_up) or in
// the background when the Context opens (CLGEMM_WARM).
#pragma once

#include <atomic>
#include <vector>

#include "catalog/resolved_options.hpp"
#include "choice/auto_resolution.hpp"
#include "clgemm/gemm.hpp"
#include "clgemm/warm.hpp"
#include "launch/background_warming.hpp"
#include "launch/warm_set.hpp"
#include "runtime/device_runtime.hpp"

namespace clgemm::detail {

// Every program a call with `settings` may build on this device, none twice, the most common
// first: for "auto", every kernel and parameter set auto_kernels() finds for the settings'
// precision, else the settings' kernel; each in every build variant calls can need
// (build_variants), with the helpers they launch (scale_c, copy_padded, splitk_reduce,
// wgmma_pack). Without product tables and epilogues, whose variants are built on demand.
std::vector<WarmProgram> warm_set(const RunSettings& settings, DeviceRuntime& device,
                                  ResolvedOptions& options, AutoResources& choices);

// Makes sure each program of `set` is built or in the disk cache (ProgramCache::warm),
// reporting each to `progress`; stops early once `stop` is set. A failed build is counted and
// reported, and the others go on.
WarmUpReport warm_up(const std::vector<WarmProgram>& set, const WarmUpCallback& progress,
                     DeviceRuntime& device, ResolvedOptions& options,
                     const std::atomic<bool>* stop = nullptr);

// Starts warming `auto`'s FP32 set on `background` when warm_mode_for(device) says so; the
// resources must outlive `background`'s thread.
void start_background_warming(BackgroundWarming& background, DeviceRuntime& device,
                              ResolvedOptions& options, AutoResources& choices);

}  // namespace clgemm::detail
