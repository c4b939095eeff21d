// Planning a call (call_planning.hpp): `auto` resolved, the kernel's precision and parameters
// checked, the kind of call, the index range, the split of K, C's edges, the last wave's split.
#include "choice/call_planning.hpp"

#include <cstdint>

#include "catalog/device_support.hpp"
#include "plan/index_range.hpp"
#include "plan/k_groups.hpp"
#include "plan/last_wave.hpp"
#include "plan/split_k.hpp"
#include "plan/split_plan.hpp"

namespace clgemm::detail {
namespace {

// A strip of C as a problem of its own (its sizes in the problem's own orientation).
GemmProblem strip_problem(const GemmProblem& problem, const KernelCall& call,
                          const Region& region) {
  GemmProblem strip = problem;
  (call.column_major ? strip.n : strip.m) = region.rows;
  (call.column_major ? strip.m : strip.n) = region.cols;
  return strip;
}

// The caller's settings for a strip `auto` computes apart: the overrides that the kernel `auto`
// picks for the strip takes. A parameter of the main kernel's (blocked's ALIGN_COPY, TILE_M) is
// no error on a strip that `auto` gives to gemv; the main kernel has refused any it lacks.
RunSettings strip_settings(const RunSettings& settings, const KernelCall& strip,
                           DeviceRuntime& device, ResolvedOptions& options,
                           AutoResources& choices) {
  if (settings.kernel != "auto" || settings.overrides.empty()) return settings;
  RunSettings bare = settings;
  bare.overrides.clear();
  std::string reason;
  const KernelDescription& chosen =
      find_kernel(resolve_auto(bare, strip, reason, device, options, choices).kernel);
  const auto takes = [&](const std::string& name) {
    for (const auto* list : {&chosen.parameters, &chosen.host_parameters})
      for (const KernelParameter& p : *list)
        if (p.name == name) return true;
    return false;
  };
  for (const auto& [name, value] : settings.overrides)
    if (takes(name)) bare.overrides[name] = value;
  return bare;
}

// Edge-aware tiling for an FP32 GEMM of one product (split_edges, for the plan's kernel with
// these resolved options): the strips' plans, each with `auto`'s choice for its own shape, and
// the reason, added to `plan`.
void plan_edges(CallPlan& plan, const KernelOptions& kernel_options, const RunSettings& settings,
                const GemmProblem& problem, const KernelCall& call, DeviceRuntime& device,
                ResolvedOptions& options, AutoResources& choices) {
  if (call.batched() || plan.run.precision != Precision::FP32) return;
  const auto split =
      split_edges(plan.run.kernel, kernel_options, call.m, call.n, call.k, device.limits());
  if (!split) return;
  plan.whole_tiles = split->whole_tiles;
  plan.reason += "; " + split->reason + ":";
  for (const Region& region : split->edges) {
    // The strip as a problem of its own: its kind of call, and its sizes in the reason.
    const GemmProblem strip = strip_problem(problem, call, region);
    const KernelCall strip_call = sub_call(call, region);
    EdgePlan edge{region, plan_call(strip_settings(settings, strip_call, device, options, choices),
                                    strip, strip_call, device, options, choices, false)};
    const bool rows = region.col0 == 0;  // a strip of the call's last rows, else of its columns
    const std::int64_t count = rows ? region.rows : region.cols;
    const std::string what = rows != call.column_major ? "row" : "column";
    plan.reason += " the last " + std::to_string(count) + " " + what + (count > 1 ? "s" : "") +
                   " of C (" + std::to_string(strip.m) + "x" + std::to_string(strip.n) + "x" +
                   std::to_string(strip.k) + ") by " + edge.plan.run.kernel +
                   (&region == &split->edges.back() ? "" : ",");
    plan.edges.push_back(std::move(edge));
  }
}

// The last wave's split (last_wave.hpp) of a GEMM of one product whose kernel slices K and
// runs unsplit, where the wave model takes it (wave_plan.hpp): C's last rows as a strip whose K
// is split to fill one wave, the rest as planned.
void plan_last_wave(CallPlan& plan, const KernelSpec& spec, const KernelOptions& kernel_options,
                    const GemmProblem& problem, const KernelCall& call, DeviceRuntime& device,
                    ResolvedOptions& options, AutoResources& choices) {
  if (call.batched() || plan.split.slices.slices > 1 || !plan.split.last_wave) return;
  const LastWaveSplit split = *plan.split.last_wave;
  // The whole waves run unsplit as well (an automatic split takes regions under two waves).
  SplitPlan whole_split =
      plan_split(spec, kernel_options, sub_call(call, split.whole_waves), 0, device.limits());
  if (whole_split.slices.slices > 1) return;
  RunSettings strip_settings = plan.run;
  strip_settings.overrides["SPLIT_K"] = split.slices;
  strip_settings.overrides["WAVE_UNITS"] = 0;
  EdgePlan strip{split.last_rows, {}};
  try {
    strip.plan = plan_call(strip_settings, strip_problem(problem, call, split.last_rows),
                           sub_call(call, split.last_rows), device, options, choices, false);
  } catch (const Error& error) {
    // The strip's partial products do not fit the workspace: the call runs as it was planned.
    if (error.code() == ErrorCode::AllocationTooLarge) return;
    throw;
  }
  plan.whole_tiles = split.whole_waves;
  plan.split = std::move(whole_split);
  plan.edges.push_back(std::move(strip));
  plan.reason += "; " + split.reason;
}

// K split inside blocked's work-groups (k_groups.hpp) where `auto` chose blocked for one FP32
// product whose launch, split of K included, leaves each compute unit at most one work-group:
// the k-groups are added to the plan's options, and the split is planned again for them.
void plan_k_groups(CallPlan& plan, const KernelSpec& spec, const KernelOptions& kernel_options,
                   const RunSettings& settings, const KernelCall& call,
                   const DeviceLimits& limits) {
  if (settings.kernel != "auto" || settings.overrides.count("K_GROUPS") ||
      plan.run.kernel != "blocked" || plan.run.precision != Precision::FP32 || call.batched())
    return;
  const KernelCall region = plan.whole_tiles ? sub_call(call, *plan.whole_tiles) : call;
  const auto block = spec.block(kernel_options);
  const long slices = plan.split.slices.slices;
  const std::int64_t work_groups = tile_groups(region.m, region.n, block) * slices;
  const std::int64_t depth = slices > 1 ? plan.split.slices.k_slice : region.k;
  const long k_groups = auto_k_groups(kernel_options, work_groups, depth, limits);
  if (k_groups == 1) return;
  plan.run.overrides["K_GROUPS"] = k_groups;
  KernelOptions with_k_groups = kernel_options;
  with_k_groups["K_GROUPS"] = k_groups;
  plan.split = plan_split(spec, with_k_groups, region, 0, limits);
  plan.reason += "; K split inside each work-group into " + std::to_string(k_groups) +
                 " k-groups (" + std::to_string(work_groups) + " work-groups on " +
                 std::to_string(limits.compute_units) + " compute units)";
}

}  // namespace

CallPlan plan_call(const RunSettings& settings, const GemmProblem& problem, const KernelCall& call,
                   DeviceRuntime& device, ResolvedOptions& options, AutoResources& choices,
                   bool whole) {
  CallPlan plan;
  plan.run = resolve_auto(settings, call, plan.reason, device, options, choices);
  const KernelSpec& spec = find_spec(plan.run.kernel);
  check_precision(spec, plan.run.precision, device);
  const KernelOptions kernel_options =
      options.get(plan.run.kernel, device.limits(), plan.run.overrides);
  const KindOfCall kind = kind_of_call(problem);
  if (kind.kind != CallKind::Gemm) {
    plan.kind = kind.kind;
    plan.reason = kind.reason;
    return plan;
  }
  check_index_range(spec, kernel_options, call);
  // A forced split whose workspace does not fit fails here, before any buffer is looked at.
  if (spec.slices_k) plan.split = plan_split(spec, kernel_options, call, 0, device.limits());
  if (whole && settings.kernel == "auto")
    plan_edges(plan, kernel_options, settings, problem, call, device, options, choices);
  // With edges apart, the kernel computes only the whole tiles: their split is the plan's.
  if (spec.slices_k && plan.whole_tiles)
    plan.split =
        plan_split(spec, kernel_options, sub_call(call, *plan.whole_tiles), 0, device.limits());
  else if (whole && spec.slices_k)  // which plans its whole waves' split itself
    plan_last_wave(plan, spec, kernel_options, problem, call, device, options, choices);
  plan_k_groups(plan, spec, kernel_options, settings, call, device.limits());
  return plan;
}

}  // namespace clgemm::detail
