// verify_gemm itself, on the host alone: C computed here in double and rounded, checked fully
// and by samples in both layouts and every transpose; a wrong element in a checked row or
// column fails with its position named, one outside the samples is not seen; stretches longer
// than one batch of sums and products large enough to be summed on several threads give the
// same verdicts and counts.
#include <gtest/gtest.h>

#include <clgemm/clgemm.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace clgemm::testing {
namespace {

struct HostProduct {
  GemmProblem problem;
  std::vector<float> a, b, c_before, c_after;
};

// A problem with padded leading dimensions and offsets, and its C computed in double.
HostProduct host_product(Layout layout, Transpose ta, Transpose tb, std::int64_t m, std::int64_t n,
                         std::int64_t k) {
  HostProduct h;
  GemmProblem& p = h.problem;
  p.layout = layout;
  p.trans_a = ta;
  p.trans_b = tb;
  p.m = m;
  p.n = n;
  p.k = k;
  p.alpha = 0.75f;
  p.beta = -0.5f;
  p.lda = p.min_lda() + 3;
  p.ldb = p.min_ldb() + 1;
  p.ldc = p.min_ldc() + 2;
  p.a_offset = 5;
  p.b_offset = 2;
  p.c_offset = 7;
  h.a = random_matrix(p.a_elements(), 11);
  h.b = random_matrix(p.b_elements(), 12);
  h.c_before = random_matrix(p.c_elements(), 13);
  h.c_after = h.c_before;
  const bool row_major = layout == Layout::RowMajor;
  auto at = [row_major](const std::vector<float>& x, std::size_t offset, std::int64_t ld,
                        std::int64_t r, std::int64_t c, Transpose t) {
    if (is_transposed(t)) std::swap(r, c);
    return x[offset + std::size_t(row_major ? r * ld + c : c * ld + r)];
  };
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double dot = 0;
      for (std::int64_t q = 0; q < k; ++q)
        dot += double(at(h.a, p.a_offset, p.lda, i, q, ta)) *
               double(at(h.b, p.b_offset, p.ldb, q, j, tb));
      float& c = h.c_after[p.c_index(i, j)];
      c = float(double(p.alpha) * dot + double(p.beta) * double(c));
    }
  return h;
}

Verification check(const HostProduct& h, double full_limit, std::size_t lines) {
  return verify_gemm(h.problem, h.a.data(), h.b.data(), h.c_before.data(), h.c_after.data(),
                     full_limit, lines);
}

const Transpose kTransposes[] = {Transpose::NoTrans, Transpose::Trans};

TEST(Verification, FullAndSampledChecksInEveryLayoutAndTranspose) {
  for (Layout layout : {Layout::RowMajor, Layout::ColumnMajor})
    for (Transpose ta : kTransposes)
      for (Transpose tb : kTransposes) {
        SCOPED_TRACE(std::string(layout == Layout::RowMajor ? "row" : "column") + "-major, " +
                     (is_transposed(ta) ? "A^T" : "A") + ", " + (is_transposed(tb) ? "B^T" : "B"));
        HostProduct h = host_product(layout, ta, tb, 37, 53, 29);
        const Verification full = check(h, 1e12, 64);
        EXPECT_TRUE(full.passed) << full.first_failure;
        EXPECT_FALSE(full.sampled);
        EXPECT_EQ(full.checked, 37u * 53u);
        EXPECT_GT(full.worst_ratio, 0.0);
        EXPECT_LE(full.worst_ratio, 1.0);

        // Five rows (0, 9, 18, 27, 36) and five columns (0, 13, 26, 39, 52).
        const Verification sampled = check(h, 0, 5);
        EXPECT_TRUE(sampled.passed) << sampled.first_failure;
        EXPECT_TRUE(sampled.sampled);
        EXPECT_EQ(sampled.checked, 5u * 53u + 5u * 37u);

        // A wrong element in a sampled row (18) but no sampled column: found, and named.
        HostProduct wrong_row = h;
        wrong_row.c_after[h.problem.c_index(18, 20)] += 0.5f;
        const Verification row = check(wrong_row, 0, 5);
        EXPECT_FALSE(row.passed);
        EXPECT_EQ(row.failures, 1u);
        EXPECT_EQ(row.first_failure.rfind("C[18][20] = ", 0), 0u) << row.first_failure;
        EXPECT_GT(row.worst_ratio, 1.0);

        // In a sampled column (26) only.
        HostProduct wrong_column = h;
        wrong_column.c_after[h.problem.c_index(5, 26)] -= 0.5f;
        const Verification column = check(wrong_column, 0, 5);
        EXPECT_FALSE(column.passed);
        EXPECT_EQ(column.first_failure.rfind("C[5][26] = ", 0), 0u) << column.first_failure;
        EXPECT_FALSE(check(wrong_column, 1e12, 64).passed);

        // Outside every sampled line: the sampled check cannot see it, the full one does.
        HostProduct unseen = h;
        unseen.c_after[h.problem.c_index(4, 4)] += 0.5f;
        EXPECT_TRUE(check(unseen, 0, 5).passed);
        const Verification seen = check(unseen, 1e12, 64);
        EXPECT_FALSE(seen.passed);
        EXPECT_EQ(seen.first_failure.rfind("C[4][4] = ", 0), 0u) << seen.first_failure;
      }
}

// Rows of 70,000 elements: longer than one stretch of sums, and a product whose check is
// summed on the helper threads. The failures come in the order of the elements either way.
TEST(Verification, LongLinesAndParallelSumsKeepTheOrder) {
  for (Transpose tb : kTransposes) {
    HostProduct h = host_product(Layout::RowMajor, Transpose::NoTrans, tb, 3, 70000, 17);
    const Verification full = check(h, 1e12, 64);
    EXPECT_TRUE(full.passed) << full.first_failure;
    EXPECT_EQ(full.checked, 3u * 70000u);
    h.c_after[h.problem.c_index(2, 69999)] = 1e6f;
    h.c_after[h.problem.c_index(1, 66000)] = -1e6f;
    const Verification wrong = check(h, 1e12, 64);
    EXPECT_EQ(wrong.failures, 2u);
    EXPECT_EQ(wrong.first_failure.rfind("C[1][66000] = ", 0), 0u) << wrong.first_failure;
  }
  HostProduct square =
      host_product(Layout::ColumnMajor, Transpose::Trans, Transpose::NoTrans, 160, 150, 90);
  const Verification full = check(square, 1e12, 64);
  EXPECT_TRUE(full.passed) << full.first_failure;
  EXPECT_EQ(full.checked, 160u * 150u);
  square.c_after[square.problem.c_index(159, 0)] = 7.0f;
  square.c_after[square.problem.c_index(100, 149)] = 7.0f;
  const Verification wrong = check(square, 1e12, 64);
  EXPECT_EQ(wrong.failures, 2u);
  EXPECT_EQ(wrong.first_failure.rfind("C[100][149] = ", 0), 0u) << wrong.first_failure;
}

}  // namespace
}  // namespace clgemm::testing
