// Resolving `auto` for a call (auto_resolution.hpp): the tuning database's choice for the
// row-major call's shape, transposes, precision and the device's tensor cores, remembered per
// shape and transposes.
#include "choice/auto_resolution.hpp"

#include "catalog/device_support.hpp"
#include "choice/kernel_choice.hpp"
#include "clgemm/errors.hpp"

namespace clgemm::detail {

namespace {

// What `auto` chose is a function of the row-major call's shape, its batch, which operands it
// reads transposed (on CPUs: register_block's loop, and gemv or register_block for GEMV-like
// products) and the precision once the database is loaded.
std::string choice_key(const KernelCall& call, Precision precision) {
  CacheKey key;
  key.number(call.m).number(call.n).number(call.k).number(call.batch).number(int(precision));
  key.number(int(call.a.transposed)).number(int(call.b.transposed));
  return key.take();
}

}  // namespace

RunSettings resolve_auto(const RunSettings& settings, const KernelCall& call, std::string& reason,
                         DeviceRuntime& device, ResolvedOptions& options, AutoResources& choices) {
  if (settings.kernel != "auto") return settings;
  const std::string key = choice_key(call, settings.precision);
  if (settings.overrides.empty())
    if (const auto known = choices.choices.find(key)) {
      reason = known->reason;
      return known->settings;
    }
  const TensorCores cores = tensor_cores_for(settings.precision, device);
  const KernelChoice choice = choices.with_database([&](const TuningDatabase& database) {
    return choose_kernel(database, device.limits(), call, settings.precision, cores);
  });
  RunSettings resolved = settings;
  resolved.kernel = choice.kernel;
  resolved.overrides = choice.overrides;
  for (const auto& [name, value] : settings.overrides) resolved.overrides[name] = value;
  reason = "auto: " + choice.reason;
  try {
    options.get(resolved.kernel, device.limits(), resolved.overrides);
  } catch (const Error& error) {
    // A tuned entry this device cannot run (other limits, an edited file), or one the caller's
    // overrides contradict (-D INNER_PRODUCTS=0 where the fit chose 8 columns of inner
    // products): the caller's overrides alone on parameters derived from the device limits.
    // Where those fail too, the caller's overrides are at fault and the error names them.
    resolved.overrides = settings.overrides;
    if (!settings.overrides.empty())
      options.get(resolved.kernel, device.limits(), resolved.overrides);
    reason += "; its parameters are invalid here" +
              std::string(settings.overrides.empty() ? "" : " with the caller's overrides") + " (" +
              error.what() + "), so they are derived from the device limits";
  }
  if (settings.overrides.empty()) choices.choices.insert(key, {resolved, reason});
  return resolved;
}

}  // namespace clgemm::detail
