// The tuned entries `auto` weighs for a kind of call, and every kernel `auto` may choose on a
// device (choice/auto_candidates.hpp).
#include "choice/auto_candidates.hpp"

#include <algorithm>

#include "catalog/kernel_spec.hpp"
#include "clgemm/errors.hpp"
#include "plan/k_groups.hpp"

namespace clgemm::detail {

// Whether `kernel` computes `precision` here (a kernel that needs tensor cores or wgmma only
// where the device has them).
bool kernel_runs(const std::string& kernel, Precision precision, TensorCores cores) {
  const bool tensor_cores = cores != TensorCores::None;
  for (const auto& description : kernel_catalog())
    if (description.name == kernel)
      return description.runs(precision, tensor_cores, cores == TensorCores::Wgmma);
  return false;  // an entry put() by a program, naming no kernel of this library
}

bool on_tensor_cores(Precision precision, TensorCores cores) {
  return precision != Precision::FP32 && cores != TensorCores::None;
}

bool gemv_regime_possible(Precision precision, TensorCores cores) {
  return !on_tensor_cores(precision, cores) && kernel_runs("gemv", precision, cores);
}

std::int64_t thin_for_tensor_cores_rows(Precision precision, TensorCores cores) {
  return cores == TensorCores::Wgmma && precision == Precision::TF32 ? kTensorCoreMinRows
                                                                     : kGemvRowsOnGpus;
}

namespace {
// Whether tensorcore's thin and small tiles can serve calls here: a reduced precision on a
// device that runs wgmma, where tensorcore runs too.
bool tensorcore_beside_wgmma(Precision precision, TensorCores cores) {
  return cores == TensorCores::Wgmma && on_tensor_cores(precision, cores) &&
         kernel_runs("tensorcore", precision, cores);
}
}  // namespace

bool runs_thin_tensorcore_tiles(Precision precision, TensorCores cores, std::int64_t m,
                                std::int64_t n, std::int64_t k) {
  return tensorcore_beside_wgmma(precision, cores) && m <= n &&
         is_gemv_regime(m, n, k, kTensorCoreMidRows) && !is_gemv_regime(m, n, k, kGemvRowsOnGpus);
}

bool small_for_wgmma(Precision precision, TensorCores cores, std::int64_t m, std::int64_t n,
                     std::int64_t k, std::int64_t batch) {
  if (cores != TensorCores::Wgmma || precision != Precision::TF32) return false;
  const double product = double(m) * double(n) * double(k);
  return product * double(batch) <= kWgmmaSmallCallWork ||
         (batch > 1 && product <= kWgmmaSmallProductWork);
}

bool runs_small_tensorcore_tiles(Precision precision, TensorCores cores, std::int64_t m,
                                 std::int64_t n, std::int64_t k, std::int64_t batch) {
  if (!tensorcore_beside_wgmma(precision, cores) ||
      is_gemv_regime(m, n, k, thin_for_tensor_cores_rows(precision, cores)))
    return false;
  if (precision == Precision::TF32)
    return small_for_wgmma(precision, cores, m, n, k, batch) &&
           std::min(m, n) >= kSmallTilesMinSide;
  const double product = double(m) * double(n) * double(k);
  return product * double(batch) <= kWgmmaSmallCallWork || product <= kTf32x3SmallProductWork;
}

namespace {
// Whether blocked's pipeline of copies for short K can serve calls here: FP32 on a GPU with
// cp.async (compute capability 8.0 or newer).
bool short_k_pipeline_runs(Precision precision, const DeviceLimits& device) {
  return precision == Precision::FP32 && device.type == DeviceType::GPU &&
         device.compute_capability >= 80;
}
}  // namespace

bool runs_short_k_pipeline(Precision precision, const DeviceLimits& device, std::int64_t m,
                           std::int64_t n, std::int64_t k, std::int64_t batch) {
  if (!short_k_pipeline_runs(precision, device) || k > kShortPipelineDepth || std::min(m, n) < 64)
    return false;
  const KernelOptions tiles = blocked_short_k_tiles();
  const double work_groups = double(batch) *
                             double((m + tiles.at("TILE_M") - 1) / tiles.at("TILE_M")) *
                             double((n + tiles.at("TILE_N") - 1) / tiles.at("TILE_N"));
  return work_groups >= 2.0 * double(device.compute_units);
}

std::string regime_kernel(const AutoScope& scope) {
  if (on_tensor_cores(scope.precision, scope.cores)) return "tensorcore";
  return scope.gemv_regime ? "gemv" : "blocked";
}

UsableEntries usable_entries(
    const TuningDatabase& database, const DeviceLimits& device, const AutoScope& scope,
    const std::function<std::string(const TunedEntry&, const KernelOptions&)>& unfit) {
  // Elsewhere than on tensor cores the reduced precisions run on the FP32 kernels' tuned
  // parameters (they round the operands and multiply like FP32): looked up under fp32.
  const Precision tuned_as =
      on_tensor_cores(scope.precision, scope.cores) ? scope.precision : Precision::FP32;
  UsableEntries out;
  auto skip = [&out](const TunedEntry& e, const std::string& why) {
    out.skipped +=
        (out.skipped.empty() ? "" : "; ") + e.kernel + " ('" + e.shape_class + "') " + why;
  };
  for (MatchLevel at : kMatchLevels) {
    out.level = at;
    for (auto& e : database.entries_at(device, tuned_as, at)) {
      if (!kernel_runs(e.kernel, scope.precision, scope.cores))
        continue;  // another precision's kernel, or one this device does not run
      // In the GEMV regime only gemv's entries count, and gemv's only there.
      if (scope.gemv_regime != (e.kernel == "gemv")) continue;
      // An entry measured on a batch ran one launch for many products: its speed says nothing
      // of a single product's launch, whose cost it never paid.
      if (e.batch > 1 && scope.single_product) continue;
      KernelOptions options;
      try {
        options = resolve_options(e.kernel, device, e.options);
      } catch (const Error& error) {
        skip(e, std::string("invalid here: ") + error.what());
        continue;
      }
      if (unfit)
        if (const std::string why = unfit(e, options); !why.empty()) {
          skip(e, why);
          continue;
        }
      out.entries.push_back({std::move(e), std::move(options)});
    }
    if (!out.entries.empty()) break;
  }
  return out;
}

std::vector<KernelSelection> auto_kernels(const TuningDatabase& database,
                                          const DeviceLimits& device, Precision precision,
                                          TensorCores cores) {
  std::vector<KernelSelection> out;
  const auto add = [&out](const std::string& kernel, const KernelOptions& overrides) {
    const bool known = std::any_of(out.begin(), out.end(), [&](const KernelSelection& s) {
      return s.kernel == kernel && s.overrides == overrides;
    });
    if (!known) out.push_back({kernel, overrides});
  };
  // gemv's overrides as a call of this precision runs them (gemv_overrides_for_precision).
  const auto gemv_for_precision = [&](const KernelOptions& overrides) {
    return gemv_overrides_for_precision(overrides, resolve_options("gemv", device, overrides),
                                        precision, device);
  };

  // On tensor cores, products too thin for them run as on a device without them
  // (thin_for_tensor_cores_rows): GEMV-like ones always, others of few columns, and small calls
  // (small_for_wgmma), only in TF32 where the device runs wgmma; those of few rows there on
  // tensorcore's thin tiles (runs_thin_tensorcore_tiles).
  std::vector<TensorCores> kinds = {cores};
  if (on_tensor_cores(precision, cores)) kinds.push_back(TensorCores::None);
  const bool thin_leave_for_blocked =
      thin_for_tensor_cores_rows(precision, cores) > kGemvRowsOnGpus;
  // blocked's sets that single products run: the planner gives those, never a batch's, two
  // k-groups (plan/k_groups.hpp).
  std::vector<KernelOptions> single_product_blocked;
  for (TensorCores used : kinds)
    for (bool gemv : {false, true}) {
      if (gemv && !gemv_regime_possible(precision, used)) continue;
      if (used != cores && !gemv && !thin_leave_for_blocked) continue;
      for (bool single : {true, false}) {
        const AutoScope scope{precision, used, gemv, single};
        for (const auto& usable : usable_entries(database, device, scope).entries) {
          add(usable.entry.kernel, usable.entry.kernel == "gemv"
                                       ? gemv_for_precision(usable.entry.options)
                                       : usable.entry.options);
          if (single && usable.entry.kernel == "blocked")
            single_product_blocked.push_back(usable.entry.options);
        }
        const std::string derived = regime_kernel(scope);
        add(derived, derived == "gemv" ? gemv_for_precision({}) : KernelOptions{});
        if (single && derived == "blocked") single_product_blocked.push_back({});
      }
    }
  // tensorcore's thin and small tiles (runs_thin_tensorcore_tiles, runs_small_tensorcore_tiles).
  if (tensorcore_beside_wgmma(precision, cores)) {
    for (std::int64_t rows : {kTensorCoreMinRows, kTensorCoreMidRows})
      add("tensorcore", tensorcore_thin_tiles(rows));
    add("tensorcore", tensorcore_small_tiles());
  }
  // Short-K calls' pipeline (runs_short_k_pipeline).
  if (short_k_pipeline_runs(precision, device)) add("blocked", blocked_short_k_tiles());
  // blocked's FP32 sets of single products in two k-groups, for the launches of few
  // work-groups the planner gives them (plan/k_groups.hpp).
  if (precision == Precision::FP32)
    for (const KernelOptions& overrides : single_product_blocked)
      if (takes_auto_k_groups(resolve_options("blocked", device, overrides), device)) {
        KernelOptions split = overrides;
        split["K_GROUPS"] = kAutoKGroups;
        add("blocked", split);
      }
  return out;
}

}  // namespace clgemm::detail
