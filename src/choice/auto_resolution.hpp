// Internal: resolving `auto` for a call, and what a Context keeps for it: the tuning database,
// loaded on the first `auto` call, and what `auto` resolved to by the row-major call's
// (m, n, k), batch, transposes and precision (weighing every entry costs more than a small
// launch).
#pragma once

#include <mutex>
#include <optional>
#include <string>

#include "catalog/resolved_options.hpp"
#include "clgemm/gemm.hpp"
#include "clgemm/tuning.hpp"
#include "plan/kernel_call.hpp"
#include "runtime/device_runtime.hpp"
#include "support/bounded_cache.hpp"

namespace clgemm::detail {

class AutoResources {
 public:
  // `use(database)` under the lock, the database loaded first if it is not yet.
  template <typename Use>
  auto with_database(Use&& use) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!tuning_) tuning_ = TuningDatabase::load_default();
    return use(*tuning_);
  }

  struct ResolvedChoice {
    RunSettings settings;
    std::string reason;
  };
  BoundedCache<ResolvedChoice> choices;

 private:
  std::mutex mutex_;  // guards tuning_
  std::optional<TuningDatabase> tuning_;
};

// Replaces kernel "auto" by the tuning database's choice for the row-major call `call` on this
// device (the reason is stored in `reason`); other settings come back unchanged.
RunSettings resolve_auto(const RunSettings& settings, const KernelCall& call, std::string& reason,
                         DeviceRuntime& device, ResolvedOptions& options, AutoResources& choices);

}  // namespace clgemm::detail
