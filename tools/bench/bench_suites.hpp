// The named shape suites of clgemm-bench (--suite, --list-suite). They are data, written once in
// tools/bench/bench_suites.json, which the build embeds here and tools/device/cublas_suite.py
// reads. A shape is one product or a batch of them, optionally with a fused epilogue.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "clgemm/gemm.hpp"

namespace clgemm::bench {

// One shape: row-major C (m x n) = act(A (m x k) * B (k x n) + bias), `batch` times with the
// products packed one after another (strides of one A, B and C); the bias vector is one for
// the whole batch.
struct Shape {
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t batch = 1;
  Bias bias = Bias::None;
  Activation activation = Activation::None;
  bool trans_a = false, trans_b = false;  // op(A) = A^T, op(B) = B^T (row-major)
  double multiply_adds() const { return double(batch) * double(m) * double(n) * double(k); }
};

// The suites' names, in the file's order.
std::vector<std::string> suite_names();
// A suite's shapes; Error(InvalidArgument) naming the known suites for any other name, or
// naming the shape and field the file gets wrong.
std::vector<Shape> suite_shapes(const std::string& name);

// "MxNxK", then "*B" for a batch and "+rowbias" / "+colbias" and "+relu" / "+gelu" for an
// epilogue: "32x32x32*8192", "8192x8192x128+colbias+relu" (tools/bench/bench_ratios.py labels rows
// the same way).
std::string shape_text(const Shape& shape);
// The shape of a problem made by problem_of() (or a packed one).
Shape shape_of(const GemmProblem& problem);
// The packed row-major problem of `shape`, alpha 1 and beta 0, its batch strided and its
// epilogue set (the bias vector itself is the caller's to give).
GemmProblem problem_of(const Shape& shape);

}  // namespace clgemm::bench
