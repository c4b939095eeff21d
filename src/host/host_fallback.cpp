// Parts of C computed on the host (host_fallback.hpp).
#include "host/host_fallback.hpp"

#include <utility>

namespace clgemm::detail {
namespace {

std::size_t element_index(const GemmProblem& p, std::size_t offset, std::int64_t ld, std::int64_t r,
                          std::int64_t c, Transpose trans) {
  if (is_transposed(trans)) std::swap(r, c);
  const bool row_major = p.layout == Layout::RowMajor;
  return offset + std::size_t(row_major ? r : c) * std::size_t(ld) + std::size_t(row_major ? c : r);
}

}  // namespace

void compute_on_host(const GemmProblem& problem, const float* a, const float* b, float* c,
                     std::int64_t product, std::int64_t line, std::int64_t position,
                     std::int64_t count) {
  const GemmProblem p = problem.product(product);
  const bool row_major = p.layout == Layout::RowMajor;
  const Epilogue& e = p.epilogue;
  for (std::int64_t x = position; x < position + count; ++x) {
    const std::int64_t i = row_major ? line : x, j = row_major ? x : line;
    double v = 0;
    if (p.alpha != 0.0f && p.k > 0) {
      double dot = 0;
      for (std::int64_t k = 0; k < p.k; ++k)
        dot += double(a[element_index(p, p.a_offset, p.lda, i, k, p.trans_a)]) *
               double(b[element_index(p, p.b_offset, p.ldb, k, j, p.trans_b)]);
      v = double(p.alpha) * dot;
    }
    float& out = c[p.c_index(i, j)];
    if (p.beta != 0.0f) v += double(p.beta) * double(out);
    if (e.bias != Bias::None)
      v += double(e.bias_data[e.bias_offset + std::size_t(e.bias == Bias::PerRow ? i : j)]);
    out = float(apply_activation(e, v));
  }
}

}  // namespace clgemm::detail
