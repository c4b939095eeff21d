// The last wave's split (last_wave.hpp).
#include "plan/last_wave.hpp"

#include <algorithm>
#include <cstdio>

namespace clgemm::detail {

std::optional<LastWaveSplit> split_last_wave(const std::array<std::int64_t, 3>& block,
                                             std::int64_t units, std::int64_t m, std::int64_t n,
                                             std::int64_t k) {
  if (units <= 0 || m <= 0 || n <= 0 || k <= 0 || block[0] <= 0 || block[1] <= 0)
    return std::nullopt;
  const std::int64_t tile_rows = (m + block[0] - 1) / block[0];
  const std::int64_t tile_columns = (n + block[1] - 1) / block[1];
  const std::int64_t groups = tile_rows * tile_columns;
  const std::int64_t whole_waves = groups / units, rest = groups % units;
  if (whole_waves < 1 || rest == 0) return std::nullopt;
  // The last wave's groups, rounded up to whole rows of tiles.
  const std::int64_t strip_tile_rows = (rest + tile_columns - 1) / tile_columns;
  if (strip_tile_rows >= tile_rows) return std::nullopt;
  const long slices =
      long(std::min(units / (strip_tile_rows * tile_columns), k / kMinWaveSliceDepth));
  if (slices < 2) return std::nullopt;
  LastWaveSplit split;
  const std::int64_t row0 = (tile_rows - strip_tile_rows) * block[0];
  split.whole_waves = {0, row0, 0, n};
  split.last_rows = {row0, m - row0, 0, n};
  split.slices = slices;
  char text[320];
  std::snprintf(text, sizeof text,
                "last-wave split: %lld work-groups of %lld x %lld are %.2f waves of WAVE_UNITS = "
                "%lld, so C's last %lld rows (%lld rows of tiles) run in %ld slices of K, "
                "filling one wave",
                (long long)groups, (long long)block[0], (long long)block[1],
                double(groups) / double(units), (long long)units, (long long)(m - row0),
                (long long)strip_tile_rows, slices);
  split.reason = text;
  return split;
}

}  // namespace clgemm::detail
