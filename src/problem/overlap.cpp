// Element-set overlap of a call's matrices (overlap.hpp): two products of one lattice share an
// element exactly when their difference is di * ld + dj with di and dj inside the bounds the
// two shapes allow, and a strided batch's products 0 and k do exactly when k * stride is such
// a difference, which Euclid's algorithm finds among the residues of k * stride modulo ld.
#include "problem/overlap.hpp"

#include <algorithm>
#include <climits>
#include <numeric>

namespace clgemm::detail {
namespace {

__int128 floor_div(__int128 x, __int128 y) {  // y > 0
  const __int128 q = x / y;
  return (x % y != 0 && x < 0) ? q - 1 : q;
}
__int128 ceil_div(__int128 x, __int128 y) {  // y > 0
  return -floor_div(-x, y);
}

std::string text(__int128 value) {  // value >= 0
  return std::to_string(std::uint64_t(value));
}

// The first and one past the last element of the batch, relative to its offsets' origin.
std::pair<std::size_t, std::size_t> batch_span(const BatchElements& e) {
  std::size_t first = SIZE_MAX, last = 0;
  if (e.table) {
    for (std::int64_t p = 0; p < e.count; ++p) {
      first = std::min(first, e.product_offset(p));
      last = std::max(last, e.product_offset(p));
    }
  } else {
    first = e.offset;
    last = e.product_offset(e.count - 1);
  }
  return {first, last + e.grid.extent()};
}

}  // namespace

std::size_t MatrixGrid::extent() const {
  return empty() ? 0 : std::size_t(lines - 1) * std::size_t(ld) + std::size_t(length);
}

bool grids_intersect(__int128 difference, const MatrixGrid& x, const MatrixGrid& y,
                     std::int64_t ld) {
  if (x.empty() || y.empty()) return false;
  // x0 + ix * ld + jx = x0 + difference + iy * ld + jy: difference = di * ld + dj with
  // di = ix - iy in [-(y.lines - 1), x.lines - 1] and dj = jx - jy in [-(y.length - 1),
  // x.length - 1], so di * ld lies in [difference - (x.length - 1), difference + y.length - 1].
  const __int128 low =
      std::max<__int128>(ceil_div(difference - (x.length - 1), ld), -(y.lines - 1));
  const __int128 high = std::min<__int128>(floor_div(difference + (y.length - 1), ld), x.lines - 1);
  return low <= high;
}

std::int64_t first_multiple_in_range(std::int64_t a, std::int64_t m, std::int64_t low,
                                     std::int64_t high) {
  if (low == 0) return 0;
  if (a == 0) return -1;
  const __int128 x = (__int128(low) + a - 1) / a;
  if (__int128(a) * x <= high) return std::int64_t(x);
  // No multiple of a in [low, high]: a * x - m * y lands there for the least y whose m * y
  // modulo a lies in [-high, -low] modulo a (one block, neither end 0), then the least x.
  const std::int64_t y = first_multiple_in_range(m % a, a, (a - high % a) % a, (a - low % a) % a);
  if (y < 0) return -1;
  return std::int64_t((__int128(m) * y + low + a - 1) / a);
}

std::int64_t first_overlapping_product(const MatrixGrid& grid, std::int64_t stride,
                                       std::int64_t count) {
  if (count < 2 || grid.empty()) return 0;
  const std::int64_t lines = grid.lines, length = grid.length, ld = grid.ld;
  if (lines == 1 || length > ld) return stride < std::int64_t(grid.extent()) ? 1 : 0;
  if (stride == 0) return 1;
  // Products 0 and k share an element when d = k * stride = di * ld + dj, |di| < lines and
  // |dj| < length <= ld, so di is d / ld rounded down (dj = d mod ld, at most length - 1, and
  // d at most extent - 1) or up (dj = d mod ld - ld, at least 1 - length, and di at most
  // lines - 1). The least k of each residue range is found directly; a larger k only grows d.
  const std::int64_t a = stride % ld;
  const __int128 extent = __int128(lines - 1) * ld + length;
  std::int64_t best = INT64_MAX;
  auto consider = [&](std::int64_t k, __int128 most) {
    if (k >= 1 && k <= count - 1 && __int128(k) * stride <= most) best = std::min(best, k);
  };
  consider(ld / std::gcd(a, ld), extent - 1);  // d mod ld = 0
  if (length >= 2) {
    consider(first_multiple_in_range(a, ld, 1, length - 1), extent - 1);
    consider(first_multiple_in_range(a, ld, ld - length + 1, ld - 1), __int128(lines - 1) * ld - 1);
  }
  return best == INT64_MAX ? 0 : best;
}

std::size_t BatchElements::product_offset(std::int64_t p) const {
  if (table) return std::size_t(table[p].*table_offset);
  return offset + std::size_t(p) * std::size_t(stride);
}

BatchElements batch_elements(const GemmProblem& problem, Argument which) {
  BatchElements e;
  e.which = which;
  e.count = std::max<std::int64_t>(problem.batch, 0);
  auto matrix = [&](Transpose trans, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                    std::size_t offset, std::int64_t stride, cl_ulong BatchProduct::*entry) {
    const bool t = is_transposed(trans);
    const std::int64_t stored_rows = t ? cols : rows, stored_cols = t ? rows : cols;
    const bool row_major = problem.layout == Layout::RowMajor;
    e.grid = {row_major ? stored_rows : stored_cols, row_major ? stored_cols : stored_rows, ld};
    e.offset = offset, e.stride = stride;
    if (problem.products.host) e.table = problem.products.host, e.table_offset = entry;
  };
  switch (which) {
    case Argument::A:
      matrix(problem.trans_a, problem.m, problem.k, problem.lda, problem.a_offset, problem.stride_a,
             &BatchProduct::a_offset);
      break;
    case Argument::B:
      matrix(problem.trans_b, problem.k, problem.n, problem.ldb, problem.b_offset, problem.stride_b,
             &BatchProduct::b_offset);
      break;
    case Argument::C:
      matrix(Transpose::NoTrans, problem.m, problem.n, problem.ldc, problem.c_offset,
             problem.stride_c, &BatchProduct::c_offset);
      break;
    default: {  // the bias: one line per product, at its own stride even with a table
      const auto& epilogue = problem.epilogue;
      const std::int64_t length = epilogue.bias == Bias::None     ? 0
                                  : epilogue.bias == Bias::PerRow ? problem.m
                                                                  : problem.n;
      e.grid = {1, length, std::max<std::int64_t>(length, 1)};
      e.offset = epilogue.bias_offset, e.stride = epilogue.bias_stride;
    }
  }
  return e;
}

std::optional<std::string> overlap_of(const BatchElements& read, const BatchElements& written,
                                      __int128 origin_bytes) {
  if (read.count == 0 || written.count == 0 || read.grid.empty() || written.grid.empty())
    return std::nullopt;
  const char* read_name = argument_name(read.which);
  const char* written_name = argument_name(written.which);
  // Byte ranges first: batches that do not meet at all are done.
  const auto [read_first, read_end] = batch_span(read);
  const auto [written_first, written_end] = batch_span(written);
  const __int128 written_begin_bytes = origin_bytes + __int128(written_first) * 4;
  const __int128 written_end_bytes = origin_bytes + __int128(written_end) * 4;
  if (written_end_bytes <= __int128(read_first) * 4 ||
      __int128(read_end) * 4 <= written_begin_bytes)
    return std::nullopt;
  // One lattice of whole floats: a matrix of one line fits the other's.
  const bool whole_floats = origin_bytes % 4 == 0;
  const std::int64_t ld = read.grid.lines > 1 ? read.grid.ld : written.grid.ld;
  const bool one_lattice = whole_floats && (read.grid.lines == 1 || written.grid.lines == 1 ||
                                            read.grid.ld == written.grid.ld);
  const __int128 pairs = __int128(read.count) * written.count;
  if (pairs > (__int128(1) << 16))
    return "the byte ranges of " + std::string(read_name) + " and " + written_name +
           " across the batch overlap on one memory object (too many products to compare "
           "their elements pairwise)";
  const __int128 read_extent = read.grid.extent(), written_extent = written.grid.extent();
  for (std::int64_t p = 0; p < read.count; ++p)
    for (std::int64_t q = 0; q < written.count; ++q) {
      const __int128 read_at = __int128(read.product_offset(p)) * 4;
      const __int128 written_at = origin_bytes + __int128(written.product_offset(q)) * 4;
      if (written_at + written_extent * 4 <= read_at || read_at + read_extent * 4 <= written_at)
        continue;
      // Byte ranges that meet on different lattices are taken as shared.
      const bool shared =
          !one_lattice || grids_intersect((written_at - read_at) / 4, read.grid, written.grid, ld);
      if (shared)
        return "product " + std::to_string(q) + "'s " + written_name + " and product " +
               std::to_string(p) + "'s " + read_name +
               (one_lattice ? " share elements"
                            : " have overlapping byte ranges (their elements are not compared "
                              "across different leading dimensions or a misaligned start)") +
               " of one memory object (" + written_name + " starts " +
               text(written_at - read_at < 0 ? read_at - written_at : written_at - read_at) +
               (written_at < read_at ? " bytes before " : " bytes after ") + read_name + ")";
    }
  return std::nullopt;
}

}  // namespace clgemm::detail
