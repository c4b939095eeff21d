// Element-set overlap (src/problem/overlap.hpp) against brute force: two matrices on one
// lattice, the strided batch's first overlapping product, and the residue search under it.
#include <gtest/gtest.h>

#include <set>

#include "problem/overlap.hpp"

namespace clgemm::detail {
namespace {

std::set<std::int64_t> elements(std::int64_t offset, const MatrixGrid& g) {
  std::set<std::int64_t> out;
  for (std::int64_t i = 0; i < g.lines; ++i)
    for (std::int64_t j = 0; j < g.length; ++j) out.insert(offset + i * g.ld + j);
  return out;
}

bool share(const std::set<std::int64_t>& x, const std::set<std::int64_t>& y) {
  for (std::int64_t e : x)
    if (y.count(e)) return true;
  return false;
}

TEST(Overlap, FirstMultipleInRangeMatchesBruteForce) {
  for (std::int64_t m = 1; m <= 23; ++m)
    for (std::int64_t a = 0; a < m; ++a)
      for (std::int64_t low = 0; low < m; ++low)
        for (std::int64_t high = low; high < m; ++high) {
          std::int64_t expected = -1;
          for (std::int64_t x = 0; x < 2 * m && expected < 0; ++x)
            if ((a * x) % m >= low && (a * x) % m <= high) expected = x;
          ASSERT_EQ(first_multiple_in_range(a, m, low, high), expected)
              << "a " << a << " m " << m << " [" << low << ", " << high << "]";
        }
}

TEST(Overlap, GridsIntersectMatchesBruteForce) {
  for (std::int64_t ld = 1; ld <= 6; ++ld)
    for (std::int64_t xl = 1; xl <= 3; ++xl)
      for (std::int64_t xn = 1; xn <= ld; ++xn)
        for (std::int64_t yl = 1; yl <= 3; ++yl)
          for (std::int64_t yn = 1; yn <= ld; ++yn)
            for (std::int64_t d = -20; d <= 20; ++d) {
              const MatrixGrid x{xl, xn, ld}, y{yl, yn, ld};
              ASSERT_EQ(grids_intersect(d, x, y, ld), share(elements(0, x), elements(d, y)))
                  << "ld " << ld << " x " << xl << "x" << xn << " y " << yl << "x" << yn << " d "
                  << d;
            }
}

// The case: two 2x2 C's in alternate pairs of columns of a 4-wide C share nothing.
TEST(Overlap, FirstOverlappingProductMatchesBruteForce) {
  EXPECT_EQ(first_overlapping_product({2, 2, 4}, 2, 2), 0);
  EXPECT_EQ(first_overlapping_product({2, 2, 4}, 2, 3), 2);
  for (std::int64_t ld = 1; ld <= 7; ++ld)
    for (std::int64_t lines = 1; lines <= 4; ++lines)
      for (std::int64_t length = 1; length <= ld; ++length)
        for (std::int64_t stride = 0; stride <= 3 * ld * lines; ++stride)
          for (std::int64_t count : {2, 3, 5, 40}) {
            const MatrixGrid g{lines, length, ld};
            std::int64_t expected = 0;
            const auto first = elements(0, g);
            for (std::int64_t k = 1; k < count && !expected; ++k)
              if (share(first, elements(k * stride, g))) expected = k;
            ASSERT_EQ(first_overlapping_product(g, stride, count), expected)
                << lines << "x" << length << " ld " << ld << " stride " << stride << " count "
                << count;
          }
}

// Large batches and leading dimensions: the arithmetic answer is the first k that the O(1)
// pairwise test finds walking the batch.
TEST(Overlap, LargeBatchesAreDecidedArithmetically) {
  for (const MatrixGrid& c :
       {MatrixGrid{1000, 3, 1000003}, MatrixGrid{70, 1000, 1024}, MatrixGrid{5000, 1, 999983}})
    for (std::int64_t stride : {3, 4, 1001, 1000003 * 7 + 5, 524288 + 999, 999983 * 3 + 1}) {
      const std::int64_t count = 2000000;
      std::int64_t expected = 0;
      for (std::int64_t k = 1; k < count && !expected; ++k)
        if (grids_intersect(__int128(k) * stride, c, c, c.ld)) expected = k;
      EXPECT_EQ(first_overlapping_product(c, stride, count), expected)
          << c.lines << "x" << c.length << " ld " << c.ld << " stride " << stride;
    }
  EXPECT_EQ(first_overlapping_product({1000, 3, 1000003}, 2, std::int64_t(1) << 31), 1);
  EXPECT_EQ(first_overlapping_product({1000, 3, 1000003}, 3, std::int64_t(1) << 31), 333334);
}

}  // namespace
}  // namespace clgemm::detail
