// The GEMV-like kernel, gemv, against the double reference in its own regime: a short side
// (M or N) from 1 to past its SMALL rows with the other two dimensions long, K = 1, every
// transpose in both layouts, padded leading dimensions and offsets, beta = 0 over NaN, alpha = 0,
// its GPU parameters, and run-to-run determinism.
#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include "test_support.hpp"

namespace clgemm::testing {
namespace {

const char kGemv[] = "gemv";

// A problem with padded leading dimensions, offsets, and alpha, beta other than 1 and 0, in
// `layout` with both operands transposed as given.
GemmProblem gemv_problem(std::int64_t m, std::int64_t n, std::int64_t k, Transpose trans_a,
                         Transpose trans_b, Layout layout) {
  GemmProblem p;
  p.layout = layout;
  p.trans_a = trans_a, p.trans_b = trans_b;
  p.m = m, p.n = n, p.k = k;
  p.alpha = 1.5f, p.beta = -0.75f;
  p.lda = p.min_lda() + 3, p.ldb = p.min_ldb() + 5, p.ldc = p.min_ldc() + 2;
  p.a_offset = 5, p.b_offset = 8, p.c_offset = 3;
  return p;
}

// The i-th of the four transpose combinations, and of the two layouts.
Transpose trans_of(int bit) {
  return bit ? Transpose::Trans : Transpose::NoTrans;
}
Layout layout_of(int bit) {
  return bit ? Layout::ColumnMajor : Layout::RowMajor;
}

void expect_matches(const GemmProblem& p, const KernelOptions& overrides = {},
                    const float* c_fill = nullptr) {
  const auto result = run_and_verify(kGemv, p, overrides, c_fill);
  EXPECT_TRUE(result.passed) << p.m << "x" << p.n << "x" << p.k << " trans "
                             << int(p.trans_a == Transpose::Trans)
                             << int(p.trans_b == Transpose::Trans) << " column-major "
                             << int(p.layout == Layout::ColumnMajor) << ": " << result.failures
                             << " failures, first: " << result.first_failure;
  EXPECT_EQ(result.checked, std::size_t(p.m * p.n));
}

// M = 1..33 with N and K long, then N = 1..33 with M and K long: the short side below, at and
// past the derived SMALL rows, each size with another transpose combination and layout.
TEST(Gemv, ShortSideSweep) {
  for (int side = 1; side <= 33; ++side) {
    const int t = side % 4, layout = (side / 4) % 2;
    expect_matches(
        gemv_problem(side, 131, 517, trans_of(t & 1), trans_of(t >> 1), layout_of(layout)));
    expect_matches(
        gemv_problem(131, side, 517, trans_of(t >> 1), trans_of(t & 1), layout_of(!layout)));
  }
}

// Every transpose combination in both layouts, with the short side M or N, and K = 1.
TEST(Gemv, EveryTransposeAndLayout) {
  for (int layout = 0; layout < 2; ++layout)
    for (int t = 0; t < 4; ++t) {
      const Transpose ta = trans_of(t & 1), tb = trans_of(t >> 1);
      expect_matches(gemv_problem(16, 2048, 64, ta, tb, layout_of(layout)));
      expect_matches(gemv_problem(2048, 8, 64, ta, tb, layout_of(layout)));
      expect_matches(gemv_problem(3, 64, 2048, ta, tb, layout_of(layout)));
      expect_matches(gemv_problem(7, 300, 1, ta, tb, layout_of(layout)));
      expect_matches(gemv_problem(300, 5, 1, ta, tb, layout_of(layout)));
    }
}

// Packed operands, where the vector loads are aligned (for VEC up to 8), and the general case
// of both sides long (several groups of SMALL rows, the long operand read once per group).
TEST(Gemv, PackedAndBothSidesLong) {
  for (int t = 0; t < 4; ++t) {
    GemmProblem p = GemmProblem::packed(8, 1024, 256, 1.0f, 0.5f);
    p.trans_a = trans_of(t & 1), p.trans_b = trans_of(t >> 1);
    p.lda = p.min_lda(), p.ldb = p.min_ldb(), p.ldc = p.min_ldc();
    expect_matches(p);
    p.m = 1024, p.n = 8;
    p.lda = p.min_lda(), p.ldb = p.min_ldb(), p.ldc = p.min_ldc();
    expect_matches(p);
  }
  expect_matches(gemv_problem(70, 90, 45, Transpose::NoTrans, Transpose::Trans, Layout::RowMajor));
  expect_matches(gemv_problem(1, 1, 1, Transpose::NoTrans, Transpose::NoTrans, Layout::RowMajor));
}

// BLAS semantics: beta = 0 never reads C (NaN there must not reach the result), and alpha = 0
// scales C without reading A or B.
TEST(Gemv, BetaZeroIgnoresNaNAndAlphaZeroScales) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int t = 0; t < 4; ++t) {
    const Transpose ta = trans_of(t & 1), tb = trans_of(t >> 1);
    // Row-major, M short; column-major, where the call's short side is N.
    for (GemmProblem p : {gemv_problem(5, 333, 200, ta, tb, Layout::RowMajor),
                          gemv_problem(5, 333, 200, ta, tb, Layout::ColumnMajor)}) {
      p.beta = 0.0f;
      expect_matches(p, {}, &nan);
    }
  }
  GemmProblem p =
      gemv_problem(9, 200, 100, Transpose::NoTrans, Transpose::NoTrans, Layout::RowMajor);
  p.alpha = 0.0f;
  expect_matches(p);
}

// Parameters other than the derived ones: 256 work-items with 32 rows, one lane of scalar
// loads, few rows per group, and a ring of four blocks with 8 rows, on both roles.
TEST(Gemv, OtherParameters) {
  const KernelOptions sets[] = {
      {{"SMALL", 32}, {"LANES", 8}, {"SPLIT", 32}, {"VEC", 4}, {"PASS_ROWS", 8}, {"AHEAD", 2}},
      {{"SMALL", 5}, {"LANES", 1}, {"SPLIT", 3}, {"VEC", 1}, {"PASS_ROWS", 3}, {"AHEAD", 3}},
      {{"SMALL", 2}, {"LANES", 16}, {"SPLIT", 2}, {"VEC", 2}, {"PASS_ROWS", 1}, {"AHEAD", 1}},
      {{"SMALL", 8}, {"LANES", 4}, {"SPLIT", 8}, {"VEC", 4}, {"PASS_ROWS", 8}, {"AHEAD", 4}}};
  // NN and TT only: each combination is a program of its own, and PoCL compiles slowly (the
  // derived parameters run every combination above).
  for (const auto& options : sets)
    for (int t : {0, 3}) {
      SCOPED_TRACE(format_build_options(options));
      const Transpose ta = trans_of(t & 1), tb = trans_of(t >> 1);
      expect_matches(gemv_problem(13, 257, 301, ta, tb, Layout::RowMajor), options);  // M short
      expect_matches(gemv_problem(257, 33, 130, ta, tb, Layout::RowMajor), options);  // N short
    }
}

// The same inputs give bitwise the same C, run after run (the partial sums of K are added in a
// fixed order).
TEST(Gemv, Deterministic) {
  for (const auto& shape :
       {std::array<std::int64_t, 3>{16, 1024, 2048}, std::array<std::int64_t, 3>{1024, 8, 2048}}) {
    GemmProblem p = GemmProblem::packed(shape[0], shape[1], shape[2], 1.0f, 0.0f);
    const auto a = random_matrix(p.a_elements(), 21);
    const auto b = random_matrix(p.b_elements(), 22);
    std::vector<float> first(p.c_elements()), second(p.c_elements());
    RunSettings settings;
    settings.kernel = kGemv;
    shared_context().sgemm(p, a.data(), b.data(), first.data(), settings);
    for (int run = 0; run < 2; ++run) {
      std::fill(second.begin(), second.end(), 0.0f);
      shared_context().sgemm(p, a.data(), b.data(), second.data(), settings);
      EXPECT_EQ(std::memcmp(first.data(), second.data(), first.size() * sizeof(float)), 0)
          << shape[0] << "x" << shape[1] << "x" << shape[2] << " run " << run + 2;
    }
  }
}

}  // namespace
}  // namespace clgemm::testing
