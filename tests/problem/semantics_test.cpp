// IEEE and BLAS semantics on every FP32 kernel: a NaN or an infinity in A or B reaches exactly the
// row or column of C that IEEE arithmetic says it must, and nothing else; with beta = 0 (or
// -0) C is never read, so NaN and Inf already in C vanish, over repeated launches too.
#include <cfloat>
#include <cmath>
#include <limits>
#include <random>

#include "test_support.hpp"

namespace clgemm::testing {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// The kernels that compute FP32 (see fp32_kernel_names).
std::vector<std::string> kernel_names() {
  return fp32_kernel_names();
}

// Values in +-[0.25, 1]: never zero, so an infinity times any of them is an infinity.
std::vector<float> nonzero_matrix(std::size_t elements, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> magnitude(0.25f, 1.0f);
  std::vector<float> out(elements);
  for (auto& x : out) x = (generator() & 1 ? 1.0f : -1.0f) * magnitude(generator);
  return out;
}

// One NaN and one infinity: either in A and the other in B.
struct Poison {
  std::int64_t a_row, a_col;  // where A gets `a_value`
  float a_value;
  std::int64_t b_row, b_col;  // where B gets `b_value`
  float b_value;
};

// Runs `kernel` with one special value in A and one in B, and checks every element of C: the
// poisoned row of A and column of B follow IEEE rules, everything else is finite and correct.
void check_poison(const std::string& kernel, const GemmProblem& p, const Poison& poison) {
  auto a = nonzero_matrix(p.a_elements(), 21);
  auto b = nonzero_matrix(p.b_elements(), 22);
  const auto c_before = nonzero_matrix(p.c_elements(), 23);
  a[std::size_t(poison.a_row * p.lda + poison.a_col)] = poison.a_value;
  b[std::size_t(poison.b_row * p.ldb + poison.b_col)] = poison.b_value;
  auto c = c_before;
  RunSettings settings;
  settings.kernel = kernel;
  shared_context().sgemm(p, a.data(), b.data(), c.data(), settings);

  // The whole check against the reference (which handles non-finite expectations) ...
  const auto result = verify_gemm(p, a.data(), b.data(), c_before.data(), c.data());
  EXPECT_TRUE(result.passed) << result.failures << " failures, first: " << result.first_failure;

  // ... and the IEEE rules spelled out, independently of the reference.
  const float a_special = poison.a_value, b_special = poison.b_value;
  int unexpected = 0;
  for (std::int64_t i = 0; i < p.m; ++i) {
    for (std::int64_t j = 0; j < p.n; ++j) {
      const float got = c[std::size_t(i * p.ldc + j)];
      const bool in_row = i == poison.a_row, in_column = j == poison.b_col;
      bool ok;
      if ((in_row && std::isnan(a_special)) || (in_column && std::isnan(b_special))) {
        ok = std::isnan(got);  // NaN times anything, plus anything, is NaN
      } else if (in_row) {     // A[i][a_col] is infinite: C[i][j] = alpha * A * B[a_col][j] * inf
        const float sign = p.alpha * a_special * b[std::size_t(poison.a_col * p.ldb + j)];
        ok = std::isinf(got) && (got > 0) == (sign > 0);
      } else if (in_column) {  // B[b_row][j] is infinite
        const float sign = p.alpha * a[std::size_t(i * p.lda + poison.b_row)] * b_special;
        ok = std::isinf(got) && (got > 0) == (sign > 0);
      } else {
        ok = std::isfinite(got);
      }
      if (!ok && unexpected++ < 5)
        ADD_FAILURE() << kernel << ": C[" << i << "][" << j << "] = " << got;
    }
  }
  EXPECT_EQ(unexpected, 0);
}

// Padded storage, sizes that are not tile multiples, alpha and beta away from 1 and 0.
GemmProblem odd_problem() {
  GemmProblem p = padded_problem(67, 45, 93);
  p.alpha = -1.5f;
  return p;
}

class NonFinite : public ::testing::TestWithParam<std::string> {};

TEST_P(NonFinite, NaNInAFillsItsRowInfInBItsColumn) {
  const GemmProblem p = odd_problem();
  // In the first tile, then in the last (partial) tiles of every dimension.
  check_poison(GetParam(), p, {3, 5, kNaN, 17, 2, kInf});
  check_poison(GetParam(), p, {p.m - 1, p.k - 1, kNaN, p.k - 2, p.n - 1, -kInf});
}

TEST_P(NonFinite, InfInAFillsItsRowNaNInBItsColumn) {
  const GemmProblem p = odd_problem();
  check_poison(GetParam(), p, {40, 0, -kInf, 92, 44, kNaN});
  check_poison(GetParam(), p, {0, 64, kInf, 64, 31, kNaN});  // both in K position 64
}

// With beta = 0 or -0, C is written without being read: NaN and infinities in C disappear,
// also when the kernel is launched several times (warm-up plus timed runs).
TEST_P(NonFinite, BetaZeroNeverReadsC) {
  for (const float beta : {0.0f, -0.0f}) {
    GemmProblem p = odd_problem();
    p.beta = beta;
    const auto a = random_matrix(p.a_elements(), 31);
    const auto b = random_matrix(p.b_elements(), 32);
    std::vector<float> c(p.c_elements(), 7.0f);  // 7 marks the padding
    for (std::int64_t i = 0; i < p.m; ++i)
      for (std::int64_t j = 0; j < p.n; ++j)
        c[std::size_t(i * p.ldc + j)] = (i + j) % 2 ? kNaN : -kInf;
    const auto c_before = c;
    RunSettings settings;
    settings.kernel = GetParam();
    RepeatPolicy policy;  // a first call, a warm-up and two timed calls on the same buffers
    policy.min_runs = policy.max_runs = 2;
    policy.min_seconds = 0;
    measure_gemm(shared_context(), p, a.data(), b.data(), c.data(), settings, policy,
                 /*verify=*/false);
    const auto result = verify_gemm(p, a.data(), b.data(), c_before.data(), c.data());
    EXPECT_TRUE(result.passed) << "beta " << beta << ": " << result.first_failure;
    for (std::int64_t i = 0; i < p.m; ++i)
      for (std::int64_t j = 0; j < p.n; ++j)
        ASSERT_TRUE(std::isfinite(c[std::size_t(i * p.ldc + j)])) << "C[" << i << "][" << j << "]";
  }
}

// A result beyond float's range: the float nearest the reference is an infinity of its sign,
// which passes; a finite or wrongly signed result fails. The worst ratio and the failures
// agree (before, an infinite result failed while the worst ratio left it out: "worst error
// 0.0231 of tolerance: 119 failures").
TEST(Semantics, OverflowRoundsToInfinityAndTheWorstRatioCountsEveryFailure) {
  GemmProblem p = GemmProblem::packed(1, 2, 2, 3.4e38f, 0.0f);
  const std::vector<float> a = {1.0f, 1.0f}, b = {1.0f, 0.25f, 1.0f, 0.25f}, before = {0, 0};
  // C[0][0] = 3.4e38 * 2 overflows; C[0][1] = 3.4e38 * 0.5 does not.
  auto verify = [&](std::vector<float> after) {
    return verify_gemm(p, a.data(), b.data(), before.data(), after.data());
  };
  const float inf = std::numeric_limits<float>::infinity();
  auto v = verify({inf, 1.7e38f});
  EXPECT_TRUE(v.passed) << v.first_failure;
  EXPECT_LE(v.worst_ratio, 1.0);
  for (const std::vector<float>& wrong :
       {std::vector<float>{FLT_MAX, 1.7e38f}, std::vector<float>{-inf, 1.7e38f},
        std::vector<float>{inf, inf}, std::vector<float>{inf, std::nanf("")}}) {
    v = verify(wrong);
    EXPECT_FALSE(v.passed);
    EXPECT_EQ(v.failures, 1u) << v.first_failure;
    EXPECT_GT(v.worst_ratio, 1.0) << v.first_failure;
  }
}

INSTANTIATE_TEST_SUITE_P(Semantics, NonFinite, ::testing::ValuesIn(kernel_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace clgemm::testing
