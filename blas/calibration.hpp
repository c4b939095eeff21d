// The crossover model: what a call would cost on the device and on the CPU BLAS, from figures
// measured once per machine, device and CPU library (calibration_measure.cpp) and kept in the
// per-user cache directory (calibration_store.cpp).
//
//   device time = overhead + bytes moved / link bandwidth + flops / device rate(size)
//   CPU time    = flops / CPU rate(size)
//
// where size is the cube root of m * n * k and a rate at a size between two measured ones is
// interpolated on a log scale (clamped at the ends).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "blas_call.hpp"

namespace clgemm::blas {

// Flops per second measured at a few sizes (n for an n x n x n product), in ascending order.
struct RateTable {
  std::vector<std::pair<double, double>> points;  // (size, flops per second)
  double rate_at(double size) const;
};

struct Calibration {
  double link_bytes_per_second = 0;    // host <-> device, both ways
  double device_overhead_seconds = 0;  // a tiny host-array call: queue, buffers, launch, wait
  RateTable device, cpu;
  double seconds_taken = 0;  // how long measuring took
};

double predicted_device_seconds(const Calibration& figures, const BlasCall& call);
double predicted_cpu_seconds(const Calibration& figures, const BlasCall& call);

// The text form kept on disk, and back: std::nullopt-like empty `points` mean "not usable".
// The first line names the format, the second the key the figures belong to.
std::string format_calibration(const std::string& key, const Calibration& figures);
// The figures in `text` when it is a well-formed entry for `key`, else false.
bool parse_calibration(const std::string& text, const std::string& key, Calibration& figures);

// Where the figures are kept: CLGEMM_BLAS_CALIBRATION_FILE when set, else
// <cache directory>/blas/calibration-<hash of key>.txt in clgemm's cache directory
// (CLGEMM_CACHE_DIR, else $XDG_CACHE_HOME/clgemm, else ~/.cache/clgemm); empty when caching
// is off (CLGEMM_CACHE_DIR=off) or no directory can be had: measured every process then.
std::string calibration_path(const std::string& key);

}  // namespace clgemm::blas
