// The double-accumulated host reference and the element-wise check of a device result.
#include "clgemm/reference.hpp"
#include "error_boundary.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace clgemm {
namespace {

struct Checker {
  const GemmProblem& p;
  const float *a, *b, *c_before, *c_after;
  double gamma;
  Verification result;

  // The products summed: none when alpha = 0, so A and B are not even read.
  std::int64_t depth() const { return p.alpha != 0.0f ? p.k : 0; }

  // Element (i, k) of op(A) and (k, j) of op(B), whatever the layout and transposes.
  float a_at(std::int64_t i, std::int64_t k) const {
    return a[index(p.a_offset, p.lda, i, k, p.trans_a)];
  }
  float b_at(std::int64_t k, std::int64_t j) const {
    return b[index(p.b_offset, p.ldb, k, j, p.trans_b)];
  }
  std::size_t index(std::size_t offset, std::int64_t ld, std::int64_t r, std::int64_t c,
                    Transpose trans) const {
    if (is_transposed(trans)) std::swap(r, c);
    const bool row_major = p.layout == Layout::RowMajor;
    return offset + std::size_t(row_major ? r : c) * std::size_t(ld) +
           std::size_t(row_major ? c : r);
  }

  // Compares one element given its exact dot product and the sum of |a_ik * b_kj|.
  void check(std::int64_t i, std::int64_t j, double dot, double magnitude) {
    const std::size_t index = p.c_index(i, j);
    // BLAS: with alpha = 0, A and B are not read, so NaN or Inf there do not reach C.
    double expected = p.alpha != 0.0f ? double(p.alpha) * dot : 0.0;
    double scale = p.alpha != 0.0f ? std::fabs(double(p.alpha)) * magnitude : 0.0;
    if (p.beta != 0.0f) {
      expected += double(p.beta) * double(c_before[index]);
      scale += std::fabs(double(p.beta) * double(c_before[index]));
    }
    const double got = c_after[index];
    const double tolerance = gamma * scale + double(FLT_MIN);
    bool ok;
    double ratio = 0;
    if (!std::isfinite(expected)) {
      ok = (std::isnan(expected) && std::isnan(got)) || got == expected;
    } else {
      ratio = std::fabs(got - expected) / tolerance;
      ok = std::isfinite(got) && ratio <= 1.0;
    }
    ++result.checked;
    if (std::isfinite(ratio)) result.worst_ratio = std::max(result.worst_ratio, ratio);
    if (ok) return;
    if (result.failures++ == 0) {
      std::ostringstream text;
      text.precision(9);
      text << "C[" << i << "][" << j << "] = " << got << ", expected " << expected << " (tolerance "
           << tolerance << ")";
      result.first_failure = text.str();
    }
  }

  // Every element of row i.
  void check_row(std::int64_t i) {
    std::vector<double> dot(p.n, 0.0), magnitude(p.n, 0.0);
    for (std::int64_t k = 0; k < depth(); ++k) {
      const double a_ik = a_at(i, k);
      for (std::int64_t j = 0; j < p.n; ++j) {
        const double product = a_ik * double(b_at(k, j));
        dot[j] += product;
        magnitude[j] += std::fabs(product);
      }
    }
    for (std::int64_t j = 0; j < p.n; ++j) check(i, j, dot[j], magnitude[j]);
  }

  // Every element of column j.
  void check_column(std::int64_t j) {
    for (std::int64_t i = 0; i < p.m; ++i) {
      double dot = 0, magnitude = 0;
      for (std::int64_t k = 0; k < depth(); ++k) {
        const double product = double(a_at(i, k)) * double(b_at(k, j));
        dot += product;
        magnitude += std::fabs(product);
      }
      check(i, j, dot, magnitude);
    }
  }

  // Everything in C's array that is not one of its m x n elements (before the offset, and
  // between lines when ldc is larger than a line) belongs to the caller: it must be untouched.
  void check_untouched() {
    const bool row_major = p.layout == Layout::RowMajor;
    const std::size_t lines = std::size_t(row_major ? p.m : p.n);
    const std::size_t length = std::size_t(row_major ? p.n : p.m);
    auto compare = [&](std::size_t start, std::size_t count, const std::string& where) {
      if (count && std::memcmp(c_before + start, c_after + start, count * sizeof(float)) != 0 &&
          result.failures++ == 0)
        result.first_failure = where + " of C was modified";
    };
    compare(0, p.c_offset, "the part before the offset");
    for (std::size_t line = 0; line + 1 < lines; ++line)
      compare(p.c_offset + line * std::size_t(p.ldc) + length, std::size_t(p.ldc) - length,
              "the padding after line " + std::to_string(line));
  }
};

// Evenly spread indices in [0, extent), always including the first and the last.
std::vector<std::int64_t> spread(std::int64_t extent, std::size_t count) {
  std::vector<std::int64_t> out;
  if (std::int64_t(count) >= extent) {
    for (std::int64_t i = 0; i < extent; ++i) out.push_back(i);
    return out;
  }
  for (std::size_t s = 0; s < count; ++s)
    out.push_back(std::int64_t(double(s) * double(extent - 1) / double(count - 1) + 0.5));
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

std::vector<float> random_matrix(std::size_t elements, unsigned seed) try {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> out(elements);
  for (auto& x : out) x = uniform(generator);
  return out;
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

double gemm_error_bound(std::int64_t k, Precision precision) {
  const double accumulation =
      (std::min(double(k), 16.0 * std::sqrt(double(k))) + 4.0) * double(FLT_EPSILON);
  // Rounding both operands to TF32 (unit roundoff 2^-11) perturbs each product by up to
  // 2^-10 of its magnitude; 3xTF32 leaves about 2^-21 (the dropped low * low term and the
  // bits the low parts miss). Both come on top of the FP32 accumulation.
  switch (precision) {
    case Precision::TF32:
      return accumulation + std::ldexp(1.0, -10);
    case Precision::TF32x3:
      return accumulation + std::ldexp(1.0, -21);
    case Precision::FP32:
      break;
  }
  return accumulation;
}

Verification verify_gemm(const GemmProblem& problem, const float* a, const float* b,
                         const float* c_before, const float* c_after, double full_check_limit,
                         std::size_t sample_lines, Precision precision) try {
  const double k = double(problem.k);
  Checker checker{problem, a, b, c_before, c_after, gemm_error_bound(problem.k, precision), {}};
  if (double(problem.m) * double(problem.n) * k <= full_check_limit) {
    for (std::int64_t i = 0; i < problem.m; ++i) checker.check_row(i);
  } else {
    checker.result.sampled = true;
    for (std::int64_t i : spread(problem.m, std::max<std::size_t>(sample_lines, 2)))
      checker.check_row(i);
    for (std::int64_t j : spread(problem.n, std::max<std::size_t>(sample_lines, 2)))
      checker.check_column(j);
  }
  checker.check_untouched();
  checker.result.passed = checker.result.failures == 0;
  return checker.result;
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

}  // namespace clgemm
