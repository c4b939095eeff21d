// How much of the device one launch keeps busy (device_fill.hpp).
#include "plan/device_fill.hpp"

#include <algorithm>
#include <cmath>

#include "catalog/kernel_spec.hpp"
#include "plan/last_wave.hpp"
#include "plan/split_k.hpp"

namespace clgemm::detail {

double device_fill(const std::string& kernel, const KernelOptions& options, std::int64_t m,
                   std::int64_t n, std::int64_t k, std::int64_t batch, const DeviceLimits& device) {
  const auto block = kernel_block(kernel, options);
  const std::int64_t rows = (m + block[0] - 1) / block[0], columns = (n + block[1] - 1) / block[1];
  const double tile_fill =
      double(m) * double(n) / (double(rows * block[0]) * double(columns * block[1]));
  long slices = 1;
  if (find_spec(kernel).slices_k && batch == 1) {
    const auto split = options.find("SPLIT_K");
    slices = split != options.end() && split->second > 0
                 ? split->second
                 : choose_split(m, n, k, block, device.compute_units);
  }
  const double units = double(std::max<std::size_t>(1, device.compute_units));
  if (slices == 1 && batch == 1)
    if (const auto split = split_last_wave(kernel, options, m, n, k)) {
      // The whole waves as they are, then the strip's groups in split->slices slices of K,
      // each slice 1/slices of a group's time.
      const double whole = double(split->whole_waves.rows / block[0]) * double(columns);
      const double strip = double(rows) * double(columns) - whole;
      const double time = std::ceil(whole / units) +
                          std::ceil(strip * double(split->slices) / units) / double(split->slices);
      return tile_fill * (whole + strip) / (time * units);
    }
  const double groups = double(rows) * double(columns) * double(slices) * double(batch);
  const double waves = std::ceil(groups / units);
  return tile_fill * groups / (waves * units);
}

}  // namespace clgemm::detail
