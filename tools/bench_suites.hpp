// The named shape suites of clgemm-bench (--suite, --list-suite). They are data, written once in
// tools/bench_suites.json, which the build embeds here and tools/device/cublas_suite.py reads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace clgemm::bench {

// One shape: row-major C (m x n) = A (m x k) * B (k x n).
struct Shape {
  std::int64_t m = 0, n = 0, k = 0;
  double multiply_adds() const { return double(m) * double(n) * double(k); }
};

// The suites' names, in the file's order.
std::vector<std::string> suite_names();
// A suite's shapes; Error(InvalidArgument) naming the known suites for any other name.
std::vector<Shape> suite_shapes(const std::string& name);

// "MxNxK".
std::string shape_text(const Shape& shape);

}  // namespace clgemm::bench
