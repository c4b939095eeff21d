// A GEMM's split of K for a kernel and device, within the workspace, and whether a planned split
// still holds beside the operands' copies (split_plan.hpp).
#include "plan/split_plan.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "clgemm/errors.hpp"
#include "plan/workspace_limit.hpp"

namespace clgemm::detail {

SplitPlan plan_split(const KernelSpec& spec, const KernelOptions& options, const KernelCall& call,
                     std::size_t workspace_used, const DeviceLimits& limits) {
  SplitPlan out;
  out.options = options;
  out.m = call.m, out.n = call.n, out.k = call.k;
  out.batched = call.batched();
  if (!spec.slices_k) return out;
  const auto it = options.find("SPLIT_K");
  const long forced = it == options.end() ? 0 : it->second;
  if (call.batched()) {
    // The products of a batch fill the device themselves, and share the grid's third dimension.
    if (forced > 1)
      out.reason = "SPLIT_K = " + std::to_string(forced) + ": a batch's products are not split";
    return out;
  }
  const WaveGeometry waves = wave_geometry(spec.description.name, options, call.m, call.n, call.k);
  const auto& block = waves.block;
  long requested = forced;
  if (waves.units > 0 && forced <= 1) {
    WaveChoice choice = choose_waves(waves, forced);
    if (forced <= 0) requested = choice.slices;
    out.last_wave = std::move(choice.last_wave);
  } else if (forced <= 0) {
    requested = choose_split(call.m, call.n, call.k, block, limits.compute_units);
  }
  KSlices slices = slice_k(call.k, requested, block[2]);
  const auto forced_text = [forced] { return "SPLIT_K = " + std::to_string(forced); };
  if (slices.slices <= 1) {
    if (forced > 1)
      out.reason = forced_text() + ": K = " + std::to_string(call.k) +
                   " is a single slice of whole TILE_K steps, so it is not split";
    return out;
  }
  // S slabs of M x N (N padded to whole float4) in floats; the limit leaves room for copies.
  const std::int64_t partial_ld = (call.n + 3) / 4 * 4;
  const std::size_t limit = workspace_limit(limits);
  const std::size_t available = limit > workspace_used ? limit - workspace_used : 0;
  const auto bytes =
      float_bytes(std::uint64_t(slices.slices), std::uint64_t(call.m), std::uint64_t(partial_ld));
  out.requested_bytes = bytes ? *bytes : SIZE_MAX;
  const auto limit_text = [&] {
    return "the workspace limit of " + std::to_string(available) +
           " bytes (a quarter of CL_DEVICE_MAX_MEM_ALLOC_SIZE = " +
           std::to_string(limits.max_allocation_bytes) + " of device '" + limits.name + "'" +
           (workspace_used ? ", less the aligned copies" : "") + ")";
  };
  if (!bytes || *bytes > available) {
    const std::string need =
        std::to_string(slices.slices) + " partial products of " + std::to_string(call.m) + " x " +
        std::to_string(call.n) + " need " +
        (bytes ? std::to_string(*bytes) + " bytes" : "more bytes than a size_t holds");
    if (forced > 0)
      throw Error(ErrorCode::AllocationTooLarge, forced_text() + ": " + need +
                                                     " of workspace, above " + limit_text() +
                                                     "; ask for fewer slices");
    const auto per_slice = float_bytes(std::uint64_t(call.m), std::uint64_t(partial_ld));
    const long fit =
        per_slice && *per_slice ? long(std::min<std::size_t>(available / *per_slice, 65536)) : 0;
    slices = slice_k(call.k, fit, block[2]);
    if (slices.slices <= 1) {
      out.slices = {};
      out.reason = "split-K not used: " + need + ", above " + limit_text();
      return out;
    }
  }
  out.slices = slices;
  const std::int64_t groups = tile_groups(call.m, call.n, block);
  out.reason = (forced > 0 ? forced_text() + ": split-K" : std::string("split-K")) + " into " +
               std::to_string(slices.slices) + " slices of K = " + std::to_string(slices.k_slice) +
               " (work-groups of " + std::to_string(block[0]) + " x " + std::to_string(block[1]) +
               " on C: " + std::to_string(groups) + ", for " +
               (forced <= 0 && waves.units > 0
                    ? "WAVE_UNITS = " + std::to_string(waves.units) + " at once, by the wave model"
                    : std::to_string(limits.compute_units) + " compute units") +
               "), summed in a fixed order by splitk_reduce";
  return out;
}

bool holds_for(const SplitPlan& split, const KernelOptions& options, const KernelCall& call,
               std::size_t workspace_used, const DeviceLimits& limits) {
  if (split.options != options || split.m != call.m || split.n != call.n || split.k != call.k ||
      split.batched != call.batched())
    return false;
  // plan_split() looks at the workspace only when the partial products it asks for do not fit
  // what is left of it; while they fit, it decides the same whatever the copies take.
  const std::size_t limit = workspace_limit(limits);
  const std::size_t available = limit > workspace_used ? limit - workspace_used : 0;
  return workspace_used == 0 || split.requested_bytes <= available;
}

}  // namespace clgemm::detail
