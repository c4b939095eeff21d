// The chart clgemm-bench writes with --svg: GFLOP/s against problem size on log axes, one line
// per contender, and per clgemm kernel a dashed roofline ceiling min(peak, bandwidth * its
// arithmetic intensity). A small self-contained SVG writer, no plotting library.
#pragma once

#include <string>
#include <vector>

namespace clgemm::bench {

struct ChartProblem {
  long m = 0, n = 0, k = 0;
  bool square() const { return m == n && n == k; }
};

struct ChartSeries {
  std::string name;
  std::vector<double> gflops;   // one per problem; 0 where not measured
  std::vector<double> ceiling;  // one per problem; 0 where unknown (peers, no device peaks)
};

struct Chart {
  std::string title;     // e.g. the device name
  std::string subtitle;  // e.g. the peaks the ceilings use
  std::vector<ChartProblem> problems;
  std::vector<ChartSeries> series;
  double peak_gflops = 0;  // drawn as a grey line when known (> 0)
};

// The chart as an SVG document: square sizes on a log2 axis in the left panel, the other
// shapes as labelled points in a right panel, a shared log GFLOP/s axis, a legend.
std::string render_svg(const Chart& chart);

}  // namespace clgemm::bench
