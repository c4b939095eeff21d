// Randomized differential tests: seeded random GEMM problems (sizes biased towards tile edges,
// alpha and beta from {0, 1, -1, arbitrary}, leading dimensions sometimes padded) run through
// every FP32 kernel of the catalogue and checked against the double-accumulated host reference.
// Padding between rows of A and B holds NaN (a kernel must never read it), and with beta = 0
// C holds NaN (BLAS: C is not read). Environment:
//   CLGEMM_RANDOM_CASES  problems per kernel (default 400; the `long` ctest label runs 20000)
//   CLGEMM_RANDOM_SEED   seed of the first problem (default 1); problem i uses seed + i, so
//                        CLGEMM_RANDOM_SEED=<seed> CLGEMM_RANDOM_CASES=1 replays one problem
//   CLGEMM_RANDOM_MAX_MNK  bound on M * N * K per problem (default 8000000), which keeps the
//                        slow rungs (base, row, private) fast on a CPU device
#include <cstdlib>
#include <limits>
#include <random>
#include <sstream>

#include "test_support.hpp"

namespace clgemm::testing {
namespace {

constexpr std::uint64_t kDefaultCases = 400;
constexpr std::uint64_t kDefaultMaxMnk = 8000000;

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* text = std::getenv(name);
  if (!text || !*text) return fallback;
  return std::strtoull(text, nullptr, 10);
}

struct RandomCase {
  std::uint64_t seed;
  GemmProblem problem;
};

// A size from 1 to about 300: half the time next to a multiple of a tile edge (8 .. 256, -1,
// 0 or +1), sometimes tiny, otherwise uniform.
std::int64_t random_extent(std::mt19937_64& rng) {
  const int kind = std::uniform_int_distribution<int>(0, 9)(rng);
  if (kind < 5) {
    const std::int64_t edges[] = {8, 16, 32, 64, 128, 256};
    const std::int64_t edge = edges[std::uniform_int_distribution<int>(0, 5)(rng)];
    const std::int64_t multiple = std::uniform_int_distribution<std::int64_t>(1, 300 / edge)(rng);
    const std::int64_t delta = std::uniform_int_distribution<std::int64_t>(-1, 1)(rng);
    return std::max<std::int64_t>(1, edge * multiple + delta);
  }
  if (kind < 7) return std::uniform_int_distribution<std::int64_t>(1, 8)(rng);
  return std::uniform_int_distribution<std::int64_t>(1, 320)(rng);
}

float random_scalar(std::mt19937_64& rng) {
  switch (std::uniform_int_distribution<int>(0, 4)(rng)) {
    case 0:
      return 0.0f;
    case 1:
      return -0.0f;  // compares equal to 0: C must not be read either
    case 2:
      return 1.0f;
    case 3:
      return -1.0f;
    default:
      return std::uniform_real_distribution<float>(-2.0f, 2.0f)(rng);
  }
}

// The row length, or sometimes more: an odd pad, or rounded up to a multiple of 8 or 16 (so
// the vector kernels also see padded rows they may load as aligned vectors).
std::int64_t random_leading_dimension(std::mt19937_64& rng, std::int64_t row_length) {
  switch (std::uniform_int_distribution<int>(0, 5)(rng)) {
    case 0:
      return row_length + std::uniform_int_distribution<std::int64_t>(1, 17)(rng);
    case 1: {
      const std::int64_t multiple = std::uniform_int_distribution<int>(0, 1)(rng) ? 16 : 8;
      return (row_length / multiple + 1) * multiple;
    }
    default:
      return row_length;
  }
}

RandomCase generate_case(std::uint64_t seed, std::uint64_t max_mnk) {
  std::mt19937_64 rng(seed);
  GemmProblem p;
  do {
    p.m = random_extent(rng), p.n = random_extent(rng), p.k = random_extent(rng);
  } while (std::uint64_t(p.m * p.n * p.k) > max_mnk);
  p.alpha = random_scalar(rng);
  p.beta = random_scalar(rng);
  p.lda = random_leading_dimension(rng, p.k);
  p.ldb = random_leading_dimension(rng, p.n);
  p.ldc = random_leading_dimension(rng, p.n);
  return {seed, p};
}

std::string describe(const RandomCase& c, const std::string& kernel, std::uint64_t max_mnk) {
  const GemmProblem& p = c.problem;
  std::ostringstream text;
  text << "kernel " << kernel << ", seed " << c.seed << ": M=" << p.m << " N=" << p.n
       << " K=" << p.k << " alpha=" << p.alpha << " beta=" << p.beta << " lda=" << p.lda
       << " ldb=" << p.ldb << " ldc=" << p.ldc << "\n  replay: CLGEMM_RANDOM_SEED=" << c.seed
       << " CLGEMM_RANDOM_CASES=1";
  if (max_mnk != kDefaultMaxMnk) text << " CLGEMM_RANDOM_MAX_MNK=" << max_mnk;
  text << " clgemm-tests --gtest_filter='Randomized/*/" << kernel << "'";
  return text.str();
}

// A matrix of `rows` x `cols` in rows of `ld` elements: uniform values in [-1, 1] in the
// matrix, `pad` between the rows.
std::vector<float> random_strided(std::int64_t rows, std::int64_t cols, std::int64_t ld,
                                  std::mt19937_64& rng, float pad) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> out(std::size_t((rows - 1) * ld + cols), pad);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) out[std::size_t(i * ld + j)] = uniform(rng);
  return out;
}

class Differential : public ::testing::TestWithParam<std::string> {};

TEST_P(Differential, MatchesReference) {
  const std::string& kernel = GetParam();
  const std::uint64_t cases = env_number("CLGEMM_RANDOM_CASES", kDefaultCases);
  const std::uint64_t first_seed = env_number("CLGEMM_RANDOM_SEED", 1);
  const std::uint64_t max_mnk = env_number("CLGEMM_RANDOM_MAX_MNK", kDefaultMaxMnk);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  int failures = 0;
  for (std::uint64_t i = 0; i < cases && failures < 10; ++i) {
    const RandomCase c = generate_case(first_seed + i, max_mnk);
    const GemmProblem& p = c.problem;
    std::mt19937_64 rng(c.seed ^ 0x9e3779b97f4a7c15ull);
    const auto a = random_strided(p.m, p.k, p.lda, rng, nan);
    const auto b = random_strided(p.k, p.n, p.ldb, rng, nan);
    // C's padding holds a sentinel that verify_gemm requires unchanged.
    const auto c_before = random_strided(p.m, p.n, p.ldc, rng, -12345.0f);
    auto c_in = c_before;
    if (p.beta == 0.0f)
      for (std::int64_t r = 0; r < p.m; ++r)
        for (std::int64_t j = 0; j < p.n; ++j) c_in[std::size_t(r * p.ldc + j)] = nan;
    auto c_out = c_in;
    RunSettings settings;
    settings.kernel = kernel;
    try {
      shared_context().sgemm(p, a.data(), b.data(), c_out.data(), settings);
    } catch (const std::exception& e) {
      ++failures;
      ADD_FAILURE() << describe(c, kernel, max_mnk) << "\n  threw: " << e.what();
      continue;
    }
    const auto result = verify_gemm(p, a.data(), b.data(), c_in.data(), c_out.data());
    if (!result.passed) {
      ++failures;
      ADD_FAILURE() << describe(c, kernel, max_mnk) << "\n  " << result.failures
                    << " wrong elements, first: " << result.first_failure;
    }
  }
  if (failures >= 10) ADD_FAILURE() << "stopped after 10 failing problems";
}

// Every kernel that computes FP32 (see fp32_kernel_names).
INSTANTIATE_TEST_SUITE_P(Randomized, Differential, ::testing::ValuesIn(fp32_kernel_names()),
                         [](const auto& info) { return info.param; });

// The generator itself: reproducible, within bounds, and reaching the edges it is meant to.
TEST(Randomized, GeneratorIsReproducibleAndCoversTileEdges) {
  int edge_hits = 0, padded = 0, zero_beta = 0, ones = 0;
  for (std::uint64_t seed = 1; seed <= 1000; ++seed) {
    const RandomCase c = generate_case(seed, kDefaultMaxMnk);
    const GemmProblem& p = c.problem;
    const RandomCase again = generate_case(seed, kDefaultMaxMnk);
    ASSERT_EQ(p.m, again.problem.m);
    ASSERT_EQ(p.lda, again.problem.lda);
    ASSERT_NO_THROW(validate_problem(p));
    ASSERT_LE(std::uint64_t(p.m * p.n * p.k), kDefaultMaxMnk);
    for (std::int64_t e : {p.m, p.n, p.k}) {
      if ((e + 1) % 32 == 0 || e % 32 == 0 || (e - 1) % 32 == 0) ++edge_hits;
      if (e == 1) ++ones;
    }
    if (p.lda > p.k || p.ldb > p.n || p.ldc > p.n) ++padded;
    if (p.beta == 0.0f) ++zero_beta;
  }
  EXPECT_GT(edge_hits, 600);  // of 3000 extents; uniform sizes would give about 280
  EXPECT_GT(padded, 300);
  EXPECT_GT(zero_beta, 250);
  EXPECT_GT(ones, 50);
}

}  // namespace
}  // namespace clgemm::testing
