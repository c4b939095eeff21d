// Choosing the split factor of a split-K GEMM, and the K slices a split factor gives.
#include "plan/split_k.hpp"

#include <algorithm>

#include "plan/wave_plan.hpp"

namespace clgemm::detail {

long choose_split(std::int64_t m, std::int64_t n, std::int64_t k,
                  const std::array<std::int64_t, 3>& block, std::size_t compute_units,
                  std::int64_t min_slice_depth) {
  if (m <= 0 || n <= 0 || k <= 0 || block[0] <= 0 || block[1] <= 0) return 1;
  const std::int64_t groups = tile_groups(m, n, block);
  const std::int64_t units = std::int64_t(std::max<std::size_t>(compute_units, 1));
  const std::int64_t target = 2 * units;
  if (groups >= target) return 1;  // already two waves: splitting only adds the reduction
  const std::int64_t wanted = (target + groups - 1) / groups;
  const std::int64_t deepest = k / std::max<std::int64_t>(min_slice_depth, 1);
  const long slices = long(std::max<std::int64_t>(1, std::min(wanted, deepest)));
  // One slice fewer, just short of two waves, where the slices that reach them leave the last
  // units a third work-group the others lack: 64 tiles of 64x8192x8192 in 5 slices are 320
  // groups, 3 on 56 of 132 units and 2 on the rest, in 4 slices 256, 2 on nearly all (on the
  // H100: 0.268 ms in 5 slices, 0.247 in 4). Taken where the wave model, with one group per
  // unit at a time, has it kMinSplitGain faster. (Every unit still gets a group: below `units`
  // groups, fewer * groups > target - groups > units; from `units` on, fewer is 1.)
  const std::int64_t fewer = target / groups;
  if (fewer >= 1 && fewer < slices) {
    const WaveGeometry per_unit{m, n, k, block, units};
    if (whole_split_time(per_unit, slices) >=
        kMinSplitGain * whole_split_time(per_unit, long(fewer)))
      return long(fewer);
  }
  return slices;
}

KSlices slice_k(std::int64_t k, long requested, std::int64_t k_step) {
  const std::int64_t step = std::max<std::int64_t>(k_step, 1);
  const std::int64_t s = std::max<long>(requested, 1);
  if (k <= 0) return {1, step};
  const std::int64_t depth = (k + s - 1) / s;
  const std::int64_t k_slice = (depth + step - 1) / step * step;
  return {long((k + k_slice - 1) / k_slice), k_slice};
}

}  // namespace clgemm::detail
