// clgemm-bench's results and what is written from them: a row of the table per shape and
// contender, the geometric means per contender over the measured shapes, and the CSV and JSON
// files (the JSON's form is described in docs/TOOLS.md, "clgemm-bench's JSON").
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "bench/bench_suites.hpp"
#include "clgemm/clgemm.hpp"

namespace clgemm::bench {

// One contender on one shape. Per call: each call enqueued and finished on its own, the median
// over the timed calls. Back to back: `batch` calls enqueued, one finish, divided by `batch`,
// the median over the batches.
struct Result {
  std::string contender;
  std::string kernel;  // what ran (a clgemm contender's last call; the peer's name otherwise)
  GemmProblem problem;
  double median_seconds = 0;
  int runs = 0;
  double back_to_back_seconds = 0;
  int batch = 0, batches = 0;
  bool verified = false, passed = false;
  // clgemm kernels only (0 otherwise): FLOP per byte of the traffic model for the kernel and
  // parameters that ran, and the roofline min(peak, bandwidth * intensity) where known.
  double intensity = 0, ceiling_gflops = 0;
  double gflops() const { return median_seconds > 0 ? problem.flops() / median_seconds * 1e-9 : 0; }
  double back_to_back_gflops() const {
    return back_to_back_seconds > 0 ? problem.flops() / back_to_back_seconds * 1e-9 : 0;
  }
};

// A contender's geometric means of GFLOP/s over the shapes it was measured on.
struct GeometricMean {
  std::string contender;
  int shapes = 0;
  double per_call_gflops = 0, back_to_back_gflops = 0;
};
std::vector<GeometricMean> geometric_means(const std::vector<Result>& results);

// What the run covered, beside the results.
struct RunInfo {
  std::string suite;           // empty: none
  std::int64_t max_size = 0;   // 0: no cap
  std::vector<Shape> skipped;  // shapes above the cap
  double peak_gflops = 0, bandwidth_gbs = 0;
};

// The table's header, a shape's rows (with the per-call speed-up over CLBlast where it ran),
// and the geometric means.
void print_header();
void print_rows(const std::vector<Result>& row);
void print_geometric_means(const std::vector<GeometricMean>& means);

// The CSV (the result rows) and the JSON (the run, its rows and the geometric means).
std::pair<std::string, std::string> reports(const DeviceLimits& limits, const RunInfo& info,
                                            const std::vector<Result>& results);

}  // namespace clgemm::bench
