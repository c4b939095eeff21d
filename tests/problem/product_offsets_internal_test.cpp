// Where each product of a batch starts (src/problem/product_offsets.hpp): strided batches step by
// their strides, tables give their entries, the lowest offsets span a table in any order, and
// GemmProblem::product reads the same offsets.
#include <gtest/gtest.h>

#include <vector>

#include "problem/product_offsets.hpp"

namespace clgemm::detail {
namespace {

TEST(ProductOffsets, StridedBatchesStepByTheirStrides) {
  GemmProblem p = GemmProblem::packed_batch(4, 5, 6, 3);
  p.a_offset = 7, p.b_offset = 11, p.c_offset = 13;
  p.epilogue.bias = Bias::PerColumn;
  p.epilogue.bias_offset = 2, p.epilogue.bias_stride = 9;
  for (std::int64_t i = 0; i < p.batch; ++i) {
    const ProductOffsets at = product_offsets(p, i);
    EXPECT_EQ(at.a, 7 + std::size_t(i) * 24) << i;
    EXPECT_EQ(at.b, 11 + std::size_t(i) * 30) << i;
    EXPECT_EQ(at.c, 13 + std::size_t(i) * 20) << i;
    EXPECT_EQ(at.bias, 2 + std::size_t(i) * 9) << i;
    const GemmProblem one = p.product(i);
    EXPECT_EQ(one.a_offset, at.a);
    EXPECT_EQ(one.b_offset, at.b);
    EXPECT_EQ(one.c_offset, at.c);
    EXPECT_EQ(one.epilogue.bias_offset, at.bias);
  }
  const ProductOffsets lowest = lowest_product_offsets(p);
  EXPECT_EQ(lowest.a, 7u);
  EXPECT_EQ(lowest.b, 11u);
  EXPECT_EQ(lowest.c, 13u);
  EXPECT_EQ(lowest.bias, 2u);
}

TEST(ProductOffsets, TablesGiveTheirEntriesInAnyOrder) {
  GemmProblem p = GemmProblem::packed(4, 5, 6);
  p.batch = 3;
  p.a_offset = 1000, p.b_offset = 1000, p.c_offset = 1000;  // not used with a table
  p.epilogue.bias_offset = 3, p.epilogue.bias_stride = 5;
  std::vector<BatchProduct> table = {
      {48, 60, 40, 1.0f, 0.0f}, {0, 90, 80, 2.0f, 1.0f}, {24, 30, 0, 0.5f, 0.5f}};
  p.products.host = table.data();
  for (std::int64_t i = 0; i < p.batch; ++i) {
    const ProductOffsets at = product_offsets(p, i);
    EXPECT_EQ(at.a, table[std::size_t(i)].a_offset) << i;
    EXPECT_EQ(at.b, table[std::size_t(i)].b_offset) << i;
    EXPECT_EQ(at.c, table[std::size_t(i)].c_offset) << i;
    EXPECT_EQ(at.bias, 3 + std::size_t(i) * 5) << i;
    const GemmProblem one = p.product(i);
    EXPECT_EQ(one.c_offset, at.c);
    EXPECT_EQ(one.alpha, table[std::size_t(i)].alpha);
  }
  const ProductOffsets lowest = lowest_product_offsets(p);
  EXPECT_EQ(lowest.a, 0u);
  EXPECT_EQ(lowest.b, 30u);
  EXPECT_EQ(lowest.c, 0u);
  EXPECT_EQ(lowest.bias, 3u);
}

TEST(ProductOffsets, AnEmptyBatchHasTheProblemsOwnOffsets) {
  GemmProblem p = GemmProblem::packed(4, 5, 6);
  p.batch = 0;
  p.a_offset = 1, p.b_offset = 2, p.c_offset = 3, p.epilogue.bias_offset = 4;
  std::vector<BatchProduct> none;
  p.products.host = none.data();  // never read
  const ProductOffsets lowest = lowest_product_offsets(p);
  EXPECT_EQ(lowest.a, 1u);
  EXPECT_EQ(lowest.b, 2u);
  EXPECT_EQ(lowest.c, 3u);
  EXPECT_EQ(lowest.bias, 4u);
}

}  // namespace
}  // namespace clgemm::detail
