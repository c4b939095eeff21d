// The wave model of a one-product call and the choice of its split (wave_plan.hpp).
#include "plan/wave_plan.hpp"

#include <algorithm>
#include <cmath>

#include "plan/split_k.hpp"

namespace clgemm::detail {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// Groups of `depth` of K in waves of g.units, plus the reduction of `slices` partial products of
// `rows` x g.n (read, and C written) where slices > 1: the bytes as flops at kFlopsPerByte,
// spread over every unit's work-group of block[0] x block[1] outputs. Counted in double: the
// groups of every slice need not fit 64 bits.
double launch_time(const WaveGeometry& g, double groups, std::int64_t depth, long slices,
                   std::int64_t rows) {
  double time = std::ceil(groups / double(g.units)) * (double(depth) + kGroupFixedDepth);
  if (slices > 1) {
    const double bytes = 4.0 * double(slices + 1) * double(rows) * double(g.n);
    const double group_flops_per_depth = 2.0 * double(g.block[0]) * double(g.block[1]);
    time += bytes * kFlopsPerByte / (double(g.units) * group_flops_per_depth);
  }
  return time;
}

bool valid(const WaveGeometry& g) {
  return g.units > 0 && g.m > 0 && g.n > 0 && g.k > 0 && g.block[0] > 0 && g.block[1] > 0;
}

}  // namespace

double whole_split_time(const WaveGeometry& g, long slices) {
  if (!valid(g)) return 0;
  const KSlices s = slice_k(g.k, slices, g.block[2]);
  const std::int64_t groups = tile_groups(g.m, g.n, g.block);
  return launch_time(g, double(groups) * double(s.slices), s.slices > 1 ? s.k_slice : g.k, s.slices,
                     g.m);
}

double last_wave_time(const WaveGeometry& g, const LastWaveSplit& split) {
  if (!valid(g)) return 0;
  const std::int64_t columns = ceil_div(g.n, g.block[1]);
  const std::int64_t whole_groups = ceil_div(split.whole_waves.rows, g.block[0]) * columns;
  const std::int64_t strip_groups = ceil_div(split.last_rows.rows, g.block[0]) * columns;
  const KSlices s = slice_k(g.k, split.slices, g.block[2]);
  return launch_time(g, double(whole_groups), g.k, 1, split.whole_waves.rows) +
         launch_time(g, double(strip_groups) * double(s.slices), s.k_slice, s.slices,
                     split.last_rows.rows);
}

WaveChoice choose_waves(const WaveGeometry& g, long forced_slices) {
  WaveChoice best;
  if (!valid(g)) return best;
  const std::int64_t groups = tile_groups(g.m, g.n, g.block);
  best.work = double(groups) * double(g.k) / double(g.units);
  if (forced_slices > 1) {
    best.slices = slice_k(g.k, forced_slices, g.block[2]).slices;
    best.time = whole_split_time(g, forced_slices);
    return best;
  }
  const double unsplit = whole_split_time(g, 1);
  best.time = unsplit;
  // A split must beat the call without one by kMinSplitGain, and then the others.
  const auto consider = [&](double time, long slices, std::optional<LastWaveSplit> last_wave) {
    if (time * kMinSplitGain > unsplit || time >= best.time) return;
    best.time = time;
    best.slices = slices;
    best.last_wave = std::move(last_wave);
  };
  if (forced_slices <= 0) {
    const std::int64_t deepest = std::min<std::int64_t>(g.k / kMinSplitSliceDepth, 1024);
    // Among the splits that take the same count of waves the one with the most slices is the
    // fastest: a slice at least kMinSplitSliceDepth deep saves more group time than the
    // reduction's share of one more slice costs (about 32 x groups / units of depth). So where
    // the counts of waves are fewer than the splits, only the deepest split of each is weighed:
    // the planner asks on every call, and 512 x 512 x 65536 would weigh 255 splits, not 16.
    // (Fewer groups than units, or the counts of waves are not fewer: groups * deepest then
    // stays far inside 64 bits.)
    const std::int64_t waves = groups < g.units ? ceil_div(groups * deepest, g.units) : deepest;
    const bool by_waves = waves < deepest;
    long previous = 1;
    for (std::int64_t i = by_waves ? 1 : 2; i <= (by_waves ? waves : deepest); ++i) {
      const std::int64_t requested = by_waves ? std::min(deepest, i * g.units / groups) : i;
      if (requested < 2) continue;
      const long slices = slice_k(g.k, long(requested), g.block[2]).slices;
      if (slices == previous) continue;  // the same slices as the request before
      previous = slices;
      consider(whole_split_time(g, slices), slices, std::nullopt);
    }
  }
  if (auto split = split_last_wave(g.block, g.units, g.m, g.n, g.k))
    consider(last_wave_time(g, *split), 1, std::move(split));
  return best;
}

WaveGeometry wave_geometry(const std::string& kernel, const KernelOptions& options, std::int64_t m,
                           std::int64_t n, std::int64_t k) {
  WaveGeometry g;
  g.m = m, g.n = n, g.k = k;
  g.block = kernel_block(kernel, options);
  const auto units = options.find("WAVE_UNITS");
  g.units = units == options.end() ? 0 : units->second;
  return g;
}

}  // namespace clgemm::detail
