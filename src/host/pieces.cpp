// The pieces of a host-array call and what each moves (pieces.hpp).
#include "host/pieces.hpp"

#include <algorithm>
#include <utility>

#include "problem/product_offsets.hpp"

namespace clgemm::detail {
namespace {

// Where product p's matrices start and its scalars: from a host table, or the strides.
struct Products {
  const GemmProblem& p;
  std::size_t offset(Matrix which, std::int64_t i) const {
    return pick(which, product_offsets(p, i));
  }
  std::size_t lowest(Matrix which) const { return pick(which, lowest_product_offsets(p)); }
  static std::size_t pick(Matrix which, const ProductOffsets& at) {
    switch (which) {
      case Matrix::A:
        return at.a;
      case Matrix::B:
        return at.b;
      case Matrix::C:
        return at.c;
      case Matrix::Bias:
        break;
    }
    return at.bias;
  }
  float alpha(std::int64_t i) const { return p.products.host ? p.products.host[i].alpha : p.alpha; }
  float beta(std::int64_t i) const { return p.products.host ? p.products.host[i].beta : p.beta; }
};

// Whether the stored lines of op(A) (m x k) are its rows, and those of op(B) (k x n) its rows
// (K's lines), and those of C its rows.
bool a_lines_are_rows(const GemmProblem& p) {
  return (p.layout == Layout::RowMajor) != is_transposed(p.trans_a);
}
bool b_lines_are_depth(const GemmProblem& p) {
  return (p.layout == Layout::RowMajor) != is_transposed(p.trans_b);
}
bool c_lines_are_rows(const GemmProblem& p) {
  return p.layout == Layout::RowMajor;
}

// Whether one block serves every product: a stride of 0 without a table (or a batch of 1).
bool one_for_all(Matrix which, const GemmProblem& p) {
  if (p.products.host) return p.batch == 1;
  switch (which) {
    case Matrix::A:
      return p.stride_a == 0;
    case Matrix::B:
      return p.stride_b == 0;
    case Matrix::C:
      return p.batch == 1;
    case Matrix::Bias:
      break;
  }
  return p.epilogue.bias_stride == 0;
}

// The block's lines and positions in the problem's terms: first line, lines, first position,
// length.
struct Window {
  std::int64_t line, lines, position, length;
};
Window window_of(Matrix which, const GemmProblem& p, const Piece& piece) {
  switch (which) {
    case Matrix::A:
      return a_lines_are_rows(p) ? Window{piece.row, piece.rows, piece.depth_start, piece.depth}
                                 : Window{piece.depth_start, piece.depth, piece.row, piece.rows};
    case Matrix::B:
      return b_lines_are_depth(p)
                 ? Window{piece.depth_start, piece.depth, piece.column, piece.columns}
                 : Window{piece.column, piece.columns, piece.depth_start, piece.depth};
    case Matrix::C:
      return c_lines_are_rows(p) ? Window{piece.row, piece.rows, piece.column, piece.columns}
                                 : Window{piece.column, piece.columns, piece.row, piece.rows};
    case Matrix::Bias:
      break;
  }
  return p.epilogue.bias == Bias::PerRow ? Window{0, 1, piece.row, piece.rows}
                                         : Window{0, 1, piece.column, piece.columns};
}

std::int64_t host_ld(Matrix which, const GemmProblem& p) {
  return which == Matrix::A ? p.lda : which == Matrix::B ? p.ldb : which == Matrix::C ? p.ldc : 0;
}

}  // namespace

std::vector<Piece> list_pieces(const TilePlan& plan) {
  std::vector<Piece> pieces;
  pieces.reserve(std::size_t(plan.pieces()));
  std::size_t tile = 0;
  for (std::int64_t g = 0; g < plan.batch; g += plan.products)
    for (std::int64_t i = 0; i < plan.m; i += plan.tile_m)
      for (std::int64_t j = 0; j < plan.n; j += plan.tile_n, ++tile)
        for (std::int64_t s = 0; s < plan.slabs(); ++s) {
          Piece piece;
          piece.first_product = g, piece.products = std::min(plan.products, plan.batch - g);
          piece.row = i, piece.rows = std::min(plan.tile_m, plan.m - i);
          piece.column = j, piece.columns = std::min(plan.tile_n, plan.n - j);
          piece.depth_start = s * plan.tile_k;
          piece.depth = std::min(plan.tile_k, plan.k - piece.depth_start);
          piece.slab = s, piece.slabs = plan.slabs(), piece.tile = tile;
          pieces.push_back(piece);
        }
  return pieces;
}

bool reads_c(const GemmProblem& problem) {
  if (!problem.products.host) return problem.beta != 0.0f;
  for (std::int64_t i = 0; i < problem.batch; ++i)
    if (problem.products.host[i].beta != 0.0f) return true;
  return false;
}

TilingInput tiling_input(const GemmProblem& p) {
  TilingInput in;
  in.m = p.m, in.n = p.n, in.k = p.k, in.batch = p.batch;
  in.operands = p.reads_operands();
  in.reads_c = reads_c(p);
  in.a_shared = one_for_all(Matrix::A, p), in.b_shared = one_for_all(Matrix::B, p);
  in.bias = p.epilogue.bias != Bias::None;
  in.bias_shared = one_for_all(Matrix::Bias, p);
  in.bias_per_row = p.epilogue.bias == Bias::PerRow;
  in.table = p.products.host != nullptr;
  const Products at{p};
  if (in.operands) {
    in.a_span = (p.a_elements() - at.lowest(Matrix::A)) * sizeof(float);
    in.b_span = (p.b_elements() - at.lowest(Matrix::B)) * sizeof(float);
  }
  in.c_span = (p.c_elements() - at.lowest(Matrix::C)) * sizeof(float);
  if (in.bias) in.bias_span = (p.bias_elements() - p.epilogue.bias_offset) * sizeof(float);
  return in;
}

StoredBlock block_of(Matrix which, const GemmProblem& p, const TilePlan& plan, const Piece& piece,
                     const HostArrays& arrays) {
  const Products at{p};
  StoredBlock block;
  const float* host = which == Matrix::A   ? arrays.a
                      : which == Matrix::B ? arrays.b
                      : which == Matrix::C ? arrays.c
                                           : arrays.bias;
  block.host = const_cast<float*>(host);  // written only for C
  const bool one = one_for_all(which, p);
  const std::int64_t products = one ? 1 : piece.products;
  if (plan.whole) {
    // As the caller laid it out, from the lowest product's offset.
    const Window w = window_of(which, p, piece);
    block.lines = std::size_t(w.lines), block.length = std::size_t(w.length);
    block.host_ld = block.device_ld = std::size_t(std::max<std::int64_t>(host_ld(which, p), 0));
    const std::size_t base = at.lowest(which);
    block.mirror_base = base;
    for (std::int64_t q = 0; q < products; ++q) {
      block.host_starts.push_back(at.offset(which, q));
      block.device_starts.push_back(at.offset(which, q) - base);
    }
    return block;
  }
  const Window w = window_of(which, p, piece);
  block.lines = std::size_t(w.lines), block.length = std::size_t(w.length);
  block.device_ld = block.length;
  block.host_ld = std::size_t(host_ld(which, p));
  const std::size_t elements = block.lines * block.length;
  for (std::int64_t q = 0; q < products; ++q) {
    const std::size_t start = at.offset(which, piece.first_product + q) +
                              std::size_t(w.line) * block.host_ld + std::size_t(w.position);
    block.host_starts.push_back(start);
    block.device_starts.push_back(std::size_t(q) * elements);
  }
  return block;
}

BlockKey key_of(Matrix which, const GemmProblem& p, const TilePlan&, const Piece& piece) {
  const std::int64_t product = one_for_all(which, p) ? -1 : piece.first_product;
  switch (which) {
    case Matrix::A:
      return {product, piece.row, piece.depth_start};
    case Matrix::B:
      return {product, piece.depth_start, piece.column};
    case Matrix::C:
      return {std::int64_t(piece.tile), 0, 0};
    case Matrix::Bias:
      break;
  }
  return {product, p.epilogue.bias == Bias::PerRow ? piece.row : piece.column, 0};
}

namespace {

// piece_problem() with a table's entries in the problem's terms.
GemmProblem piece_problem_terms(const GemmProblem& p, const TilePlan& plan, const Piece& piece,
                                std::vector<BatchProduct>& table) {
  const Products at{p};
  GemmProblem s = p;
  s.epilogue.bias_data = nullptr;
  s.products = {};
  if (plan.whole) {
    // Offsets from each slot's start: the lowest product's offset.
    if (p.products.host) {
      s.products.offset = table.size();
      const ProductOffsets lowest = lowest_product_offsets(p);
      for (std::int64_t q = 0; q < p.batch; ++q) {
        BatchProduct e = p.products.host[q];
        e.a_offset -= lowest.a, e.b_offset -= lowest.b, e.c_offset -= lowest.c;
        table.push_back(e);
      }
    } else {
      s.a_offset = s.b_offset = s.c_offset = 0;
    }
    s.epilogue.bias_offset = 0;
    return s;
  }
  s.m = piece.rows, s.n = piece.columns;
  s.k = p.reads_operands() ? piece.depth : p.k;
  s.beta = piece.first_slab() ? p.beta : 1.0f;
  const Window wa = window_of(Matrix::A, p, piece), wb = window_of(Matrix::B, p, piece);
  const Window wc = window_of(Matrix::C, p, piece);
  s.lda = std::max<std::int64_t>(1, wa.length), s.ldb = std::max<std::int64_t>(1, wb.length);
  s.ldc = std::max<std::int64_t>(1, wc.length);
  s.a_offset = s.b_offset = s.c_offset = 0;
  s.batch = piece.products;
  const std::int64_t a_block = wa.lines * wa.length, b_block = wb.lines * wb.length;
  const std::int64_t c_block = wc.lines * wc.length;
  s.stride_a = s.stride_b = s.stride_c = 0;
  if (p.products.host) {
    s.products.offset = table.size();
    for (std::int64_t q = 0; q < piece.products; ++q) {
      const std::int64_t i = piece.first_product + q;
      table.push_back({cl_ulong(q * a_block), cl_ulong(q * b_block), cl_ulong(q * c_block),
                       at.alpha(i), piece.first_slab() ? at.beta(i) : 1.0f});
    }
  } else if (piece.products > 1) {
    s.stride_a = one_for_all(Matrix::A, p) ? 0 : a_block;
    s.stride_b = one_for_all(Matrix::B, p) ? 0 : b_block;
    s.stride_c = c_block;
  }
  if (piece.last_slab()) {
    const Window wbias = window_of(Matrix::Bias, p, piece);
    s.epilogue.bias_offset = 0;
    s.epilogue.bias_stride = one_for_all(Matrix::Bias, p) ? 0 : wbias.length;
  } else {
    s.epilogue = Epilogue();  // the bias and activation come with the last slab
  }
  return s;
}

}  // namespace

GemmProblem piece_problem(const GemmProblem& p, const TilePlan& plan, const Piece& piece,
                          std::vector<BatchProduct>& table) {
  GemmProblem s = piece_problem_terms(p, plan, piece, table);
  // The kernels read a table in the row-major call's terms: a column-major problem's B is
  // their A.
  if (p.layout == Layout::ColumnMajor && p.products.host)
    for (std::size_t e = s.products.offset; e < table.size(); ++e)
      std::swap(table[e].a_offset, table[e].b_offset);
  return s;
}

}  // namespace clgemm::detail
