// GemmProblem helpers and the validation of sizes and leading dimensions.
#include <climits>

#include "clgemm/errors.hpp"
#include "clgemm/gemm.hpp"

namespace clgemm {

GemmProblem GemmProblem::packed(std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                                float beta) {
  GemmProblem p;
  p.m = m, p.n = n, p.k = k, p.alpha = alpha, p.beta = beta;
  p.lda = k, p.ldb = n, p.ldc = n;
  return p;
}

// Footprint of a row-major matrix: the last row starts at (rows - 1) * ld.
static std::size_t footprint(std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  return std::size_t(rows - 1) * std::size_t(ld) + std::size_t(cols);
}

std::size_t GemmProblem::a_elements() const {
  return footprint(m, k, lda);
}
std::size_t GemmProblem::b_elements() const {
  return footprint(k, n, ldb);
}
std::size_t GemmProblem::c_elements() const {
  return footprint(m, n, ldc);
}

void validate_problem(const GemmProblem& p) {
  // The kernels index with 32-bit sizes and 64-bit offsets.
  const std::int64_t limit = INT_MAX;
  for (auto [name, value] : {std::pair{"M", p.m}, {"N", p.n}, {"K", p.k}}) {
    if (value < 1)
      throw Error(ErrorCode::InvalidSize,
                  std::string(name) + " = " + std::to_string(value) + " must be at least 1");
    if (value > limit)
      throw Error(ErrorCode::InvalidSize, std::string(name) + " = " + std::to_string(value) +
                                              " exceeds the largest supported size " +
                                              std::to_string(limit));
  }
  struct Ld {
    const char* name;
    std::int64_t value, minimum;
    const char* of;
  };
  for (const Ld& ld :
       {Ld{"lda", p.lda, p.k, "K"}, Ld{"ldb", p.ldb, p.n, "N"}, Ld{"ldc", p.ldc, p.n, "N"}}) {
    if (ld.value < ld.minimum)
      throw Error(ErrorCode::InvalidLeadingDimension,
                  std::string(ld.name) + " = " + std::to_string(ld.value) + " is smaller than " +
                      ld.of + " = " + std::to_string(ld.minimum) + " (row-major " + ld.name +
                      " must be at least the row length)");
    if (ld.value > limit)
      throw Error(ErrorCode::InvalidLeadingDimension,
                  std::string(ld.name) + " = " + std::to_string(ld.value) +
                      " exceeds the largest supported leading dimension " + std::to_string(limit));
  }
}

}  // namespace clgemm
