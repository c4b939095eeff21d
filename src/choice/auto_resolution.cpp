// Resolving `auto` for a call (Context::State::resolve_auto): the tuning database's choice for
// the row-major call's shape, precision and the device's tensor cores, remembered per shape;
// and a kernel's parameters resolved for the device (Context::State::options_for), remembered
// per kernel, overrides and work-group limit.
#include "clgemm/errors.hpp"
#include "launch/context_state.hpp"

namespace clgemm {

namespace {

// What `auto` chose is a function of the row-major call's shape, its batch and the precision
// once the database is loaded.
std::string choice_key(const detail::KernelCall& call, Precision precision) {
  detail::CacheKey key;
  key.number(call.m).number(call.n).number(call.k).number(call.batch).number(int(precision));
  return key.take();
}

std::string options_key(const std::string& kernel, const KernelOptions& overrides,
                        std::size_t work_group_limit) {
  detail::CacheKey key;
  key.text(kernel).number((long long)work_group_limit).number((long long)overrides.size());
  for (const auto& [name, value] : overrides) key.text(name).number(value);
  return key.take();
}

}  // namespace

RunSettings Context::State::resolve_auto(const RunSettings& settings, const GemmProblem& problem,
                                         const detail::KernelCall& call, std::string& reason) {
  if (settings.kernel != "auto") return settings;
  const std::string key = choice_key(call, settings.precision);
  if (settings.overrides.empty())
    if (const auto known = choices.find(key)) {
      reason = known->reason;
      return known->settings;
    }
  // The probes run only for a precision that tensor cores could serve.
  TensorCores cores = TensorCores::None;
  if (settings.precision != Precision::FP32 && tensor_core_support().available)
    cores = wgmma_support().available ? TensorCores::Wgmma : TensorCores::MmaSync;
  KernelChoice choice;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!tuning) tuning = TuningDatabase::load_default();
    choice = choose_kernel(*tuning, selected.limits, problem, settings.precision, cores);
  }
  RunSettings resolved = settings;
  resolved.kernel = choice.kernel;
  resolved.overrides = choice.overrides;
  for (const auto& [name, value] : settings.overrides) resolved.overrides[name] = value;
  reason = "auto: " + choice.reason;
  try {
    options_for(resolved.kernel, selected.limits, resolved.overrides);
  } catch (const Error& error) {
    if (!settings.overrides.empty()) throw;  // the caller's own overrides are at fault
    // A tuned entry this device cannot run (other limits, an edited file): derive instead.
    resolved.overrides.clear();
    reason += "; its parameters are invalid here (" + std::string(error.what()) +
              "), so they are derived from the device limits";
  }
  if (settings.overrides.empty()) choices.insert(key, {resolved, reason});
  return resolved;
}

KernelOptions Context::State::options_for(const std::string& kernel, const DeviceLimits& limits,
                                          const KernelOptions& overrides) {
  std::string key = options_key(kernel, overrides, limits.max_work_group_size);
  if (auto known = resolved_options.find(key)) return std::move(*known);
  KernelOptions options = resolve_options(kernel, limits, overrides);  // throws when invalid
  resolved_options.insert(std::move(key), options);
  return options;
}

}  // namespace clgemm
