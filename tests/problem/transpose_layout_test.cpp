// Full SGEMM semantics for every FP32 kernel: both layouts, all four transpose combinations,
// non-zero offsets and padded leading dimensions, on shapes that fit no tile.
#include <tuple>

#include "test_support.hpp"

namespace clgemm::testing {
namespace {

struct Variant {
  Layout layout;
  Transpose trans_a, trans_b;
};

std::string name_of(const Variant& v) {
  auto t = [](Transpose x) { return x == Transpose::Trans ? "T" : "N"; };
  return std::string(v.layout == Layout::RowMajor ? "row" : "col") + "_" + t(v.trans_a) +
         t(v.trans_b);
}

std::vector<Variant> all_variants() {
  std::vector<Variant> out;
  for (Layout layout : {Layout::RowMajor, Layout::ColumnMajor})
    for (Transpose ta : {Transpose::NoTrans, Transpose::Trans})
      for (Transpose tb : {Transpose::NoTrans, Transpose::Trans}) out.push_back({layout, ta, tb});
  return out;
}

// The problem with each leading dimension 3 above its minimum and distinct offsets.
GemmProblem problem_for(const Variant& v, std::int64_t m, std::int64_t n, std::int64_t k) {
  GemmProblem p;
  p.layout = v.layout, p.trans_a = v.trans_a, p.trans_b = v.trans_b;
  p.m = m, p.n = n, p.k = k, p.alpha = -1.25f, p.beta = 0.5f;
  p.lda = p.min_lda() + 3, p.ldb = p.min_ldb() + 5, p.ldc = p.min_ldc() + 2;
  p.a_offset = 7, p.b_offset = 4, p.c_offset = 9;
  return p;
}

class TransposeLayout : public ::testing::TestWithParam<std::tuple<std::string, Variant>> {};

TEST_P(TransposeLayout, MatchesReferenceOnOddShapes) {
  const auto& [kernel, variant] = GetParam();
  for (auto [m, n, k] : {std::tuple{37, 29, 45}, std::tuple{1, 17, 3}, std::tuple{130, 67, 1}}) {
    const auto result = run_and_verify(kernel, problem_for(variant, m, n, k));
    EXPECT_TRUE(result.passed) << m << "x" << n << "x" << k << ": " << result.failures
                               << " failures, first " << result.first_failure;
    EXPECT_EQ(result.checked, std::size_t(m * n));
  }
}

// Offsets that are multiples of the vector width with aligned leading dimensions, so the
// vector kernels take their aligned-load path in every transpose.
TEST_P(TransposeLayout, AlignedPaddedStorage) {
  const auto& [kernel, variant] = GetParam();
  GemmProblem p = problem_for(variant, 96, 80, 72);
  p.lda = p.min_lda() + 16, p.ldb = p.min_ldb() + 32, p.ldc = p.min_ldc() + 8;
  p.a_offset = 32, p.b_offset = 64, p.c_offset = 16;
  const auto result = run_and_verify(kernel, p);
  EXPECT_TRUE(result.passed) << result.first_failure;
}

// The kernels that compute FP32 (see fp32_kernel_names).
std::vector<std::string> kernel_names() {
  return fp32_kernel_names();
}

INSTANTIATE_TEST_SUITE_P(Blas, TransposeLayout,
                         ::testing::Combine(::testing::ValuesIn(kernel_names()),
                                            ::testing::ValuesIn(all_variants())),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + name_of(std::get<1>(info.param));
                         });

TEST(Blas, LeadingDimensionMinimumFollowsLayoutAndTranspose) {
  GemmProblem p = GemmProblem::packed(5, 6, 7);
  EXPECT_EQ(p.min_lda(), 7);  // row-major A: rows of K
  p.trans_a = Transpose::Trans;
  EXPECT_EQ(p.min_lda(), 5);  // stored K x M: rows of M
  p.layout = Layout::ColumnMajor;
  EXPECT_EQ(p.min_lda(), 7);  // column-major K x M: columns of K
  p.trans_a = Transpose::NoTrans;
  EXPECT_EQ(p.min_lda(), 5);  // column-major M x K: columns of M
  EXPECT_EQ(p.min_ldb(), 7);
  EXPECT_EQ(p.min_ldc(), 5);
}

TEST(Blas, InvalidLayoutAndTransposeValuesAreNamed) {
  std::vector<float> x(64);
  GemmProblem p = GemmProblem::packed(4, 4, 4);
  p.layout = static_cast<Layout>(103);
  try {
    shared_context().sgemm(p, x.data(), x.data(), x.data());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), Argument::Layout);
  }
  p = GemmProblem::packed(4, 4, 4);
  p.trans_b = static_cast<Transpose>(115);
  try {
    shared_context().sgemm(p, x.data(), x.data(), x.data());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), Argument::TransB);
  }
}

}  // namespace
}  // namespace clgemm::testing
