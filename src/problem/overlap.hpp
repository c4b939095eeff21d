// Internal: whether the matrices of a call share elements, decided on the element sets, not on
// their extents. A product's matrix is the set offset + i * ld + j (0 <= i < lines,
// 0 <= j < length); a batch is one such set per product, at offset + p * stride or at a product
// table's offsets. Interleaved products (two C's in alternate columns) share no element and
// are accepted; C overlapping an operand it is computed from, on one cl_mem, is refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "clgemm/errors.hpp"
#include "clgemm/gemm.hpp"

namespace clgemm::detail {

// One product's matrix: `lines` lines of `length` elements, `ld` apart.
struct MatrixGrid {
  std::int64_t lines = 0, length = 0, ld = 1;
  bool empty() const { return lines <= 0 || length <= 0; }
  // (lines - 1) * ld + length, or 0 when empty.
  std::size_t extent() const;
};

// Whether x0 + x and x0 + difference + y share an element, both on the lattice of `ld` (a
// matrix of one line fits any lattice): exact, O(1).
bool grids_intersect(__int128 difference, const MatrixGrid& x, const MatrixGrid& y,
                     std::int64_t ld);

// The smallest k in 1..count-1 such that products 0 and k of a strided batch (product p at
// p * stride) share an element (then so do p and p + k for every p), or 0 when none do. Exact
// and O(log ld) whatever the count: the residues of k * stride modulo ld are searched with
// Euclid's algorithm.
std::int64_t first_overlapping_product(const MatrixGrid& grid, std::int64_t stride,
                                       std::int64_t count);

// The smallest x >= 0 with low <= (a * x) mod m <= high, or -1 (0 <= a < m, 0 <= low <= high
// < m). Euclid-like, O(log m).
std::int64_t first_multiple_in_range(std::int64_t a, std::int64_t m, std::int64_t low,
                                     std::int64_t high);

// The elements of one operand of a problem across its batch: `which` is Argument::A, B, C or
// Bias. The table, when given, is the problem's host table.
struct BatchElements {
  Argument which = Argument::C;
  MatrixGrid grid;
  std::size_t offset = 0;
  std::int64_t stride = 0, count = 0;
  const BatchProduct* table = nullptr;
  cl_ulong BatchProduct::*table_offset = nullptr;
  std::size_t product_offset(std::int64_t p) const;
};
BatchElements batch_elements(const GemmProblem& problem, Argument which);

// Whether `read` (an operand the call reads) and `written` (C), which start `origin_bytes`
// apart on one memory object (written's start minus read's, in bytes), share an element: a
// sentence naming the products that do, or nullopt. Exact where both lie on one lattice of
// whole floats and the products are few enough to compare pairwise (2^16 pairs); otherwise
// decided by the products' byte ranges, which may refuse interleaved matrices that share no
// element (the sentence says so).
std::optional<std::string> overlap_of(const BatchElements& read, const BatchElements& written,
                                      __int128 origin_bytes);

}  // namespace clgemm::detail
