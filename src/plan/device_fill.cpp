// How much of the device one launch keeps busy (device_fill.hpp).
#include "plan/device_fill.hpp"

#include <algorithm>
#include <cmath>

#include "catalog/kernel_spec.hpp"
#include "plan/split_k.hpp"
#include "plan/wave_plan.hpp"

namespace clgemm::detail {

double device_fill(const std::string& kernel, const KernelOptions& options, std::int64_t m,
                   std::int64_t n, std::int64_t k, std::int64_t batch, const DeviceLimits& device) {
  const auto block = kernel_block(kernel, options);
  const std::int64_t rows = (m + block[0] - 1) / block[0], columns = (n + block[1] - 1) / block[1];
  const double tile_fill =
      double(m) * double(n) / (double(rows * block[0]) * double(columns * block[1]));
  const bool slices_k = find_spec(kernel).slices_k;
  const auto split = options.find("SPLIT_K");
  const long forced = split != options.end() ? long(split->second) : 0;
  if (slices_k && batch == 1) {
    // The waves as the planner runs them, where the device's wave is known.
    const WaveGeometry geometry = wave_geometry(kernel, options, m, n, k);
    if (geometry.units > 0) {
      const WaveChoice choice = choose_waves(geometry, forced);
      return choice.time > 0 ? tile_fill * choice.work / choice.time : 0;
    }
  }
  long slices = 1;
  if (slices_k && batch == 1)
    slices = forced > 0 ? forced : choose_split(m, n, k, block, device.compute_units);
  const double units = double(std::max<std::size_t>(1, device.compute_units));
  const double groups = double(rows) * double(columns) * double(slices) * double(batch);
  const double waves = std::ceil(groups / units);
  return tile_fill * groups / (waves * units);
}

}  // namespace clgemm::detail
