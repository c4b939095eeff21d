// GemmProblem helpers: the storage each matrix occupies in its layout and transpose (one
// product and a whole batch), and the validation of sizes, leading dimensions, layout and
// transpose values (the batch and the epilogue: batch_validation.cpp).
#include <algorithm>
#include <climits>
#include <string>
#include <tuple>

#include "clgemm/errors.hpp"
#include "clgemm/gemm.hpp"
#include "problem/batch_validation.hpp"
#include "problem/product_offsets.hpp"

namespace clgemm {
namespace {

// A stored matrix as `lines` lines (rows in row-major, columns in column-major) of `length`
// elements, for op(X) of rows x cols.
struct Storage {
  std::int64_t lines, length;
};

Storage storage(Layout layout, Transpose trans, std::int64_t rows, std::int64_t cols) {
  const bool t = is_transposed(trans);
  const std::int64_t stored_rows = t ? cols : rows, stored_cols = t ? rows : cols;
  return layout == Layout::RowMajor ? Storage{stored_rows, stored_cols}
                                    : Storage{stored_cols, stored_rows};
}

// (lines - 1) * ld + length (0 for an empty matrix), or SIZE_MAX when that many floats would
// not fit a 64-bit byte count.
std::size_t extent(Storage s, std::int64_t ld) {
  if (s.lines <= 0 || s.length <= 0) return 0;
  std::size_t span, total;
  if (__builtin_mul_overflow(std::size_t(s.lines - 1), std::size_t(ld), &span) ||
      __builtin_add_overflow(span, std::size_t(s.length), &total) ||
      total > SIZE_MAX / sizeof(float))
    return SIZE_MAX;
  return total;
}

// offset + extent, or SIZE_MAX when that would not fit a 64-bit byte count: every later
// `elements * sizeof(float)` of a validated problem is then exact.
std::size_t end_of(std::size_t offset, std::size_t extent) {
  std::size_t total;
  if (extent == SIZE_MAX || __builtin_add_overflow(offset, extent, &total) ||
      total > SIZE_MAX / sizeof(float))
    return SIZE_MAX;
  return total;
}

// The offset of the last product of a strided batch: offset + (batch - 1) * stride.
std::size_t last_offset(std::size_t offset, std::int64_t batch, std::int64_t stride) {
  std::size_t step, total;
  if (batch <= 1) return offset;
  if (stride < 0 || __builtin_mul_overflow(std::size_t(batch - 1), std::size_t(stride), &step) ||
      __builtin_add_overflow(offset, step, &total))
    return SIZE_MAX;
  return total;
}

// Elements an operand's array must hold: the farthest product's offset plus the extent.
std::size_t batch_end(const GemmProblem& p, std::size_t offset, std::int64_t stride,
                      std::size_t extent, cl_ulong BatchProduct::*entry_offset) {
  if (p.batch <= 0) return end_of(offset, 0);  // no product: the offset alone, as documented
  if (p.products.host) {
    std::size_t end = 0;
    for (std::int64_t i = 0; i < p.batch; ++i)
      end = std::max(end, end_of(std::size_t(p.products.host[i].*entry_offset), extent));
    return end;
  }
  const std::size_t last = last_offset(offset, p.batch, stride);
  return last == SIZE_MAX ? SIZE_MAX : end_of(last, extent);
}

}  // namespace

GemmProblem GemmProblem::packed(std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                                float beta) {
  GemmProblem p;
  p.m = m, p.n = n, p.k = k, p.alpha = alpha, p.beta = beta;
  p.lda = std::max<std::int64_t>(k, 1), p.ldb = std::max<std::int64_t>(n, 1);
  p.ldc = std::max<std::int64_t>(n, 1);
  return p;
}

GemmProblem GemmProblem::packed_batch(std::int64_t m, std::int64_t n, std::int64_t k,
                                      std::int64_t batch, float alpha, float beta) {
  GemmProblem p = packed(m, n, k, alpha, beta);
  p.batch = batch;
  p.stride_a = m * k, p.stride_b = k * n, p.stride_c = m * n;
  return p;
}

GemmProblem GemmProblem::product(std::int64_t index) const {
  GemmProblem one = *this;
  one.batch = 1;
  one.stride_a = one.stride_b = one.stride_c = 0;
  one.products = {};
  const detail::ProductOffsets at = detail::product_offsets(*this, index);
  one.a_offset = at.a, one.b_offset = at.b, one.c_offset = at.c;
  if (products.host) one.alpha = products.host[index].alpha, one.beta = products.host[index].beta;
  one.epilogue.bias_offset = at.bias;
  one.epilogue.bias_stride = 0;
  return one;
}

// As in BLAS, a leading dimension is at least 1 even when the line it spans is empty.
std::int64_t GemmProblem::min_lda() const {
  return std::max<std::int64_t>(1, storage(layout, trans_a, m, k).length);
}
std::int64_t GemmProblem::min_ldb() const {
  return std::max<std::int64_t>(1, storage(layout, trans_b, k, n).length);
}
std::int64_t GemmProblem::min_ldc() const {
  return std::max<std::int64_t>(1, storage(layout, Transpose::NoTrans, m, n).length);
}

bool GemmProblem::is_empty() const {
  return m == 0 || n == 0 || batch == 0;
}

// With a product table each product has its own alpha, so A and B are read unless K is 0 (the
// kernels skip the products of entries whose alpha is 0).
bool GemmProblem::reads_operands() const {
  return !is_empty() && k > 0 && (products.given() || alpha != 0.0f);
}

std::size_t GemmProblem::a_extent() const {
  return extent(storage(layout, trans_a, m, k), lda);
}
std::size_t GemmProblem::b_extent() const {
  return extent(storage(layout, trans_b, k, n), ldb);
}
std::size_t GemmProblem::c_extent() const {
  return extent(storage(layout, Transpose::NoTrans, m, n), ldc);
}

std::size_t GemmProblem::a_elements() const {
  return batch_end(*this, a_offset, stride_a, a_extent(), &BatchProduct::a_offset);
}
std::size_t GemmProblem::b_elements() const {
  return batch_end(*this, b_offset, stride_b, b_extent(), &BatchProduct::b_offset);
}
std::size_t GemmProblem::c_elements() const {
  return batch_end(*this, c_offset, stride_c, c_extent(), &BatchProduct::c_offset);
}

std::size_t GemmProblem::bias_elements() const {
  if (epilogue.bias == Bias::None) return 0;
  const std::int64_t length = epilogue.bias == Bias::PerRow ? m : n;
  const std::size_t last = last_offset(epilogue.bias_offset, batch, epilogue.bias_stride);
  return last == SIZE_MAX ? SIZE_MAX : end_of(last, std::size_t(std::max<std::int64_t>(length, 0)));
}

std::size_t GemmProblem::c_index(std::int64_t i, std::int64_t j, std::int64_t p) const {
  return c_offset + std::size_t(p) * std::size_t(stride_c) +
         (layout == Layout::RowMajor ? std::size_t(i) * std::size_t(ldc) + std::size_t(j)
                                     : std::size_t(j) * std::size_t(ldc) + std::size_t(i));
}

void validate_problem(const GemmProblem& p) {
  if (p.layout != Layout::RowMajor && p.layout != Layout::ColumnMajor)
    throw Error(ErrorCode::InvalidArgument,
                "layout = " + std::to_string(int(p.layout)) +
                    " is neither row-major (101) nor column-major (102)",
                Argument::Layout);
  for (auto [which, value] :
       {std::pair{Argument::TransA, p.trans_a}, {Argument::TransB, p.trans_b}})
    if (value != Transpose::NoTrans && !is_transposed(value))
      throw Error(ErrorCode::InvalidArgument,
                  std::string(argument_name(which)) + " = " + std::to_string(int(value)) +
                      " is none of no-transpose (111), transpose (112) and conjugate transpose "
                      "(113, the same for real data)",
                  which);

  // The kernels index with 32-bit sizes and 64-bit offsets. Zero is a quick return (BLAS).
  const std::int64_t limit = INT_MAX;
  for (auto [which, value] :
       {std::pair{Argument::M, p.m}, {Argument::N, p.n}, {Argument::K, p.k}}) {
    const char* name = argument_name(which);
    if (value < 0)
      throw Error(ErrorCode::InvalidSize,
                  std::string(name) + " = " + std::to_string(value) + " must not be negative",
                  which);
    if (value > limit)
      throw Error(ErrorCode::InvalidSize,
                  std::string(name) + " = " + std::to_string(value) +
                      " exceeds the largest supported size " + std::to_string(limit),
                  which);
  }
  // Which size each stored line spans: a row-major A line is a row of op(A) (K long) unless A
  // is transposed, and column-major flips that.
  const bool row_major = p.layout == Layout::RowMajor;
  const bool a_t = is_transposed(p.trans_a), b_t = is_transposed(p.trans_b);
  const char* line = row_major ? "row" : "column";
  struct Ld {
    Argument which;
    std::int64_t value, minimum;
    const char *size, *matrix;
  };
  for (const Ld& ld : {Ld{Argument::Lda, p.lda, p.min_lda(), row_major != a_t ? "K" : "M", "A"},
                       Ld{Argument::Ldb, p.ldb, p.min_ldb(), row_major != b_t ? "N" : "K", "B"},
                       Ld{Argument::Ldc, p.ldc, p.min_ldc(), row_major ? "N" : "M", "C"}}) {
    const char* name = argument_name(ld.which);
    if (ld.value < ld.minimum)
      throw Error(ErrorCode::InvalidLeadingDimension,
                  std::string(name) + " = " + std::to_string(ld.value) + " is smaller than " +
                      (ld.minimum == 1 ? std::string("1, the least any leading dimension may be")
                                       : std::string(ld.size) + " = " + std::to_string(ld.minimum) +
                                             ", the length of each " + line + " of " + ld.matrix +
                                             " as stored"),
                  ld.which);
    if (ld.value > limit)
      throw Error(ErrorCode::InvalidLeadingDimension,
                  std::string(name) + " = " + std::to_string(ld.value) +
                      " exceeds the largest supported leading dimension " + std::to_string(limit),
                  ld.which);
  }
  detail::validate_batch(p);
  detail::validate_epilogue(p);
  // A batch whose one product fits but whose last does not: the stride is at fault (no array
  // or buffer could be too small for it).
  for (auto [which, stride_argument, offset, stride, extent, count] :
       {std::tuple{Argument::A, Argument::StrideA, p.a_offset, p.stride_a, p.a_extent(),
                   p.a_elements()},
        std::tuple{Argument::B, Argument::StrideB, p.b_offset, p.stride_b, p.b_extent(),
                   p.b_elements()},
        std::tuple{Argument::C, Argument::StrideC, p.c_offset, p.stride_c, p.c_extent(),
                   p.c_elements()}})
    if (count == SIZE_MAX && p.batch > 1 && !p.products.given() &&
        end_of(offset, extent) != SIZE_MAX)
      throw Error(ErrorCode::InvalidSize,
                  std::string(argument_name(stride_argument)) + " = " + std::to_string(stride) +
                      ": matrix " + argument_name(which) +
                      "'s last product (offset + (batch - 1) x stride + extent) in bytes "
                      "overflows 64 bits",
                  stride_argument);
  for (auto [which, count] : {std::pair{Argument::A, p.a_elements()},
                              {Argument::B, p.b_elements()},
                              {Argument::C, p.c_elements()}})
    if (count == SIZE_MAX)
      throw Error(ErrorCode::InvalidSize,
                  std::string("matrix ") + argument_name(which) +
                      "'s extent (offset + lines x leading dimension) in bytes "
                      "overflows 64 bits",
                  which);
}

}  // namespace clgemm
