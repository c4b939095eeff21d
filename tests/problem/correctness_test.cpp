// Every FP32 kernel of the catalogue against the double-accumulated reference, on shapes that are
// and are not multiples of the tiles, with padded leading dimensions and alpha, beta != 1, 0.
#include <tuple>

#include "test_support.hpp"

namespace clgemm::testing {
namespace {

struct Shape {
  std::int64_t m, n, k;
};

const Shape kShapes[] = {{1, 1, 1},     {7, 13, 5},   {64, 64, 64},   {65, 33, 127},
                         {128, 1, 300}, {1, 257, 31}, {517, 389, 603}};

// The kernels that compute FP32 (see fp32_kernel_names).
std::vector<std::string> kernel_names() {
  return fp32_kernel_names();
}

class KernelShape : public ::testing::TestWithParam<std::tuple<std::string, Shape>> {};

TEST_P(KernelShape, MatchesReference) {
  const auto& [kernel, shape] = GetParam();
  const auto result = run_and_verify(kernel, padded_problem(shape.m, shape.n, shape.k));
  EXPECT_TRUE(result.passed) << result.failures << " failures, first: " << result.first_failure;
  EXPECT_EQ(result.checked, std::size_t(shape.m * shape.n));
}

INSTANTIATE_TEST_SUITE_P(Ladder, KernelShape,
                         ::testing::Combine(::testing::ValuesIn(kernel_names()),
                                            ::testing::ValuesIn(kShapes)),
                         [](const auto& info) {
                           const Shape& s = std::get<1>(info.param);
                           return std::get<0>(info.param) + "_" + std::to_string(s.m) + "x" +
                                  std::to_string(s.n) + "x" + std::to_string(s.k);
                         });

class KernelSemantics : public ::testing::TestWithParam<std::string> {};

// BLAS semantics: with beta = 0, C is not read, so NaN in C must not reach the result.
TEST_P(KernelSemantics, BetaZeroIgnoresNaNInC) {
  GemmProblem p = padded_problem(37, 45, 29);
  p.beta = 0.0f;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto result = run_and_verify(GetParam(), p, {}, &nan);
  EXPECT_TRUE(result.passed) << result.first_failure;
}

// Packed (unpadded) storage, where the vector kernels may use aligned loads.
TEST_P(KernelSemantics, PackedSquareMultipleOfTiles) {
  const auto result = run_and_verify(GetParam(), GemmProblem::packed(256, 256, 256, 1.0f, 1.0f));
  EXPECT_TRUE(result.passed) << result.first_failure;
}

// Packed but with sizes that are not multiples of any vector width.
TEST_P(KernelSemantics, PackedOddSizes) {
  const auto result = run_and_verify(GetParam(), GemmProblem::packed(67, 91, 83, -2.0f, 0.5f));
  EXPECT_TRUE(result.passed) << result.first_failure;
}

INSTANTIATE_TEST_SUITE_P(Ladder, KernelSemantics, ::testing::ValuesIn(kernel_names()),
                         [](const auto& info) { return info.param; });

// Non-default parameters, including ones a user would pick by hand.
struct Override {
  std::string kernel;
  KernelOptions options;
  std::string label;
};

class KernelOverride : public ::testing::TestWithParam<Override> {};

TEST_P(KernelOverride, MatchesReferenceOnOddShape) {
  const auto& o = GetParam();
  for (const Shape& s : {Shape{65, 33, 127}, Shape{17, 129, 9}}) {
    const auto result = run_and_verify(o.kernel, padded_problem(s.m, s.n, s.k), o.options);
    EXPECT_TRUE(result.passed) << s.m << "x" << s.n << "x" << s.k << ": " << result.first_failure;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Ladder, KernelOverride,
    ::testing::Values(
        Override{"base", {{"WG_X", 8}, {"WG_Y", 4}}, "base_8x4"},
        Override{"row", {{"WG", 16}}, "row_wg16"},
        Override{"private", {{"PRIVATE_K", 16}}, "private_chunk16"},
        Override{"tile", {{"TILE", 8}}, "tile_8"},
        Override{"coarsened", {{"TILE", 32}, {"ITEM", 2}}, "coarsened_32_2"},
        Override{"vectorized",
                 {{"TILE_M", 32},
                  {"TILE_N", 64},
                  {"TILE_K", 16},
                  {"ITEM_M", 4},
                  {"ITEM_N", 8},
                  {"VEC", 8}},
                 "vectorized_vec8"},
        Override{"vectorized",
                 {{"TILE_M", 16},
                  {"TILE_N", 16},
                  {"TILE_K", 4},
                  {"ITEM_M", 2},
                  {"ITEM_N", 2},
                  {"VEC", 1}},
                 "vectorized_vec1"},
        // blocked's GPU default (derived on large GPUs), exercised here on any device.
        Override{"blocked",
                 {{"TILE_M", 128},
                  {"TILE_N", 256},
                  {"TILE_K", 8},
                  {"ITEM_M", 16},
                  {"ITEM_N", 8},
                  {"VEC", 4}},
                 "blocked_gpu_default"},
        Override{"blocked",
                 {{"TILE_M", 32},
                  {"TILE_N", 32},
                  {"TILE_K", 8},
                  {"ITEM_M", 4},
                  {"ITEM_N", 4},
                  {"VEC", 2}},
                 "blocked_small_vec2"}),
    [](const auto& info) { return info.param.label; });

}  // namespace
}  // namespace clgemm::testing
